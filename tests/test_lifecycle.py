"""Killing or interrupting `hpceval run` leaves nothing behind and loses nothing (real runs, real signals).

Each run gets its own $TMPDIR, so its scratch root (hpceval.scratch) and any stray dir are easy to see; the
suggestions that hang run a shell whose command line carries a unique marker, so their processes are easy to find.
A hanging suggestion spins while a flag file (outside /tmp, so the jail sees it) exists: removing the flag lets the
same command finish, which is how the resume is checked.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pandas as pd
import pytest

from hpceval import scratch

REPO = Path(__file__).resolve().parents[1]
HPCEVAL = [sys.executable, "-m", "hpceval.cli"]
AXPY = "import numpy as np\n\n\ndef saxpy(n, a, x, y):\n    y[:n] += np.float32(a) * x[:n]\n"


def spinning_gemv(flag: Path, marker: str) -> str:
    """A gemv that spins (in a shell carrying the marker) while the flag exists, then is correct."""
    return ("import subprocess\n\nimport numpy as np\n\n\n"
            "def gemv(m, n, A, x, y):\n"
            f"    subprocess.run(['/bin/sh', '-c', 'while [ -e {flag} ]; do :; done # {marker}'])\n"
            "    np.dot(A[:m, :n], x[:n], out=y[:m])\n")


def fenced(code: str) -> str:
    return f"```python\n{code}```"


@pytest.fixture
def marker() -> str:
    return f"hpceval_life_{uuid.uuid4().hex[:12]}"


@pytest.fixture
def flag(marker):
    """A file the jail can see (beside the repo: /tmp is private in the jail) that keeps the suggestion spinning."""
    path = REPO.parent / f".{marker}-spin"
    try:
        path.write_text("spin\n")
    except OSError:
        pytest.skip("no writable place outside /tmp for the flag file")
    yield path
    path.unlink(missing_ok=True)


@pytest.fixture
def setup(tmp_path, marker, flag):
    """(args, env, tmpdir, out) of a run of axpy (finishes) and a gemv that spins while the flag exists."""
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    replay = tmp_path / "spin.jsonl"
    records = [{"prompt_id": "axpy/python-numpy/chat/none", "rank": 1, "text": fenced(AXPY)},
               {"prompt_id": "gemv/python-numpy/chat/none", "rank": 1, "text": fenced(spinning_gemv(flag, marker))}]
    replay.write_text("".join(json.dumps(r) + "\n" for r in records))
    out = tmp_path / "out"
    args = ["run", "--llm", f"replay:{replay}", "--models", "python-numpy", "--kernels", "axpy,gemv", "-n", "1",
            "--no-timing", "--jobs", "1", "--out", str(out)]
    return args, {**os.environ, "TMPDIR": str(tmpdir)}, tmpdir, out


def start(args: list[str], env: dict, log: Path) -> subprocess.Popen:
    with log.open("w") as f:
        return subprocess.Popen([*HPCEVAL, *args], stdout=f, stderr=subprocess.STDOUT, env=env, cwd=REPO,
                                start_new_session=True)


def processes(marker: str) -> list[str]:
    return subprocess.run(["pgrep", "-af", marker], capture_output=True, text=True).stdout.splitlines()


def wait_until(predicate, timeout: float, what: str, proc: subprocess.Popen | None = None) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if proc is not None and proc.poll() is not None:
            raise AssertionError(f"the run ended (exit {proc.returncode}) before {what}")
        if time.monotonic() > deadline:
            raise AssertionError(f"no {what} within {timeout:.0f} s")
        time.sleep(0.1)


def strays(tmpdir: Path) -> list[str]:
    """What a run left in its $TMPDIR: scratch roots, and any hpceval-* file or dir beside them."""
    base = tmpdir / scratch.BASE_NAME
    left = [str(p) for p in base.iterdir()] if base.is_dir() else []
    return left + [str(p) for p in tmpdir.iterdir() if p.name != scratch.BASE_NAME]


def evaluations(out: Path) -> list[tuple]:
    with sqlite3.connect(out / "results.sqlite", timeout=10) as conn:
        return conn.execute("SELECT cache_key, verdict, created FROM evaluations ORDER BY cache_key").fetchall()


def spinning_run(setup, marker, tmp_path) -> subprocess.Popen:
    args, env, _, _ = setup
    proc = start(args, env, tmp_path / "run.log")
    wait_until(lambda: processes(marker), 180, "spinning job", proc)
    return proc


@pytest.mark.parametrize("whom", ["process", "group"])
def test_sigkill_during_a_spinning_job_leaves_no_process_and_no_dir(setup, marker, tmp_path, whom):
    proc = spinning_run(setup, marker, tmp_path)
    assert strays(setup[2]), "the run should have a scratch root while its job runs"
    (os.kill if whom == "process" else os.killpg)(proc.pid, signal.SIGKILL)
    proc.wait()
    time.sleep(2)
    assert not processes(marker), "the job outlived the harness"
    assert not strays(setup[2]), "the killed run left dirs behind"


def test_ctrl_c_stops_within_3_s_says_how_to_resume_and_the_same_command_finishes(setup, marker, flag, tmp_path):
    args, env, tmpdir, out = setup
    proc = spinning_run(setup, marker, tmp_path)
    wait_until(lambda: evaluations(out), 30, "stored axpy evaluation")
    finished = evaluations(out)
    assert [verdict for _, verdict, _ in finished] == ["correct"], "axpy should be done before gemv spins"
    start_s = time.monotonic()
    os.kill(proc.pid, signal.SIGINT)
    proc.wait(timeout=30)
    stopped_s = time.monotonic() - start_s
    assert stopped_s <= 3, f"Ctrl-C took {stopped_s:.1f} s"
    assert proc.returncode == 130
    text = (tmp_path / "run.log").read_text()
    assert "Traceback" not in text
    lines = [line for line in text.splitlines() if "interrupted" in line]
    assert len(lines) == 1 and "to resume, run the same command again: hpceval run --llm replay:" in lines[0], text
    assert not processes(marker), "Ctrl-C left the job running"
    assert not strays(tmpdir), "Ctrl-C left dirs behind"
    assert evaluations(out) == finished, "the finished evaluation must be kept as it was, the killed one not stored"

    flag.unlink()
    again = subprocess.run([*HPCEVAL, *args], capture_output=True, text=True, env=env, cwd=REPO, timeout=600)
    assert again.returncode == 0, again.stdout[-2000:] + again.stderr[-2000:]
    frame = pd.read_csv(out / "evaluations.csv")
    assert sorted(frame["kernel"]) == ["axpy", "gemv"] and (frame["verdict"] == "correct").all(), frame
    assert not frame.duplicated(["prompt_id", "rank"]).any()
    rows = evaluations(out)
    assert len(rows) == 2 and finished[0] in rows, "the resumed run must reuse the stored axpy evaluation"
    assert not strays(tmpdir)


def test_second_ctrl_c_leaves_nothing(setup, marker, tmp_path):
    proc = spinning_run(setup, marker, tmp_path)
    os.kill(proc.pid, signal.SIGINT)
    time.sleep(0.05)
    try:
        os.kill(proc.pid, signal.SIGINT)
    except ProcessLookupError:
        pass  # it was quicker than the second Ctrl-C
    proc.wait(timeout=30)
    assert proc.returncode == 130
    text = (tmp_path / "run.log").read_text()
    assert "Traceback" not in text and text.count("interrupted") == 1, text
    time.sleep(0.5)
    assert not processes(marker)
    assert not strays(setup[2])


def test_sigterm_stops_like_ctrl_c(setup, marker, tmp_path):
    proc = spinning_run(setup, marker, tmp_path)
    os.kill(proc.pid, signal.SIGTERM)
    proc.wait(timeout=30)
    assert proc.returncode == 128 + signal.SIGTERM
    assert "to resume" in (tmp_path / "run.log").read_text()
    assert not processes(marker)
    assert not strays(setup[2])


def catches(pid: int, signum: int) -> bool:
    """Whether the process has a handler for signum (the SigCgt mask of /proc/PID/status)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    mask = next((int(line.split()[1], 16) for line in status.splitlines() if line.startswith("SigCgt:")), 0)
    return bool(mask >> (signum - 1) & 1)


@pytest.mark.parametrize("delay", [0.0, 0.03, 0.1])
def test_ctrl_c_while_starting_prints_no_traceback(tmp_path, delay):
    """Ctrl-C in the first 0.1 s of hpceval (counted from its first line of code: the package's __init__, which
    installs the handlers before typer and rich load; the interpreter's own start-up before it is Python's)."""
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    env = {**os.environ, "TMPDIR": str(tmpdir)}
    args = ["run", "--llm", "reference", "--models", "python-numpy", "--kernels", "axpy", "--no-timing",
            "--out", str(tmp_path / "out")]
    proc = subprocess.Popen([*HPCEVAL, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            cwd=REPO, start_new_session=True)
    wait_until(lambda: catches(proc.pid, signal.SIGHUP), 60, "hpceval's signal handlers", proc)
    time.sleep(delay)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    assert "Traceback" not in stdout + stderr, stderr
    assert proc.returncode == 130, (proc.returncode, stderr)
    assert len([line for line in stderr.splitlines() if "interrupted" in line]) == 1, stderr
    time.sleep(0.5)
    assert not strays(tmpdir)


def test_stale_scratch_roots_are_swept_and_live_ones_kept(tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr("tempfile.tempdir", None)  # gettempdir() reads TMPDIR again
    base = scratch.base_dir()
    dead = base / "999999-dead"
    (dead / "hpceval-axpy-cpp-openmp-x").mkdir(parents=True)
    (dead / scratch.LOCK_NAME).write_text("999999\n")
    live = base / "1-live"
    live.mkdir()
    (live / scratch.LOCK_NAME).write_text("1\n")
    holder = subprocess.Popen([sys.executable, "-c", "import fcntl, sys, time\n"
                               f"f = open({str(live / scratch.LOCK_NAME)!r})\nfcntl.flock(f, fcntl.LOCK_EX)\n"
                               "print('locked', flush=True)\ntime.sleep(60)"], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        removed = scratch.sweep_stale(base)
        assert removed == [dead] and not dead.exists()
        assert live.is_dir() and scratch.alive(live.name)
    finally:
        holder.kill()
        holder.wait()
    assert not scratch.alive(live.name)
    assert scratch.sweep_stale(base) == [live]


def test_a_scratch_root_being_made_is_not_swept(tmp_path, monkeypatch):
    """`root()` creates the lock file, then locks it, then writes its pid: a sweep by another process starting at
    that moment (16 Dask workers at once) found the lock free and removed a live root."""
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr("tempfile.tempdir", None)
    base = scratch.base_dir()
    making = base / "4242-making"
    making.mkdir()
    (making / scratch.LOCK_NAME).write_text("")  # created, not yet locked, no pid yet
    assert scratch.sweep_stale(base) == [] and making.is_dir()
    old = time.time() - 2 * scratch.YOUNG_S  # a root its maker never finished (it died in between): swept later
    os.utime(making, (old, old))
    assert scratch.sweep_stale(base) == [making]
