#!/usr/bin/env bash
# The C++ OpenMP GEMM reference timed on repeated data and on freshly written data (bench/fresh_inputs.cpp);
# prints one table per thread count. Usage: bash bench/fresh_inputs.sh [threads ...]   (default: all cores, 2)
set -euo pipefail
cd "$(dirname "$0")"
bin=$(mktemp -d)/fresh_inputs
trap 'rm -rf "$(dirname "$bin")"' EXIT
g++ -O3 -fopenmp -std=c++17 fresh_inputs.cpp -o "$bin"
threads=("$@")
[ ${#threads[@]} -gt 0 ] || threads=("$(nproc)" 2)
for t in "${threads[@]}"; do OMP_NUM_THREADS=$t "$bin"; echo; done
