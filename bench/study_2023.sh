#!/usr/bin/env bash
# The published study results (results/copilot-2023, results/llama2-2023, results/study-2023), regenerated end
# to end on a CPU machine: import the study's Copilot tree as its authors published it (all six kernels,
# ../shared/corpus/copilot-2023: prompt files and README skipped with their reason) and the Llama-2 dumps,
# evaluate every suggestion (replay) over every model (GPU models are `infra_error` here), time the reference
# solutions of every CPU model as the speedup baseline, and write the reports. Raw runs (results.sqlite, which
# holds the suggestions' text: research data) stay in $RUNS, never in the repository.
#
#   bash bench/study_2023.sh [CORPUS_DIR [GPU_DIR]]     (default ../shared/corpus; GPU_DIR: see below)
#   REPORT_ONLY=1 bash bench/study_2023.sh ...          (the runs in $RUNS as they are: reports only)
#   KERNELS=gemm MODELS=cpp-openmp N=2 RUNS=/tmp/s RESULTS=/tmp/r bash bench/study_2023.sh   (a slice, to try it)
#
# Environment: KERNELS (default all six), MODELS (default all; the reference runs the CPU ones, or these), N
# (suggestions per prompt, default 30: keeps the prompts the study asked more than once), JOBS (default 2), RUNS
# (default runs), RESULTS (default results), COPILOT (the Copilot tree, default $CORPUS/copilot-2023).
#
# GPU models are `infra_error` here ("builds here but cannot run"). On a GPU machine evaluate them with
# `bench/gpu_replay.sh copilot=FILE llama2=FILE` and give its $OUT as GPU_DIR (copilot/ and llama2/ in it): the
# reports then merge each LLM's CPU and GPU runs (`hpceval report --merge`: per suggestion the executed row).
set -euo pipefail
cd "$(dirname "$0")/.."
CORPUS=${1:-../shared/corpus}
GPU_DIR=${2:-}
JOBS=${JOBS:-2}
KERNELS=${KERNELS:-all}
MODELS=${MODELS:-all}
N=${N:-30}
RUNS=${RUNS:-runs}
RESULTS=${RESULTS:-results}
COPILOT=${COPILOT:-$CORPUS/copilot-2023}
CPU_MODELS=cpp-openmp,cpp-openmp-offload,cpp-openacc,cpp-kokkos,cpp-sycl,fortran-openmp,fortran-openmp-offload,fortran-openacc,python-numpy,python-numba
[ "$MODELS" = all ] || CPU_MODELS=$MODELS
mkdir -p "$RUNS" "$RESULTS"/{copilot-2023,llama2-2023,study-2023}
if [ -z "${REPORT_ONLY:-}" ]; then
  hpceval import copilot "$COPILOT" --out "$RUNS/copilot.jsonl"
  hpceval import llama2 "$CORPUS/llama2-sample" --out "$RUNS/llama2.jsonl"
  # Llama-2: the follow-up's sample holds AXPY only
  declare -A OVER=([copilot]=$KERNELS [llama2]=axpy)
  for llm in copilot llama2; do
    hpceval run --llm "replay:$RUNS/$llm.jsonl" --style paper --hints all --models "$MODELS" --kernels "${OVER[$llm]}" \
      -n "$N" --jobs "$JOBS" --out "$RUNS/$llm"
  done
  hpceval run --llm reference --style paper --hints none --kernels "$KERNELS" --jobs "$JOBS" --out "$RUNS/reference" \
    --models "$CPU_MODELS"
fi
declare -A NAME=([copilot]=github-copilot-2023 [llama2]=llama-2-70b-2023)
declare -A DIRS=([copilot]=$RUNS/copilot [llama2]=$RUNS/llama2)
MERGE=()
BASELINE=(--baseline "$RUNS/reference")
if [ -n "$GPU_DIR" ] && [ -f "$GPU_DIR/reference/evaluations.csv" ]; then  # the GPU models' references, timed there
  BASELINE+=(--baseline "$GPU_DIR/reference")
fi
if [ -n "$GPU_DIR" ]; then
  MERGE=(--merge)
  for llm in copilot llama2; do
    rm -rf "$RUNS/$llm-gpu" && mkdir -p "$RUNS/$llm-gpu"
    python3 - "$GPU_DIR/$llm/evaluations.csv" "$RUNS/$llm/evaluations.csv" "$RUNS/$llm-gpu/evaluations.csv" \
      "${NAME[$llm]}" <<'PY'
import sys
import pandas as pd
gpu, cpu = pd.read_csv(sys.argv[1]), pd.read_csv(sys.argv[2])
executed_here = set(cpu.loc[cpu["verdict"] != "infra_error", "model"]) - set(cpu.loc[cpu["verdict"] == "infra_error", "model"])
gpu = gpu[~gpu["model"].isin(executed_here)].assign(llm=sys.argv[4])
gpu.to_csv(sys.argv[3], index=False)
PY
    DIRS[$llm]="$RUNS/$llm $RUNS/$llm-gpu"
  done
fi
# shellcheck disable=SC2086
hpceval report ${DIRS[copilot]} "${MERGE[@]}" "${BASELINE[@]}" --out "$RESULTS/copilot-2023"
# shellcheck disable=SC2086
hpceval report ${DIRS[llama2]} "${MERGE[@]}" "${BASELINE[@]}" --out "$RESULTS/llama2-2023"
# shellcheck disable=SC2086
hpceval report ${DIRS[copilot]} ${DIRS[llama2]} "${MERGE[@]}" "${BASELINE[@]}" \
  --out "$RESULTS/study-2023/comparison"
# the per-suggestion CSVs (merged where a GPU run is given), with the LLM named as the report names it
python3 - "$RESULTS" "${DIRS[copilot]}" "${DIRS[llama2]}" "${MERGE[@]}" <<'PY'
import sys
from hpceval.report.load import load_results
from hpceval.store import RESULT_COLUMNS
merge = "--merge" in sys.argv
for llm, dirs in zip(("copilot", "llama2"), sys.argv[2:4], strict=True):
    frame = load_results(dirs.split(), merge=merge)
    if "evaluated_in_run" in frame:  # the run each row was evaluated in, not the one its prompt is scored under
        frame["run_id"] = frame["evaluated_in_run"]
    frame = frame[RESULT_COLUMNS]
    frame.to_csv(f"{sys.argv[1]}/{llm}-2023/evaluations.csv", index=False)
PY
mkdir -p "$RESULTS/study-2023/reference" && cp "$RUNS/reference/evaluations.csv" "$RESULTS/study-2023/reference/evaluations.csv"
# the manual-check draw (results/study-2023/README.md): 30 of the graded suggestions, CPU and GPU rows alike (without
# GPU_DIR the GPU rows are infra_error and never drawn)
python3 bench/study_sample.py "$RESULTS/copilot-2023" "$RESULTS/llama2-2023" --n 30 --seed 2023 \
  > "$RESULTS/study-2023/manual_checks_sample.md"
