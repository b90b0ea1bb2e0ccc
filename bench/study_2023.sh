#!/usr/bin/env bash
# The published study results (results/copilot-2023, results/llama2-2023, results/study-2023), regenerated end
# to end on a CPU machine: import the study dumps from ../shared/corpus, evaluate every suggestion (replay), time
# the reference solutions as the speedup baseline, and write the reports. Raw runs (results.sqlite, which holds
# the suggestions' text: research data) stay in runs/, never in the repository. About 12 min on 2 cores.
#
#   bash bench/study_2023.sh [CORPUS_DIR]        (default ../shared/corpus)
#
# GPU models are `infra_error` here ("builds here but cannot run"); on a GPU machine evaluate them with
# bench/gpu_replay.sh and pass its directories to `hpceval report` as well (results/study-2023/README.md).
set -euo pipefail
cd "$(dirname "$0")/.."
CORPUS=${1:-../shared/corpus}
JOBS=${JOBS:-2}
mkdir -p runs
hpceval import copilot "$CORPUS/copilot-sample" --out runs/copilot.jsonl
hpceval import llama2 "$CORPUS/llama2-sample" --out runs/llama2.jsonl
for llm in copilot llama2; do
  hpceval run --llm "replay:runs/$llm.jsonl" --style paper --hints all --models all --kernels axpy,gemv -n 30 \
    --jobs "$JOBS" --out "runs/$llm"
done
hpceval run --llm reference --style paper --hints none --kernels axpy,gemv --jobs "$JOBS" --out runs/reference \
  --models cpp-openmp,cpp-openmp-offload,cpp-openacc,cpp-kokkos,cpp-sycl,fortran-openmp,fortran-openmp-offload,fortran-openacc,python-numpy,python-numba
hpceval report runs/copilot --baseline runs/reference --out results/copilot-2023
hpceval report runs/llama2 --baseline runs/reference --out results/llama2-2023
hpceval report runs/copilot runs/llama2 --baseline runs/reference --out results/study-2023/comparison
# the per-suggestion CSVs, with the LLM named as the report names it (the records' llm, not the replay file's path)
python3 - <<'PY'
import pandas as pd
for llm, name in (("copilot", "github-copilot-2023"), ("llama2", "llama-2-70b-2023")):
    frame = pd.read_csv(f"runs/{llm}/evaluations.csv")
    frame["llm"] = f"replay:{name}"
    frame.to_csv(f"results/{llm}-2023/evaluations.csv", index=False)
PY
mkdir -p results/study-2023/reference && cp runs/reference/evaluations.csv results/study-2023/reference/evaluations.csv
python3 bench/study_sample.py results/copilot-2023 results/llama2-2023 --n 20 --seed 2023 \
  > results/study-2023/manual_checks_sample.md
