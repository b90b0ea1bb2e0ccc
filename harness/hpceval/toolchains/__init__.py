"""Toolchains: one module per compiler family; each knows how to detect itself, build and run a bound unit.

A toolchain module defines `TOOLCHAIN`, an instance of a `Toolchain` subclass. The evaluator asks it for the
build steps and the run command of a programming model and hands them to an executor; it never runs code itself.
"""

from __future__ import annotations

import importlib
import os
import re
import shutil
import subprocess
from abc import ABC, abstractmethod
from dataclasses import dataclass
from functools import cache

from hpceval.bind import DriverHooks
from hpceval.spec import ProgrammingModel


@dataclass(frozen=True)
class ToolInfo:
    """What `detect` found: whether builds and runs are possible here, the version, and how to get it."""

    available: bool
    version: str = ""
    can_run: bool = True
    how_to_get: str = ""
    note: str = ""


def threads() -> int:
    """Threads per job: the OMP/Numba thread count the drivers run with (HPCEVAL_THREADS overrides)."""
    return int(os.environ.get("HPCEVAL_THREADS", min(os.cpu_count() or 1, 8)))


def tool_version(argv: list[str], pattern: str = r"(\d+\.\d+(\.\d+)?)") -> str:
    """First version-looking token of a tool's --version output ('' if the tool is missing)."""
    if not shutil.which(argv[0]):
        return ""
    try:
        out = subprocess.run(argv, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    text = out.stdout + out.stderr
    match = re.search(pattern, text)
    first = text.strip().splitlines()[0] if text.strip() else ""
    return first if not match else f"{argv[0]} {match.group(1)}"


class Toolchain(ABC):
    """Build and run commands for one compiler family; argv are run by an executor inside /w."""

    name: str = "abstract"
    language: str = ""
    driver_ext: str | None = None

    @abstractmethod
    def detect(self) -> ToolInfo: ...

    @abstractmethod
    def build_steps(self, model: ProgrammingModel) -> list[list[str]]: ...

    @abstractmethod
    def run_argv(self, model: ProgrammingModel) -> list[str]: ...

    def hooks(self, model: ProgrammingModel) -> DriverHooks:
        return DriverHooks()

    def env(self, model: ProgrammingModel) -> dict[str, str]:
        n = str(threads())
        return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": "/tmp", "TMPDIR": "/tmp", "LANG": "C.UTF-8",
                "OMP_NUM_THREADS": n, "NUMBA_NUM_THREADS": n, "OMP_STACKSIZE": "64M",
                # Jobs share cores with other jobs: spinning OpenMP threads would starve each other (a gfortran
                # offload CG took 10-41 s instead of 0.3 s under load with the default active wait).
                "OMP_WAIT_POLICY": "passive"}


class CompiledToolchain(Toolchain):
    """A compiler that turns the driver (which includes or links the kernel) into ./prog."""

    compiler: str = ""
    base_flags: tuple[str, ...] = ("-O2",)
    sources: tuple[str, ...] = ()
    install_hint: str = ""

    @cache  # noqa: B019 - toolchains are module singletons
    def detect(self) -> ToolInfo:
        version = tool_version([self.compiler, "--version"])
        if not version:
            return ToolInfo(False, how_to_get=self.install_hint)
        return ToolInfo(True, version)

    def build_steps(self, model: ProgrammingModel) -> list[list[str]]:
        return [[self.compiler, *self.base_flags, *model.flags, *self.sources, "-o", "prog", *self.link_flags(model)]]

    def link_flags(self, model: ProgrammingModel) -> list[str]:
        return []

    def run_argv(self, model: ProgrammingModel) -> list[str]:
        return ["./prog", "cases.txt"]


class UnknownToolchain(LookupError):
    pass


class MissingToolchain(Toolchain):
    """Stands in for a toolchain module that is not part of this installation: every job is infra_error."""

    def __init__(self, name: str):
        self.name = name

    def detect(self) -> ToolInfo:
        return ToolInfo(False, how_to_get=f"no toolchain module hpceval/toolchains/{self.name}.py in this version")

    def build_steps(self, model: ProgrammingModel) -> list[list[str]]:
        return []

    def run_argv(self, model: ProgrammingModel) -> list[str]:
        return []


@cache
def get_toolchain(name: str) -> Toolchain:
    if not re.fullmatch(r"[a-z_][a-z0-9_]*", name):
        raise UnknownToolchain(f"invalid toolchain name {name!r}")
    try:
        module = importlib.import_module(f"hpceval.toolchains.{name}")
    except ModuleNotFoundError as exc:
        if exc.name != f"hpceval.toolchains.{name}":
            raise
        return MissingToolchain(name)
    return module.TOOLCHAIN
