#!/usr/bin/env bash
# The combined leaderboard (results/leaderboard-combined/): the LLMs of every published results folder side by
# side on the kernel × programming model cells all of them answered (`hpceval report --combined`), from the
# published per-suggestion CSVs alone (nothing is rerun), with the caveat that their prompts differ. Regenerate it
# after any of those folders changes (bench/study_2023.sh, bench/pareval_2024.sh).
#
#   bash bench/leaderboard_combined.sh                   (copilot-2023, llama2-2023, and pareval-2024 when present)
#
# Environment: RESULTS (default results), OUT (default $RESULTS/leaderboard-combined), CAVEAT (the caveat shown on
# the page and in every combined.csv row).
set -euo pipefail
RESULTS=${RESULTS:-results}
OUT=${OUT:-$RESULTS/leaderboard-combined}
CAVEAT=${CAVEAT:-"The LLMs come from different publications. Copilot and Llama-2 answered the 2023 study's prompts; \
ParEval's LLMs (GPT-3.5, CodeLlama-13B, CodeLlama-34B, Gemini-Pro), where present, answered ParEval's, which are not \
the study's (other texts, other signatures: AXPY out of place on std::vector). They share only the kernel × \
programming model, so a difference mixes the LLM with its prompts."}
DIRS=("$RESULTS/copilot-2023" "$RESULTS/llama2-2023")
BASELINE=(--baseline "$RESULTS/study-2023/reference")
if [[ -f "$RESULTS/pareval-2024/evaluations.csv" ]]; then
  DIRS+=("$RESULTS/pareval-2024")
  [[ -d "$RESULTS/pareval-2024/reference" ]] && BASELINE+=(--baseline "$RESULTS/pareval-2024/reference")
fi
# each folder holds an LLM's rows of two machines (CPU models here, GPU models on a GPU machine): one evaluation;
# no drill-down pages (the suggestions' text is research data, and a published folder carries none)
hpceval report "${DIRS[@]}" --merge "${BASELINE[@]}" --combined --caveat "$CAVEAT" --no-pages --out "$OUT"
