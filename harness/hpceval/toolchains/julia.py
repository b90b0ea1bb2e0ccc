"""Julia: Base.Threads, CUDA.jl, AMDGPU.jl and KernelAbstractions.jl.

Julia is in no Debian suite and on no registry we can install from (TOOLCHAINS.md §8); install it yourself
(juliaup or the official tarball) and the packages with `julia -e 'using Pkg; Pkg.add(["CUDA", "AMDGPU",
"KernelAbstractions"])'`. Found through HPCEVAL_JULIA or PATH. Per model (`model_info`):
* julia-threads: julia itself; runs with -t <threads>.
* julia-kernelabstractions: the KernelAbstractions package (its CPU backend runs anywhere).
* julia-cuda: CUDA.jl and an NVIDIA GPU (`CUDA.functional()`).
* julia-amdgpu: AMDGPU.jl and an AMD GPU (`AMDGPU.functional()`).
Missing julia or a package: infra_error "toolchain unavailable: julia; <what to install>". The 'build' is a
parse of the suggestion (a syntax error is a build_error); the driver is bind/drivers/julia.j2. Packages come
from the user's depot (JULIA_DEPOT_PATH or ~/.julia), read-only in the sandbox; a private /tmp depot comes first
for anything Julia writes.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from functools import cache
from pathlib import Path

from hpceval.spec import ProgrammingModel
from hpceval.toolchains import Toolchain, ToolInfo, threads
from hpceval.toolchains.cuda import probe_env

INSTALL_HINT = ("install Julia (juliaup, or the julialang.org tarball; no Debian/PyPI route) and put julia on PATH "
                "or set HPCEVAL_JULIA")
PACKAGES = {
    "julia-threads": (None, None),
    "julia-kernelabstractions": ("KernelAbstractions", None),
    "julia-cuda": ("CUDA", "CUDA.functional()"),
    "julia-amdgpu": ("AMDGPU", "AMDGPU.functional()"),
}


@cache
def julia_path() -> str | None:
    given = os.environ.get("HPCEVAL_JULIA")
    if given and os.access(given, os.X_OK):
        return given
    return shutil.which("julia")


def depot() -> str:
    return os.environ.get("JULIA_DEPOT_PATH") or str(Path.home() / ".julia")


@cache
def package_state(package: str, functional: str | None) -> tuple[bool, bool, str]:
    """(installed, functional, message) of a Julia package, asked of julia itself (cached per process)."""
    julia = julia_path()
    if julia is None:
        return False, False, "no julia"
    check = f"import {package}; println(\"version \", pkgversion({package}))"
    if functional:
        check += f"; println(\"functional \", {functional})"
    try:
        out = subprocess.run([julia, "--startup-file=no", "-e", check], capture_output=True, text=True, timeout=600,
                             env={**os.environ, "JULIA_DEPOT_PATH": depot()})
    except (OSError, subprocess.TimeoutExpired) as exc:
        return False, False, str(exc)
    if out.returncode != 0:
        return False, False, (out.stderr.strip().splitlines() or ["import failed"])[0][:200]
    lines = dict(line.split(" ", 1) for line in out.stdout.splitlines() if " " in line)
    return True, lines.get("functional", "true").strip() == "true", lines.get("version", "").strip()


class Julia(Toolchain):
    name = "julia"
    language = "julia"

    @cache  # noqa: B019 - module singleton
    def detect(self) -> ToolInfo:
        julia = julia_path()
        if julia is None:
            return ToolInfo(False, how_to_get=INSTALL_HINT)
        try:
            version = subprocess.run([julia, "--version"], capture_output=True, text=True, timeout=60).stdout.strip()
        except (OSError, subprocess.TimeoutExpired):
            return ToolInfo(False, how_to_get=f"{julia} --version fails; reinstall Julia")
        return ToolInfo(True, version or "julia")

    def model_info(self, model: ProgrammingModel, info: ToolInfo) -> ToolInfo:
        package, functional = PACKAGES.get(model.id, (None, None))
        if package is None or not info.available:
            return info
        installed, works, message = package_state(package, functional)
        if not installed:
            return ToolInfo(False, how_to_get=f"julia -e 'using Pkg; Pkg.add(\"{package}\")' ({message})")
        version = f"{info.version}, {package}.jl {message}"
        if not works:
            device = "an NVIDIA GPU" if package == "CUDA" else "an AMD GPU"
            return ToolInfo(True, version, can_run=False, note=f"{package}.functional() is false: no usable GPU",
                            how_to_get=f"run on a machine with {device}")
        return ToolInfo(True, version)

    def build_steps(self, model: ProgrammingModel) -> list[list[str]]:
        parse = ('ex = Meta.parseall(read("kernel.jl", String)); '
                 'bad = findfirst(e -> e isa Expr && e.head in (:error, :incomplete), ex.args); '
                 'bad === nothing || (println(stderr, "error: ", ex.args[bad]); exit(1))')
        return [[julia_path() or "julia", "--startup-file=no", "-e", parse]]

    def run_argv(self, model: ProgrammingModel) -> list[str]:
        return [julia_path() or "julia", "--startup-file=no", f"--threads={threads()}", "driver.jl", "cases.txt"]

    def env(self, model: ProgrammingModel) -> dict[str, str]:
        env = {**super().env(model), "JULIA_DEPOT_PATH": f"/tmp/julia-depot:{depot()}", "JULIA_NUM_THREADS": str(threads()),
               "JULIA_PKG_OFFLINE": "true"}
        if model.id == "julia-cuda":
            env.update(probe_env())
        return env


    def job_adjustments(self, spec, model: ProgrammingModel, code: str):
        if model.id not in ("julia-cuda", "julia-amdgpu"):
            return None
        from hpceval.toolchains.cuda import gpu_adjust

        return gpu_adjust()


TOOLCHAIN = Julia()
