# GPU machine environment, sourced by bench/gpu_selftest.sh and bench/gpu_replay.sh (which set ROOT, OUT and a
# `step` function first): Python packages from .whl/, pyCUDA and Kokkos (CUDA) from .gpu-carry/, `hpceval doctor`,
# and the CUDA-inside-the-sandbox diagnosis. Preparation of .whl/ and .gpu-carry/: bench/gpu_selftest.sh's header.
# Exports PYTHONPATH (harness + .gpu-site) and HPCEVAL_CACHE; writes doctor.md, pycuda-*.whl and kokkos-cuda.tar.gz
# to $OUT (carry the last two back in .gpu-carry/ to skip their builds next time).

SITE=$ROOT/.gpu-site
export HPCEVAL_CACHE=${HPCEVAL_CACHE:-$ROOT/.gpu-cache}
if [ -n "${GPU_ENV_READY:-}" ]; then  # prepared once by bench/gpu_parallel.sh for the tasks it runs side by side
  export PYTHONPATH=$ROOT/harness:$SITE${PYTHONPATH:+:$PYTHONPATH}
  return 0
fi
mkdir -p "$SITE" "$HPCEVAL_CACHE"
chmod 755 "$ROOT" "$SITE" "$HPCEVAL_CACHE" 2>/dev/null || true

step "machine"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader || true
nvcc --version | tail -2
python3 --version
python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)" || echo "no triton"
python3 -c "import scipy; print('scipy', scipy.__version__)" || echo "no scipy: Numba's np.dot/np.linalg fail (carry its wheel in .whl/)"
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

