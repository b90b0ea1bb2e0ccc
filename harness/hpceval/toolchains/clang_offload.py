"""Clang OpenMP offload to an x86-64 'device': a separate address space, so a missing map() fails as on a GPU."""

import os
import shutil
from pathlib import Path

from hpceval.spec import ProgrammingModel
from hpceval.toolchains import CompiledToolchain, SecondRun


class ClangOffload(CompiledToolchain):
    name = "clang_offload"
    language = "cpp"
    compiler = next((c for c in ("clang++-16", "clang++-17", "clang++-18", "clang++-19", "clang++")
                     if shutil.which(c)), "clang++-16")
    base_flags = ("-O2", "-std=c++17", "-w")
    sources = ("driver.cpp",)
    install_hint = "apt-get install --no-install-recommends clang-16 libomp-16-dev clang-tools-16"

    def env(self, model: ProgrammingModel) -> dict[str, str]:
        # MANDATORY: a target region that cannot be offloaded is an error, never a silent host run.
        # The offload plugins live beside libomptarget in LLVM's lib dir, which the loader does not search.
        env = {**super().env(model), "OMP_TARGET_OFFLOAD": "MANDATORY"}
        found = shutil.which(self.compiler)
        if found:
            llvm_lib = Path(os.path.realpath(found)).parent.parent / "lib"
            env["LD_LIBRARY_PATH"] = str(llvm_lib)
        return env


    def second_run(self, model: ProgrammingModel, code: str = "") -> SecondRun | None:
        """The same driver built by g++ with target regions on the host (shared memory): there an access one
        element past a mapped array reaches the driver's sentinel guards instead of the device copy's slack."""
        host = shutil.which("g++")
        if host is None:
            return None
        build = f"{host} -O2 -std=c++17 -w -fopenmp -foffload=disable driver.cpp -o prog_shared 2>/dev/null || exit {NO_BUILD}"
        return SecondRun(SHARED_RUN, ["sh", "-c", f"{build}; exec ./prog_shared cases.txt"], _guard_finding,
                         drop_env=("OMP_TARGET_OFFLOAD",), validate=True)


SHARED_RUN = "shared-memory run (g++, target regions on the host)"
NO_BUILD = 87  # g++ cannot build this code: the run is inconclusive, never held against the kernel


def _guard_finding(returncode: int, output: str) -> str | None:
    """The driver's own report of a write past an array's end (its exit code 4)."""
    if returncode != 4:
        return None
    line = next((ln for ln in output.splitlines() if "wrote past the end" in ln), "")
    return f"{SHARED_RUN}: {line.removeprefix('hpceval driver: ') or 'a write past an array end'}"


TOOLCHAIN = ClangOffload()
