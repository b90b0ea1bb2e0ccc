#!/usr/bin/env bash
# The GPU half of results/pareval-2024 (bench/pareval_2024.sh): ParEval's CUDA and HIP outputs of the four LLMs,
# on the lent GPU machine (device tool). Import here first (the corpus never enters the repository):
#
#   hpceval import pareval ../shared/corpus/pareval-sample/*.json --out .gpu-carry/pareval
#
# then, on the device, with carry [".whl", ".gpu-carry"] (bench/gpu_selftest.sh's header):
#
#   OUT=$OUT bash bench/pareval_2024_gpu.sh [.gpu-carry/pareval]
#
# which runs bench/gpu_replay.sh over every replay file (MODELS default cpp-cuda,cpp-hip) into $OUT/<llm>/, the
# folders bench/pareval_2024.sh takes as GPU_DIR.
set -uo pipefail
cd "$(dirname "$0")/.."
DIR=${1:-.gpu-carry/pareval}
export MODELS=${MODELS:-cpp-cuda,cpp-hip}
PAIRS=()
for file in "$DIR"/*.jsonl; do
  PAIRS+=("$(basename "$file" .jsonl)=$file")
done
exec bash bench/gpu_replay.sh "${PAIRS[@]}"
