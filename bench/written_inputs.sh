#!/usr/bin/env bash
# The GEMV reference after inputs left as they were, rewritten as the driver does, rewritten and flushed, or
# rewritten with non-temporal stores (bench/written_inputs.cpp); the harness's -O2 and passive wait policy.
# Usage: bash bench/written_inputs.sh [threads ...]   (default: min(cores, 8), the harness's thread count)
set -euo pipefail
cd "$(dirname "$0")"
bin=$(mktemp -d)/written_inputs
trap 'rm -rf "$(dirname "$bin")"' EXIT
g++ -O2 -fopenmp -std=c++17 -w written_inputs.cpp -o "$bin"
threads=("$@")
[ ${#threads[@]} -gt 0 ] || threads=("$(( $(nproc) < 8 ? $(nproc) : 8 ))")
for t in "${threads[@]}"; do OMP_WAIT_POLICY=passive OMP_NUM_THREADS=$t "$bin"; echo; done
