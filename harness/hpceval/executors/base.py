"""The executor contract: resource Limits, the Executor interface and its two errors.

It is a module of its own so that the implementations (local, docker) and what they use (hpceval.images) depend
on the contract only, not on the package facade (executors/__init__.py), whose get_executor imports the
implementations: with the contract in the facade, executors -> docker -> images -> executors was an import cycle.
This module imports neither an implementation nor hpceval.images, and the facade imports only this module at
load time, so importing it (which runs the facade first) pulls in no implementation.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from hpceval.contracts import ProcResult

if TYPE_CHECKING:
    from hpceval.toolchains import Toolchain, ToolInfo


@dataclass(frozen=True)
class Limits:
    """Resource limits of one sandboxed command. Defaults fit a compile or a validation run on a laptop."""

    wall_s: float = 60.0
    cpu_s: int = 300
    address_space_mb: int = 16384
    memory_mb: int = 4096
    pids: int = 256
    file_size_mb: int = 256
    open_files: int = 1024
    stack_mb: int = 512
    output_kb: int = 64
    disk_mb: int = 1024  # docker: size of the tmpfs work dir (/tmp gets half); local: unused


class ExecutorUnavailable(RuntimeError):
    """The executor cannot run anything here (no sandbox, no engine); the message says what to install."""


class SandboxError(RuntimeError):
    """The sandbox or container could not start the command: a harness fault (infra_error), not the code's."""


class Executor(ABC):
    name: str = "abstract"

    @abstractmethod
    def run(self, argv: list[str], workdir: Path, env: dict[str, str], limits: Limits,
            image: str | None = None) -> ProcResult:
        """Run argv with cwd = workdir (seen as /w inside the sandbox); never raises for the program's faults."""

    def describe(self) -> str:
        return self.name

    def image_digest(self, toolchain: str) -> str:
        """The image that runs a toolchain's jobs (empty for the local executor)."""
        return ""

    def image_for(self, toolchain: str) -> str | None:
        """What to pass as run(image=...) for a toolchain's jobs (None: the executor needs no image)."""
        return None

    def toolchain_info(self, toolchain: Toolchain) -> ToolInfo:
        """Whether and which version of a toolchain this executor runs (local: what the host has)."""
        return toolchain.detect()
