#!/usr/bin/env bash
# The published study results (results/copilot-2023, results/llama2-2023, results/study-2023), regenerated end
# to end on a CPU machine: import the study dumps from ../shared/corpus, evaluate every suggestion (replay), time
# the reference solutions as the speedup baseline, and write the reports. Raw runs (results.sqlite, which holds
# the suggestions' text: research data) stay in runs/, never in the repository. About 12 min on 2 cores.
#
#   bash bench/study_2023.sh [CORPUS_DIR [GPU_DIR]]     (default ../shared/corpus; GPU_DIR: see below)
#   REPORT_ONLY=1 bash bench/study_2023.sh ...          (the runs in runs/ as they are: reports only)
#
# GPU models are `infra_error` here ("builds here but cannot run"). On a GPU machine evaluate them with
# `bench/gpu_replay.sh copilot=FILE llama2=FILE` and give its $OUT as GPU_DIR (copilot/ and llama2/ in it): the
# reports then merge each LLM's CPU and GPU runs (`hpceval report --merge`: per suggestion the executed row).
set -euo pipefail
cd "$(dirname "$0")/.."
CORPUS=${1:-../shared/corpus}
GPU_DIR=${2:-}
JOBS=${JOBS:-2}
mkdir -p runs
if [ -z "${REPORT_ONLY:-}" ]; then
  hpceval import copilot "$CORPUS/copilot-sample" --out runs/copilot.jsonl
  hpceval import llama2 "$CORPUS/llama2-sample" --out runs/llama2.jsonl
  for llm in copilot llama2; do
    hpceval run --llm "replay:runs/$llm.jsonl" --style paper --hints all --models all --kernels axpy,gemv -n 30 \
      --jobs "$JOBS" --out "runs/$llm"
  done
  hpceval run --llm reference --style paper --hints none --kernels axpy,gemv --jobs "$JOBS" --out runs/reference \
    --models cpp-openmp,cpp-openmp-offload,cpp-openacc,cpp-kokkos,cpp-sycl,fortran-openmp,fortran-openmp-offload,fortran-openacc,python-numpy,python-numba
fi
# The GPU machine's rows, as runs/<llm>-gpu/evaluations.csv: the LLM named as the report names it (the records'
# llm, not the replay file's path), and only the models this machine could not execute. Kokkos runs on both (its
# OpenMP backend here, CUDA there): the published grade is this machine's; the CUDA-backend grades are in the
# GPU directory (results/study-2023/README.md gives both).
declare -A NAME=([copilot]=github-copilot-2023 [llama2]=llama-2-70b-2023)
declare -A RUNS=([copilot]=runs/copilot [llama2]=runs/llama2)
MERGE=()
if [ -n "$GPU_DIR" ]; then
  MERGE=(--merge)
  for llm in copilot llama2; do
    rm -rf "runs/$llm-gpu" && mkdir -p "runs/$llm-gpu"
    python3 - "$GPU_DIR/$llm/evaluations.csv" "runs/$llm/evaluations.csv" "runs/$llm-gpu/evaluations.csv" \
      "replay:${NAME[$llm]}" <<'PY'
import sys
import pandas as pd
gpu, cpu = pd.read_csv(sys.argv[1]), pd.read_csv(sys.argv[2])
executed_here = set(cpu.loc[cpu["verdict"] != "infra_error", "model"]) - set(cpu.loc[cpu["verdict"] == "infra_error", "model"])
gpu = gpu[~gpu["model"].isin(executed_here)].assign(llm=sys.argv[4])
gpu.to_csv(sys.argv[3], index=False)
PY
    RUNS[$llm]="runs/$llm runs/$llm-gpu"
  done
fi
# shellcheck disable=SC2086
hpceval report ${RUNS[copilot]} "${MERGE[@]}" --baseline runs/reference --out results/copilot-2023
# shellcheck disable=SC2086
hpceval report ${RUNS[llama2]} "${MERGE[@]}" --baseline runs/reference --out results/llama2-2023
# shellcheck disable=SC2086
hpceval report ${RUNS[copilot]} ${RUNS[llama2]} "${MERGE[@]}" --baseline runs/reference \
  --out results/study-2023/comparison
# the per-suggestion CSVs (merged where a GPU run is given), with the LLM named as the report names it
python3 - "${RUNS[copilot]}" "${RUNS[llama2]}" "${MERGE[@]}" <<'PY'
import sys
from hpceval.report.load import load_results
from hpceval.store import RESULT_COLUMNS
merge = "--merge" in sys.argv
for llm, dirs in zip(("copilot", "llama2"), sys.argv[1:3], strict=True):
    frame = load_results(dirs.split(), merge=merge)
    if "evaluated_in_run" in frame:  # the run each row was evaluated in, not the one its prompt is scored under
        frame["run_id"] = frame["evaluated_in_run"]
    frame = frame[RESULT_COLUMNS]
    frame.to_csv(f"results/{llm}-2023/evaluations.csv", index=False)
PY
mkdir -p results/study-2023/reference && cp runs/reference/evaluations.csv results/study-2023/reference/evaluations.csv
# the manual-check sample is drawn from the suggestions executed on this (CPU) machine
python3 bench/study_sample.py results/copilot-2023 results/llama2-2023 --n 20 --seed 2023 \
  --only-runs runs/copilot runs/llama2 \
  > results/study-2023/manual_checks_sample.md
