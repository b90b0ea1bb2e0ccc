"""Triton (python-triton): @triton.jit kernels launched from CPython, on an NVIDIA GPU or in Triton's interpreter.

Canonical signature: the kernel function takes NumPy arrays on the host, as for CuPy and pyCUDA (the driver is the
same Python driver for every Python model), and moves data to the device itself (`torch.from_numpy(x).cuda()` or
`.to("cuda")`, results copied back into the NumPy outputs). Triton's kernels take torch tensors (anything with
`data_ptr()`), so suggestions use PyTorch for the copies; prompts say so (models.toml chat_hint).

With a GPU: the jobs run as the other GPU Python models (toolchains.python_gpu.PythonGpu): the CUPTI probe checks
that a kernel ran on the device and gives the kernel-only time; Triton compiles on first launch (bundled ptxas, gcc
for its launcher stub) into TRITON_CACHE_DIR inside the job's directory.

Without a GPU: Triton's interpreter (TRITON_INTERPRET=1) runs @triton.jit kernels on the CPU with NumPy, but only
for torch tensors (it copies through `untyped_storage()`): with torch (CPU build) and triton installed, jobs run
under it like numba.cuda under its simulator: the reduced sizes of python.simulator_sizes, no timing run, no
kernel-ran check (a note says so). Code that asks for the device by name ("cuda") fails there (a torch CPU build
has no CUDA), so the interpreter checks binding and validation of code that picks its device, not every suggestion;
HPCEVAL_TRITON_INTERPRET=0 turns it off. Without torch or triton every job is infra_error "needs a GPU".
Measured (2 cores, 2026-11): `pip install torch==2.13.0 triton` (triton 3.9.0) is 2.0 GB in a fresh venv
(triton 1.0 GB, torch 0.75 GB) and about 4 min, too much for CI, so CI's tests skip without them.
"""

from __future__ import annotations

import os
import sys
from functools import cache
from pathlib import Path

from hpceval.bind import DriverHooks
from hpceval.spec import ProgrammingModel
from hpceval.toolchains import JobAdjust, ToolInfo
from hpceval.toolchains.cuda import NO_GPU_NOTE, nvidia_gpu
from hpceval.toolchains.python import simulator_sizes
from hpceval.toolchains.python_gpu import PythonGpu, package_version

INSTALL_HINT = ("needs a GPU: Triton with PyTorch on an NVIDIA GPU machine (its PyTorch brings Triton); "
                "pip install torch triton here runs Triton's CPU interpreter at reduced sizes")
NEEDS_GPU = "needs a GPU: Triton kernels run on an NVIDIA GPU (or install torch for Triton's CPU interpreter)"


def interpreter_wanted() -> bool:
    return os.environ.get("HPCEVAL_TRITON_INTERPRET", "1") != "0"


class PythonTriton(PythonGpu):
    name = "python_triton"

    @cache  # noqa: B019 - module singleton
    def detect(self) -> ToolInfo:
        triton = package_version("triton", ("triton",))
        if triton is None:
            return ToolInfo(False, how_to_get=INSTALL_HINT)
        torch = package_version("torch", ("torch",))
        version = f"python {sys.version.split()[0]} {triton}" + (f", {torch}" if torch else "")
        gpu = nvidia_gpu()
        if gpu is not None:
            return ToolInfo(True, f"{version} on {gpu.describe()}")
        if torch and interpreter_wanted():
            return ToolInfo(True, f"{version} (no GPU: Triton's interpreter, reduced sizes, not timed)",
                            note="Triton interpreter (TRITON_INTERPRET=1) on the CPU")
        return ToolInfo(True, version, can_run=False, note=f"{NEEDS_GPU}; {NO_GPU_NOTE}",
                        how_to_get="run on a machine with an NVIDIA GPU, or pip install torch for the interpreter")

    def hooks(self, model: ProgrammingModel) -> DriverHooks:
        hooks = super().hooks(model)
        hooks.native_scalars = True
        return hooks

    def interpreted(self) -> bool:
        return nvidia_gpu() is None

    def env(self, model: ProgrammingModel) -> dict[str, str]:
        return {**super().env(model), "TRITON_CACHE_DIR": "/w/.triton-cache", "TRITON_HOME": "/w"}

    def job_adjustments(self, spec, model: ProgrammingModel, code: str) -> JobAdjust | None:
        if not self.interpreted():
            return super().job_adjustments(spec, model, code)
        sizes, rule = simulator_sizes(spec, int(os.environ.get("HPCEVAL_TRITON_INTERPRET_MAX", "2500")))
        return JobAdjust(sizes=sizes, env={"TRITON_INTERPRET": "1"}, timing=False,
                         note=f"Triton's interpreter on the CPU (no GPU), {len(sizes)} of {len(spec.sizes.validation)} "
                              f"sizes ({rule}); not timed, no kernel-ran check")

    def probe_active(self, model: ProgrammingModel, code: str = "") -> bool:
        return not self.interpreted() and super().probe_active(model, code)

    def dynamic_check(self, workdir: Path, model: ProgrammingModel, calls: int, code: str = "") -> tuple[str | None, str]:
        if self.interpreted():
            return None, "Triton interpreter: the kernel-ran check does not apply"
        return super().dynamic_check(workdir, model, calls, code)


TOOLCHAIN = PythonTriton()
