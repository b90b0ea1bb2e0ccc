"""One scratch root per harness process: every temporary dir and file the harness makes goes under it.

Why: work dirs (`hpceval-<kernel>-<model>-*`, ~9 MB each for Numba), sandbox log dirs and the local LLM server's
log were each made with `tempfile` directly in $TMPDIR, so a killed `hpceval` left dozens behind and nothing ever
swept them. Now they all live under `$TMPDIR/hpceval-scratch/<pid>-<random>/`, which its process owns through an
exclusive `flock` on `owner.lock` (the file also holds the pid, for people). That makes three cleanups possible:

* at exit (and on Ctrl-C) the process removes its root (`cleanup`, registered with atexit);
* a reaper, a tiny child process in its own session, waits for its parent to die (EOF on a pipe only the parent
  holds) and then removes the root and the Docker containers the parent left: SIGKILL and killpg included;
* any later start removes roots whose lock nobody holds (`sweep_stale`): the kernel drops an flock when its
  holder dies, however it dies, so a reused pid cannot make a stale root look alive.
"""

from __future__ import annotations

import atexit
import errno
import fcntl
import os
import queue
import shutil
import stat
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

BASE_NAME = "hpceval-scratch"
LOCK_NAME = "owner.lock"
DOCKER_MARKER = "docker-owner"  # written by the Docker executor: the label value of this process's containers
YOUNG_S = 60.0  # a root without a lock file younger than this may be one being created right now

_guard = threading.Lock()
_root: Path | None = None
_lock_fd: int | None = None
_reaper: subprocess.Popen | None = None


def base_dir() -> Path:
    """$TMPDIR/hpceval-scratch, shared by every user (sticky like /tmp); a per-uid one if that is not safe."""
    shared = Path(tempfile.gettempdir()) / BASE_NAME
    for candidate, mode in ((shared, 0o1777), (shared.with_name(f"{BASE_NAME}-{os.getuid()}"), 0o700)):
        try:
            candidate.mkdir(mode=mode)
            candidate.chmod(mode)  # mkdir's mode is cut by the umask
        except FileExistsError:
            pass
        except OSError:
            continue
        if _safe_base(candidate):
            return candidate
    raise OSError(f"no usable scratch directory under {tempfile.gettempdir()}")


def _safe_base(path: Path) -> bool:
    """A real directory (not a link someone planted) that is ours, or root's and sticky, and writable by us."""
    try:
        info = path.lstat()
    except OSError:
        return False
    if not stat.S_ISDIR(info.st_mode):
        return False
    owner_ok = info.st_uid == os.getuid() or (info.st_uid == 0 and info.st_mode & stat.S_ISVTX)
    return bool(owner_ok) and os.access(path, os.W_OK | os.X_OK)


def root() -> Path:
    """This process's scratch root, made (with its lock, reaper and exit cleanup) on first use."""
    global _root, _lock_fd
    with _guard:
        if _root is not None and _root.is_dir():
            return _root
        base = base_dir()
        sweep_stale(base)
        path = Path(tempfile.mkdtemp(prefix=f"{os.getpid()}-", dir=base))
        path.chmod(0o711)  # traversable (the jail's bind mounts), not listable by other users
        fd = os.open(path / LOCK_NAME, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o644)
        fcntl.flock(fd, fcntl.LOCK_EX)
        os.write(fd, f"{os.getpid()}\n".encode())
        _root, _lock_fd = path, fd
        atexit.register(cleanup)
        _start_reaper(path)
        return path


def current() -> Path | None:
    """The scratch root if this process made one (None otherwise); never creates it."""
    return _root


def new_dir(prefix: str) -> Path:
    """A fresh private directory under the scratch root (what tempfile.mkdtemp gave before)."""
    return Path(tempfile.mkdtemp(prefix=prefix, dir=root()))


_doomed: queue.SimpleQueue[Path] = queue.SimpleQueue()
_remover: threading.Thread | None = None


def remove_later(path: Path) -> None:
    """Remove a finished job's work dir in a background thread: unlinking a timing run's input sets (hundreds of
    MB) is no part of the evaluation, which returns at once. What is left at exit goes with the scratch root."""
    global _remover
    with _guard:
        if _remover is None or not _remover.is_alive():
            _remover = threading.Thread(target=_remove_forever, name="hpceval-remove", daemon=True)
            _remover.start()
    _doomed.put(path)


def _remove_forever() -> None:
    while True:
        shutil.rmtree(_doomed.get(), ignore_errors=True)


def new_file(prefix: str, suffix: str = "") -> Path:
    fd, name = tempfile.mkstemp(prefix=prefix, suffix=suffix, dir=root())
    os.close(fd)
    return Path(name)


def cleanup() -> None:
    """Remove this process's scratch root (at exit, on Ctrl-C); the reaper then finds nothing left to do."""
    global _root, _lock_fd
    with _guard:
        path, fd = _root, _lock_fd
        _root = _lock_fd = None
    if path is not None:
        remove_tree(path)
    if fd is not None:
        os.close(fd)
    _stop_reaper()


def remove_tree(path: Path, attempts: int = 20) -> bool:
    """rmtree that retries while dying jobs still write into the tree; never follows links out of it."""
    for _ in range(attempts):
        shutil.rmtree(path, ignore_errors=True)
        if not os.path.lexists(path):
            return True
        time.sleep(0.05)
    return False


def _owner_gone(entry: Path) -> bool:
    """True when nobody holds the entry's lock (its process is dead); the caller then holds it until removal."""
    try:
        fd = os.open(entry / LOCK_NAME, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW)
    except FileNotFoundError:
        return _age(entry) > YOUNG_S
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        # nobody holds it, but a root whose lock file has no pid yet may be one that `root()` is making right
        # now (between creating the file and locking it): 16 Dask workers starting together removed a live one
        return bool(_read_pid(fd)) or _age(entry) > YOUNG_S
    except OSError as exc:
        if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
            return False
        return not _pid_alive(_read_pid(fd))  # no flock on this file system: fall back to the pid
    finally:
        os.close(fd)


def _age(entry: Path) -> float:
    try:
        return time.time() - entry.lstat().st_mtime
    except OSError:
        return 0.0


def _read_pid(fd: int) -> int:
    try:
        return int(os.pread(fd, 32, 0).split()[0])
    except (OSError, ValueError, IndexError):
        return 0


def _pid_alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def alive(name: str) -> bool:
    """Whether the scratch root `name` (a <pid>-<random> entry of the base) exists and its owner lives."""
    entry = base_dir() / name
    if entry == _root:
        return True
    return entry.is_dir() and not entry.is_symlink() and not _owner_gone(entry)


def sweep_stale(base: Path | None = None) -> list[Path]:
    """Remove the scratch roots of dead processes (and the Docker containers they left); returns what went."""
    base = base or base_dir()
    removed = []
    try:
        entries = list(base.iterdir())
    except OSError:
        return removed
    for entry in entries:
        if entry == _root or entry.is_symlink() or not entry.is_dir():
            continue
        try:
            if entry.lstat().st_uid != os.getuid() and os.getuid() != 0:
                continue  # another user's: theirs to sweep
        except OSError:
            continue
        if _owner_gone(entry):
            _remove_containers(entry)
            if remove_tree(entry, attempts=3):
                removed.append(entry)
    return removed


# ------------------------------------------------------------------------------------------------ the reaper


def _start_reaper(path: Path) -> None:
    """A child in its own session that outlives us by a moment: it cleans up when our end of its pipe closes."""
    global _reaper
    try:
        # run as a file in isolated mode: no import of hpceval (whichever copy is installed), only the stdlib
        _reaper = subprocess.Popen([sys.executable, "-I", os.path.abspath(__file__), str(path)], stdin=subprocess.PIPE,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
                                   close_fds=True, cwd="/")
    except OSError:
        _reaper = None  # the sweep at the next start is the fallback


def _stop_reaper() -> None:
    global _reaper
    reaper, _reaper = _reaper, None
    if reaper is None:
        return
    try:
        reaper.stdin.close()  # EOF: it finds the root gone and exits
        reaper.wait(timeout=5)
    except (OSError, subprocess.TimeoutExpired):
        pass


def _remove_containers(path: Path) -> None:
    """The Docker containers a dead owner left running (their label value is in its DOCKER_MARKER file)."""
    try:
        owner = (path / DOCKER_MARKER).read_text().strip()
    except OSError:
        return
    if not owner:
        return
    try:
        import docker  # type: ignore[import-untyped]

        client = docker.from_env(timeout=30)
        for container in client.containers.list(all=True, filters={"label": f"org.hpceval.owner={owner}"}):
            try:
                container.remove(force=True)
            except Exception:  # noqa: BLE001 - gone already
                pass
    except Exception:  # noqa: BLE001 - no engine or no SDK: the containers end after their keep-alive anyway
        pass


def _reap(path: Path) -> None:
    """The reaper's body: block until the parent is gone (EOF on stdin), then remove what it left."""
    try:
        while sys.stdin.buffer.read(65536):
            pass
    except OSError:
        pass
    if not os.path.lexists(path):
        return
    _remove_containers(path)
    # the parent's jobs die with it (parent-death signal); give them a moment to stop writing
    deadline = time.monotonic() + 10
    while os.path.lexists(path) and time.monotonic() < deadline:
        remove_tree(path, attempts=1)
        time.sleep(0.05)


if __name__ == "__main__":
    _reap(Path(sys.argv[1]))
