"""`--executor dask`: a LocalCluster whose worker is killed mid-run, placement refusals, and crash-twice faults.

Why these: the dispatcher's promises are that a lost worker costs nothing (Dask reschedules, the client stores
each result once), that a job no worker can take is an infra_error with a reason instead of a hang, and that a
job that keeps killing workers ends as infra_error with that evidence. The real Slurm run is test_dispatch_slurm.py.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("distributed")
psutil = pytest.importorskip("psutil")

MODELS = "cpp-openmp,python-numpy"
KERNELS = "axpy,gemv"


def hpceval(out: Path, *args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "hpceval.cli", "run", "--llm", "reference", "--models", MODELS,
                             "--kernels", KERNELS, "--no-timing", "--out", str(out), *args],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def verdicts(out: Path) -> dict[tuple[str, str, int], str]:
    with sqlite3.connect(out / "results.sqlite") as db:
        rows = db.execute("SELECT p.kernel, p.model, g.rank, e.verdict FROM generations g "
                          "JOIN prompts p USING(run_id, prompt_id) JOIN evaluations e USING(cache_key)").fetchall()
    return {(k, m, r): v for k, m, r, v in rows}


def evaluation_rows(out: Path) -> tuple[int, int]:
    with sqlite3.connect(out / "results.sqlite") as db:
        return db.execute("SELECT count(*), count(DISTINCT cache_key) FROM evaluations").fetchone()


def busy_worker(parent: psutil.Process) -> psutil.Process | None:
    """A Dask worker process (a child of the CLI) that is running a job: it has a compiler or sandbox below it."""
    for child in parent.children():
        try:
            if "multiprocessing" in " ".join(child.cmdline()) and child.children(recursive=True):
                return child
        except psutil.NoSuchProcess:
            continue
    return None


def test_worker_killed_mid_run_changes_nothing(tmp_path: Path) -> None:
    local = hpceval(tmp_path / "local", "--executor", "local", "--jobs", "2")
    assert local.wait(timeout=600) == 0, local.stdout.read()
    proc = hpceval(tmp_path / "dask", "--executor", "dask", "--jobs", "2")
    parent = psutil.Process(proc.pid)
    killed = None
    deadline = time.monotonic() + 300
    while killed is None and proc.poll() is None and time.monotonic() < deadline:
        worker = busy_worker(parent)
        if worker is not None:
            os.kill(worker.pid, signal.SIGKILL)  # mid-job: it had a build or run in flight
            killed = worker.pid
        time.sleep(0.2)
    output = proc.communicate(timeout=600)[0]
    assert proc.returncode == 0, output
    assert killed is not None, "no worker was ever seen running a job"
    expected = verdicts(tmp_path / "local")
    assert set(expected.values()) == {"correct"} and len(expected) == 4
    assert verdicts(tmp_path / "dask") == expected
    total, distinct = evaluation_rows(tmp_path / "dask")
    assert total == distinct == 4


def test_job_no_worker_can_take_is_infra_error_not_a_hang(tmp_path: Path) -> None:
    """No GPU here (HPCEVAL_NO_GPU=1): a CUDA job is refused before submission, with the reason."""
    out = tmp_path / "gpu"
    proc = subprocess.run([sys.executable, "-m", "hpceval.cli", "run", "--llm", "reference", "--models", "cpp-cuda",
                           "--kernels", "axpy", "--no-timing", "--out", str(out), "--executor", "dask", "--jobs", "1"],
                          capture_output=True, text=True, timeout=300, env={**os.environ, "HPCEVAL_NO_GPU": "1"})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    with sqlite3.connect(out / "results.sqlite") as db:
        rows = db.execute("SELECT verdict, evidence FROM evaluations").fetchall()
    assert len(rows) == 1 and rows[0][0] == "infra_error"
    assert "no Dask worker can take this job: none advertises" in rows[0][1]
    assert "\n" not in rows[0][1]


def crash_worker(*args: object) -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def test_job_that_crashes_two_workers_is_infra_error() -> None:
    import cloudpickle

    from hpceval.dispatch import EvalJob
    from hpceval.dispatch.dask import DaskDispatcher
    from hpceval.evaluate import Evaluator
    from hpceval.executors import get_executor
    from hpceval.spec import catalog

    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the workers cannot import this test module
    cat = catalog()
    evaluator = Evaluator(cat, get_executor("local"), timing=False)
    job = EvalJob("k" * 64, "int main() {}", cat.kernels["axpy"], cat.models["cpp-openmp"], None)
    results = []
    with DaskDispatcher(workers=1, job_fn=crash_worker, announce=lambda line: None) as dispatcher:
        dispatcher.evaluate(evaluator, [job], lambda key, ev: results.append((key, ev)))
    assert len(results) == 1 and results[0][1].verdict.value == "infra_error"
    assert "crashed 2 Dask workers" in results[0][1].evidence


def test_a_local_cluster_whose_worker_dies_while_it_starts_is_started_again(monkeypatch) -> None:
    """A worker process killed (or out of memory) before it registered fails the LocalCluster's start ("Nanny
    failed to start"); the dispatcher starts it once more instead of ending the run."""
    import hpceval.dispatch.dask as dispatch_dask

    real, calls = dispatch_dask.LocalCluster, []

    def flaky(*args, **kwargs):
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("Nanny failed to start.")
        return real(*args, **kwargs)

    monkeypatch.setattr(dispatch_dask, "LocalCluster", flaky)
    with dispatch_dask.DaskDispatcher(workers=1, announce=lambda line: None) as dispatcher:
        client = dispatcher.start()
        assert len(client.scheduler_info()["workers"]) == 1
    assert len(calls) == 2


def test_verdicts_and_evidence_are_the_same_at_one_and_two_workers(tmp_path: Path, monkeypatch) -> None:
    """References and mutants (right, wrong, crashing, a structure missed) give the same verdict and evidence on
    one worker that made the validation cases and on two new workers that read them from the harness cache
    (cases/prepared.py), so neither the placement nor the shared cases change a row."""
    from hpceval.dispatch import EvalJob
    from hpceval.dispatch.dask import DaskDispatcher
    from hpceval.evaluate import Evaluator
    from hpceval.executors import get_executor
    from hpceval.mutants import generate_mutants
    from hpceval.spec import catalog

    monkeypatch.setenv("HPCEVAL_CACHE", str(tmp_path / "cache"))  # inherited by the worker processes
    cat = catalog()
    jobs = []
    for kernel, model_id, cap in (("axpy", "cpp-openmp", 3), ("spmv", "python-numpy", 3)):
        spec, model = cat.kernels[kernel], cat.models[model_id]
        code = spec.solution_path(model, cat).read_text()
        codes = [code] + [m.code for m in generate_mutants(code, model.language, cap=cap)]
        jobs += [EvalJob(f"{kernel}-{model_id}-{i}", text, spec, model, None) for i, text in enumerate(codes)]
    evaluator = Evaluator(cat, get_executor("local"), timing=False)
    runs = []
    for workers in (1, 2):
        got: dict[str, tuple[str, str]] = {}
        with DaskDispatcher(workers=workers, announce=lambda line: None, poll_s=0.5) as dispatcher:
            dispatcher.evaluate(evaluator, jobs, lambda key, ev, got=got: got.__setitem__(key, (ev.verdict.value,
                                                                                              ev.evidence)))
        runs.append(got)
        if workers == 1:
            assert any((tmp_path / "cache" / "cases").glob("*.npz"))  # the second run's workers read these
    assert len(runs[0]) == len(jobs)
    assert runs[1] == runs[0]
    verdicts_seen = {v for v, _ in runs[0].values()}
    assert "correct" in verdicts_seen and len(verdicts_seen) >= 2, runs[0]
