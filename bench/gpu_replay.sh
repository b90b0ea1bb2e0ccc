#!/usr/bin/env bash
# Evaluate imported suggestions (replay JSONL) for the GPU programming models on the lent GPU machine, in one call
# (device tool; no internet, Python 3.12). Used for the published study results (results/copilot-2023/README.md).
#
#   bash bench/gpu_replay.sh NAME=FILE.jsonl [NAME=FILE.jsonl ...]   (NAME=reference: the reference solutions)
#
# Each FILE is evaluated with `hpceval run --llm replay:FILE --style paper --hints all -n 30` over $MODELS
# (default: the GPU models that have a toolchain on that machine) into $OUT/NAME/ (results.sqlite and
# evaluations.csv). Prepare .whl/ and .gpu-carry/ as bench/gpu_selftest.sh's header says and put the replay files
# under .gpu-carry/ (ignored by git: research data never enters the repository); carry [".whl", ".gpu-carry"].
# Merge here with `hpceval report CPU_DIR $OUT/NAME ...`. RUN_ARGS: more `hpceval run` options (e.g. "--no-timing
# --kernels axpy,gemv,gemm -n 20"); PACK=1 packs every NAME/ folder into $OUT/replay.tgz (the device tool brings
# back at most 8 files).
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=${OUT:-$ROOT/results/gpu-replay-latest}
MODELS=${MODELS:-cpp-cuda,cpp-hip,cpp-thrust,cpp-kokkos,python-cupy,python-pycuda,python-triton}
JOBS=${JOBS:-$(nproc)}
mkdir -p "$OUT"
exec > >(tee "$OUT/gpu_replay.log") 2>&1
export PYTHONUNBUFFERED=1 COLUMNS=160
start=$(date +%s)
step() { echo "== [$(( $(date +%s) - start )) s] $*"; }

# shellcheck source=bench/gpu_env.sh
source "$ROOT/bench/gpu_env.sh"

rc=0
for pair in "$@"; do
  name=${pair%%=*}
  file=${pair#*=}
  step "$name: $file over $MODELS"
  llm=$file
  [[ $file == *.jsonl ]] && llm=replay:$file  # else an LLM spec: NAME=reference times the reference solutions
  python3 -m hpceval.cli run --llm "$llm" --style paper --hints all -n 30 --models "$MODELS" \
    --jobs "$JOBS" --out "$OUT/$name" ${RUN_ARGS:-} || rc=1
done
if [ -n "${PACK:-}" ]; then
  (cd "$OUT" && tar czf replay.tgz */evaluations.csv */results.sqlite && for pair in "$@"; do rm -rf "${pair%%=*}"; done)
fi
step "done (rc=$rc)"
exit $rc
