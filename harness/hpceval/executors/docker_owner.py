"""Which Docker containers belong to this harness process; removing them when it stops, dies, or starts again.

Why: a container's PID 1 sleeps for the command's wall limit plus a keep-alive (minutes), so the containers of a
killed harness went on running the suggestion's processes for that long, and nothing looked for them afterwards.
Every container now carries the label org.hpceval.owner=<host>:<scratch root name> (scratch.py: the root's flock
says whether its process lives). They are removed:

* on Ctrl-C/SIGTERM (a lifecycle stop hook) and at exit (atexit), by this process;
* when this process dies any other way, by its reaper (scratch.py reads the owner from the DOCKER_MARKER file);
* at the next start of a Docker executor on this host, when their owner's scratch root is gone or unlocked.

It also gives the containers the synthetic passwd/group of executors/jail_etc.py (bind mounts over the image's
own files, which list the image's accounts), where the engine runs on this machine and can see those files.
"""

from __future__ import annotations

import atexit
import os
import socket
from functools import cache

from hpceval import lifecycle, scratch
from hpceval.executors.jail_etc import synthetic_file

JOB_LABEL = "org.hpceval.job"
OWNER_LABEL = "org.hpceval.owner"


@cache
def owner_id() -> str:
    """This process's owner label value (and the marker its reaper reads)."""
    root = scratch.root()
    owner = f"{socket.gethostname()}:{root.name}"
    (root / scratch.DOCKER_MARKER).write_text(owner + "\n")
    return owner


def labels() -> dict[str, str]:
    return {JOB_LABEL: "1", OWNER_LABEL: owner_id()}


def remove_owned(client, owner: str | None = None) -> int:
    """Force-remove every container of `owner` (default: this process); returns how many."""
    owner = owner or owner_id()
    removed = 0
    try:
        containers = client.containers.list(all=True, filters={"label": f"{OWNER_LABEL}={owner}"})
    except Exception:  # noqa: BLE001 - the engine is gone: nothing to do
        return 0
    for container in containers:
        try:
            container.remove(force=True)
            removed += 1
        except Exception:  # noqa: BLE001 - removed already (auto_remove)
            pass
    return removed


def sweep(client) -> int:
    """Remove the containers of dead harness processes of this host; returns how many."""
    host = socket.gethostname()
    removed = 0
    try:
        containers = client.containers.list(all=True, filters={"label": JOB_LABEL})
    except Exception:  # noqa: BLE001 - no engine: nothing to sweep
        return 0
    for container in containers:
        owner = (container.labels or {}).get(OWNER_LABEL, "")
        owner_host, _, root_name = owner.rpartition(":")
        if owner_host != host or not root_name or owner == owner_id() or scratch.alive(root_name):
            continue
        try:
            container.remove(force=True)
            removed += 1
        except Exception:  # noqa: BLE001 - gone already
            pass
    return removed


def adopt(client) -> None:
    """Sweep what dead runs left, and remove this process's containers when it stops or exits."""
    sweep(client)
    lifecycle.add_stop_hook(lambda: remove_owned(client))
    atexit.register(remove_owned, client)


_mounts_usable = [True]


def local_engine() -> bool:
    """The engine runs here (a unix socket), so host paths given as bind sources are the ones we wrote."""
    return os.environ.get("DOCKER_HOST", "unix://").startswith("unix://") and _mounts_usable[0]


def drop_etc_mounts(config: dict, exc: Exception) -> bool:
    """After a failed create: if the bind mounts were the cause (an engine in another mount namespace), drop them
    from `config` and from every later container, and say so (True: retry); else False."""
    if not config.get("mounts") or "mount" not in str(exc).lower():
        return False
    _mounts_usable[0] = False
    config.pop("mounts")
    return True


def etc_mounts() -> list:
    """Bind mounts of the synthetic passwd and group over the image's (none for a remote engine)."""
    if not local_engine():
        return []
    import docker  # type: ignore[import-untyped]

    return [docker.types.Mount(f"/etc/{name}", str(synthetic_file(name)), type="bind", read_only=True)
            for name in ("passwd", "group")]
