"""Where an evaluation's wall time goes: the harness's own work against the compilers' and the suggestions' runs.

Usage:
    python3 bench/overhead.py [--models cpp-openmp,python-numpy,...] [--kernels axpy,gemv,...] [--repeats 2]
                              [--no-timing] [--jobs 1]

Runs `hpceval run --llm reference` in this process (a fresh results directory per repeat; the last repeat is the
one reported per evaluation, with warm file-system, compiler and harness caches; a last table gives every
repeat's totals and the median of the warm ones) with every stage of the harness wrapped by a profiler that
charges each wall-clock second to exactly one phase (exclusive time: a wrapped function's time minus the time of
the wrapped functions it called; one stack per thread, so the preparation thread's work is charged to
`prepare (background)` and never double-counted against the evaluation it overlaps):

  prepare     inputs and references: validation cases, the timing plan and its per-class references, their files
  bind        signature inference, glue, the driver's rendering, the completeness analysis
  static      the static checks (driver access, interposition, data mapping, sharing, model use, loops)
  sandbox     starting the sandbox for each command (a no-op command's median, measured first, times the count)
  build       the compilers (the build commands' own seconds, sandbox start excluded)
  runs        the suggestion's runs (validation, probes, second run, timed run; sandbox start excluded)
  compare     reading outputs and comparing them with the references (validation and timing)
  checks      the dynamic model checks' harness side (their commands are `runs`)
  timing      the timing check's own side: waiting for the shared timing sets, plausibility, bookkeeping
  store       the results store's writes
  other       the rest of the evaluation's wall time (the evaluator's own glue, Python, waits)

Overhead = wall time - build - runs: what a user waits for that no compiler and no suggestion spends.
Prints one table row per evaluation and a total, as Markdown.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

PHASES = ("prepare", "bind", "static", "sandbox", "build", "runs", "compare", "checks", "timing", "store", "other")

_local = threading.local()
_spent: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
_commands: dict[str, int] = defaultdict(int)
_lock = threading.Lock()


def _stack() -> list[list[float]]:
    if not hasattr(_local, "stack"):
        _local.stack = []
    return _local.stack


def _label() -> str:
    return getattr(_local, "label", "background")


def _charge(phase: str, seconds: float) -> None:
    with _lock:
        _spent[_label()][phase] += seconds


def wrap(fn: Callable, phase: str) -> Callable:
    """fn, its exclusive wall time charged to `phase` of the current evaluation."""

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        stack = _stack()
        stack.append([0.0])  # children's time
        t0 = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            total = time.perf_counter() - t0
            children = stack.pop()[0]
            _charge(phase, total - children)
            if stack:
                stack[-1][0] += total

    wrapped.__wrapped__ = fn
    return wrapped


def _replace_everywhere(original: Any, replacement: Any) -> None:
    """Replace a function in every loaded hpceval module that imported it by name."""
    for module in list(sys.modules.values()):
        if not getattr(module, "__name__", "").startswith("hpceval"):
            continue
        for name, value in list(vars(module).items()):
            if value is original:
                setattr(module, name, replacement)


def _patch(module_name: str, attr: str, phase: str) -> None:
    module = sys.modules[module_name]
    original = getattr(module, attr)
    _replace_everywhere(original, wrap(original, phase))


def instrument(noop_s: float) -> None:
    """Wrap the harness's stages; the executor's commands are split into sandbox start and the command itself."""
    import hpceval.evaluate as evaluate
    from hpceval.contracts import ProcResult

    for module_name, attr, phase in (
        ("hpceval.cases.generate", "make_case", "prepare"),
        ("hpceval.cases.generate", "validation_cases", "prepare"),
        ("hpceval.cases.prepared", "validation_cases", "prepare"),
        ("hpceval.cases.io", "write_cases", "prepare"),
        ("hpceval.cases.timing", "make_plan", "prepare"),
        ("hpceval.cases.timing", "write_plan", "prepare"),
        ("hpceval.cases.timing_check", "prepare_references", "prepare"),
        ("hpceval.bind", "choose_binding", "bind"),
        ("hpceval.bind", "render_unit", "bind"),
        ("hpceval.evaluate", "Evaluator._missing_names", "bind"),
        ("hpceval.evaluate", "Evaluator._unbound", "bind"),
        ("hpceval.evaluate", "_checked_code", "bind"),
        ("hpceval.cases.io", "read_arrays", "compare"),
        ("hpceval.cases.compare", "compare", "compare"),
        ("hpceval.cases.timing", "read_record", "compare"),
        ("hpceval.cases.timing_check", "check_calls", "compare"),
        ("hpceval.store", "Store.put_evaluation", "store"),
        ("hpceval.store", "Store.link", "store"),
        ("hpceval.store", "Store.add_generations", "store"),
        ("hpceval.store", "Store.export_csv", "store"),
    ):
        if module_name not in sys.modules:  # an older harness without it (the same instrument measures before/after)
            continue
        if "." in attr:  # a method
            cls_name, meth = attr.split(".")
            cls = getattr(sys.modules[module_name], cls_name)
            setattr(cls, meth, wrap(getattr(cls, meth), phase))
        else:
            _patch(module_name, attr, phase)

    static = {"reaches_no_driver", "defines_no_timer", "maps_data", "covers_footprint", "shares_correctly",
              "uses_model", "work_in_construct", "vectorised"}
    checks = []
    for step in evaluate.CHECKS:
        name = getattr(getattr(step, "run", None), "__name__", getattr(step, "name", ""))
        phase = "static" if name in static else "timing" if name == "timed" else "checks"
        checks.append(type(step)(step.name, wrap(step.run, phase)) if hasattr(step, "run") else step)
    evaluate.CHECKS = tuple(checks)

    original_runner = evaluate.Evaluator._runner

    def runner(self, toolchain):
        run = original_runner(self, toolchain)

        def counted(argv, workdir, env, limits) -> ProcResult:
            stack = _stack()
            t0 = time.perf_counter()
            result = run(argv, workdir, env, limits)
            total = time.perf_counter() - t0
            building = getattr(_local, "building", False)
            start = min(noop_s, result.seconds)
            _charge("sandbox", start)
            _charge("build" if building else "runs", result.seconds - start)
            _charge("other", total - result.seconds)  # the executor's own bookkeeping around the command
            with _lock:
                _commands[_label()] += 1
            if stack:
                stack[-1][0] += total
            return result

        return counted

    evaluate.Evaluator._runner = runner

    # the build check: its commands are `build`
    builds = next(s for s in evaluate.CHECKS if s.name == "build")
    build_run = builds.run

    def in_build(job):
        _local.building = True
        try:
            return build_run(job)
        finally:
            _local.building = False

    evaluate.CHECKS = tuple(type(s)(s.name, in_build) if s is builds else s for s in evaluate.CHECKS)

    alone = evaluate.Evaluator._alone  # compile first (checks.builds_alone): its commands are `build` too

    def alone_is_build(self, *args, **kwargs):
        _local.building = True
        try:
            return alone(self, *args, **kwargs)
        finally:
            _local.building = False

    evaluate.Evaluator._alone = alone_is_build

    original_evaluate = evaluate.Evaluator.evaluate

    def labelled(self, code, spec, model, binding=None, graded=None):
        _local.label = f"{spec.id}/{model.id}"
        t0 = time.perf_counter()
        try:
            return original_evaluate(self, code, spec, model, binding, graded)
        finally:
            _charge("wall", time.perf_counter() - t0)
            _local.label = "run"

    evaluate.Evaluator.evaluate = labelled


def sandbox_start_s(samples: int = 15) -> float:
    """The median wall time of a no-op command in the local sandbox: the start cost of every command."""
    from hpceval.executors import Limits
    from hpceval.executors.local import LocalExecutor

    executor = LocalExecutor()
    times = []
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(samples):
            result = executor.run(["/bin/true"], Path(tmp), {}, Limits(wall_s=10))
            times.append(result.seconds)
    return statistics.median(times)


def row(label: str, spent: dict[str, float], commands: int) -> str:
    wall = spent.get("wall", 0.0)
    known = sum(spent.get(p, 0.0) for p in PHASES if p != "other")
    spent = {**spent, "other": max(0.0, wall - known) if wall else spent.get("other", 0.0)}
    overhead = wall - spent["build"] - spent["runs"] if wall else 0.0
    cells = " | ".join(f"{spent.get(p, 0.0):.2f}" for p in PHASES)
    share = f"{100 * overhead / wall:.0f}%" if wall else "-"
    return f"| {label} | {wall:.2f} | {cells} | {commands} | {overhead:.2f} | {share} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="cpp-openmp,cpp-openacc,fortran-openmp,python-numpy,python-numba")
    parser.add_argument("--kernels", default="axpy,gemv,gemm,spmv,jacobi,cg")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--no-timing", action="store_true")
    args = parser.parse_args()

    import hpceval.cli  # noqa: F401  (loads every module the run uses, so the patches reach them)
    import hpceval.pipeline  # noqa: F401

    noop = sandbox_start_s()
    instrument(noop)
    from hpceval.cli import app

    argv = ["run", "--llm", "reference", "--models", args.models, "--kernels", args.kernels,
            "--jobs", str(args.jobs), *(["--no-timing"] if args.no_timing else [])]
    run_wall = 0.0
    per_repeat: list[dict[str, float]] = []
    for _ in range(args.repeats):  # the last repeat is reported (warm caches)
        _spent.clear()
        _commands.clear()
        with tempfile.TemporaryDirectory(prefix="hpceval-overhead-") as out:
            t0 = time.perf_counter()
            app([*argv, "--out", out], standalone_mode=False)
            run_wall = time.perf_counter() - t0
        per_repeat.append({p: sum(_spent[k].get(p, 0.0) for k in _spent) for p in PHASES if p != "other"}
                          | {"wall": run_wall})

    print(f"sandbox start (no-op command, median of 15): {noop * 1000:.1f} ms; "
          f"models {args.models}; kernels {args.kernels}; timing {'off' if args.no_timing else 'on'}; "
          f"jobs {args.jobs}; repeat {args.repeats} of {args.repeats} shown\n")
    print("| evaluation | wall | " + " | ".join(PHASES) + " | commands | overhead | share |")
    print("|---|" + "---:|" * (len(PHASES) + 4))
    totals: dict[str, float] = defaultdict(float)
    for label in sorted(k for k in _spent if k not in ("run", "background")):
        print(row(label, _spent[label], _commands[label]))
        for phase, seconds in _spent[label].items():
            totals[phase] += seconds
    for label in ("background", "run"):
        if label in _spent:
            print(row(f"({label})", {**_spent[label], "wall": 0.0}, _commands[label]))
    whole = {p: totals.get(p, 0.0) + sum(_spent[k].get(p, 0.0) for k in ("run", "background") if k in _spent)
             for p in PHASES if p != "other"}
    whole["wall"] = run_wall
    print(row("**whole run**", whole, sum(_commands.values())))
    build_runs = whole["build"] + whole["runs"]
    print(f"\nwhole run: wall {run_wall:.1f} s, build + runs {build_runs:.1f} s, "
          f"harness overhead {run_wall - build_runs:.1f} s ({100 * (run_wall - build_runs) / run_wall:.0f}% of wall)")
    print_repeats(per_repeat)


def print_repeats(per_repeat: list[dict[str, float]]) -> None:
    """One line per repeat (the first: cold caches of this process), and the median of the warm ones (2..N): the
    machine's noise shows as their spread."""
    cols = ("wall", "prepare", "sandbox", "build", "runs", "compare", "overhead", "share")

    def cells(r: dict[str, float]) -> dict[str, float]:
        overhead = r["wall"] - r["build"] - r["runs"]
        return {**r, "overhead": overhead, "share": 100 * overhead / r["wall"]}

    rows = [cells(r) for r in per_repeat]
    print("\n| repeat | " + " | ".join(cols) + " |\n|---|" + "---:|" * len(cols))
    for i, r in enumerate(rows, start=1):
        print(f"| {i}{' (cold)' if i == 1 else ''} | " + " | ".join(f"{r[c]:.{0 if c == 'share' else 2}f}" +
                                                          ("%" if c == "share" else "") for c in cols) + " |")
    warm = rows[1:]
    if warm:
        med = {c: statistics.median(r[c] for r in warm) for c in cols}
        print(f"| median of repeats 2-{len(rows)} | " + " | ".join(f"{med[c]:.{0 if c == 'share' else 2}f}" +
                                                                   ("%" if c == "share" else "") for c in cols) + " |")


if __name__ == "__main__":
    main()
