"""Pick suggestions at random (seeded) from published results for a manual check of their verdicts.

    python3 bench/study_sample.py results/copilot-2023 results/llama2-2023 --n 20 --seed 2023

Prints a Markdown table (LLM, prompt, rank, verdict, evidence) to fill in with a one-line manual judgement per row;
results/study-2023/README.md holds the filled-in table. Suggestions without code (`no_code`) and those not executed
(`infra_error`: no toolchain or no GPU here) are not drawn: their verdict needs no judgement. The draw depends only on the CSVs and the seed, so anyone can redraw the same rows.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dirs", nargs="+", type=Path, help="published directories with evaluations.csv")
    parser.add_argument("--n", type=int, default=20)
    parser.add_argument("--seed", type=int, default=2023)
    parser.add_argument("--only-runs", nargs="*", type=Path, default=[],
                        help="results directories whose runs alone are drawn from (the CPU machine's, when the "
                             "published CSVs also hold a GPU machine's rows)")
    args = parser.parse_args()
    frame = pd.concat([pd.read_csv(d / "evaluations.csv") for d in args.dirs], ignore_index=True)
    if args.only_runs:
        runs = set(pd.concat([pd.read_csv(d / "evaluations.csv", usecols=["run_id"]) for d in args.only_runs])["run_id"])
        frame = frame[frame["run_id"].isin(runs)]
    frame = frame[~frame["verdict"].isin(["no_code", "infra_error"])].sort_values(["llm", "prompt_id", "rank"]).reset_index(drop=True)
    picked = frame.sample(n=min(args.n, len(frame)), random_state=args.seed).sort_values(["llm", "prompt_id", "rank"])
    print("| # | LLM | prompt | rank | verdict | evidence (start) |")
    print("|---|-----|--------|------|---------|------------------|")
    for i, row in enumerate(picked.itertuples(), 1):
        evidence = str(row.evidence).replace("|", "/").replace("\n", " ")[:110]
        print(f"| {i} | {row.llm} | {row.prompt_id} | {row.rank} | {row.verdict} | {evidence} |")


if __name__ == "__main__":
    main()
