"""Grade ParEval's real CUDA and HIP outputs of AXPY, GEMV and GEMM (suggestion = prompt + output) on a GPU.

    PYTHONPATH=harness python3 bench/pareval_gpu_replay.py --corpus ../shared/corpus/pareval-sample --out DIR

Every output of the four LLMs' `02_dense_la_gemm`, `03_dense_la_axpy`, `04_dense_la_gemv` prompts for `cuda` and
`hip` is graded as a free-form (paper-style) suggestion of the matching kernel and model, without the timing run;
prints the verdict counts per (LLM, problem, model) and writes every row (verdict and evidence) to
DIR/pareval_gpu.csv and the table to DIR/pareval_gpu.md. On the device machine, run it through bench/gpu_replay.sh's
environment (source bench/gpu_env.sh first, carrying .whl/ and the corpus under .gpu-carry/: research data never
enters the repository); commit DIR under results/.
"""

from __future__ import annotations

import argparse
import collections
import csv
import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from hpceval.bind import choose_binding
from hpceval.evaluate import Evaluator
from hpceval.executors.local import LocalExecutor
from hpceval.spec import catalog as load_catalog

PROBLEMS = {"02_dense_la_gemm": "gemm", "03_dense_la_axpy": "axpy", "04_dense_la_gemv": "gemv"}
MODELS = {"cuda": "cpp-cuda", "hip": "cpp-hip"}


def rows(corpus: Path):
    for path in sorted(corpus.glob("output_*.json")):
        llm = path.stem.removeprefix("output_").split("_", 1)[-1]
        for entry in json.loads(path.read_text()):
            if entry["name"] in PROBLEMS and entry["parallelism_model"] in MODELS:
                for i, out in enumerate(entry["outputs"]):
                    yield llm, entry["name"], entry["parallelism_model"], i, entry["prompt"] + out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", type=Path, required=True)
    ap.add_argument("--out", type=Path, default=Path("results/pareval-gpu-latest"))
    ap.add_argument("--jobs", type=int, default=8)
    ap.add_argument("--limit", type=int, default=0, help="outputs per prompt (0: all)")
    args = ap.parse_args()
    cat = load_catalog()
    evaluator = Evaluator(cat, LocalExecutor(), timing=False)
    todo = [r for r in rows(args.corpus) if not args.limit or r[3] < args.limit]

    def grade(row):
        llm, problem, par, i, code = row
        spec, model = cat.kernels[PROBLEMS[problem]], cat.models[MODELS[par]]
        lang = cat.languages[model.language]
        ev = evaluator.evaluate(code, spec, model, choose_binding(code, spec, lang, "paper", model))
        return llm, problem, par, i, ev.verdict.value, ev.evidence

    with ThreadPoolExecutor(args.jobs) as pool:
        done = list(pool.map(grade, todo))
    args.out.mkdir(parents=True, exist_ok=True)
    with open(args.out / "pareval_gpu.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["llm", "problem", "model", "output", "verdict", "evidence"])
        w.writerows(done)
    counts: dict[tuple, collections.Counter] = collections.defaultdict(collections.Counter)
    for llm, problem, par, _, verdict, _ in done:
        counts[(llm, problem, par)][verdict] += 1
    lines = ["| llm | problem | model | rows | verdicts |", "|---|---|---|---|---|"]
    for key in sorted(counts):
        c = counts[key]
        lines.append(f"| {' | '.join(key)} | {sum(c.values())} | "
                     f"{', '.join(f'{v} {n}' for v, n in c.most_common())} |")
    table = "\n".join(lines) + "\n"
    (args.out / "pareval_gpu.md").write_text(table)
    print(table)


if __name__ == "__main__":
    main()
