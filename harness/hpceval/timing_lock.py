"""One timed run at a time on a node, whatever process starts it.

A timed kernel must not share its cores (or its GPU) with another timed kernel: the thread lock that serialised
timing runs inside one harness process did nothing between the processes of one node, and a Dask or Slurm cluster
runs several worker processes per node, each with its own lock, so their timing runs overlapped and every speed
they recorded was measured on a shared machine. The lock is therefore a thread lock (jobs of one process) held
together with an exclusive `flock` on a node-local file (jobs of other processes); the kernel releases the file
lock when a process dies, so a killed worker never leaves it held.

The file is `$HPCEVAL_TIMING_LOCK` when set, else `hpceval-timing-<uid>.lock` in the system's temporary folder,
which is node-local on clusters (a lock file on a shared home would serialise every node of the cluster, and
`flock` over NFS is unreliable). Generated code cannot take or hold it: the sandbox mounts a private tmpfs over
the temporary folders and runs as another uid, and the file is created with mode 0600. `HPCEVAL_TIMING_LOCK=process` keeps the old per-process lock: for a user who
gives each worker process its own cores and accepts that timed runs of other processes may overlap. Builds and
validation runs never take it: only timed runs (and the preparation of their inputs) do.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import tempfile
import threading
from pathlib import Path

PROCESS_ONLY = "process"


def lock_path() -> Path | None:
    """The node-wide lock file, or None for a per-process lock (`HPCEVAL_TIMING_LOCK=process`)."""
    setting = os.environ.get("HPCEVAL_TIMING_LOCK", "").strip()
    if setting == PROCESS_ONLY:
        return None
    if setting:
        return Path(setting).expanduser()
    return Path(tempfile.gettempdir()) / f"hpceval-timing-{os.getuid()}.lock"


class TimingLock:
    """A context manager: held, no other timed run of this process or of this node's other harness processes runs."""

    def __init__(self) -> None:
        self._thread = threading.Lock()
        self._fd: int | None = None

    def __enter__(self) -> TimingLock:
        self._thread.acquire()
        path = lock_path()
        if path is not None:
            try:
                fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
            except OSError:  # an unwritable temporary folder: the process lock still holds, nothing else can
                return self
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
            except OSError:
                os.close(fd)
                return self
            self._fd = fd
        return self

    def __exit__(self, *exc: object) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            with contextlib.suppress(OSError):
                fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)
        self._thread.release()
