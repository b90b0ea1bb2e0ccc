"""Clang OpenMP offload to an x86-64 'device': a separate address space, so a missing map() fails as on a GPU."""

import os
import shutil
from pathlib import Path

from hpceval.spec import ProgrammingModel
from hpceval.toolchains import CompiledToolchain


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


TOOLCHAIN = ClangOffload()
