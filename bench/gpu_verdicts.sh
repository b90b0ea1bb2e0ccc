#!/usr/bin/env bash
# The GPU half of the verdict tests, in one call on the lent GPU machine (device tool): the tests marked `gpu`
# (CUDA/HIP launches taken from the suggestion's main, Python device arrays, where the work ran, Thrust and
# context parameters), the numba.cuda tests on the real device instead of the simulator, and then, if asked, the
# GPU self-test (bench/gpu_selftest.py) of the given models.
#
#   OUT=$OUT bash bench/gpu_verdicts.sh [--tests] [--selftest MODELS] [--perf]
#
# carry [".whl", ".gpu-carry"] (bench/gpu_selftest.sh's header says how to fill them; pytest, pluggy, iniconfig and
# scipy are among the wheels). Writes $OUT/gpu_tests.log (pytest's report, -rA: every test's outcome) and, with
# --selftest, $OUT/selftest.md. TESTS_S and SELFTEST_S bound each part (seconds), so that what finished comes back.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=${OUT:-$ROOT/results/gpu-latest}
mkdir -p "$OUT"
exec > >(tee "$OUT/gpu_verdicts.log") 2>&1
export PYTHONUNBUFFERED=1
start=$(date +%s)
step() { echo "== [$(( $(date +%s) - start )) s] $*"; }
TESTS=0; SELFTEST=""; PERF=(--no-perf)
while [ $# -gt 0 ]; do
  case $1 in
    --tests) TESTS=1 ;;
    --selftest) SELFTEST=$2; shift ;;
    --perf) PERF=(--runs 1) ;;
  esac
  shift
done

# shellcheck source=bench/gpu_env.sh
source "$ROOT/bench/gpu_env.sh"
rc=0
if [ "$TESTS" = 1 ]; then
  step "GPU verdict tests"
  timeout "${TESTS_S:-330}" python3 -m pytest -q -p no:cacheprovider -rfEsx -m gpu \
    tests/test_gpu_launch_from_main.py tests/test_gpu_launch_python.py tests/test_python_adapters.py \
    tests/test_work_ran.py tests/test_toolchains_gpu.py tests/test_thrust_params.py \
    tests/test_embedded_kernel_launch.py tests/test_python_device_values.py > "$OUT/gpu_tests.log" 2>&1
  rc=$?
  tail -n 60 "$OUT/gpu_tests.log"
fi
if [ -n "$SELFTEST" ]; then
  step "GPU self-test: $SELFTEST"
  timeout "${SELFTEST_S:-400}" python3 bench/gpu_selftest.py --out "$OUT" --jobs 16 --models "$SELFTEST" "${PERF[@]}"
  rc=$(( rc | $? ))
fi
step "done (rc=$rc)"
exit $rc
