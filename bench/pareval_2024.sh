#!/usr/bin/env bash
# results/pareval-2024: ParEval's published outputs of four LLMs (GPT-3.5, CodeLlama-13B, CodeLlama-34B, Gemini-Pro;
# Nichols et al., HPDC'24; ../shared/corpus/pareval-sample) graded by execution over the problems that are
# hpceval kernels (AXPY out of place, GEMV, GEMM) x OpenMP and Kokkos here; CUDA and HIP on the GPU machine
# (bench/pareval_2024_gpu.sh), merged with `hpceval report --merge`. Every output is graded as ParEval compiles
# it: prompt + output, after ParEval's standard includes (the records' prelude, named in the evidence). Raw runs
# (results.sqlite holds the suggestions' text: research data) stay in $RUNS, never in the repository.
#
#   bash bench/pareval_2024.sh [PAREVAL_DIR [GPU_DIR ...]]   (default ../shared/corpus/pareval-sample)
#   REPORT_ONLY=1 bash bench/pareval_2024.sh ...         (the runs in $RUNS as they are: reports only)
#   KERNELS=axpy N=2 RUNS=/tmp/p RESULTS=/tmp/r bash bench/pareval_2024.sh    (a slice, to try the script)
#
# Environment: KERNELS (default axpy,gemv,gemm), MODELS (default cpp-openmp,cpp-kokkos), N (outputs per prompt,
# default 20: all of ParEval's), JOBS (default 2), RUNS (default runs/pareval), RESULTS (default results),
# TIMING (default 1; 0: verdicts only, no reference run, no speedups), PEER (default 1: also ParEval's verdicts from
# bench/pareval_peer.py, PEER_ARGS e.g. "--threads 1,2,8" on a small machine, and the side-by-side table
# bench/pareval_agreement.py writes into $RESULTS/pareval-2024/agreement, with the GPU rows where GPU_DIR has
# peer/peer_verdicts.csv).
# GPU_DIR: the $OUT of bench/pareval_2024_gpu.sh (one folder per LLM, named as the replay files are), one per
# device run (e.g. the CUDA run and the HIP run); every one is merged.
set -euo pipefail
cd "$(dirname "$0")/.."
PAREVAL=${1:-../shared/corpus/pareval-sample}
GPU_DIRS=("${@:2}")
JOBS=${JOBS:-2}
KERNELS=${KERNELS:-axpy,gemv,gemm}
MODELS=${MODELS:-cpp-openmp,cpp-kokkos}
N=${N:-20}
RUNS=${RUNS:-runs/pareval}
RESULTS=${RESULTS:-results}
mkdir -p "$RUNS" "$RESULTS/pareval-2024"
TIMING=${TIMING:-1}
TIMING_ARGS=()
BASELINE=(--baseline "$RUNS/reference")
if [ "$TIMING" = 0 ]; then
  TIMING_ARGS=(--no-timing)
  BASELINE=()
fi
if [ -z "${REPORT_ONLY:-}" ]; then
  hpceval import pareval "$PAREVAL"/*.json --out "$RUNS/replay"
  for file in "$RUNS"/replay/*.jsonl; do
    name=$(basename "$file" .jsonl)
    hpceval run --llm "replay:$file" --style paper --hints none --models "$MODELS" --kernels "$KERNELS" -n "$N" \
      --jobs "$JOBS" "${TIMING_ARGS[@]}" --out "$RUNS/$name"
  done
  if [ "$TIMING" != 0 ]; then
    hpceval run --llm reference --style paper --hints none --models "$MODELS" --kernels "$KERNELS" --jobs "$JOBS" \
      --out "$RUNS/reference"
  fi
  if [ "${PEER:-1}" != 0 ]; then
    peer_models=$(echo "$MODELS" | sed 's/cpp-openmp/omp/; s/cpp-kokkos/kokkos/')
    python3 bench/pareval_peer.py --replay "$RUNS/replay" --out "$RUNS/peer" --models "$peer_models" --per "$N" \
      --jobs "$JOBS" ${PEER_ARGS:-}
  fi
fi
DIRS=()
MERGE=()
for file in "$RUNS"/replay/*.jsonl; do
  name=$(basename "$file" .jsonl)
  DIRS+=("$RUNS/$name")
  for gpu_dir in "${GPU_DIRS[@]}"; do
    if [ -d "$gpu_dir/$name" ]; then
      DIRS+=("$gpu_dir/$name")
      MERGE=(--merge)
    fi
  done
done
for gpu_dir in "${GPU_DIRS[@]}"; do  # the GPU models' references, timed on the GPU machine
  if [ "$TIMING" != 0 ] && [ -f "$gpu_dir/reference/evaluations.csv" ]; then
    BASELINE+=(--baseline "$gpu_dir/reference")
  fi
done
# all four LLMs in one report: leaderboard, pass@k for k <= 20, proficiency, speedups with CIs, and the paired
# comparisons between them (comparisons.csv) on the prompts they share
hpceval report "${DIRS[@]}" "${MERGE[@]}" "${BASELINE[@]}" --ks 1,5,10,20 --out "$RESULTS/pareval-2024"
python3 - "$RESULTS/pareval-2024" "${MERGE[@]}" "${DIRS[@]}" <<'PY'
import sys
from hpceval.report.load import load_results
from hpceval.store import RESULT_COLUMNS
merge = "--merge" in sys.argv
frame = load_results([d for d in sys.argv[2:] if d != "--merge"], merge=merge)
if "evaluated_in_run" in frame:  # the run each row was evaluated in, not the one its prompt is scored under
    frame["run_id"] = frame["evaluated_in_run"]
frame[RESULT_COLUMNS].to_csv(f"{sys.argv[1]}/evaluations.csv", index=False)
PY
if [ "$TIMING" != 0 ]; then
  mkdir -p "$RESULTS/pareval-2024/reference"
  cp "$RUNS/reference/evaluations.csv" "$RESULTS/pareval-2024/reference/evaluations.csv"
  for gpu_dir in "${GPU_DIRS[@]}"; do  # the GPU references timed on the device: the GPU rows' baseline
    if [ -f "$gpu_dir/reference/evaluations.csv" ]; then
      mkdir -p "$RESULTS/pareval-2024/reference-gpu"
      cp "$gpu_dir/reference/evaluations.csv" "$RESULTS/pareval-2024/reference-gpu/evaluations.csv"
    fi
  done
fi
if [ -f "$RUNS/peer/peer_verdicts.csv" ]; then  # PEER=0 skips grading with the peer, not comparing with it
  PEERS=("$RUNS/peer/peer_verdicts.csv")
  for gpu_dir in "${GPU_DIRS[@]}"; do
    [ -f "$gpu_dir/peer/peer_verdicts.csv" ] && PEERS+=("$gpu_dir/peer/peer_verdicts.csv")
  done
  python3 bench/pareval_agreement.py --replay "$RUNS/replay" --hpceval "${DIRS[@]}" --peer "${PEERS[@]}" \
    --out "$RESULTS/pareval-2024/agreement"
fi
