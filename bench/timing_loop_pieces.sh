#!/usr/bin/env bash
# The driver's timing loop piece by piece around the GEMM reference (bench/timing_loop_pieces.cpp): one table per
# thread count, with the harness's flags (-O2) and OMP_WAIT_POLICY=passive as the harness runs jobs.
# Usage: bash bench/timing_loop_pieces.sh [threads ...]   (default: min(cores, 8), the harness's thread count)
set -euo pipefail
cd "$(dirname "$0")"
bin=$(mktemp -d)/timing_loop_pieces
trap 'rm -rf "$(dirname "$bin")"' EXIT
g++ -O2 -fopenmp -std=c++17 -w timing_loop_pieces.cpp -o "$bin" -ldl
threads=("$@")
[ ${#threads[@]} -gt 0 ] || threads=("$(( $(nproc) < 8 ? $(nproc) : 8 ))")
for t in "${threads[@]}"; do OMP_WAIT_POLICY=passive OMP_NUM_THREADS=$t "$bin"; echo; done
