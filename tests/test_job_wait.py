"""Waiting for a sandboxed command (lifecycle.wait_exit): woken by the exit, not by polling; the timeout kept.

Why: Popen.wait(timeout) polls with sleeps that double up to 50 ms, so every command of an evaluation was seen to
end up to 50 ms late (a 10 ms no-op took 17 ms here): harness time charged to every build and run. The wait must
still say "timed out" exactly when the old one did, or a verdict (timeout) would change.
"""

from __future__ import annotations

import os
import subprocess
import time

import pytest

from hpceval import lifecycle


def start(seconds: float) -> subprocess.Popen:
    return subprocess.Popen(["/bin/sh", "-c", f"sleep {seconds}"])


@pytest.fixture(params=["pidfd", "polling"])
def mode(request, monkeypatch):
    if request.param == "polling":  # a kernel or Python without pidfd_open: the old wait
        monkeypatch.delattr(os, "pidfd_open", raising=False)
    elif not hasattr(os, "pidfd_open"):
        pytest.skip("no pidfd_open here")
    return request.param


def test_an_exit_before_the_timeout_is_seen(mode):
    proc = start(0.2)
    t0 = time.monotonic()
    assert lifecycle.wait_exit(proc, 10.0) is True
    assert time.monotonic() - t0 < 5.0
    assert proc.wait() == 0  # not reaped by wait_exit: the caller's status is intact


def test_a_command_past_its_timeout_is_reported_as_such(mode):
    proc = start(30)
    t0 = time.monotonic()
    try:
        assert lifecycle.wait_exit(proc, 0.3) is False
        assert 0.25 <= time.monotonic() - t0 < 5.0
        assert proc.poll() is None  # still running: the caller kills it
    finally:
        proc.kill()
        proc.wait()


def test_a_process_that_already_exited_is_seen_at_once(mode):
    proc = start(0)
    time.sleep(0.3)
    t0 = time.monotonic()
    assert lifecycle.wait_exit(proc, 10.0) is True
    assert time.monotonic() - t0 < 1.0


def test_a_killed_process_wakes_the_wait(mode):
    proc = start(30)
    killer = subprocess.Popen(["/bin/sh", "-c", f"sleep 0.2; kill -9 {proc.pid}"])
    assert lifecycle.wait_exit(proc, 20.0) is True
    assert proc.wait() == -9
    killer.wait()


def test_zero_timeout_on_a_running_process(mode):
    proc = start(30)
    try:
        assert lifecycle.wait_exit(proc, 0.0) is False
    finally:
        proc.kill()
        proc.wait()


def test_the_exit_is_seen_without_the_polling_delay():
    """Median over several 0.12 s commands of (seen - exited): the polling wait's sleeps had reached 64 ms by then."""
    if not hasattr(os, "pidfd_open"):
        pytest.skip("no pidfd_open here")
    late = []
    for _ in range(5):
        proc = subprocess.Popen(["/bin/sh", "-c", "sleep 0.12"])
        t0 = time.monotonic()
        lifecycle.wait_exit(proc, 10.0)
        seen = time.monotonic() - t0
        proc.wait()
        late.append(seen - 0.12)
    late.sort()
    assert late[len(late) // 2] < 0.04, late
