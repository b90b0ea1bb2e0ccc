"""SYCL 2020: AdaptiveCpp (acpp), Intel oneAPI DPC++ (icpx -fsycl), or an LLVM with SYCL (clang++ -fsycl).

No registry route installs a SYCL compiler (TOOLCHAINS.md §3): where none is found, every job is infra_error
"toolchain unavailable: sycl; <what to install>", never a verdict against the LLM. Where one is found, a probe
compile of a tiny SYCL program (cached) decides whether it really works, and `acpp-info` / `sycl-ls` whether a
device is there to run on. HPCEVAL_SYCL_CXX forces a compiler command (e.g. "acpp" or "icpx -fsycl").

AdaptiveCpp builds for its generic JIT target by default, which runs on whatever backend it finds at run time
(OpenMP host, CUDA, HIP); HPCEVAL_SYCL_TARGETS passes --acpp-targets (e.g. "omp" or "cuda:sm_90").
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import tempfile
from functools import cache
from pathlib import Path

from hpceval.spec import ProgrammingModel
from hpceval.toolchains import CompiledToolchain, ToolInfo, tool_version

INSTALL_HINT = ("install a SYCL compiler: AdaptiveCpp (acpp; build from source with LLVM 16+ and Boost: "
                "apt-get install clang-16 llvm-16-dev libclang-16-dev libomp-16-dev libboost-context-dev "
                "libboost-fiber-dev), or Intel oneAPI DPC++ (icpx -fsycl), and put it on PATH")
PROBE = """#include <sycl/sycl.hpp>
int main() {
  sycl::queue q;
  int *v = sycl::malloc_shared<int>(4, q);
  q.parallel_for(sycl::range<1>(4), [=](sycl::id<1> i) { v[i] = (int)i[0]; }).wait();
  int ok = v[3] == 3;
  sycl::free(v, q);
  return ok ? 0 : 1;
}
"""


def _candidates() -> list[list[str]]:
    forced = os.environ.get("HPCEVAL_SYCL_CXX")
    if forced:
        return [shlex.split(forced)]
    out = []
    for exe in ("acpp", "syclcc", "icpx", "clang++"):
        if shutil.which(exe):
            out.append([exe] if exe in ("acpp", "syclcc") else [exe, "-fsycl"])
    return out


@cache
def _probe(command: tuple[str, ...]) -> tuple[bool, bool, str]:
    """(compiles, runs, message) for a tiny SYCL program built with `command`."""
    with tempfile.TemporaryDirectory(prefix="hpceval-sycl-") as tmp:
        src = Path(tmp) / "probe.cpp"
        src.write_text(PROBE)
        try:
            built = subprocess.run([*command, "-O1", str(src), "-o", str(Path(tmp) / "probe")], capture_output=True,
                                   text=True, timeout=300)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return False, False, str(exc)
        if built.returncode != 0:
            return False, False, (built.stderr or built.stdout).strip().splitlines()[0][:200] if (built.stderr or built.stdout).strip() else "probe compile failed"
        try:
            ran = subprocess.run([str(Path(tmp) / "probe")], capture_output=True, text=True, timeout=120)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return True, False, str(exc)
        return True, ran.returncode == 0, (ran.stderr.strip().splitlines() or [""])[-1][:200]


@cache
def sycl_compiler() -> tuple[list[str], str, bool, str] | None:
    """(command, version, can run, note) of the first working SYCL compiler, or None."""
    for command in _candidates():
        compiles, runs, message = _probe(tuple(command))
        if not compiles:
            continue
        version = tool_version([command[0], "--acpp-version" if command[0] == "acpp" else "--version"])
        return command, version or command[0], runs, "" if runs else f"the probe program did not run: {message}"
    return None


class Sycl(CompiledToolchain):
    name = "sycl"
    language = "cpp"
    base_flags = ("-O2", "-std=c++17", "-w")
    sources = ("driver.cpp",)
    install_hint = INSTALL_HINT

    @cache  # noqa: B019 - module singleton
    def detect(self) -> ToolInfo:
        found = sycl_compiler()
        if found is None:
            tried = ", ".join(" ".join(c) for c in _candidates())
            extra = f" (found {tried}, but a SYCL probe program does not compile with it)" if tried else ""
            return ToolInfo(False, how_to_get=INSTALL_HINT + extra)
        command, version, runs, note = found
        if not runs:
            return ToolInfo(True, version, can_run=False, note=note or "no SYCL device here",
                            how_to_get="a SYCL device/runtime backend (OpenMP host for acpp, an OpenCL/Level Zero/CUDA runtime for DPC++)")
        return ToolInfo(True, version)

    def build_steps(self, model: ProgrammingModel) -> list[list[str]]:
        found = sycl_compiler()
        command = found[0] if found else ["acpp"]
        targets = os.environ.get("HPCEVAL_SYCL_TARGETS")
        extra = [f"--acpp-targets={targets}"] if targets and command[0] in ("acpp", "syclcc") else []
        return [[*command, *self.base_flags, *extra, *model.flags, *self.sources, "-o", "prog"]]

    def env(self, model: ProgrammingModel) -> dict[str, str]:
        env = super().env(model)
        for key in ("ACPP_VISIBILITY_MASK", "ONEAPI_DEVICE_SELECTOR", "SYCL_DEVICE_FILTER", "LD_LIBRARY_PATH"):
            if os.environ.get(key):
                env[key] = os.environ[key]
        return env


TOOLCHAIN = Sycl()
