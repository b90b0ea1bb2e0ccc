"""HIP: on NVIDIA GPUs through the harness's HIP-on-CUDA header and nvcc; on AMD GPUs through hipcc.

Route, chosen per machine (HPCEVAL_HIP_PLATFORM=nvidia|amd overrides):
* amd: an AMD GPU (/dev/kfd) and hipcc: `hipcc --offload-arch=<the device's gfx>` (HIP_PLATFORM=amd set
  explicitly: hipcc picks nvidia whenever nvcc is on PATH).
* nvidia (default whenever nvcc exists): include/hip/hip_runtime.h maps the HIP runtime API onto CUDA's, and nvcc
  builds the unit as CUDA. AMD's own HIP-on-NVIDIA headers are not installable from a registry, and Debian's
  HIP 5.2 ones no longer build against CUDA 12/13 (TOOLCHAINS.md §5).
* amd, build only: no nvcc but Debian's hipcc (`apt-get install hipcc`): compiles for gfx90a; nothing runs.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from functools import cache
from pathlib import Path

from hpceval.spec import ProgrammingModel
from hpceval.toolchains import ToolInfo, model_libs, tool_version
from hpceval.toolchains.cuda import NO_GPU_NOTE, CudaToolchain, cuda_arch, nvcc_path, nvcc_version, nvidia_gpu

HIPCC_HINT = "apt-get install hipcc (AMD, Debian) or the ROCm HIP SDK; on NVIDIA GPUs only nvcc is needed"


@cache
def amd_gpu_arch() -> str | None:
    """gfx name of the first AMD GPU (None without /dev/kfd or rocminfo/amdgpu-arch)."""
    if not Path("/dev/kfd").exists():
        return None
    for tool in ("amdgpu-arch", "offload-arch", "rocm_agent_enumerator"):
        exe = shutil.which(tool)
        if not exe:
            continue
        try:
            out = subprocess.run([exe], capture_output=True, text=True, timeout=30).stdout
        except (OSError, subprocess.TimeoutExpired):
            continue
        arches = [a for a in re.findall(r"gfx[0-9a-f]+", out) if a != "gfx000"]
        if arches:
            return arches[0]
    return None


class Hip(CudaToolchain):
    name = "hip"
    install_hint = HIPCC_HINT

    def platform(self) -> str:
        forced = os.environ.get("HPCEVAL_HIP_PLATFORM")
        if forced in ("nvidia", "amd"):
            return forced
        if amd_gpu_arch() and shutil.which("hipcc"):
            return "amd"
        if nvcc_path():
            return "nvidia"
        return "amd" if shutil.which("hipcc") else "nvidia"

    @property
    def driver_ext(self) -> str:  # type: ignore[override]
        return "cu" if self.platform() == "nvidia" else "cpp"

    @cache  # noqa: B019 - module singleton
    def detect(self) -> ToolInfo:
        if self.platform() == "nvidia":
            if not nvcc_version():
                return ToolInfo(False, how_to_get=f"{self.install_hint}; or for NVIDIA: {CudaToolchain.install_hint}")
            gpu = nvidia_gpu()
            version = f"HIP-on-CUDA header + {nvcc_version()} -arch={cuda_arch()}"
            if gpu is None:
                return ToolInfo(True, version, can_run=False, note=NO_GPU_NOTE,
                                how_to_get="run on a machine with an NVIDIA GPU (or an AMD GPU with hipcc)")
            return ToolInfo(True, f"{version} on {gpu.describe()}")
        version = tool_version(["hipcc", "--version"], r"HIP version: (\S+)")
        if not version:
            return ToolInfo(False, how_to_get=self.install_hint)
        arch = amd_gpu_arch()
        if arch is None:
            return ToolInfo(True, f"{version} (AMD, --offload-arch=gfx90a)", can_run=False,
                            note="no AMD GPU here (/dev/kfd): builds only", how_to_get="run on a machine with an AMD GPU")
        return ToolInfo(True, f"{version} (AMD {arch})")

    def build_steps(self, model: ProgrammingModel) -> list[list[str]]:
        if self.platform() == "nvidia":
            return [[nvcc_path() or "nvcc", *self.nvcc_flags(), *model.flags, "driver.cu", "-o", "prog", *model_libs(model)]]
        arch = amd_gpu_arch() or "gfx90a"
        return [["hipcc", "-O3", "-std=c++17", f"--offload-arch={arch}", "-w", *model.flags, "driver.cpp", "-o", "prog",
                 *model_libs(model)]]

    def hooks(self, model: ProgrammingModel):
        from hpceval.bind import DriverHooks

        return DriverHooks(includes=["#include <hip/hip_runtime.h>"])

    def env(self, model: ProgrammingModel) -> dict[str, str]:
        env = super().env(model)
        if self.platform() == "amd":
            env = {k: v for k, v in env.items() if k not in ("CUDA_INJECTION64_PATH", "HPCEVAL_PROBE_OUT")}
            env["HIP_PLATFORM"] = "amd"
        return env

    def probe_active(self, model: ProgrammingModel, code: str = "") -> bool:
        return self.platform() == "nvidia" and super().probe_active(model, code)

    def runs_on_gpu(self, model: ProgrammingModel) -> bool:
        return amd_gpu_arch() is not None if self.platform() == "amd" else nvidia_gpu() is not None


TOOLCHAIN = Hip()
