"""Cost of the validated timing run, and the references' speeds before and after it (issue 13).

Why: every timed call is now validated (fresh inputs per call, fingerprints of every call's outputs, some compared
in full, a liveness check after each call, the plausibility bound). That must not make an evaluation much slower
(goal: at most 15 % more) nor change what the references measure (their speeds within noise).

How: the CPU references are evaluated with the timing run by two versions of the harness, one after the other:
"before", a `git archive` of --baseline-rev (default HEAD: the committed harness, without the working tree's
changes), and "after", this working tree. Each runs in its own process (PYTHONPATH to its tree), one evaluation at
a time, and reports per reference the whole evaluation's wall time, the timing check's own wall time, the verdict
and the median time. Other checks may differ between the two trees (other work in progress), so the cost of the
timing run is read from the timing check's own time: extra = (timing after - timing before) / evaluation before.

    python bench/timing_cost.py [--baseline-rev REV] [--kernels axpy,gemv] [--models cpp-openmp,...] [--repeats 2]

Prints a Markdown table (and --json PATH writes the raw numbers).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MODELS = "cpp-openmp,fortran-openmp,python-numpy,python-numba"
KERNELS = "axpy,gemv,gemm,spmv,jacobi,cg"

# The probes' common part, run inside the tree under test (which may be an old one): the catalog, an evaluator
# with the timing run, and every (kernel, model) reference that the tree has, from argv's comma lists.
EACH_REFERENCE = r"""
cat = catalog()
evaluator = ev.Evaluator(cat, LocalExecutor(), timing=True)
out = {}

def each_reference():
    for kernel in sys.argv[1].split(","):
        for model in sys.argv[2].split(","):
            spec, mod = cat.kernels[kernel], cat.models[model]
            path = spec.solution_path(mod, cat)
            if path.is_file():
                yield f"{kernel}/{model}", spec, mod, path.read_text()
"""

# Runs inside the tree under test: every reference once, the checks' wall times accumulated by name.
PROBE = r"""
import json, sys, time
import hpceval.evaluate as ev
from hpceval.executors.local import LocalExecutor
from hpceval.spec import catalog

spent = {}

def timed(check):
    def run(job):
        t0 = time.perf_counter()
        try:
            return check(job)
        finally:
            spent[check.name] = spent.get(check.name, 0.0) + time.perf_counter() - t0
    run.name = check.name
    return run

ev.CHECKS = tuple(timed(c) for c in ev.CHECKS)
try:
    from hpceval.ceilings import cpu_ceilings
    cpu_ceilings()  # measured once per machine: not part of any evaluation
except ImportError:
    pass
""" + EACH_REFERENCE + r"""
for key, spec, mod, code in each_reference():
    spent.clear()
    t0 = time.perf_counter()
    e = evaluator.evaluate(code, spec, mod)
    out[key] = {"eval_s": time.perf_counter() - t0, "timing_s": spent.get("timing", 0.0),
                "verdict": str(e.verdict), "time_median_s": e.time_median_s,
                "implausible": getattr(e, "timing_implausible", None)}
print("HPCEVAL_BENCH " + json.dumps(out))
"""


def baseline_tree(rev: str, into: Path) -> Path:
    """The harness at `rev`, unpacked (git archive: the repository itself is not touched)."""
    archive = subprocess.run(["git", "-C", str(REPO), "archive", rev], capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def run_in_tree(tree: Path, probe: str, marker: str, *args: str) -> dict:
    """Run `probe` with the harness of `tree` (its own process, PYTHONPATH and specs); the JSON after `marker`."""
    path = os.pathsep.join(p for p in (str(tree / "harness"), os.environ.get("PYTHONPATH", "")) if p)
    env = {**os.environ, "PYTHONPATH": path, "HPCEVAL_KERNELS_SPEC": str(tree / "kernels_spec")}
    proc = subprocess.run([sys.executable, "-c", probe, *args], capture_output=True, text=True, env=env,
                          cwd=tree, timeout=7200)
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith(marker + " ")), None)
    if line is None:
        raise SystemExit(f"the run in {tree} failed:\n{proc.stderr[-3000:]}")
    return json.loads(line.split(" ", 1)[1])


def measure(tree: Path, kernels: str, models: str) -> dict:
    return run_in_tree(tree, PROBE, "HPCEVAL_BENCH", kernels, models)


def best(runs: list[dict], key: str, field: str) -> float | None:
    values = [r[key][field] for r in runs if key in r and r[key].get(field) is not None]
    return min(values) if values else None


def spread(runs: list[float]) -> str:
    """The repeats' medians, lowest to highest: how far one tree's own runs move on this machine."""
    return f"{min(runs) * 1e3:.2f}-{max(runs) * 1e3:.2f}"


def overlap(before: list[float], after: list[float]) -> bool:
    """A speed is unchanged within noise when the two trees' ranges of repeat medians overlap: a difference the
    machine also produces between runs of one tree is not the change's."""
    return min(after) <= max(before) and min(before) <= max(after)


def table(before: list[dict], after: list[dict]) -> str:
    keys = [k for k in after[0] if k in before[0]]
    lines = ["| kernel/model | eval before (s) | eval after (s) | timing check before (s) | after (s) | extra | "
             "median before (ms) | after (ms) | after/before | runs before (ms) | runs after (ms) | within noise | "
             "verdict after |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---|---|"]
    totals = [0.0, 0.0, 0.0, 0.0]
    for key in keys:
        eb, ea = best(before, key, "eval_s"), best(after, key, "eval_s")
        tb, ta = best(before, key, "timing_s"), best(after, key, "timing_s")
        runs_b = [r[key]["time_median_s"] for r in before if r[key].get("time_median_s")] or [0]
        runs_a = [r[key]["time_median_s"] for r in after if r[key].get("time_median_s")] or [0]
        mb, ma = statistics.median(runs_b), statistics.median(runs_a)
        for i, v in enumerate((eb, ea, tb, ta)):
            totals[i] += v or 0.0
        extra = (ta - tb) / eb if eb else float("nan")
        ratio = ma / mb if mb else float("nan")
        verdict = after[-1][key]["verdict"] + (" (implausible)" if after[-1][key].get("implausible") else "")
        lines.append(f"| {key} | {eb:.1f} | {ea:.1f} | {tb:.1f} | {ta:.1f} | {100 * extra:+.0f}% | {mb * 1e3:.2f} | "
                     f"{ma * 1e3:.2f} | {ratio:.2f} | {spread(runs_b)} | {spread(runs_a)} | "
                     f"{'yes' if overlap(runs_b, runs_a) else 'no'} | {verdict} |")
    eb, ea, tb, ta = totals
    lines.append(f"| **total** | {eb:.1f} | {ea:.1f} | {tb:.1f} | {ta:.1f} | **{100 * (ta - tb) / eb:+.0f}%** | | | | | | | |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline-rev", default="HEAD")
    parser.add_argument("--baseline-tree", type=Path, default=None,
                        help="an unpacked tree of the baseline instead (`git archive REV | tar -x -C DIR`), for a "
                             "machine without the repository's history (the GPU machine)")
    parser.add_argument("--kernels", default=KERNELS)
    parser.add_argument("--models", default=MODELS)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    before, after = [], []
    with tempfile.TemporaryDirectory(prefix="hpceval-bench-") as tmp:
        old = args.baseline_tree.resolve() if args.baseline_tree else baseline_tree(args.baseline_rev, Path(tmp))
        for r in range(args.repeats):  # alternate, so that a change of the machine's load hits both
            print(f"repeat {r + 1}/{args.repeats}: before ({args.baseline_rev}) ...", file=sys.stderr, flush=True)
            before.append(measure(old, args.kernels, args.models))
            print(f"repeat {r + 1}/{args.repeats}: after (working tree) ...", file=sys.stderr, flush=True)
            after.append(measure(REPO, args.kernels, args.models))
            if args.json:  # after every repeat: a bench cut short keeps what it measured
                args.json.write_text(json.dumps({"before": before, "after": after}, indent=1))
    print(f"Evaluation of the CPU references with the timing run, before ({args.baseline_rev}) and after "
          f"(working tree); best of {args.repeats} per cell for the wall times, median for the kernels' times; the runs columns give the range of the repeats' own "
          f"medians, and a speed is unchanged within noise where the two ranges overlap.\n")
    print(table(before, after))
    return 0


if __name__ == "__main__":
    sys.exit(main())
