"""GPU self-test and performance table (run by bench/gpu_selftest.sh on a machine with an NVIDIA GPU).

1. Mutation self-test (hpceval.selftest.run_selftest, what `hpceval selftest` runs) of the GPU models: every
   reference solution must be `correct` and >= --min-kill of each cell's mutants must be rejected.
   python-numba is tested with its numba.cuda references (solutions/python-numba.cuda.py): a copy of
   kernels_spec is made where they stand in for python-numba.py.
2. Performance: every reference evaluated with timing (the harness's own timing run at the spec's GPU timing size,
   sizes.gpu_timing: 1-3 warm-up calls, every call validated, median of the timed calls; the spread min..max of
   the timed calls is shown). Time = GPU time of the kernels of one call, from the CUPTI probe
   (transfer-free; the whole call incl. allocation and copies is shown beside it). Against:
   * ceilings measured here, now: device-to-device copy bandwidth (1 GiB, bytes read + written) and FP64 GEMM
     throughput (cuBLAS DGEMM, the best of 4096^3 and 8192^3);
   * vendor baselines at the same size and inputs: cuBLAS SAXPY, DGEMV, DGEMM, cuSPARSE CSR SpMV (through
     CuPy); Jacobi and CG have none.
   Baselines and ceilings are timed with CUDA events around the operation, 3 warm-ups, median of 20, the L2
   flushed (a 2 x L2-size memset) before each repetition (hpceval.ceilings.GpuTimer, the harness's own code).

Writes selftest.md, performance.md and summary.json to --out.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path

from hpceval.ceilings import GpuTimer, gpu_measure

GPU_MODELS = ["cpp-cuda", "cpp-thrust", "cpp-hip", "cpp-kokkos", "python-cupy", "python-numba", "python-pycuda",
              "python-triton"]
LABEL = {"python-numba": "python-numba (numba.cuda)", "cpp-kokkos": "cpp-kokkos (CUDA)"}


def gpu_catalog(tmp: Path):
    """The catalog with python-numba's references replaced by the numba.cuda ones."""
    from hpceval.paths import kernels_dir
    from hpceval.spec import load_catalog

    root = tmp / "kernels_spec"
    shutil.copytree(kernels_dir(), root)
    for cuda_ref in root.glob("*/solutions/python-numba.cuda.py"):
        shutil.copyfile(cuda_ref, cuda_ref.with_name("python-numba.py"))
    return load_catalog(root)


# ---------------------------------------------------------------------------------------------- ceilings


Timer = GpuTimer  # the harness's own measurement code (hpceval.ceilings), also behind its plausibility bound


def ceilings(timer: GpuTimer) -> dict:
    return gpu_measure(timer)


def gpu_size(spec) -> dict:
    """The size GPU models are timed at (spec sizes.gpu_timing; the CPU timing size where none is declared)."""
    return dict(spec.sizes.gpu_timing or spec.sizes.timing)


def baselines(timer: Timer, catalog) -> dict:
    """Vendor-library time per kernel at the spec's timing size (seconds), with what ran."""
    import cupy as cp
    import cupyx.scipy.sparse as sparse
    import numpy as np
    from cupy import cublas

    from hpceval.cases.generate import make_case

    out = {}
    for spec in catalog.kernels.values():
        inputs = make_case(spec, gpu_size(spec), 20230615).inputs
        dev = {k: cp.asarray(v) for k, v in inputs.items() if isinstance(v, np.ndarray)}
        if spec.id == "axpy":
            a = np.float32(inputs["a"])
            out[spec.id] = (timer(lambda d=dev, a=a: cublas.axpy(a, d["x"], d["y"])), "cuBLAS SAXPY")
        elif spec.id == "gemv":
            y = cp.empty(inputs["m"])
            out[spec.id] = (timer(lambda d=dev, y=y: cp.matmul(d["A"], d["x"], out=y)), "cuBLAS DGEMV")
        elif spec.id == "gemm":
            c = cp.empty((inputs["m"], inputs["n"]))
            out[spec.id] = (timer(lambda d=dev, c=c: cp.matmul(d["A"], d["B"], out=c)), "cuBLAS DGEMM")
        elif spec.id == "spmv":
            n = inputs["n"]
            mat = sparse.csr_matrix((dev["values"], dev["col_idx"], dev["row_ptr"]), shape=(n, n))
            out[spec.id] = (timer(lambda m=mat, d=dev: m @ d["x"]), "cuSPARSE CSR SpMV")
        del dev
        cp.get_default_memory_pool().free_all_blocks()
    return out


# ---------------------------------------------------------------------------------------------- runs


def run_selftest_gpu(catalog, jobs: int, min_kill: float, kernels: list[str] | None, models: list[str]):
    from hpceval.evaluate import Evaluator
    from hpceval.executors.local import LocalExecutor
    from hpceval.selftest import run_selftest

    evaluator = Evaluator(catalog, LocalExecutor(), timing=False)
    return run_selftest(catalog, evaluator, catalog.select_kernels(kernels), catalog.select_models(models),
                        jobs=jobs, progress=False)


def run_timings(catalog, jobs: int, kernels: list[str] | None, models: list[str], runs: int = 3) -> dict:
    """Every reference's timing run, `runs` times as separate jobs (separate processes, fresh inputs each):
    {(kernel, model): [Evaluation, ...]}. The spread across runs is what a rerun of the leaderboard would see."""
    from hpceval.evaluate import Evaluator
    from hpceval.executors.local import LocalExecutor

    todo = []
    for spec in catalog.select_kernels(kernels):
        for model in catalog.select_models(models):
            path = spec.solution_path(model, catalog)
            if path.is_file():
                todo.append((spec, model, path.read_text()))
    out: dict = {}
    for run in range(runs):  # one seed per run: each run's timing inputs differ (the timed calls' are secret)
        evaluator = Evaluator(catalog, LocalExecutor(), timing=True, seed=20230615 + run)

        def one(item, evaluator=evaluator):
            spec, model, code = item
            return (spec.id, model.id), evaluator.evaluate(code, spec, model)

        with ThreadPoolExecutor(max_workers=jobs) as pool:
            for key, ev in pool.map(one, todo):
                out.setdefault(key, []).append(ev)
    return out


def _across(evs: list) -> tuple[float | None, float | None, float | None]:
    """(median of the runs' medians, fastest and slowest run's median) over the runs that timed the kernel."""
    medians = sorted(e.time_median_s for e in evs if e.time_median_s)
    if not medians:
        return None, None, None
    return statistics.median(medians), medians[0], medians[-1]


def _whole_call(evidence: str) -> float | None:
    match = re.search(r"whole call incl\. transfers median ([0-9.e+-]+) s", evidence)
    return float(match.group(1)) if match else None


def performance_markdown(catalog, timings: dict, ceil: dict, base: dict, models: list[str], gpu: str) -> str:
    runs = max((len(v) for v in timings.values()), default=0)
    streams = ", ".join(f"{k} {v} GB/s" for k, v in ceil.get("streams_gbs", {}).items())
    lines = [f"## Performance on {gpu}", "",
             f"Ceilings measured in this run: streaming **{ceil['copy_gbs']:.0f} GB/s** (bytes read + written, the best "
             f"of: {streams or 'D2D copy'}), FP64 GEMM **{ceil['dgemm_gflops'] / 1e3:.1f} TFLOP/s** (cuBLAS DGEMM "
             f"at 4096^3 and 8192^3, the best).", "",
             f"Time: GPU kernels of one call (CUPTI, transfer-free), median over the timed calls after 1-3 warm-ups "
             f"(every call validated), in each of {runs} separate timing runs (separate processes, fresh inputs); "
             f"the table gives the median of the runs' medians, the spread across runs (fastest and slowest run's "
             f"median, and (slowest - fastest) / median), and the interquartile range of the timed calls within "
             f"the first run. 'whole call' adds allocation and host<->device copies. GB/s and GFLOP/s use the spec's "
             f"byte and FLOP counts at the size the harness timed (the spec's GPU timing size where the kernel ran "
             f"on the GPU). Baselines: CUDA events, 3 warm-ups, median of 20, L2 flushed.", ""]
    for spec in catalog.kernels.values():
        size = ", ".join(f"{k}={v}" for k, v in gpu_size(spec).items())
        flops = spec.metric(spec.flops, gpu_size(spec))
        nbytes = spec.metric(spec.bytes, gpu_size(spec))
        bound = "compute" if spec.id == "gemm" else "memory"
        lines += [f"### {spec.name} ({size}; {bound}-bound)", "",
                  "| implementation | kernel time (ms) | across runs: min, max (ms) | run spread | IQR in run (ms) | "
                  "GB/s | % of streaming BW | GFLOP/s | % of DGEMM peak | whole call (ms) | verdict |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]

        def row(name, t, whole, verdict, gbs=None, gfs=None, lo=None, hi=None, iqr=None, nbytes=nbytes, flops=flops):
            if t is None:
                return f"| {name} | – | – | – | – | – | – | – | – | – | {verdict} |"
            gbs = nbytes / t / 1e9 if gbs is None else gbs
            gfs = flops / t / 1e9 if gfs is None else gfs
            call = f"{whole * 1e3:.2f}" if whole else "–"
            across = f"{lo * 1e3:.3f}, {hi * 1e3:.3f}" if lo is not None else "–"
            spread = f"{100 * (hi - lo) / t:.1f}%" if lo is not None else "–"
            within = f"{iqr * 1e3:.3f}" if iqr is not None else "–"
            return (f"| {name} | {t * 1e3:.3f} | {across} | {spread} | {within} | {gbs:.0f} | "
                    f"{100 * gbs / ceil['copy_gbs']:.0f}% | {gfs:.0f} | {100 * gfs / ceil['dgemm_gflops']:.1f}% | "
                    f"{call} | {verdict} |")

        if spec.id in base:
            t, what = base[spec.id]
            lines.append(row(f"baseline: {what}", t, None, "vendor library"))
        for model in models:
            evs = timings.get((spec.id, model))
            if not evs:
                continue
            verdicts = sorted({e.verdict.value for e in evs})
            verdict = "/".join(verdicts)
            first = evs[0]
            if verdicts == ["correct"] and any("GPU kernels only" not in e.evidence for e in evs):
                verdict += " (no kernel time in a run: whole call)"
            flagged = sum(bool(e.timing_implausible) for e in evs)
            if flagged:
                verdict += f" (timing_implausible in {flagged} of {len(evs)} runs)"
            if any(e.device != "gpu" for e in evs):
                verdict += " (not run on the GPU)"
            median, lo, hi = _across(evs)
            scale = median / first.time_median_s if median and first.time_median_s else None
            gbs = first.gbytes_per_s / scale if scale and first.gbytes_per_s else None
            gfs = first.gflops / scale if scale and first.gflops else None
            lines.append(row(LABEL.get(model, model), median, _whole_call(first.evidence), verdict, gbs=gbs, gfs=gfs,
                             lo=lo, hi=hi, iqr=first.time_iqr_s))
        lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("results/gpu-latest"))
    parser.add_argument("--jobs", type=int, default=min(os.cpu_count() or 4, 12))
    parser.add_argument("--min-kill", type=float, default=0.9)
    parser.add_argument("--kernels", default=None, help="comma-separated (default: all)")
    parser.add_argument("--models", default=",".join(GPU_MODELS))
    parser.add_argument("--no-selftest", action="store_true")
    parser.add_argument("--no-perf", action="store_true")
    parser.add_argument("--runs", type=int, default=3, help="separate timing runs per reference (the spread)")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    kernels = args.kernels.split(",") if args.kernels else None
    models = args.models.split(",")

    from hpceval.toolchains.cuda import nvidia_gpu, probe_library

    gpu = nvidia_gpu()
    if gpu is None:
        print("no NVIDIA GPU: nothing to test here", file=sys.stderr)
        return 2
    print(f"GPU: {gpu.describe()}, {gpu.memory_gb} GiB; CUPTI probe: {probe_library()}")
    summary: dict = {"gpu": gpu.describe(), "date": datetime.now(UTC).isoformat(timespec="seconds")}
    ok = True
    with tempfile.TemporaryDirectory(prefix="hpceval-gpu-") as tmp:
        catalog = gpu_catalog(Path(tmp))
        if not args.no_selftest:
            t0 = time.monotonic()
            report = run_selftest_gpu(catalog, args.jobs, args.min_kill, kernels, models)
            text = report.to_markdown(args.min_kill).replace("| python-numba |", "| python-numba (numba.cuda) |")
            header = f"# GPU self-test on {gpu.describe()}, {summary['date']}\n\n"
            (args.out / "selftest.md").write_text(header + text)
            print(text)
            killed, total = report.totals()
            summary["selftest"] = {"ok": report.ok(args.min_kill), "killed": killed, "total": total,
                                   "wall_s": round(time.monotonic() - t0),
                                   "cells": {f"{k}/{m}": {"status": c.status, "killed": c.killed, "total": c.total,
                                                          "reference": c.reference.verdict.value if c.reference else None,
                                                          "evidence": (c.reference.evidence if c.reference else c.note)[-800:]}
                                             for (k, m), c in report.cells.items()}}
            ok = ok and report.ok(args.min_kill)
            (args.out / "summary.json").write_text(json.dumps(summary, indent=1, default=str))
        if not args.no_perf:
            # the self-test already ran every reference under compute-sanitizer; timing runs do not need it again
            os.environ["HPCEVAL_NO_MEMCHECK"] = "1"
            timer = Timer()
            ceil = ceilings(timer)
            base = baselines(timer, catalog)
            print(f"ceilings: {ceil}")
            timings = run_timings(catalog, args.jobs, kernels, models, runs=args.runs)
            for (k, m), evs in sorted(timings.items()):
                for e in evs:
                    if e.verdict.value != "correct" or e.timing_implausible:
                        print(f"NOT CORRECT {k}/{m}: {e.verdict.value}: {e.evidence[-1200:]}")
            text = performance_markdown(catalog, timings, ceil, base, models, gpu.describe())
            (args.out / "performance.md").write_text(text)
            print(text)
            summary["ceilings"] = ceil
            summary["baselines"] = {k: {"seconds": t, "what": w} for k, (t, w) in base.items()}
            summary["timings"] = {f"{k}/{m}": [{"verdict": e.verdict.value, "device": e.device,
                                                "time_median_s": e.time_median_s, "time_iqr_s": e.time_iqr_s,
                                                "gbytes_per_s": e.gbytes_per_s, "gflops": e.gflops,
                                                "timing_implausible": e.timing_implausible,
                                                "evidence": e.evidence[-1200:]} for e in evs]
                                  for (k, m), evs in timings.items()}
            ok = ok and all(e.verdict.value == "correct" and not e.timing_implausible
                            for evs in timings.values() for e in evs)
    (args.out / "summary.json").write_text(json.dumps(summary, indent=1, default=str))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
