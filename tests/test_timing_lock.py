"""The timing lock holds across the processes of a node, not only across one process's threads."""

from __future__ import annotations

import itertools
import multiprocessing
import threading
import time
from pathlib import Path

from hpceval import timing_lock
from hpceval.contracts import Verdict
from hpceval.timing_lock import TimingLock


def _hold(path: str, ready, go, queue, seconds: float) -> None:
    import os

    os.environ["HPCEVAL_TIMING_LOCK"] = path
    ready.put(os.getpid())
    go.wait(60)  # all processes ask for the lock at once, however slowly each one started
    with TimingLock():
        start = time.monotonic()
        time.sleep(seconds)
        queue.put((start, time.monotonic()))


def _intervals(path: str, processes: int, seconds: float) -> list[tuple[float, float]]:
    ctx = multiprocessing.get_context("spawn")  # a fresh interpreter, as a Dask worker process is
    ready, go, queue = ctx.Queue(), ctx.Event(), ctx.Queue()
    procs = [ctx.Process(target=_hold, args=(path, ready, go, queue, seconds)) for _ in range(processes)]
    for p in procs:
        p.start()
    for _ in procs:
        ready.get(timeout=60)
    go.set()
    got = [queue.get(timeout=60) for _ in procs]
    for p in procs:
        p.join(timeout=60)
    return sorted(got)


def _overlaps(intervals: list[tuple[float, float]]) -> int:
    return sum(1 for (_, end), (start, _) in itertools.pairwise(intervals) if start < end)


def test_timed_runs_of_separate_processes_never_overlap(tmp_path):
    got = _intervals(str(tmp_path / "timing.lock"), 3, 0.3)
    assert len(got) == 3 and _overlaps(got) == 0, got


def test_process_only_setting_lets_processes_overlap(tmp_path):
    """The control: without the node lock the same processes do overlap, so the test above can fail."""
    got = _intervals(timing_lock.PROCESS_ONLY, 3, 1.5)  # long holds: overlap even on a loaded machine
    assert _overlaps(got) >= 1, got


def test_threads_of_one_process_are_serialised(tmp_path, monkeypatch):
    monkeypatch.setenv("HPCEVAL_TIMING_LOCK", str(tmp_path / "timing.lock"))
    lock, got, mutex = TimingLock(), [], threading.Lock()

    def hold() -> None:
        with lock:
            start = time.monotonic()
            time.sleep(0.1)
            with mutex:
                got.append((start, time.monotonic()))

    threads = [threading.Thread(target=hold) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert _overlaps(sorted(got)) == 0, got


def test_default_lock_file_is_node_local_and_per_user(monkeypatch, tmp_path):
    monkeypatch.delenv("HPCEVAL_TIMING_LOCK", raising=False)
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)  # re-read $TMPDIR
    path = timing_lock.lock_path()
    assert path is not None and path.parent == Path(tmp_path) and path.name.startswith("hpceval-timing-")


def test_an_unwritable_lock_file_still_serialises_the_process(monkeypatch, tmp_path):
    monkeypatch.setenv("HPCEVAL_TIMING_LOCK", str(tmp_path / "no-such-dir" / "timing.lock"))
    lock = TimingLock()
    with lock:
        assert not lock._thread.acquire(blocking=False)
    assert lock._thread.acquire(blocking=False)
    lock._thread.release()


def test_the_timing_check_holds_the_node_lock():
    from hpceval.checks import timing

    assert isinstance(timing.TIMING_LOCK, TimingLock)


def test_generated_code_cannot_see_the_lock_file(catalog, evaluator, monkeypatch):
    """A suggestion that found the node's lock file could hold it and stall every other job's timing: the sandbox's
    private temporary folder hides it. The suggestion below is right only where it cannot see the file."""
    monkeypatch.delenv("HPCEVAL_TIMING_LOCK", raising=False)
    with TimingLock():  # the harness's lock file exists from now on
        pass
    path = timing_lock.lock_path()
    assert path is not None and path.exists()
    code = (f"import os\nimport numpy as np\n\nSEEN = os.path.exists({str(path)!r})\n\n\n"
            "def saxpy(n, a, x, y):\n    y[:] = np.float32(a) * x + y + (1.0 if SEEN else 0.0)\n")
    e = evaluator.evaluate(code, catalog.kernels["axpy"], catalog.models["python-numpy"])
    assert e.verdict == Verdict.correct, e.evidence
