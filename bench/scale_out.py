"""Scale-out benchmark of `--executor dask`: evaluations per second with 1, 2, 4, 8, 16 LocalCluster workers.

Why: the point of the Dask dispatcher is that a leaderboard's thousands of compile-and-run jobs spread over
cores and nodes; this measures how close to linear that is on one machine (target: >= 12x at 16 workers) and
what Dask itself costs per job (target: <= 5% of a job), measured with no-op jobs placed exactly like
evaluations (same resource request, same round trip to the client).

Jobs: the CPU reference solutions of the chosen kernels x models and their mutants (hpceval.mutants, as
`hpceval selftest` makes them), without timing runs, in one seeded order that mixes them evenly (mixed_order). With --per-worker N each worker count
W runs the first W*N jobs of that order (a sample of the same mix, the same work per worker at every
count, and enough jobs to fill 16 workers for a minute without a one-worker baseline of sixteen minutes);
without it every count runs every job. The verdicts must agree on the jobs both counts ran (a column of the
table). --warmup first runs the largest count once, not measured, so that the disk caches (compiled driver
objects, Numba's cache) are warm for every count alike. Workers are one-thread processes; each job's own
thread count is fixed (--threads, HPCEVAL_THREADS) so the work per job does not change with the worker count.

  python bench/scale_out.py --quick                 # here: 1 and 2 workers, a few mutants
  python bench/scale_out.py --workers 1,2,4,8,16    # the 16-core machine (bench/scale_out.sh sets it up)
Writes DIR/scale_out.csv, DIR/scale_out.md and DIR/scale_out.png (default DIR: results/scale_out-<host>).
"""

from __future__ import annotations

import argparse
import csv
import os
import random
import socket
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "harness"))


def build_jobs(kernels: list[str], models: list[str], cap: int, seed: int = 0):
    from hpceval.dispatch import EvalJob
    from hpceval.mutants import UnsupportedLanguage, generate_mutants
    from hpceval.spec import catalog

    cat = catalog()
    jobs = []
    for kernel in kernels:
        spec = cat.kernels[kernel]
        for model_id in models:
            model = cat.models[model_id]
            path = spec.solution_path(model, cat)
            if not path.is_file():
                continue
            code = path.read_text()
            codes = [code]
            try:
                codes += [m.code for m in generate_mutants(code, model.language, cap=cap)]
            except UnsupportedLanguage:
                pass
            for i, text in enumerate(codes):
                jobs.append(EvalJob(f"{kernel}-{model_id}-{i}", text, spec, model, None))
    return cat, mixed_order(jobs, seed)


def mixed_order(jobs: list, seed: int) -> list:
    """The jobs in an order whose every prefix holds each kernel x model in its share of the whole: each stratum
    shuffled, its i-th job of n placed at (i + u) / n with u uniform in [0, 1), all sorted by place. A plain shuffle's
    short prefix (the one-worker run) could draw mostly quick or mostly slow strata and bias every speedup."""
    rng = random.Random(seed)
    strata: dict[str, list] = {}
    for job in jobs:
        strata.setdefault(job.key.rsplit("-", 1)[0], []).append(job)
    placed = []
    for members in strata.values():
        rng.shuffle(members)
        placed += [((i + rng.random()) / len(members), job.key, job) for i, job in enumerate(members)]
    return [job for _, _, job in sorted(placed, key=lambda p: p[:2])]


def measure(workers: int, evaluator, jobs, noop_jobs: int) -> dict:
    from distributed import wait

    from hpceval.dispatch.capabilities import requirements
    from hpceval.dispatch.dask import DaskDispatcher
    from hpceval.dispatch.worker import noop_job

    results: dict[str, str] = {}
    evidence: dict[str, str] = {}
    with DaskDispatcher(workers=workers, announce=lambda line: None, poll_s=1.0) as dispatcher:
        client = dispatcher.start(sorted({j.model.id for j in jobs}))
        need = requirements(jobs[0].model)
        wait([client.submit(noop_job, pure=False, resources=need) for _ in range(workers * 4)])  # warm-up
        start = time.perf_counter()
        futures = [client.submit(noop_job, pure=False, resources=need) for _ in range(noop_jobs)]
        for fut in futures:
            fut.result()
        noop_s = time.perf_counter() - start
        start = time.perf_counter()
        def keep(key, ev):
            results[key] = ev.verdict.value
            evidence[key] = ev.evidence

        dispatcher.evaluate(evaluator, jobs, keep)
        eval_s = time.perf_counter() - start
    return {"workers": workers, "jobs": len(jobs), "seconds": eval_s, "evals_per_s": len(jobs) / eval_s,
            "noop_jobs": noop_jobs, "noop_s": noop_s, "verdicts": results, "evidence": evidence}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workers", default="1,2,4,8,16")
    parser.add_argument("--kernels", default="axpy,gemv,gemm,spmv,jacobi,cg")
    parser.add_argument("--models", default="cpp-openmp,fortran-openmp,python-numpy,python-numba")
    parser.add_argument("--cap", type=int, default=12, help="mutants per reference solution")
    parser.add_argument("--noop", type=int, default=2000, help="no-op jobs for the overhead measurement")
    parser.add_argument("--threads", type=int, default=1, help="HPCEVAL_THREADS: threads per job")
    parser.add_argument("--wall", type=float, default=15.0, help="run wall limit of a job (mutants that hang)")
    parser.add_argument("--quick", action="store_true", help="1 and 2 workers, axpy, 2 models, 3 mutants each")
    parser.add_argument("--per-worker", type=int, default=0,
                        help="jobs per worker: each count W runs the first W*N jobs of the mixed order (0: all jobs)")
    parser.add_argument("--warmup", action="store_true", help="run the largest count once first, not measured")
    parser.add_argument("--seed", type=int, default=0, help="the seed of the mixed order")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    if args.quick:
        args.workers, args.kernels, args.models, args.cap, args.noop = "1,2", "axpy", "cpp-openmp,python-numpy", 3, 200
    os.environ["HPCEVAL_THREADS"] = str(args.threads)  # inherited by the worker processes
    import dataclasses

    from hpceval.evaluate import Evaluator
    from hpceval.executors import get_executor

    out = args.out or Path("results") / f"scale_out-{socket.gethostname()}"
    out.mkdir(parents=True, exist_ok=True)
    cat, jobs = build_jobs(args.kernels.split(","), args.models.split(","), args.cap, args.seed)
    evaluator = Evaluator(cat, get_executor("local"), timing=False)
    evaluator = dataclasses.replace(evaluator, run_limits=dataclasses.replace(evaluator.run_limits, wall_s=args.wall))
    print(f"{len(jobs)} jobs ({args.kernels} x {args.models}, references + up to {args.cap} mutants each); "
          f"{os.cpu_count()} CPUs; HPCEVAL_THREADS={args.threads}", flush=True)
    counts = [int(x) for x in args.workers.split(",")]
    share = (lambda w: jobs[: w * args.per_worker]) if args.per_worker else (lambda w: jobs)
    if args.per_worker and len(jobs) < max(counts) * args.per_worker:
        print(f"only {len(jobs)} jobs for {max(counts)} x {args.per_worker}: raise --cap or add kernels/models")
    if args.warmup:
        start = time.perf_counter()
        measure(max(counts), evaluator, share(max(counts)), 0)
        print(f"  warm-up, {max(counts)} workers: {time.perf_counter() - start:.1f} s (not measured)", flush=True)
    rows = []
    for w in counts:
        row = measure(w, evaluator, share(w), args.noop)
        rows.append(row)
        print(f"  {w:>2} workers: {row['evals_per_s']:.2f} evaluations/s ({row['seconds']:.1f} s)", flush=True)
    base = rows[0]
    job_s = base["seconds"] * base["workers"] / base["jobs"]  # one worker's time per evaluation
    lines = ["| workers | evaluations | seconds | evaluations/s | speedup | efficiency | no-op overhead/job | "
             "overhead % of a job | same verdicts |", "|---:|---:|---:|---:|---:|---:|---:|---:|:---:|"]
    table = []
    for row in rows:
        speedup = row["evals_per_s"] / base["evals_per_s"] * base["workers"]
        overhead = row["noop_s"] * row["workers"] / row["noop_jobs"]  # worker-seconds Dask spends per job
        common = set(row["verdicts"]) & set(base["verdicts"])
        same = all(row["verdicts"][k] == base["verdicts"][k] for k in common)
        table.append({"workers": row["workers"], "evaluations": row["jobs"], "seconds": round(row["seconds"], 2),
                      "evals_per_s": round(row["evals_per_s"], 3), "speedup": round(speedup, 2),
                      "efficiency": round(speedup / row["workers"], 3), "overhead_ms": round(overhead * 1e3, 2),
                      "overhead_pct": round(100 * overhead / job_s, 3), "same_verdicts": same})
        t = table[-1]
        lines.append(f"| {t['workers']} | {t['evaluations']} | {t['seconds']} | {t['evals_per_s']} | "
                     f"{t['speedup']}x | {t['efficiency']:.0%} | {t['overhead_ms']} ms | {t['overhead_pct']}% | "
                     f"{'yes' if same else 'NO'} |")
    differing = []
    for row in rows[1:]:
        for key in sorted(set(base["verdicts"]) & set(row["verdicts"])):
            if base["verdicts"].get(key) != row["verdicts"].get(key):
                differing.append(f"{row['workers']} workers, {key}: {row['verdicts'].get(key)} "
                                 f"({row['evidence'].get(key, '')[:300]}) vs 1 worker: {base['verdicts'].get(key)} "
                                 f"({base['evidence'].get(key, '')[:300]})")
    counts: dict[str, int] = {}
    for verdict in base["verdicts"].values():
        counts[verdict] = counts.get(verdict, 0) + 1
    summary = (f"{os.cpu_count()} CPUs, {len(jobs)} jobs, mean evaluation {job_s:.2f} s on one worker; "
               f"verdicts {dict(sorted(counts.items()))}")
    text = "\n".join(lines) + "\n\n" + summary + "\n"
    if differing:
        text += "\nVerdicts that differ from the 1-worker run:\n\n" + "\n".join(f"* {d}" for d in differing) + "\n"
    print(text)
    (out / "scale_out.md").write_text(text)
    with open(out / "scale_out.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(table[0]))
        writer.writeheader()
        writer.writerows(table)
    plot(table, out / "scale_out.png")
    print(f"wrote {out}/scale_out.md, .csv, .png")


def plot(table: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    workers = [t["workers"] for t in table]
    fig, ax = plt.subplots(figsize=(5, 3.5))
    ax.plot(workers, [t["speedup"] for t in table], "o-", label="measured")
    ax.plot(workers, workers, "--", color="gray", label="linear")
    ax.set_xlabel("Dask workers")
    ax.set_ylabel("speedup (evaluations/s vs 1 worker)")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=2)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)


if __name__ == "__main__":
    main()
