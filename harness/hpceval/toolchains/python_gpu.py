"""CPython on an NVIDIA GPU: CuPy (python-cupy) and pyCUDA (python-pycuda).

Neither has a CPU path, so without a GPU both are "builds only" (the build is a byte-compile) and every job is
infra_error. pyCUDA has no wheel: build it from its sdist on the GPU machine (bench/gpu_selftest.sh does:
`pip wheel --no-deps --no-build-isolation pycuda-*.tar.gz` after writing a siteconf.py that points at the CUDA
toolkit, CURAND off). pyCUDA compiles SourceModule kernels with nvcc at run time, so nvcc is on the jobs' PATH.

The GPU probe (see toolchains/cuda.py) checks that kernels ran on the device and gives the kernel-only time.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import sys
from functools import cache

from hpceval.spec import ProgrammingModel
from hpceval.toolchains import Toolchain, ToolInfo
from hpceval.toolchains.cuda import GPU_JOB_ENV, NO_GPU_NOTE, GpuProbeMixin, cuda_root, nvidia_gpu, probe_env

PACKAGES = {
    "python-cupy": ("cupy", ["cupy-cuda13x", "cupy-cuda12x", "cupy", "cupy-rocm-7-0"],
                    "pip install cupy-cuda13x (or cupy-cuda12x to match the CUDA driver)"),
    "python-pycuda": ("pycuda", ["pycuda"],
                      "pip install pycuda (sdist: needs nvcc and the CUDA driver; see bench/gpu_selftest.sh)"),
}


@cache
def package_version(module: str, dists: tuple[str, ...]) -> str | None:
    """Version of the first installed distribution that provides `module` (None if it cannot be imported)."""
    try:
        if importlib.util.find_spec(module) is None:
            return None
    except (ImportError, ValueError):
        return None
    for dist in dists:
        try:
            return f"{module} {importlib.metadata.version(dist)}"
        except importlib.metadata.PackageNotFoundError:
            continue
    return module


class PythonGpu(GpuProbeMixin, Toolchain):
    name = "python_gpu"
    language = "python"

    @cache  # noqa: B019 - module singleton
    def detect(self) -> ToolInfo:
        found = [v for module, dists, _ in PACKAGES.values() if (v := package_version(module, tuple(dists)))]
        if not found:
            return ToolInfo(False, how_to_get="; ".join(hint for _, _, hint in PACKAGES.values()))
        version = f"python {sys.version.split()[0]} " + ", ".join(found)
        gpu = nvidia_gpu()
        if gpu is None:
            return ToolInfo(True, version, can_run=False, note=NO_GPU_NOTE,
                            how_to_get="run on a machine with an NVIDIA GPU (CuPy and pyCUDA have no CPU path)")
        return ToolInfo(True, f"{version} on {gpu.describe()}")

    def model_info(self, model: ProgrammingModel, info: ToolInfo) -> ToolInfo:
        """The toolchain serves two models: each needs its own package."""
        if model.id not in PACKAGES:
            return info
        module, dists, hint = PACKAGES[model.id]
        if not info.available:
            return ToolInfo(False, how_to_get=hint)
        version = package_version(module, tuple(dists))
        if version is None:
            return ToolInfo(False, how_to_get=hint)
        detail = info.version.split(" on ", 1)
        where = f" on {detail[1]}" if len(detail) == 2 else ""
        return ToolInfo(info.available, f"python {sys.version.split()[0]} {version}{where}", info.can_run,
                        info.how_to_get, info.note)

    def build_steps(self, model: ProgrammingModel) -> list[list[str]]:
        return [[sys.executable, "-m", "py_compile", "kernel.py"]]

    def run_argv(self, model: ProgrammingModel) -> list[str]:
        return [sys.executable, "driver.py", "cases.txt"]

    def env(self, model: ProgrammingModel) -> dict[str, str]:
        env = {**super().env(model), "PYTHONDONTWRITEBYTECODE": "1", "MPLBACKEND": "Agg", **GPU_JOB_ENV, **probe_env()}
        if os.environ.get("PYTHONPATH"):  # packages installed outside site-packages (e.g. a pyCUDA built here)
            env["PYTHONPATH"] = os.environ["PYTHONPATH"]
        root = cuda_root()
        if root:
            env["PATH"] = f"{root / 'bin'}:{env['PATH']}"
            env["CUDA_PATH"] = str(root)
            env["CUDA_ROOT"] = str(root)
        return env


TOOLCHAIN = PythonGpu()
