#!/usr/bin/env bash
# The C++ OpenMP GEMM reference timed on repeated data and on freshly written data (bench/fresh_inputs.cpp);
# prints one table per thread count, with OMP_WAIT_POLICY=passive as the harness sets it, then unset (libgomp spins
# a while, then sleeps) and active. Usage: bash bench/fresh_inputs.sh [threads ...]   (default: all cores, 2)
set -euo pipefail
cd "$(dirname "$0")"
bin=$(mktemp -d)/fresh_inputs
trap 'rm -rf "$(dirname "$bin")"' EXIT
# FLAGS: the harness builds C++ with -O2 (toolchains/gcc.py); -O3 vectorises the inner loop
g++ ${FLAGS:--O2} -fopenmp -std=c++17 fresh_inputs.cpp -o "$bin"
echo "g++ ${FLAGS:--O2}"
threads=("$@")
[ ${#threads[@]} -gt 0 ] || threads=("$(nproc)" 2)
grep -m1 "model name" /proc/cpuinfo || true
cat /sys/devices/system/cpu/cpu0/cpufreq/scaling_governor 2>/dev/null || echo "cpufreq governor: not visible"
for policy in passive default active; do
  for t in "${threads[@]}"; do echo "OMP_WAIT_POLICY=$policy"; if [ $policy = default ]; then env -u OMP_WAIT_POLICY OMP_NUM_THREADS=$t "$bin"; else OMP_WAIT_POLICY=$policy OMP_NUM_THREADS=$t "$bin"; fi; echo; done
done
