"""CPython with NumPy and Numba on the CPU: the 'build' is a byte-compile, so syntax errors are build errors.

numba.cuda code (python-numba model, e.g. the second reference solutions/python-numba.cuda.py) is recognised
per suggestion (`job_adjustments`): with an NVIDIA GPU it runs on the GPU, with the GPU probe (a kernel must
run on the device; kernel-only time); without one it runs under Numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1),
which is about 1 ms per simulated thread, so only the validation sizes whose outputs have at most
HPCEVAL_CUDASIM_MAX elements (default 2500; at least the three smallest; for an iterative solver, a kernel with a
max_iter parameter, the three smallest only) are run, and there is no timing run.
CPU code (njit, prange, NumPy) is unaffected: same environment, same sizes, same timing as before.
CPU code under python-numba gets the dynamic thread check (toolchains.ThreadCheck): whether a parallel loop
(parfor) was compiled or Numba's threading layer started is reported as "parallel: yes/no" beside a `correct`
verdict (the study counted any Numba JIT as Numba); the rubric option numba_requires_parallel makes serial Numba
wrong_model when scoring.
"""

import os
import re
import sys
from functools import cache
from pathlib import Path

from hpceval.spec import ProgrammingModel
from hpceval.toolchains import JobAdjust, ThreadCheck, Toolchain, ToolInfo

NUMBA_CUDA = re.compile(r"\bcuda\.jit\b|\bfrom\s+numba\s+import\b[^\n]*\bcuda\b|\bnumba\.cuda\b|\bfrom\s+numba\.cuda\b")
SHIM_DIR = Path(__file__).resolve().parent / "include" / "python_numba_cuda"
READS_JIT_SWITCH = re.compile(r"DISABLE_JIT|numba\.config|\bconfig\b|\benviron\b|\bgetenv\b|\bpy_func\b")


def uses_numba_cuda(code: str) -> bool:
    return bool(NUMBA_CUDA.search(code))


def _output_elements(spec, size: dict) -> int:
    """Elements of the largest output array at a size (about the number of GPU threads a kernel launches)."""
    import numpy as np

    from hpceval.cases.io import array_shape

    inputs = spec.make_inputs(dict(size), np.random.default_rng(0))
    counts = [int(np.prod(array_shape(p, inputs))) for p in spec.outputs if p.is_array]
    return max(counts or [1])


def simulator_sizes(spec, cap: int) -> tuple[list[dict], str]:
    """The validation sizes a GPU simulator on the CPU runs (numba.cuda's, Triton's interpreter), and the rule:
    those whose outputs have at most `cap` elements, at least the three smallest; an iterative solver (a max_iter
    parameter: kernels launched per iteration) the three smallest only."""
    ranked = sorted(spec.sizes.validation, key=lambda s: _output_elements(spec, s))
    sizes = [s for s in spec.sizes.validation if _output_elements(spec, s) <= cap]
    rule = f"outputs <= {cap} elements"
    if any(p.name == "max_iter" for p in spec.params):
        sizes, rule = [], "an iterative solver: the 3 smallest"
    if len(sizes) < 3:
        keep = ranked[:3]
        sizes = [s for s in spec.sizes.validation if s in keep]
    return sizes, rule


class Python(ThreadCheck, Toolchain):
    name = "python"
    language = "python"
    # CPU Numba code must compile a parallel loop (parfor) or otherwise start Numba's threading layer (the driver
    # reads Numba's compile events); numba.cuda code has the GPU probe instead (dynamic_check).
    thread_models = frozenset({"python-numba"})
    thread_label = "Numba"
    thread_env = "NUMBA_NUM_THREADS"
    serial_allowed = frozenset({"python-numba"})  # any Numba JIT is Numba; parallelism is reported beside it

    @cache  # noqa: B019 - module singleton
    def detect(self) -> ToolInfo:
        try:
            import numba
            import numpy
        except ImportError:
            return ToolInfo(False, how_to_get="pip install numpy numba")
        return ToolInfo(True, f"python {sys.version.split()[0]} numpy {numpy.__version__} numba {numba.__version__}")

    def build_steps(self, model: ProgrammingModel) -> list[list[str]]:
        return [[sys.executable, "-m", "py_compile", "kernel.py"]]

    def run_argv(self, model: ProgrammingModel) -> list[str]:
        return [sys.executable, "driver.py", "cases.txt"]

    def env(self, model: ProgrammingModel) -> dict[str, str]:
        return {**super().env(model), "NUMBA_CACHE_DIR": "/tmp/numba", "PYTHONDONTWRITEBYTECODE": "1",
                "MPLBACKEND": "Agg"}

    def interpreted_env(self, model: ProgrammingModel, code: str) -> dict[str, str] | None:
        """Numba CPU code runs as plain Python with the JIT disabled (numba.cuda code has its simulator instead).
        Code that can tell the two runs apart (reads the switch, the environment, or a dispatcher's `py_func`)
        gets no interpreted run: it could crash on purpose when compiled and have the crash excused."""
        if model.id != "python-numba" or uses_numba_cuda(code) or READS_JIT_SWITCH.search(code):
            return None
        return {"NUMBA_DISABLE_JIT": "1"}

    # ------------------------------------------------------------------ numba.cuda

    def _gpu(self):
        from hpceval.toolchains.cuda import nvidia_gpu

        return nvidia_gpu()

    def job_adjustments(self, spec, model: ProgrammingModel, code: str):
        """None for CPU code; for numba.cuda code the GPU probe, or the simulator at reduced sizes."""
        if not uses_numba_cuda(code):
            return None
        from hpceval.toolchains.cuda import GPU_JOB_ENV, gpu_adjust, probe_env

        if self._gpu() is not None:
            return gpu_adjust("numba.cuda on the GPU", {**probe_env(), **GPU_JOB_ENV, "PYTHONPATH": self._pythonpath()})
        sizes, rule = simulator_sizes(spec, int(os.environ.get("HPCEVAL_CUDASIM_MAX", "2500")))
        env = {"NUMBA_ENABLE_CUDASIM": "1", "HPCEVAL_PROBE_OUT": "gpu_probe.txt", "PYTHONPATH": self._pythonpath()}
        return JobAdjust(sizes=sizes, env=env, pids=4096, timing=False,
                         note=f"numba.cuda under the CUDA simulator (no GPU), {len(sizes)} of "
                              f"{len(spec.sizes.validation)} sizes ({rule}), not timed")

    def _pythonpath(self) -> str:
        """The numba.cuda shim (include/python_numba_cuda/sitecustomize.py) first, then the caller's path."""
        return os.pathsep.join([str(SHIM_DIR), *filter(None, [os.environ.get("PYTHONPATH")])])

    def checks_threads(self, model: ProgrammingModel, code: str = "") -> bool:
        return not uses_numba_cuda(code) and super().checks_threads(model, code)

    def probe_active(self, model: ProgrammingModel, code: str = "") -> bool:
        return uses_numba_cuda(code)

    def dynamic_check(self, workdir: Path, model: ProgrammingModel, calls: int, code: str = "") -> tuple[str | None, str]:
        """numba.cuda code: a kernel must have run (on the GPU, or launched in the simulator)."""
        if not uses_numba_cuda(code):
            return None, ""
        from hpceval.toolchains.cuda import probe_env, probe_verdict, read_probe

        if self._gpu() is not None and not probe_env():
            return None, ""
        return probe_verdict(read_probe(workdir), calls)

    def second_run(self, model: ProgrammingModel, code: str = ""):
        """numba.cuda code on a real GPU: the validation run under compute-sanitizer memcheck."""
        if not uses_numba_cuda(code) or self._gpu() is None:
            return None
        from hpceval.toolchains.cuda import memcheck_run

        return memcheck_run(self.run_argv(model))

    def device(self, model: ProgrammingModel, code: str = "") -> str:
        """numba.cuda code runs on the GPU where there is one (under the simulator it is CPU code, never timed)."""
        return "gpu" if uses_numba_cuda(code) and self._gpu() is not None else model.device

    def kernel_times(self, workdir: Path, model: ProgrammingModel, calls: int, warmup: int,
                     code: str = "", *, probe_file: str | None = None, nonce: str = "") -> tuple[list[float], str]:
        if not uses_numba_cuda(code) or self._gpu() is None:
            return [], ""
        from hpceval.toolchains.cuda import GpuProbeMixin

        return GpuProbeMixin.kernel_times(self, workdir, model, calls, warmup, code, probe_file=probe_file,
                                          nonce=nonce)


TOOLCHAIN = Python()
