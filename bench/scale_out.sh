#!/usr/bin/env bash
# bench/scale_out.py on the lent 16-core machine (device tool, no internet, Python 3.12), results to $OUT.
#
# Prepare here (once): the wheels gpu_selftest.sh uses (its header) in .whl/, plus Dask's in .whl/dask/
# (a subfolder, so gpu_selftest.sh's `.whl/*.whl` does not take them):
#   python3 -m pip download --only-binary=:all: --python-version 3.12 --implementation cp \
#     --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 --platform manylinux_2_28_x86_64 \
#     --platform any -d .whl/dask "dask[distributed]==2026.8.0" "distributed==2026.8.0"
# Run (device tool): command "bash bench/scale_out.sh", carry [".whl"]; commit $OUT's files as
# results/scale_out-<machine>-<date>/ (git add -f). Extra arguments go to bench/scale_out.py.
# OVERHEAD_REPEATS=N (environment) first writes $OUT/overhead.md: bench/overhead.py --jobs 1 with N repeats (the
# harness's own share of an evaluation's wall time, issue 30), on the models this machine has (Fortran only with
# gfortran); OVERHEAD_MODELS / OVERHEAD_KERNELS override them.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=${OUT:-$ROOT/results/scale_out-latest}
SITE=$ROOT/.gpu-site
mkdir -p "$OUT" "$SITE"
chmod 755 "$ROOT" "$SITE" 2>/dev/null || true
exec > >(tee "$OUT/scale_out.log") 2>&1
python3 --version; nproc
if ls .whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$SITE" .whl/*.whl
fi
if ls .whl/dask/*.whl >/dev/null 2>&1; then  # Dask's wheels, unless the machine's image has Dask
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$SITE" .whl/dask/*.whl
fi
export PYTHONPATH=$ROOT/harness:$SITE${PYTHONPATH:+:$PYTHONPATH}
export PYTHONUNBUFFERED=1
python3 -m hpceval.cli doctor | head -40 || true
if [ -n "${OVERHEAD_REPEATS:-}" ]; then
  fortran=""
  if command -v gfortran >/dev/null; then fortran=,fortran-openmp; fi
  models=${OVERHEAD_MODELS:-cpp-openmp,python-numpy,python-numba$fortran}
  HPCEVAL_CACHE=$OUT/cache python3 bench/overhead.py --models "$models" --kernels "${OVERHEAD_KERNELS:-axpy,gemv,spmv}" \
    --repeats "$OVERHEAD_REPEATS" --jobs 1 > "$OUT/overhead.md" 2> "$OUT/overhead.err" || echo "overhead.py failed: $?"
  rm -rf "$OUT/cache"
  grep -A30 '^| repeat' "$OUT/overhead.md" || tail -5 "$OUT/overhead.err"
fi
python3 bench/scale_out.py --out "$OUT" "$@"
