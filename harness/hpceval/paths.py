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


def save_json_cache(path: Path, data: dict) -> None:
    """Write a cache file of the harness (measured ceilings, environment canaries) whole or not at all: a temporary
    beside it, renamed over it, so a concurrent reader sees the old or the new file. Best effort: a read-only home
    only costs a rerun of what the cache would have saved."""
    import json
    import os

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(data, indent=1, sort_keys=True))
        tmp.replace(path)
    except OSError:
        pass
