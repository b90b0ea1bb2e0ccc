#!/usr/bin/env bash
# Several GPU tasks side by side on a multi-GPU machine (device tool, e.g. nvidia-h100-x4), each on its own GPU, in
# one call: the machine is prepared once (bench/gpu_env.sh), then every task runs in the background with
# CUDA_VISIBLE_DEVICES set to its GPU (hpceval passes it to every sandboxed build and run) and its own timing lock
# (HPCEVAL_TIMING_LOCK: timed runs on different GPUs may overlap; two on one GPU never do), under a time limit.
#
#   OUT=$OUT bash bench/gpu_parallel.sh "GPU NAME COMMAND" ["GPU NAME COMMAND" ...]
#
# COMMAND runs with OUT=$OUT/NAME and writes $OUT/NAME.log; TASK_S (default 540) bounds every task, so that what a
# cut-off task wrote (its store is written row by row, and resumable) comes back: at the end every task's folder
# and log are packed into $OUT/tasks.tgz (the device tool brings back 8 files). Carry [".whl", ".gpu-carry"].
# Example (the GPU tests on GPU 0 while ParEval's GPT-3.5 outputs are graded and timed on GPU 1):
#   bash bench/gpu_parallel.sh "0 tests bash bench/gpu_verdicts.sh --tests" \
#     "1 gpt35 RUN_ARGS='--hints none --kernels axpy,gemv,gemm -n 20' MODELS=cpp-cuda,cpp-hip bash bench/gpu_replay.sh gpt-3.5=.gpu-carry/pareval/gpt-3.5.jsonl"
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=${OUT:-$ROOT/results/gpu-parallel-latest}
mkdir -p "$OUT"
exec > >(tee "$OUT/gpu_parallel.log") 2>&1
export PYTHONUNBUFFERED=1
start=$(date +%s)
step() { echo "== [$(( $(date +%s) - start )) s] $*"; }
# shellcheck source=bench/gpu_env.sh
source "$ROOT/bench/gpu_env.sh"
export GPU_ENV_READY=1
pids=()
names=()
for task in "$@"; do
  read -r gpu name command <<< "$task"
  step "start $name on GPU $gpu: $command"
  mkdir -p "$OUT/$name"
  (
    export CUDA_VISIBLE_DEVICES=$gpu HPCEVAL_TIMING_LOCK=/tmp/hpceval-timing-gpu$gpu.lock OUT=$OUT/$name
    timeout "${TASK_S:-540}" bash -c "$command"
  ) > "$OUT/$name.log" 2>&1 &
  pids+=($!)
  names+=("$name")
done
rc=0
for i in "${!pids[@]}"; do
  wait "${pids[$i]}"
  code=$?
  step "${names[$i]}: exit $code"
  rc=$(( rc | code ))
done
# the device tool brings back at most 8 files, 2 folders down: every task's folder and log in one archive
(cd "$OUT" && tar czf tasks.tgz "${names[@]}" "${names[@]/%/.log}" doctor.md 2>/dev/null; rm -rf "${names[@]}" "${names[@]/%/.log}")
ls -la "$OUT"
step "done (rc=$rc)"
exit $rc
