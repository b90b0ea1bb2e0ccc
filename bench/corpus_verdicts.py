"""Verdicts of a Llama-2 dump folder through extract -> bind -> evaluate (no timing): counts, and one JSON line per
suggestion. Usage: PYTHONPATH=harness python3 bench/corpus_verdicts.py ../shared/corpus/llama2-sample OUT.jsonl"""
import json
import sys
from collections import Counter
from pathlib import Path

from hpceval.bind import choose_binding
from hpceval.evaluate import Evaluator
from hpceval.executors.local import LocalExecutor
from hpceval.extract import extract
from hpceval.importers.llama2 import records
from hpceval.prompts import plan
from hpceval.spec import catalog as load_catalog

cat = load_catalog()
ev = Evaluator(cat, LocalExecutor(), timing=False)
src, out = Path(sys.argv[1]), Path(sys.argv[2])
prompts = {p.prompt_id: p for p in plan(cat, list(cat.kernels.values()), list(cat.models.values()), ["paper"], ["none", "keyword"])}
counts = Counter()
with out.open("w") as f:
    for r in records(src, cat):
        key = r["meta"]["key"]
        if r["kernel"] is None or r["model"] not in cat.models:
            f.write(json.dumps({"key": key, "model": r["model"], "verdict": "skipped"}) + "\n")
            continue
        p = prompts.get(r["prompt_id"])
        spec, model = cat.kernels[r["kernel"]], cat.models[r["model"]]
        code = extract(r["text"], p, spec.function)
        b = choose_binding(code, spec, cat.languages[model.language], "paper", model)
        try:
            e = ev.evaluate(code, spec, model, b)
            v, evid = e.verdict.value, e.evidence
        except Exception as exc:  # noqa: BLE001 - counted as a crash of the harness
            v, evid = "crash", repr(exc)
        counts[v] += 1
        f.write(json.dumps({"key": key, "model": r["model"], "verdict": v, "evidence": evid[:300]}) + "\n")
print(dict(counts))
