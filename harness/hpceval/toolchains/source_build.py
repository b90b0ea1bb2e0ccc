"""What the toolchains built once per machine from a source tarball (Kokkos, AdaptiveCpp) share.

Both configure, build and install a CMake project into $HPCEVAL_CACHE under a file lock and mark the finished install
with a `.complete` file, so a half-built tree (a killed build) is never taken for a working one, and both must leave
the install readable by the sandbox user the jobs run as. Kept here so the two toolchains do not each carry a copy.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path


class SourceBuildError(RuntimeError):
    pass


def is_complete(target: Path) -> bool:
    return (target / ".complete").is_file()


def run_steps(steps: list[list[str]], label: str, env: dict[str, str] | None = None, log=None,
              error: type[RuntimeError] = SourceBuildError, timeout: int = 3600) -> None:
    """Run cmake configure/build/install steps; the first that fails raises `error` with its output's tail."""
    for step in steps:
        result = subprocess.run(step, capture_output=True, text=True, env=env, timeout=timeout)
        if log:
            log.write(result.stdout + result.stderr)
        if result.returncode != 0:
            tail = (result.stdout + result.stderr)[-2000:]
            raise error(f"{label} build failed at `{' '.join(step[:3])}`:\n{tail}")


def finish_install(target: Path, version: str) -> None:
    """Make the install readable (and its programs runnable) by the sandbox user, then mark it complete."""
    for path in [target, *target.rglob("*")]:
        if path.is_symlink():
            continue
        mode = path.stat().st_mode
        path.chmod(mode | 0o755 if path.is_dir() or os.access(path, os.X_OK) else mode | 0o644)
    (target / ".complete").write_text(version + "\n")
