"""Where the timing check of each CPU reference spends its time: plan, files, the timed run, the check.

Usage: python3 bench/timing_phases.py axpy/cpp-openmp axpy/python-numpy ... (each evaluated twice in one process:
the first evaluation of a kernel also waits for the shared sets and references, the second shows the steady
state). Prints a table; seconds of wall time.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import hpceval.checks.timing as timing_check
from hpceval.evaluate import Evaluator
from hpceval.executors.local import LocalExecutor
from hpceval.spec import catalog

spent: dict[str, float] = {}
marks: dict[str, float] = {}


def _timed(name: str, fn):
    def run(*args, **kwargs):
        t0 = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            marks[name] = time.perf_counter()
            spent[name] = spent.get(name, 0.0) + marks[name] - t0
    return run


for _name in ("make_plan", "write_plan", "read_record", "check_calls"):
    setattr(timing_check, _name, _timed(_name, getattr(timing_check, _name)))


def main() -> None:
    cat = catalog()
    evaluator = Evaluator(cat, LocalExecutor(), timing=True)
    print("| reference | pass | eval (s) | plan | files | timed run | check | verdict |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    for cell in sys.argv[1:]:
        kernel, model = cell.split("/")
        spec, mod = cat.kernels[kernel], cat.models[model]
        code = Path(spec.solution_path(mod, cat)).read_text()
        for attempt in (1, 2):
            spent.clear()
            marks.clear()
            t0 = time.perf_counter()
            result = evaluator.evaluate(code, spec, mod)
            total = time.perf_counter() - t0
            run = marks.get("read_record", 0) - marks.get("write_plan", 0) - spent.get("read_record", 0)
            print(f"| {cell} | {attempt} | {total:.2f} | {spent.get('make_plan', 0):.2f} | "
                  f"{spent.get('write_plan', 0):.2f} | {run:.2f} | {spent.get('check_calls', 0):.2f} | "
                  f"{result.verdict.value} |", flush=True)


if __name__ == "__main__":
    main()
