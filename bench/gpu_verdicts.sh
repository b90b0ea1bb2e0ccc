#!/usr/bin/env bash
# The GPU half of the verdict tests, in one call on the lent GPU machine (device tool): the tests marked `gpu`
# (CUDA/HIP launches taken from the suggestion's main, Python device arrays, where the work ran, Thrust and
# context parameters), the numba.cuda tests on the real device instead of the simulator, and then, if asked, the
# GPU self-test (bench/gpu_selftest.py) of the given models.
#
#   OUT=$OUT bash bench/gpu_verdicts.sh [--tests] [--selftest MODELS] [--perf]
#
# carry [".whl", ".gpu-carry"] (bench/gpu_selftest.sh's header says how to fill them; pytest, pluggy, iniconfig and
# scipy are among the wheels). Writes $OUT/gpu_tests.log (pytest's report per test file, with short tracebacks)
# and, with --selftest, $OUT/selftest-<model>/selftest.md per model. TESTS_S and SELFTEST_S bound each part
# (seconds); within it each file and model gets the time left, so that what finished comes back.
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
# each test file and each self-test model runs under its own share of the time left, so that a cut-off run still
# reports every file and model that finished (pytest killed before its summary reports nothing)
left() { echo $(( $1 - $(date +%s) )); }
if [ "$TESTS" = 1 ]; then
  step "GPU verdict tests"
  deadline=$(( $(date +%s) + ${TESTS_S:-330} ))
  : > "$OUT/gpu_tests.log"
  FILES=(tests/test_gpu_launch_from_main.py tests/test_implied_launch.py tests/test_gemm_layout.py
         tests/test_thrust_params.py tests/test_python_device_values.py tests/test_python_adapters.py
         tests/test_gpu_launch_python.py tests/test_embedded_kernel_launch.py tests/test_work_ran.py
         tests/test_toolchains_gpu.py)
  WHOLE=(tests/test_toolchains_gpu.py tests/test_launch_glue.py)  # GPU parts skip by probe, not by the gpu mark
  if python3 -c "import xdist" 2>/dev/null; then  # pytest-xdist carried in .whl/: the files in parallel, one report
    timeout "$(left $deadline)" python3 -m pytest -p no:cacheprovider -n "${XDIST:-12}" -v -rfEs --tb=short -m gpu \
      "${FILES[@]}" > "$OUT/gpu_tests.log" 2>&1
    rc=$?
    timeout "$(left $deadline)" python3 -m pytest -p no:cacheprovider -n "${XDIST:-12}" -v -rfEs --tb=short \
      "${WHOLE[@]}" >> "$OUT/gpu_tests.log" 2>&1
    rc=$(( rc | $? ))
    grep -E "^(FAILED|ERROR)|passed|failed" "$OUT/gpu_tests.log" | tail -12
    FILES=()
  fi
  for f in "${FILES[@]}"; do
    t=$(left $deadline)
    if [ "$t" -le 5 ]; then echo "== $f: not run (time limit)" >> "$OUT/gpu_tests.log"; rc=1; continue; fi
    echo "== $f" >> "$OUT/gpu_tests.log"
    timeout "$t" python3 -m pytest -q -p no:cacheprovider -rfEs --tb=short -m gpu "$f" >> "$OUT/gpu_tests.log" 2>&1
    code=$?
    [ $code -eq 5 ] && code=0  # no test selected in this file
    rc=$(( rc | code ))
    grep -E "^(FAILED|ERROR)|passed|failed" "$OUT/gpu_tests.log" | tail -1 | sed "s|^|$f: |"
  done
fi
if [ -n "$SELFTEST" ]; then
  step "GPU self-test: $SELFTEST"
  deadline=$(( $(date +%s) + ${SELFTEST_S:-400} ))
  for model in ${SELFTEST//,/ }; do
    t=$(left $deadline)
    if [ "$t" -le 5 ]; then echo "$model: not run (time limit)"; rc=1; continue; fi
    timeout "$t" python3 bench/gpu_selftest.py --out "$OUT/selftest-$model" --jobs "${SELFTEST_JOBS:-16}" --models "$model" "${PERF[@]}" \
      > "$OUT/selftest-$model.log" 2>&1
    rc=$(( rc | $? ))
    grep -E "^\| |reference|killed" "$OUT/selftest-$model.log" | tail -8
  done
fi
step "done (rc=$rc)"
exit $rc
