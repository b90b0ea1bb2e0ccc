"""How many real ParEval outputs (AXPY/GEMV/GEMM, OpenMP and Kokkos) the harness cannot bind or build.

A one-off measurement for the type adapters (bind.adapt): ParEval's prompts take std::vector and Kokkos::View
parameters, with the output a separate `std::vector<double> &z`. Reads ../shared/corpus/pareval-sample directly
(no importer); a suggestion is ParEval's includes + prompt + output, evaluated without timing.

    PYTHONPATH=harness python3 bench/pareval_types.py --per 2          # this tree
    PYTHONPATH=../../main/harness python3 bench/pareval_types.py --per 2   # another tree, for before/after
"""

from __future__ import annotations

import argparse
import collections
import json
from pathlib import Path

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus" / "pareval-sample"
PROBLEMS = {"03_dense_la_axpy": "axpy", "04_dense_la_gemv": "gemv", "02_dense_la_gemm": "gemm"}
MODELS = {"omp": "cpp-openmp", "kokkos": "cpp-kokkos"}
INCLUDES = "#include <algorithm>\n#include <cmath>\n#include <numeric>\n#include <random>\n#include <vector>\n"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--per", type=int, default=5, help="outputs per prompt and LLM")
    ap.add_argument("--corpus", type=Path, default=CORPUS)
    args = ap.parse_args()
    from hpceval.bind.signature import infer_binding
    from hpceval.evaluate import Evaluator
    from hpceval.executors.local import LocalExecutor
    from hpceval.spec import catalog as load_catalog

    cat = load_catalog()
    ev = Evaluator(cat, LocalExecutor(), timing=False)
    counts: dict[tuple[str, str], collections.Counter] = collections.defaultdict(collections.Counter)
    for path in sorted(args.corpus.glob("output_*.json")):
        for prompt in json.loads(path.read_text()):
            kernel, model = PROBLEMS.get(prompt["name"]), MODELS.get(prompt["parallelism_model"])
            if kernel is None or model is None:
                continue
            m = cat.models[model]
            for out in prompt["outputs"][:args.per]:
                code = INCLUDES + prompt["prompt"] + out
                b = infer_binding(code, cat.kernels[kernel], cat.languages[m.language], m)
                e = ev.evaluate(code, cat.kernels[kernel], m, binding=b)
                counts[(kernel, model)][e.verdict.value] += 1
    verdicts = sorted({v for c in counts.values() for v in c})
    print("kernel model " + " ".join(verdicts))
    for (kernel, model), c in sorted(counts.items()):
        print(f"{kernel} {model} " + " ".join(str(c[v]) for v in verdicts))
    total = collections.Counter()
    for c in counts.values():
        total.update(c)
    print("total " + " ".join(f"{v}={total[v]}" for v in verdicts))


if __name__ == "__main__":
    main()
