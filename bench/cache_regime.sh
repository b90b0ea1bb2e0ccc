#!/usr/bin/env bash
# The C++ SpMV and GEMV references with their data cache-resident, rewritten, rotated or cold
# (bench/cache_regime.cpp); the harness's -O2, layout flags, passive wait policy and thread count.
# Usage: bash bench/cache_regime.sh [threads] [repeats]   (default: min(cores, 8), 3)
set -euo pipefail
cd "$(dirname "$0")"
bin=$(mktemp -d)/cache_regime
trap 'rm -rf "$(dirname "$bin")"' EXIT
g++ -O2 -falign-functions=64 -falign-loops=32 -fopenmp -std=c++17 -w cache_regime.cpp -o "$bin"
threads=${1:-$(( $(nproc) < 8 ? $(nproc) : 8 ))}
grep -m1 "model name" /proc/cpuinfo || true
OMP_WAIT_POLICY=passive OMP_NUM_THREADS=$threads "$bin" "${2:-3}"
