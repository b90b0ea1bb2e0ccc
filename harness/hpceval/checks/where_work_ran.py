"""Where the work ran: the outputs' values come from the requested model's work, not from host code beside it.

The usage check asks whether a construct is present, the dynamic check whether a GPU kernel ran at all; a `prange`
over one element beside `np.dot`, or a one-thread kernel beside a host loop doing the whole sweep, passed both.
As `work_in_construct` does for the directive models, this check reads the code that WRITES THE OUTPUTS (the
binding names them): for Numba they must be written by jitted code, for the GPU models by device work (a kernel
launch, a device library, an operation on device arrays, copied back). Host code that computes them is
`wrong_model`, with the statement that wrote them as evidence. The rules: `analysis.where_python` (Numba, CuPy,
pyCUDA, numba.cuda, Triton) and `analysis.where_cpp` (CUDA, HIP). Vendor libraries (cuBLAS) write through the
device and pass; the thread count of the launches is the dynamic side (toolchains.cuda.probe_verdict).
"""

from __future__ import annotations

from hpceval.analysis.source import strip_comments
from hpceval.analysis.where_cpp import host_sweep_problem
from hpceval.analysis.where_python import host_writes_problem
from hpceval.bind.adapt.python import infer_parameter_types
from hpceval.checks.base import Job, check
from hpceval.contracts import Evaluation, Verdict

# model -> the model's work in words; the models whose outputs must come from it
PYTHON_MODELS = {"python-numba": "jitted code (or a numba.cuda kernel)", "python-cupy": "device work (CuPy)",
                 "python-pycuda": "device work (a pyCUDA kernel or gpuarray)", "python-triton": "device work (Triton)"}
CPP_MODELS = ("cpp-cuda", "cpp-hip")


def _names(job: Job) -> tuple[set[str], set[str], bool]:
    """The bound function's names of the kernel's output and input arrays, and whether an output is returned
    (no parameter holds it)."""
    outputs = {p.name for p in job.spec.outputs if p.is_array}
    inputs = {p.name for p in job.spec.params if p.is_array and p.name not in outputs}
    if not job.mapping:
        return outputs, inputs, False
    mine_out = {mine for mine, theirs in job.mapping.items() if theirs in outputs}
    mine_in = {mine for mine, theirs in job.mapping.items() if theirs in inputs}
    returned = bool(outputs - set(job.mapping.values()))
    return mine_out, mine_in, returned


@check("where the work ran")
def work_where_the_model_runs(job: Job) -> Evaluation | None:
    function = job.function or job.spec.function
    outputs, inputs, returned = _names(job)
    if job.model.id in PYTHON_MODELS:
        types = infer_parameter_types(job.code, function.split(".")[-1])
        device = frozenset(name for name, t in types.items() if t.device)  # handed as device arrays by the driver
        problem = host_writes_problem(job.code, function, outputs, inputs, returned, PYTHON_MODELS[job.model.id],
                                      device)
    elif job.model.id in CPP_MODELS:
        problem = host_sweep_problem(strip_comments(job.code, job.lang), function, outputs, inputs)
    else:
        return None
    return job.verdict(Verdict.wrong_model, problem) if problem else None
