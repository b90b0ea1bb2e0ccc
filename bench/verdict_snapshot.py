"""Every verdict and its evidence of `hpceval selftest` (references and their mutants) as one JSON file, so two
versions of the harness can be diffed row by row: a change meant to save time (issue 30) must not change a row.

    PYTHONPATH=harness python3 bench/verdict_snapshot.py --models cpp-openmp,python-numpy --kernels axpy,spmv OUT.json
    (the same with PYTHONPATH=<other checkout>/harness into OTHER.json), then: diff OUT.json OTHER.json
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--models", default="cpp-openmp,python-numpy")
    parser.add_argument("--kernels", default="axpy,spmv")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()

    from hpceval.evaluate import Evaluator
    from hpceval.executors import get_executor
    from hpceval.selftest import run_selftest
    from hpceval.spec import catalog

    cat = catalog()
    evaluator = Evaluator(cat, get_executor("local"), timing=False)
    report = run_selftest(cat, evaluator, cat.select_kernels(args.kernels.split(",")),
                          cat.select_models(args.models.split(",")), jobs=args.jobs, progress=False)
    rows = {}
    for (kernel, model), cell in sorted(report.cells.items()):
        ref = cell.reference
        rows[f"{kernel}/{model}/reference"] = [ref.verdict.value, ref.evidence] if ref else [cell.status, ""]
        for o in cell.outcomes:
            rows[f"{kernel}/{model}/{o.index}: {o.mutant.description}"] = [o.verdict.value, o.evidence]
    args.out.write_text(json.dumps(rows, indent=1) + "\n")
    print(f"{len(rows)} rows -> {args.out}")


if __name__ == "__main__":
    main()
