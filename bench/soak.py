"""Soak: `hpceval run` under random SIGKILLs and Ctrl-Cs, then finished undisturbed, against an undisturbed run.

Why: a kill or an interrupt at any instant must lose nothing, duplicate nothing, change no verdict, and leave no
process and no directory behind (issue 14). A few hand-picked kill points cannot show that; many random ones can.

Three commands write into one results directory (three runs of one store): `--llm reference` over some CPU models
and kernels, `--llm replay:FILE` whose file holds the automatic mutants of some references (hpceval.mutants), and
`--llm openai:soak` against bench/fault_endpoint.py, an OpenAI-compatible endpoint that answers with a reference
and its mutants and injects faults into 30 % of the requests (500, 429 with Retry-After, dropped connections,
truncated JSON, 2 s delays), so both correct and rejected suggestions, and a flaky server, are in play. For `--minutes`, one of them (in turn) is started and, after a
random 1-8 s (half of the time) or 8 s to --max-wait (40 s), killed: SIGKILL to the process, SIGKILL to its
process group, or SIGINT (which must stop it within 3 s with exit 130). After every stop the soak waits for its
jobs and dirs to go (3 s at most) and counts what is left: processes whose command line names the soak's folder,
anything in the runs' $TMPDIR.
Then both commands run undisturbed to the end, the same two run once more into a fresh directory (the baseline),
and the table compares them: rows per run, duplicates, rows without an evaluation, verdicts that differ.

    python bench/soak.py                    # 3 minutes
    python bench/soak.py --minutes 30 --kernels all --mutant-kernels all \
        --mutant-models cpp-openmp,fortran-openmp,python-numpy,python-numba --mutants 5   # results/soak

Runs on the local executor (nsjail); --keep leaves the soak folder for inspection.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from fault_endpoint import FaultEndpoint

HPCEVAL = [sys.executable, "-m", "hpceval.cli"]


def mutant_replay(path: Path, models: list[str], kernels: list[str], per_prompt: int) -> tuple[int, int]:
    """Write the first `per_prompt` mutants of each reference as replay records; (prompts, records)."""
    from hpceval.mutants import generate_mutants
    from hpceval.spec import catalog

    cat = catalog()
    records, prompts = [], 0
    for kernel in kernels:
        for model in models:
            spec, pm = cat.kernels[kernel], cat.models[model]
            source = spec.solution_path(pm, cat)
            if not source.is_file():
                continue
            mutants = generate_mutants(source.read_text(), pm.language)[:per_prompt]
            prompts += bool(mutants)
            for rank, mutant in enumerate(mutants, 1):
                records.append({"prompt_id": f"{kernel}/{model}/chat/none", "rank": rank, "text": mutant.code,
                                "meta": {"complete": True, "mutant": mutant.kind}})
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return prompts, len(records)


def endpoint_answers(models: list[str], kernels: list[str], per_prompt: int) -> dict[str, list[str]]:
    """Chat prompt text -> the answers the fault endpoint gives: the reference, then its first mutants."""
    from hpceval.mutants import generate_mutants
    from hpceval.prompts import plan
    from hpceval.spec import catalog

    cat = catalog()
    answers = {}
    for prompt in plan(cat, [cat.kernels[k] for k in kernels], [cat.models[m] for m in models], ["chat"], ["none"]):
        spec, pm = cat.kernels[prompt.kernel], cat.models[prompt.model]
        source = spec.solution_path(pm, cat)
        if source.is_file():
            fence = cat.languages[pm.language].id
            code = [source.read_text(), *(m.code for m in generate_mutants(source.read_text(), pm.language))]
            answers[prompt.text] = [f"```{fence}\n{c}\n```" for c in code[:per_prompt]]
    return answers


def commands(args, replay: Path, out: Path, endpoint: str) -> list[list[str]]:
    common = ["--models", args.models, "--kernels", args.kernels, "--no-timing", "--jobs", str(args.jobs),
              "--out", str(out)]
    served = ["--models", args.mutant_models, "--kernels", args.mutant_kernels, "--no-timing", "--jobs",
              str(args.jobs), "--out", str(out)]
    return [["run", "--llm", "reference", *common],
            ["run", "--llm", f"replay:{replay}", "-n", str(args.mutants), *common],
            ["run", "--llm", "openai:soak", "--base-url", endpoint, "--style", "chat", "-n", "3",
             "--request-timeout", "5", *served]]


def strays(root: Path, tmpdir: Path) -> tuple[list[str], list[str]]:
    procs = subprocess.run(["pgrep", "-af", str(root)], capture_output=True, text=True).stdout.splitlines()
    base = tmpdir / "hpceval-scratch"
    dirs = [str(p) for p in base.iterdir()] if base.is_dir() else []
    dirs += [str(p) for p in tmpdir.iterdir() if p.name != "hpceval-scratch"]
    return procs, dirs


def settle(root: Path, tmpdir: Path, limit: float = 3.0) -> tuple[float, list[str], list[str]]:
    """Wait until nothing of the stopped run is left (at most `limit` s); (seconds waited, processes, dirs)."""
    start = time.monotonic()
    while True:
        procs, dirs = strays(root, tmpdir)
        if not procs and not dirs or time.monotonic() - start > limit:
            return time.monotonic() - start, procs, dirs
        time.sleep(0.1)


def disturbed(args, cmds, env, root: Path, tmpdir: Path, rng: random.Random) -> Counter:
    counts: Counter = Counter()
    deadline = time.monotonic() + args.minutes * 60
    turn = 0
    while time.monotonic() < deadline:
        argv = [*HPCEVAL, *cmds[turn % len(cmds)]]
        turn += 1
        proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env,
                                start_new_session=True)
        counts["starts"] += 1
        try:
            # half of the signals while it starts up, half while it evaluates (a cold start takes 10-20 s)
            proc.wait(timeout=rng.uniform(1.0, 8.0) if rng.random() < 0.5 else rng.uniform(8.0, args.max_wait))
            counts["finished before the signal"] += 1
            if proc.returncode:
                counts[f"exit {proc.returncode} without a signal"] += 1
        except subprocess.TimeoutExpired:
            how = rng.choices(["SIGKILL process", "SIGKILL group", "SIGINT"], weights=[4, 2, 4])[0]
            counts[how] += 1
            if how == "SIGINT":
                sent = time.monotonic()
                proc.send_signal(signal.SIGINT)
                try:
                    proc.wait(timeout=3)
                    counts["SIGINT: stopped within 3 s"] += 1
                    counts["SIGINT: exit 130"] += proc.returncode == 130
                    if proc.returncode != 130:  # e.g. 0: the run ended as the signal arrived
                        counts[f"SIGINT: exit {proc.returncode}"] += 1
                    counts["max SIGINT stop ms"] = max(counts["max SIGINT stop ms"], int(1000 * (time.monotonic() - sent)))
                    err = proc.stderr.read()
                    counts["SIGINT: one resume line"] += sum("to resume" in line for line in err.splitlines()) == 1
                    counts["tracebacks"] += "Traceback" in err
                except subprocess.TimeoutExpired:
                    counts["SIGINT: slower than 3 s (then SIGKILL)"] += 1
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()
            else:
                (os.kill if how == "SIGKILL process" else os.killpg)(proc.pid, signal.SIGKILL)
                proc.wait()
            proc.stderr.close()
        waited, procs, dirs = settle(root, tmpdir)
        counts["max settle ms"] = max(counts["max settle ms"], int(1000 * waited))
        counts["stray processes after 3 s"] += len(procs)
        counts["stray dirs after 3 s"] += len(dirs)
        for line in procs + dirs:
            print(f"  stray after start {counts['starts']}: {line[:200]}", file=sys.stderr)
    return counts


def finish(cmds, env, label: str) -> None:
    for cmd in cmds:
        done = subprocess.run([*HPCEVAL, *cmd], capture_output=True, text=True, env=env)
        if done.returncode != 0:
            sys.exit(f"{label} run failed (exit {done.returncode}): {done.stderr[-2000:]}")


def rows(out: Path) -> dict:
    """(llm, prompt_id, rank) -> verdicts, plus what is wrong with the store."""
    with sqlite3.connect(out / "results.sqlite") as conn:
        found = conn.execute(
            "SELECT r.llm, g.prompt_id, g.rank, e.verdict FROM generations g JOIN runs r ON r.run_id = g.run_id "
            "LEFT JOIN evaluations e ON e.cache_key = g.cache_key").fetchall()
        runs = conn.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
        evaluations = conn.execute("SELECT COUNT(*) FROM evaluations").fetchone()[0]
    by_key: dict = {}
    for llm, prompt, rank, verdict in found:
        by_key.setdefault((llm.split(":")[0], prompt, rank), []).append(verdict)
    return {"by_key": by_key, "runs": runs, "evaluations": evaluations,
            "duplicates": sum(len(v) - 1 for v in by_key.values()),
            "missing": sum(v is None for vs in by_key.values() for v in vs)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=3.0, help="length of the disturbed phase")
    parser.add_argument("--models", default="cpp-openmp,fortran-openmp,python-numpy,python-numba")
    parser.add_argument("--kernels", default="axpy,gemv,spmv,jacobi", help="comma-separated, or all")
    parser.add_argument("--mutants", type=int, default=3, help="mutants per reference in the replay run")
    parser.add_argument("--mutant-models", default="cpp-openmp,python-numpy")
    parser.add_argument("--mutant-kernels", default="axpy,gemv", help="comma-separated, or all")
    parser.add_argument("--max-wait", type=float, default=40.0, help="longest run before the signal (s)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--fault-rate", type=float, default=0.3, help="share of endpoint requests answered by a fault")
    parser.add_argument("--keep", action="store_true", help="keep the soak folder")
    args = parser.parse_args()
    from hpceval.spec import catalog

    every = ",".join(catalog().kernels)  # "all": every kernel of the catalog
    args.kernels = every if args.kernels == "all" else args.kernels
    args.mutant_kernels = every if args.mutant_kernels == "all" else args.mutant_kernels
    rng = random.Random(args.seed)
    root = Path(tempfile.mkdtemp(prefix="hpceval-soak-"))
    tmpdir = root / "tmp"
    tmpdir.mkdir()
    env = {**os.environ, "TMPDIR": str(tmpdir), "OPENAI_API_KEY": "soak"}
    replay = root / "mutants.jsonl"
    prompts, records = mutant_replay(replay, args.mutant_models.split(","), args.mutant_kernels.split(","),
                                     args.mutants)
    endpoint = FaultEndpoint(endpoint_answers(args.mutant_models.split(","), args.mutant_kernels.split(","), 3),
                             fault_rate=args.fault_rate, seed=args.seed)
    try:
        started = time.monotonic()
        counts = disturbed(args, commands(args, replay, root / "soak", endpoint.url), env, root, tmpdir, rng)
        soak_s = time.monotonic() - started
        during = rows(root / "soak")["evaluations"] if (root / "soak" / "results.sqlite").is_file() else 0
        finish(commands(args, replay, root / "soak", endpoint.url), env, "finishing")
        finish(commands(args, replay, root / "baseline", endpoint.url), env, "baseline")
        _, procs, dirs = settle(root, tmpdir)
        soak, base = rows(root / "soak"), rows(root / "baseline")
    finally:
        endpoint.close()
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    differ = [k for k in set(soak["by_key"]) | set(base["by_key"]) if soak["by_key"].get(k) != base["by_key"].get(k)]
    print(f"\nsoak: {soak_s / 60:.1f} min disturbed, then finished undisturbed; baseline: the same commands "
          f"undisturbed in a fresh directory ({prompts} mutant prompts, {records} mutant records)\n")
    print("| endpoint answers (whole soak) | count |\n|---|---|")
    for key, value in sorted(endpoint.counts.items()):
        print(f"| {key} | {value} |")
    print("\n| disturbed phase | count |\n|---|---|")
    for key in ("starts", "finished before the signal", "SIGKILL process", "SIGKILL group", "SIGINT",
                "SIGINT: stopped within 3 s", "SIGINT: exit 130", "SIGINT: one resume line",
                "SIGINT: slower than 3 s (then SIGKILL)", "max SIGINT stop ms", "tracebacks", "max settle ms",
                "stray processes after 3 s", "stray dirs after 3 s"):
        print(f"| {key} | {counts.get(key, 0)} |")
    for key in sorted(k for k in counts if k.startswith("exit ")):
        print(f"| {key} | {counts[key]} |")
    print("\n| store | soak | baseline |\n|---|---|---|")
    print(f"| runs | {soak['runs']} | {base['runs']} |")
    print(f"| suggestion rows | {len(soak['by_key'])} | {len(base['by_key'])} |")
    print(f"| evaluations stored while disturbed | {during} | – |")
    print(f"| evaluations (distinct suggestions) | {soak['evaluations']} | {base['evaluations']} |")
    print(f"| duplicate rows | {soak['duplicates']} | {base['duplicates']} |")
    print(f"| rows without an evaluation | {soak['missing']} | {base['missing']} |")
    print(f"| verdicts that differ | {len(differ)} | – |")
    print(f"| stray processes / dirs at the end | {len(procs)} / {len(dirs)} | – |")
    verdicts = sorted({v for r in (soak, base) for vs in r["by_key"].values() for v in vs if v})
    for verdict in verdicts:
        count = [sum(vs.count(verdict) for vs in r["by_key"].values()) for r in (soak, base)]
        print(f"| {verdict} | {count[0]} | {count[1]} |")
    for key in sorted(differ)[:20]:
        print(f"  differs: {key}: soak {soak['by_key'].get(key)} baseline {base['by_key'].get(key)}")
    ok = not differ and not soak["duplicates"] and not soak["missing"] and not procs and not dirs \
        and not counts.get("stray processes after 3 s") and not counts.get("stray dirs after 3 s") \
        and not counts.get("SIGINT: slower than 3 s (then SIGKILL)") and not counts.get("tracebacks")
    print("\nsoak " + ("passed" if ok else "FAILED"))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
