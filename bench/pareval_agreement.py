"""Side-by-side verdicts: hpceval's against the peer grader's (bench/pareval_peer.py, ParEval's contract) per output.

Both grade the same text (ParEval's prompt + output). Classes compared:
  hpceval: correct -> valid; build_error, no_code -> no_build; runtime_error, timeout, wrong_result, wrong_model
           -> invalid; incomplete (no complete kernel: cut off, or an empty body) -> not valid, which agrees with
           either of ParEval's failures (a cut-off output does not build there, an empty body builds and fails);
           unbindable, infra_error -> undecided (hpceval did not decide: counted apart).
  peer:    valid -> valid; does_not_build -> no_build; does_not_run, invalid -> invalid.
Agreement (3 classes) is counted where both decide; "pass agreement" compares only valid vs not valid (what pass@k
sees). Rows join through the replay files' metadata (ParEval file, problem, model, sample).

    python3 bench/pareval_agreement.py --replay runs/pareval/replay --hpceval runs/pareval/omp/* runs/pareval/kokkos/* \
        --peer runs/pareval/peer/peer_verdicts.csv --out results/pareval-2024/agreement
writes agreement.md (the table), agreement.csv (per LLM x kernel x model) and disagreements.csv (one row per output).
"""

from __future__ import annotations

import argparse
import csv
import json
from collections import Counter, defaultdict
from pathlib import Path

HPC_CLASS = {"correct": "valid", "build_error": "no_build", "incomplete": "not_valid", "no_code": "no_build",
             "runtime_error": "invalid", "timeout": "invalid", "wrong_result": "invalid", "wrong_model": "invalid"}
PEER_CLASS = {"valid": "valid", "does_not_build": "no_build", "does_not_run": "invalid", "invalid": "invalid"}
MODEL = {"cpp-openmp": "omp", "cpp-kokkos": "kokkos", "cpp-cuda": "cuda", "cpp-hip": "hip"}


def replay_index(folder: Path) -> dict[tuple[str, str, int], tuple[str, str, str, int]]:
    """(llm, prompt_id, rank) -> (ParEval file, problem, model, sample)."""
    index = {}
    for path in sorted(folder.glob("*.jsonl")):
        for line in path.open():
            r = json.loads(line)
            m = r["meta"]
            index[(r["llm"], r["prompt_id"], int(r["rank"]))] = (m["file"], m["pareval_problem"], m["pareval_model"],
                                                                 int(m["sample"]))
    return index


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--replay", type=Path, required=True)
    ap.add_argument("--hpceval", type=Path, nargs="+", required=True, help="run folders (evaluations.csv)")
    ap.add_argument("--peer", type=Path, nargs="+", required=True, help="peer_verdicts.csv files")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    index = replay_index(args.replay)
    peer = {}
    for p in args.peer:
        for r in csv.DictReader(p.open()):
            peer[(r["file"], r["problem"], r["model"], int(r["sample"]))] = r
    cells: dict[tuple[str, str, str], Counter] = defaultdict(Counter)
    rows = []
    for folder in args.hpceval:
        for r in csv.DictReader((folder / "evaluations.csv").open()):
            key = index.get((r["llm"], r["prompt_id"], int(r["rank"])))
            p = peer.get(key) if key else None
            cell = cells[(r["llm"].split("/")[-1], r["kernel"], r["model"])]
            if p is None:
                cell["no_peer"] += 1
                continue
            cell["rows"] += 1
            hc, pc = HPC_CLASS.get(r["verdict"]), PEER_CLASS[p["verdict"]]
            if hc is None:
                cell["undecided"] += 1
                continue
            cell["decided"] += 1
            agree = hc == pc or (hc == "not_valid" and pc != "valid")
            cell["agree"] += agree
            cell["pass_agree"] += (hc == "valid") == (pc == "valid")
            cell["hpceval_valid"] += hc == "valid"
            cell["peer_valid"] += pc == "valid"
            if not agree:
                rows.append({"llm": r["llm"], "kernel": r["kernel"], "model": r["model"], "rank": r["rank"],
                             "hpceval": r["verdict"], "peer": p["verdict"], "peer_detail": p["detail"],
                             "sha": p["sha"], "evidence": (r.get("evidence") or "")[:300].replace("\n", " ")})
    args.out.mkdir(parents=True, exist_ok=True)
    head = ["llm", "kernel", "model", "rows", "undecided", "decided", "agree", "agree_%", "pass_agree_%",
            "hpceval_correct", "peer_valid"]
    table = []
    total = Counter()
    for (llm, kernel, model), c in sorted(cells.items()):
        total.update(c)
        table.append([llm, kernel, model, c["rows"], c["undecided"], c["decided"], c["agree"],
                      f"{100 * c['agree'] / c['decided']:.1f}" if c["decided"] else "-",
                      f"{100 * c['pass_agree'] / c['decided']:.1f}" if c["decided"] else "-",
                      c["hpceval_valid"], c["peer_valid"]])
    for model in sorted({k[2] for k in cells}):
        sub = Counter()
        for k, c in cells.items():
            if k[2] == model:
                sub.update(c)
        table.append(["all", "all", model, sub["rows"], sub["undecided"], sub["decided"], sub["agree"],
                      f"{100 * sub['agree'] / max(sub['decided'], 1):.1f}",
                      f"{100 * sub['pass_agree'] / max(sub['decided'], 1):.1f}", sub["hpceval_valid"],
                      sub["peer_valid"]])
    table.append(["all", "all", "all", total["rows"], total["undecided"], total["decided"], total["agree"],
                  f"{100 * total['agree'] / max(total['decided'], 1):.1f}",
                  f"{100 * total['pass_agree'] / max(total['decided'], 1):.1f}", total["hpceval_valid"],
                  total["peer_valid"]])
    with (args.out / "agreement.csv").open("w", newline="") as f:
        csv.writer(f).writerows([head, *table])
    md = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    md += ["| " + " | ".join(str(x) for x in row) + " |" for row in table]
    (args.out / "agreement.md").write_text("\n".join(md) + "\n")
    with (args.out / "disagreements.csv").open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["llm", "kernel", "model", "rank", "hpceval", "peer", "peer_detail", "sha",
                                          "evidence"])
        w.writeheader()
        w.writerows(rows)
    print("\n".join(md))
    print(f"{len(rows)} disagreeing rows ({len({r['sha'] for r in rows})} distinct programs); "
          f"{total['no_peer']} hpceval rows without a peer verdict")


if __name__ == "__main__":
    main()
