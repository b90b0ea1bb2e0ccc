#!/usr/bin/env bash
# The GPU half of results/pareval-2024 (bench/pareval_2024.sh): ParEval's CUDA and HIP outputs of the four LLMs,
# graded by hpceval and by the peer grader (bench/pareval_peer.py: ParEval's own driver contract) on the lent GPU
# machine (device tool), in one call. Import here first (the corpus never enters the repository):
#
#   hpceval import pareval ../shared/corpus/pareval-sample/*.json --out .gpu-carry/pareval
#
# then, on the device, with carry [".whl", ".gpu-carry"] (bench/gpu_selftest.sh's header):
#
#   OUT=$OUT bash bench/pareval_2024_gpu.sh [.gpu-carry/pareval]
#
# hpceval: bench/gpu_replay.sh over every replay file (MODELS default cpp-cuda,cpp-hip; RUN_ARGS default: AXPY,
# GEMV, GEMM, all 20 outputs, no timing) into $OUT/<llm>/, packed into $OUT/replay.tgz: unpack it here and give
# the folders to bench/pareval_2024.sh as GPU_DIR. Peer: bench/pareval_peer.py on the same outputs (PEER_JOBS
# parallel builds, default 4, beside hpceval's JOBS, default nproc - 4), verdicts packed into $OUT/peer.tgz; compare
# with bench/pareval_agreement.py (results/pareval-2024/README.md). PEER=0 skips the peer. Two shorter calls if one
# risks the device's 600 s: MODELS=cpp-cuda PEER_MODELS=cuda, then MODELS=cpp-hip PEER_MODELS=hip (separate $OUTs).
set -uo pipefail
cd "$(dirname "$0")/.."
DIR=${1:-.gpu-carry/pareval}
export OUT=${OUT:-$PWD/results/gpu-replay-latest}
export MODELS=${MODELS:-cpp-cuda,cpp-hip}
export RUN_ARGS=${RUN_ARGS:---hints none --no-timing --kernels axpy,gemv,gemm -n 20}
export PACK=${PACK:-1}
export JOBS=${JOBS:-$(( $(nproc) > 8 ? $(nproc) - 4 : $(nproc) ))}
mkdir -p "$OUT"
PAIRS=()
for file in "$DIR"/*.jsonl; do
  PAIRS+=("$(basename "$file" .jsonl)=$file")
done
peer=
if [ "${PEER:-1}" != 0 ]; then
  python3 bench/pareval_peer.py --replay "$DIR" --out "$OUT/peer" --models "${PEER_MODELS:-cuda,hip}" --jobs "${PEER_JOBS:-4}" \
    > "$OUT/peer.log" 2>&1 &
  peer=$!
fi
bash bench/gpu_replay.sh "${PAIRS[@]}"
rc=$?
if [ -n "$peer" ]; then
  wait "$peer" || rc=1
  tail -3 "$OUT/peer.log"
  (cd "$OUT" && tar czf peer.tgz peer.log peer/peer_verdicts.csv peer/cache.json && rm -rf peer peer.log)
fi
exit $rc
