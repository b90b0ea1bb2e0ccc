"""Where the harness finds its data: in a source checkout the repository folders, in a wheel hpceval/data/."""

from __future__ import annotations

from functools import cache
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent


@cache
def data_dir(name: str) -> Path:
    """Return the folder `name` (kernels_spec or prompts), preferring an editable checkout's copy."""
    checkout = PACKAGE_DIR.parent.parent / name
    if checkout.is_dir():
        return checkout
    packaged = PACKAGE_DIR / "data" / name
    if packaged.is_dir():
        return packaged
    raise FileNotFoundError(f"hpceval data folder {name!r} not found; reinstall with `pip install -e .`")


def kernels_dir() -> Path:
    return data_dir("kernels_spec")


def prompts_dir() -> Path:
    return data_dir("prompts")


DRIVERS_DIR = PACKAGE_DIR / "bind" / "drivers"


def cache_dir() -> Path:
    """The harness's own cache folder ($HPCEVAL_CACHE, default ~/.cache/hpceval): measured ceilings, environment
    canaries, prepared validation cases. Never inside a job's sandbox (its home and /tmp are private mounts there)."""
    import os

    return Path(os.environ.get("HPCEVAL_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "hpceval"))


def save_bytes_cache(path: Path, data: bytes) -> bool:
    """Write a cache file of the harness whole or not at all: a temporary beside it (a name of this process and
    thread), renamed over it, so a concurrent reader sees the old or the new file. Best effort: a read-only home
    only costs a rerun of what the cache would have saved (False)."""
    import os
    import threading

    tmp = path.with_name(f".{path.name}.{os.getpid()}-{threading.get_ident()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_bytes(data)
        tmp.replace(path)
        return True
    except OSError:
        try:
            tmp.unlink(missing_ok=True)
        except OSError:
            pass
        return False


def save_json_cache(path: Path, data: dict) -> None:
    """A JSON cache file (measured ceilings, environment canaries), written as save_bytes_cache does."""
    import json

    save_bytes_cache(path, json.dumps(data, indent=1, sort_keys=True).encode())
