"""Executors decide where a build or run command of a toolchain executes.

`local` runs it in an nsjail sandbox on this machine, `docker` in the toolchain's container image. Both take
the same arguments and return the same ProcResult, so verdicts do not depend on the executor.

The contract (Limits, Executor, ExecutorUnavailable, SandboxError) is defined in executors/base.py and exported
here as the package's public API; the implementations import it from base, never from this facade.
"""

from __future__ import annotations

from hpceval.executors.base import Executor, ExecutorUnavailable, Limits, SandboxError

__all__ = ["Executor", "ExecutorUnavailable", "Limits", "SandboxError", "get_executor"]


def get_executor(name: str) -> Executor:
    if name == "local":
        from hpceval.executors.local import LocalExecutor

        return LocalExecutor()
    if name == "docker":
        from hpceval.executors.docker import DockerExecutor

        return DockerExecutor()
    raise ExecutorUnavailable(f"unknown executor {name!r}; valid: local, docker")
