"""Which part of the validated timing run moves a reference's speed (issue 13): the driver with one piece taken out.

Why: against the old timing run (one input set, calls repeated on it, nothing compared) some CPU references are
slower under the validated run (bench/timing_cost.py). The run differs in several pieces at once: before every
call the driver writes the call's input set into the kernel's arrays (scaled by 2^e) and poisons the outputs; it
snapshots the threads and processes before the call and checks them after it (the liveness check); it
fingerprints the outputs. Reproductions outside the harness did not show the slowdown, so this takes the pieces out
of the harness's own drivers, one at a time, and times the references through the whole harness, as
bench/timing_cost.py does. A variant's verdict may be wrong (without fresh inputs the fingerprints no longer
match): its times are taken from the driver's record all the same, and only the times are compared.

Variants (each a copy of the tree under test, the drivers' templates edited; an edit that no longer applies stops
the bench, so it cannot silently measure the unedited driver):

    validated      the tree as it is
    unaligned      without the layout flags (toolchains.LAYOUT_FLAGS): the kernel's code placed wherever the
                   driver's code before it puts it
    same-inputs    no input refresh and no output poison between calls: every call on set 0 (as the old run)
    one-set        the validated run with one input set instead of two (no rotation; still scaled per call)
    no-output-files  the calls compared in full do not write their outputs to files between the calls
    file-inputs    C++: inputs read with fread from their files when needed (the old driver's way), not from the
                   in-memory vault the driver fills before the suggestion's code runs
    no-liveness    no thread/process snapshot before the call and no check after it
    old            the old timing run (--old-tree DIR, a `git archive 4147e1a^`)
    old-aligned    the old timing run built with the layout flags

    python bench/timing_ablation.py [--old-tree DIR] [--variants validated,old,...] [--kernels gemm,gemv]
                                    [--models cpp-openmp] [--repeats 3]

Prints a Markdown table: per cell and variant the median of the repeats' medians of the timed calls, their range,
and the ratio to the "old" (else "same-inputs") variant; --json writes every call's time.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from timing_cost import EACH_REFERENCE, REPO, run_in_tree  # a sibling script of bench/

# Runs inside the tree under test: every reference once; the per-call times from the driver's record when the tree
# has one (the validated run), else the evaluation's median (the old run).
PROBE = r"""
import json, sys
import hpceval.evaluate as ev
from hpceval.executors.local import LocalExecutor
from hpceval.spec import catalog

seen = {}
try:
    import hpceval.checks.timing as tc
    _read = tc.read_record
    def read_record(workdir, plan):
        record = _read(workdir, plan)
        seen["calls"] = list(record.times)
        seen["warmup"] = plan.warmup
        return record
    tc.read_record = read_record
    from hpceval.ceilings import cpu_ceilings
    cpu_ceilings()
except (ImportError, AttributeError):
    pass
""" + EACH_REFERENCE + r"""
for key, spec, mod, code in each_reference():
    seen.clear()
    e = evaluator.evaluate(code, spec, mod)
    calls, warmup = seen.get("calls", []), seen.get("warmup", 0)
    timed = calls[warmup:]
    median = sorted(timed)[len(timed) // 2] if timed else e.time_median_s
    out[key] = {"verdict": str(e.verdict), "median_s": median, "calls_s": calls, "warmup": warmup}
print("HPCEVAL_ABLATION " + json.dumps(out))
"""

DRIVERS = Path("harness/hpceval/bind/drivers")


def _edit(tree: Path, name: str, edits: list[tuple[str, str]], folder: Path = DRIVERS) -> None:
    path = tree / folder / name
    text = path.read_text()
    for old, new in edits:
        if text.count(old) != 1:
            raise SystemExit(f"{path}: the edit no longer applies ({old.strip()[:60]!r} found {text.count(old)} "
                             "times): update bench/timing_ablation.py with the driver")
        text = text.replace(old, new)
    path.write_text(text)


def same_inputs(tree: Path) -> None:
    """Every call on the arrays as the first call left them: set 0 throughout, nothing rewritten, nothing poisoned
    after the first call (the old run's data)."""
    _edit(tree, "cpp.j2", [
        ("        const size_t hpt_s = (size_t)hpt_plan.set[(size_t)hpt_k];\n", "        const size_t hpt_s = 0;\n"),
        ("        std::fill({{ p.name }}.begin(), {{ p.name }}.end(), hpceval_poison<{{ p.ctype }}>());\n",
         "        if (hpt_k == 0) std::fill({{ p.name }}.begin(), {{ p.name }}.end(), hpceval_poison<{{ p.ctype }}>());\n"),
        ("        if ({{ p.name }}_hp_scaled)\n          hpceval_scale(",
         "        if (hpt_k > 0) {\n        } else if ({{ p.name }}_hp_scaled)\n          hpceval_scale(")])
    _edit(tree, "python.j2", [
        ("            for name, dtype, _shape in REFRESH_ORDER:",
         "            for name, dtype, _shape in (REFRESH_ORDER if k == 0 else ()):")])


def no_liveness(tree: Path) -> None:
    """No snapshot of threads and processes before the call, no check after it."""
    _edit(tree, "cpp.j2", [
        ("        hpceval_rt_before_call();\n", ""),
        ("        const int hpt_live = hpceval_rt_after_call(hpt_why, (int)sizeof hpt_why);\n",
         "        const int hpt_live = 0;\n        hpt_why[0] = 0;\n")])
    _edit(tree, "python.j2", [
        ("            before = running_now()\n", "            before = None\n"),
        ("            live = still_running(before)\n", "            live = None\n")])


def one_set(tree: Path) -> None:
    """One input set for every call (still scaled by 2^e per call, validated, poisoned): no rotation between sets,
    so the calls read the working set of one set, as the old run did."""
    _edit(tree, "timing.py", [("\nSETS = 2\n", "\nSETS = 1\n")], Path("harness/hpceval/cases"))


def no_output_files(tree: Path) -> None:
    """The calls marked full do not write their outputs to files between calls (their comparison then fails)."""
    _edit(tree, "cpp.j2", [
        ('          hpceval_write(dir + "/out_{{ p.name }}." + std::to_string(hpt_k) + ".bin", {{ p.name }});\n',
         "")])
    _edit(tree, "python.j2", [
        ('                    np.ascontiguousarray(ns[name]).tofile(f"{folder}/out_{name}.{k}.bin")\n',
         "                    pass\n")])


def file_inputs(tree: Path) -> None:
    """C++: the input arrays read from their files with fread when the driver reaches them, as the old driver did,
    instead of from the driver's in-memory vault (only the plan is taken early)."""
    _edit(tree, "cpp.j2", [
        ("  hpceval_vault()[path].swap(bytes);\n  hpceval_rt_unlink(path.c_str());\n}\n",
         "  if (path.size() > 4 && path.compare(path.size() - 4, 4, \".bin\") == 0) return;\n"
         "  hpceval_vault()[path].swap(bytes);\n  hpceval_rt_unlink(path.c_str());\n}\n")])


def unaligned(tree: Path) -> None:
    """The compiled kernels laid out wherever the driver's code puts them (no LAYOUT_FLAGS)."""
    _edit(tree, "__init__.py", [('LAYOUT_FLAGS: tuple[str, ...] = ("-falign-functions=64", "-falign-loops=32")',
                                 "LAYOUT_FLAGS: tuple[str, ...] = ()")], TOOLCHAINS)


def aligned_old(tree: Path) -> None:
    """The old timing run with the layout flags of this tree (C++ and Fortran builds)."""
    flags = '"-falign-functions=64", "-falign-loops=32"'
    _edit(tree, "gcc.py", [('base_flags = ("-O2", "-std=c++17", "-w")',
                            f'base_flags = ("-O2", "-std=c++17", "-w", {flags})')], TOOLCHAINS)
    _edit(tree, "gfortran.py", [('base_flags = ("-O2", "-ffree-line-length-none", "-w")',
                                 f'base_flags = ("-O2", "-ffree-line-length-none", "-w", {flags})')], TOOLCHAINS)


TOOLCHAINS = Path("harness/hpceval/toolchains")
# name -> (edit, whether it edits the old run's tree rather than this one)
VARIANTS: dict[str, tuple[Callable[[Path], None] | None, bool]] = {
    "validated": (None, False), "unaligned": (unaligned, False), "same-inputs": (same_inputs, False),
    "one-set": (one_set, False), "no-output-files": (no_output_files, False), "file-inputs": (file_inputs, False),
    "no-liveness": (no_liveness, False), "old": (None, True), "old-aligned": (aligned_old, True)}


def copy_tree(into: Path, old: Path | None = None) -> Path:
    """The working tree's tracked and unignored files (what a clean checkout of it would hold), or a copy of `old`."""
    if old is not None:
        shutil.copytree(old, into)
        return into
    files = subprocess.run(["git", "-C", str(REPO), "ls-files", "-co", "--exclude-standard", "-z"],
                           capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, files):
        src = REPO / name
        if src.is_file():
            (into / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, into / name)
    return into


def measure(tree: Path, kernels: str, models: str) -> dict:
    return run_in_tree(tree, PROBE, "HPCEVAL_ABLATION", kernels, models)


def table(runs: dict[str, list[dict]]) -> str:
    names = list(runs)
    base = next((n for n in ("old", "same-inputs") if n in runs), names[0])
    keys = [k for k in runs[names[0]][0]]
    head = "| kernel/model | " + " | ".join(f"{n} (ms) | range" for n in names) + " | " + \
        " | ".join(f"{n}/{base}" for n in names if n != base) + " |"
    lines = [head, "|---|" + "---:|---|" * len(names) + "---:|" * (len(names) - 1)]
    for key in keys:
        medians = {}
        cells = []
        for n in names:
            values = [r[key]["median_s"] for r in runs[n] if key in r and r[key]["median_s"]]
            medians[n] = statistics.median(values) if values else None
            cells.append(f"{medians[n] * 1e3:.2f} | {min(values) * 1e3:.2f}-{max(values) * 1e3:.2f}" if values
                         else "- | -")
        ratios = [f"{medians[n] / medians[base]:.2f}" if medians[n] and medians[base] else "-"
                  for n in names if n != base]
        lines.append(f"| {key} | " + " | ".join(cells) + " | " + " | ".join(ratios) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old-tree", type=Path, default=None, help="an unpacked tree of the old timing run")
    parser.add_argument("--kernels", default="gemm,gemv,axpy,spmv")
    parser.add_argument("--models", default="cpp-openmp,python-numpy")
    parser.add_argument("--variants", default="validated,unaligned,same-inputs,no-liveness")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    runs: dict[str, list[dict]] = {}
    with tempfile.TemporaryDirectory(prefix="hpceval-ablation-") as tmp:
        trees: dict[str, Path] = {}
        for name in args.variants.split(","):
            if name not in VARIANTS:
                raise SystemExit(f"unknown variant {name!r}: one of {', '.join(VARIANTS)}")
            edit, of_old = VARIANTS[name]
            if of_old and not args.old_tree:
                raise SystemExit(f"variant {name} needs --old-tree")
            tree = copy_tree(Path(tmp) / name, args.old_tree.resolve() if of_old else None)
            if edit:
                edit(tree)
            trees[name] = tree
        for r in range(args.repeats):  # interleaved, so that a change of the machine's load hits every variant
            for name, tree in trees.items():
                print(f"repeat {r + 1}/{args.repeats}: {name} ...", file=sys.stderr, flush=True)
                runs.setdefault(name, []).append(measure(tree, args.kernels, args.models))
                if args.json:  # after every run: a bench cut short keeps what it measured
                    args.json.write_text(json.dumps(runs, indent=1))
    print("Median of the timed calls per run, median over the repeats (range of the repeats' medians); variants as "
          "in bench/timing_ablation.py's docstring.\n")
    print(table(runs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
