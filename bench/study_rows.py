"""Grade chosen rows of a replay file (the imported study corpus) as a run would: extract -> prelude -> bind ->
evaluate, with no timing; one line per row (prompt, rank, verdict, evidence start). It re-checks the rows a manual
check disputed without regenerating a published directory.

    hpceval import copilot ../shared/corpus/copilot-2023 --out /tmp/c.jsonl
    PYTHONPATH=harness python3 bench/study_rows.py /tmp/c.jsonl gemv/cpp-openmp/paper/none:15 cg/cpp-openmp/paper/none:3
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from hpceval.bind import choose_binding
from hpceval.evaluate import Evaluator
from hpceval.executors.local import LocalExecutor
from hpceval.extract import extract
from hpceval.prelude import with_prelude
from hpceval.prompts import plan
from hpceval.spec import catalog as load_catalog


def rows(path: Path, wanted: list[tuple[str, int]]) -> dict[tuple[str, int], dict]:
    """The first record of each wanted (prompt_id, rank) in the replay file."""
    found: dict[tuple[str, int], dict] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            record = json.loads(line)
            key = (record.get("prompt_id"), record.get("rank"))
            if key in wanted and key not in found:
                found[key] = record
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("replay", type=Path, help="replay JSONL (hpceval import ... --out FILE)")
    parser.add_argument("rows", nargs="+", help="PROMPT_ID:RANK, e.g. gemv/cpp-openmp/paper/none:15")
    parser.add_argument("--evidence", type=int, default=240, help="characters of evidence printed")
    args = parser.parse_args()
    wanted = [(r.rsplit(":", 1)[0], int(r.rsplit(":", 1)[1])) for r in args.rows]
    cat = load_catalog()
    prompts = {p.prompt_id: p for p in plan(cat, list(cat.kernels.values()), list(cat.models.values()),
                                            ["paper", "chat"], ["none", "keyword"])}
    evaluator = Evaluator(cat, LocalExecutor(), timing=False)
    records = rows(args.replay, wanted)
    for prompt_id, rank in wanted:
        record, prompt = records.get((prompt_id, rank)), prompts.get(prompt_id)
        if record is None or prompt is None:
            print(f"{prompt_id} r{rank}: not in {args.replay}" if record is None else f"{prompt_id}: no such prompt")
            continue
        spec, model = cat.kernels[prompt.kernel], cat.models[prompt.model]
        meta = record.get("meta") or {}
        code = record["text"] if meta.get("complete") else extract(record["text"], prompt, spec.function)
        code, _ = with_prelude(code, meta)
        binding = choose_binding(code, spec, cat.languages[model.language], prompt.style, model)
        e = evaluator.evaluate(code, spec, model, binding)
        evidence = " ".join(e.evidence.split())[:args.evidence]
        print(f"{prompt_id} r{rank}: {e.verdict.value} | {evidence}", flush=True)


if __name__ == "__main__":
    main()
