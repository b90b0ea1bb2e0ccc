"""Sandbox jobs die with the harness, and a Ctrl-C stops a run at once, keeping everything finished.

Why: jobs run in their own session (so a timeout can kill the whole tree with killpg), which also means that
killing `hpceval` or its process group left them running (a spinning kernel lived 58 s longer), and Ctrl-C waited
for the jobs in flight (53 s) while a second one left their dirs behind. So:

* `popen` starts every sandbox job (nsjail, Docker's client side has none) with the parent-death signal SIGKILL
  (PR_SET_PDEATHSIG, armed by util-linux setpriv before exec), so the kernel kills it when its harness thread dies, whatever
  kills the harness; nsjail in turn kills its jail (its child has the same signal, and the jail is a pid namespace);
* it registers the job, so `stop_jobs` can kill every job in flight; once stopping, no new job starts
  (`Stopping`), and stop hooks (the Docker executor's container removal) run;
* `install_signal_handlers` (only when hpceval runs as a program, never on import): the first SIGINT/SIGTERM/
  SIGHUP inside a command raises KeyboardInterrupt, which the CLI turns into stop jobs, say how to resume, exit
  130; any signal outside a command (while starting up: no traceback) or a second one while stopping exits at once
  through `emergency_exit`: kill the jobs, remove the scratch root, print the line if not yet printed, os._exit.
"""

from __future__ import annotations

import functools
import os
import select
import shlex
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Callable

from hpceval import scratch

HANDLED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
GRACE_S = 3.0  # after the first signal, the command has this long to stop by itself


class Stopping(RuntimeError):
    """The harness is stopping (Ctrl-C, SIGTERM): no new sandbox job may start."""


_lock = threading.RLock()
_live: set[subprocess.Popen] = set()
_hooks: list[Callable[[], None]] = []
_state = {"stopping": False, "armed": False, "program": False, "signum": 0, "announced": False}
_message: list[str] = []  # set by the CLI; else made from sys.argv (a Ctrl-C while starting up)

def _dying_with_parent(argv: list[str]) -> list[str]:
    """argv run through util-linux `setpriv --pdeathsig KILL`, which arms the parent-death signal and execs.

    Arming it from Python between fork and exec (a preexec_fn) is unsafe with threads: the child of a fork can
    block on a lock another thread held (seen: a run hung in Popen with no child left, deaf to SIGINT). setpriv
    does it in its own process, before exec, and nsjail or the docker client inherits it.
    """
    setpriv = _setpriv()
    return [setpriv, "--pdeathsig", "KILL", "--", *argv] if setpriv else argv


@functools.cache
def _setpriv() -> str | None:
    path = shutil.which("setpriv")
    if path is None or not sys.platform.startswith("linux"):
        return None
    probe = subprocess.run([path, "--help"], capture_output=True, text=True)
    return path if "--pdeathsig" in probe.stdout else None


def popen(argv: list[str], **kwargs) -> subprocess.Popen:
    """Start a sandbox job in its own session, dying with the harness, registered for `stop_jobs`."""
    with _lock:
        if _state["stopping"]:
            raise Stopping("the harness is stopping")
        proc = subprocess.Popen(_dying_with_parent(argv), start_new_session=True, **kwargs)
        _live.add(proc)
    return proc


def wait_exit(proc: subprocess.Popen, timeout: float) -> bool:
    """Wait until the process exits (True) or `timeout` seconds pass (False), woken by the exit itself.

    Popen.wait(timeout) polls with sleeps that double up to 50 ms, so a job was seen to end up to 50 ms after it
    did (a 10 ms no-op command took 17 ms); a pidfd (Linux 5.3) becomes readable at the exit. Without one, the
    polling wait. The process is not reaped here (the caller's proc.wait() does that)."""
    try:
        fd = os.pidfd_open(proc.pid)
    except (AttributeError, OSError):
        try:
            proc.wait(timeout=timeout)
            return True
        except subprocess.TimeoutExpired:
            return False
    try:
        ready, _, _ = select.select([fd], [], [], max(0.0, timeout))
        return bool(ready)
    finally:
        os.close(fd)


def release(proc: subprocess.Popen) -> None:
    with _lock:
        _live.discard(proc)


def stopping() -> bool:
    return bool(_state["stopping"])


def check_not_stopping() -> None:
    if _state["stopping"]:
        raise Stopping("the harness is stopping")


def add_stop_hook(hook: Callable[[], None]) -> None:
    """Called once by stop_jobs (e.g. remove this process's containers); must be quick and never raise."""
    with _lock:
        _hooks.append(hook)


def stop_jobs() -> int:
    """Kill every job in flight (their whole process groups) and refuse new ones; returns how many were killed."""
    got = _lock.acquire(timeout=2)  # a signal handler may interrupt the main thread inside the lock
    try:
        _state["stopping"] = True
        procs, hooks = list(_live), list(_hooks)
        _hooks.clear()
    finally:
        if got:
            _lock.release()
    for proc in procs:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    for hook in hooks:
        try:
            hook()
        except Exception:  # noqa: BLE001 - stopping must go on
            pass
    return len(procs)


def reset() -> None:
    """Accept jobs again (tests that stop and go on in one process)."""
    with _lock:
        _state["stopping"] = False


# ------------------------------------------------------------------------------------------------ signals


def resume_message(argv: list[str]) -> str:
    """The one line for an interrupted `hpceval ARGS`: for a run, the command that resumes it."""
    if argv[:1] != ["run"]:
        return "interrupted"
    return ("interrupted: everything finished so far is saved; to resume, run the same command again: "
            + shlex.join(["hpceval", *argv]))


def set_resume_message(text: str) -> None:
    """The one line printed when a command is interrupted (how to resume it)."""
    _message[:] = [text]


def announce() -> None:
    """Print the interruption line once."""
    if _state["announced"]:
        return
    _state["announced"] = True
    try:
        sys.stderr.write((_message[0] if _message else resume_message(sys.argv[1:])) + "\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def exit_code() -> int:
    return 128 + (_state["signum"] or signal.SIGINT)


def emergency_exit(code: int | None = None) -> None:
    """Leave now: kill the jobs, remove the scratch root, say how to resume, os._exit (no thread is waited for)."""
    stop_jobs()
    scratch.cleanup()
    announce()
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        pass
    os._exit(exit_code() if code is None else code)


def _handler(signum: int, frame) -> None:  # noqa: ARG001
    first = not _state["signum"]
    _state["signum"] = _state["signum"] or signum
    if first and _state["armed"]:
        _state["armed"] = False
        stop_jobs()  # at once, whatever the main thread is waiting for (a pool that waits for its jobs)
        # backstop: whatever the main thread is blocked in (an HTTP request, a pool that waits), leave in time
        backstop = threading.Timer(GRACE_S, emergency_exit)
        backstop.daemon = True
        backstop.start()
        raise KeyboardInterrupt
    emergency_exit()


def install_signal_handlers() -> None:
    """hpceval as a program (not on import): Ctrl-C, SIGTERM, SIGHUP as described above."""
    if threading.current_thread() is not threading.main_thread():
        return
    _state["program"] = True
    for signum in HANDLED:
        try:
            signal.signal(signum, _handler)
        except (OSError, ValueError):
            pass


def is_program() -> bool:
    return bool(_state["program"])


def arm() -> None:
    """Inside a command: the first signal becomes KeyboardInterrupt (the command stops its jobs and says how to
    resume); outside one, any signal exits at once."""
    _state["armed"] = True


def disarm() -> None:
    _state["armed"] = False


def interrupted_by() -> int:
    return int(_state["signum"])
