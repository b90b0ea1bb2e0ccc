"""What the Python driver hands a device-code suggestion, and what it learns back (bind.adapt.python,
analysis.where_python, the driver's device guard zones). Found wrong on a GPU run; written as unseen LLM output
before the change:

* Triton scalars: a `@triton.jit` kernel refuses NumPy scalars ("failed to specialize argument of type
  numpy.float32"), so a scalar parameter that reaches one (directly, by keyword, through a helper) is handed as a
  Python float/int; everywhere else (NumPy, Numba, a CuPy RawKernel, numba.cuda) it stays a NumPy scalar;
* device values: a parameter the adapter hands as a device array (annotation, or what the code does with it)
  computes on the device, so `y += a * x` on CuPy arrays is the model's work, while host work on them (NumPy on
  a converted copy, a Python loop over the elements) stays `wrong_model`;
* guard zones: device arrays the driver builds are views of n + pad elements; a kernel storing past n (a Triton
  kernel without a mask) is `wrong_result` with "wrote past the end of y (k elements beyond n)".

GPU cases (`-m gpu`):

    PYTHONPATH=harness python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_python_device_values.py
"""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap

import pytest

from hpceval.bind import choose_binding, render_unit
from hpceval.bind.adapt import python as adapt_python
from hpceval.bind.adapt.python import infer_parameter_types
from hpceval.contracts import ProcResult, Verdict
from hpceval.toolchains.cuda import nvidia_gpu
from test_model_work import Plant, V
from test_python_adapters import TRITON_TENSORS
from test_work_ran import OK, _job, _static

try:
    import torch  # noqa: F401
    import triton  # noqa: F401
    has_triton = True
except Exception:  # noqa: BLE001 - any import failure means no Triton here
    has_triton = False


def _code(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def _driver(catalog, kernel: str, model: str, code: str):
    from hpceval.toolchains import get_toolchain

    spec, m = catalog.kernels[kernel], catalog.models[model]
    lang = catalog.languages[m.language]
    b = choose_binding(_code(code), spec, lang, "paper", m)
    assert b.error is None, b.error
    files = render_unit(_code(code), spec, lang, b, get_toolchain(m.toolchain).hooks(m))
    return b, files["driver.py"]


def _call(driver: str) -> str:
    """The timed call's line of the rendered driver."""
    return re.search(r"ret = (kernel\(.*\))", driver.split("t0 = _clock()", 1)[1]).group(1)


# ================================================================================================ Triton scalars
TRITON_KERNEL = TRITON_TENSORS.split("def saxpy")[0].rstrip() + "\n"  # the @triton.jit kernel alone

SCALARS = [
    # (id, model, code, {parameter: "float" | "int" | None (a NumPy scalar, as the driver holds it)})
    ("triton-direct", "python-triton", TRITON_KERNEL + """
def saxpy(n, a, x: torch.Tensor, y: torch.Tensor):
    _axpy[(triton.cdiv(n, 256),)](x, y, a, n, BLOCK=256)
""", {"a": "float", "n": "int"}),
    ("triton-by-keyword", "python-triton", TRITON_KERNEL + """
def saxpy(n, a, x, y):
    assert x.is_cuda
    _axpy[(triton.cdiv(n, 256),)](x_ptr=x, y_ptr=y, a=a, n=n, BLOCK=256)
""", {"a": "float", "n": "int"}),
    ("triton-through-a-helper", "python-triton", TRITON_KERNEL + """
def _launch(x, y, alpha, size):
    _axpy[(triton.cdiv(size, 128),)](x, y, alpha, size, BLOCK=128)

def saxpy(n, a, x: torch.Tensor, y: torch.Tensor):
    _launch(x, y, a, n)
""", {"a": "float", "n": "int"}),
    ("triton-host-arrays-copied-itself", "python-triton", "import numpy as np\n" + TRITON_KERNEL + """
def saxpy(n, a, x, y):
    dx, dy = torch.from_numpy(x).cuda(), torch.from_numpy(y).cuda()
    _axpy[(triton.cdiv(n, 256),)](dx, dy, a, n, BLOCK=256)
    np.copyto(y, dy.cpu().numpy())
""", {"a": "float", "n": "int"}),
    ("triton-size-used-on-host-only", "python-triton", TRITON_KERNEL + """
def saxpy(n, a, x: torch.Tensor, y: torch.Tensor):
    _axpy[(triton.cdiv(x.numel(), 256),)](x, y, a, x.numel(), BLOCK=256)
    assert n == x.numel()
""", {"a": "float", "n": None}),
    ("numpy-keeps-numpy-scalars", "python-numba", """
import numpy as np

def saxpy(n, a, x, y):
    y += a * x
""", {"a": None, "n": None}),
    ("numba-njit-keeps-numpy-scalars", "python-numba", """
from numba import njit, prange

@njit(parallel=True)
def saxpy(n, a, x, y):
    for i in prange(n):
        y[i] += a * x[i]
""", {"a": None, "n": None}),
    ("numba-cuda-keeps-numpy-scalars", "python-numba", """
from numba import cuda

@cuda.jit
def _k(a, x, y):
    i = cuda.grid(1)
    if i < x.shape[0]:
        y[i] += a * x[i]

def saxpy(n, a, x, y):
    _k[(n + 63) // 64, 64](a, x, y)
""", {"a": None, "n": None}),
    ("cupy-rawkernel-keeps-numpy-scalars", "python-cupy", r"""
import cupy as cp
_k = cp.RawKernel(r'''extern "C" __global__ void k(const float* x, float* y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] += a * x[i]; }''', 'k')

def saxpy(n, a, x, y):
    _k(((n + 255) // 256,), (256,), (x, y, a, n))
""", {"a": None, "n": None}),
]


@pytest.mark.parametrize("case", SCALARS, ids=[c[0] for c in SCALARS])
def test_scalars_reaching_a_triton_kernel_are_python_scalars(catalog, case):
    _id, model, code, want = case
    _b, driver = _driver(catalog, "axpy", model, code)
    call = _call(driver)
    for name, kind in want.items():
        plain = f'ns["{name}"]'
        assert plain in call, (name, call)
        if kind is None:
            assert f"float({plain})" not in call and f"int({plain})" not in call, (name, call)
        else:
            assert f"{kind}({plain})" in call, (name, call)


def test_the_inferred_type_says_why_a_scalar_is_native():
    got = infer_parameter_types(_code(SCALARS[2][2]), "saxpy")
    assert got["a"].native and "_launch" in got["a"].why, got["a"]
    assert not infer_parameter_types(_code(SCALARS[5][2]), "saxpy")["a"].native


# ================================================================================================ device values
DEVICE_VALUES = [
    # ---- right: arithmetic on device arrays is device work
    Plant("cupy-annotated-augmented", "axpy", "python-cupy", """\
import cupy as cp


def saxpy(a, x: cp.ndarray, y: cp.ndarray):
    y += a * x
""", OK),
    Plant("cupy-annotated-slice-assign", "axpy", "python-cupy", """\
import cupy


def saxpy(n, a, x: cupy.ndarray, y: cupy.ndarray):
    y[:n] = a * x[:n] + y[:n]
""", OK),
    Plant("cupy-annotated-matmul", "gemv", "python-cupy", """\
import cupy as cp


def gemv(A: cp.ndarray, x: cp.ndarray, y: cp.ndarray):
    y[:] = A @ x
""", OK),
    Plant("torch-is-cuda-augmented", "axpy", "python-triton", """\
import torch


def saxpy(a, x, y):
    assert x.is_cuda and y.is_cuda
    y += a * x
""", OK),
    Plant("torch-annotated-torch-op", "axpy", "python-triton", """\
import torch


def saxpy(a, x: torch.Tensor, y: torch.Tensor) -> None:
    y[:] = torch.add(y, x, alpha=float(a))
""", OK),
    Plant("gpuarray-annotated", "axpy", "python-pycuda", """\
import pycuda.autoinit
import pycuda.gpuarray as gpuarray


def saxpy(a, x: gpuarray.GPUArray, y: gpuarray.GPUArray):
    y += a * x
""", OK),
    # ---- wrong model: host work on device arrays
    Plant("cupy-annotated-numpy-copy", "axpy", "python-cupy", """\
import cupy as cp
import numpy as np


def saxpy(a, x: cp.ndarray, y: cp.ndarray):
    y[:] = a * np.asarray(x) + y
""", V.wrong_model, ("y", "np.asarray(x)")),
    Plant("cupy-annotated-python-loop", "axpy", "python-cupy", """\
import cupy as cp


def saxpy(n, a, x: cp.ndarray, y: cp.ndarray):
    for i in range(n):
        y[i] = a * x[i] + y[i]
""", V.wrong_model, ("y", "loop")),
    Plant("torch-is-cuda-round-trip-through-numpy", "axpy", "python-triton", """\
import torch


def saxpy(a, x, y):
    assert x.is_cuda
    y[:] = torch.from_numpy(a * x.cpu().numpy() + y.cpu().numpy()).cuda()
""", V.wrong_model, ("y",)),
    Plant("cupy-annotated-host-dot", "gemv", "python-cupy", """\
import cupy as cp
import numpy as np


def gemv(A: cp.ndarray, x: cp.ndarray, y: cp.ndarray):
    y[:] = cp.asarray(np.dot(cp.asnumpy(A), cp.asnumpy(x)))
""", V.wrong_model, ("y", "np.dot")),
    Plant("unannotated-numpy-under-cupy", "axpy", "python-cupy", """\
import numpy as np


def saxpy(a, x, y):
    y += a * x
""", V.wrong_model, ("y",)),
    # ---- code the parser cannot read: left to the build (build_error there), not judged here
    Plant("cupy-annotated-syntax-error", "axpy", "python-cupy", """\
import cupy as cp


def saxpy(a, x: cp.ndarray, y: cp.ndarray)
    y += a * x
""", OK),
]


@pytest.mark.parametrize("plant", DEVICE_VALUES, ids=lambda p: p.id)
def test_arithmetic_on_device_arrays_is_device_work(plant: Plant, catalog):
    _static(catalog, plant)


def test_a_device_parameter_of_a_free_form_signature(catalog):
    """The suggestion's own names (`vec_in`, `vec_out`) mapped to x and y: still device arrays by annotation."""
    plant = Plant("cupy-free-form", "axpy", "python-cupy", """\
import cupy as cp


def saxpy(alpha, vec_in: cp.ndarray, vec_out: cp.ndarray):
    vec_out += alpha * vec_in
""", OK)
    from hpceval.checks.where_work_ran import work_where_the_model_runs

    e = work_where_the_model_runs(_job(catalog, plant, {"alpha": "a", "vec_in": "x", "vec_out": "y"}))
    assert e is None, e.evidence


# ================================================================================================ guard zones
CUPY_NO_CHECK = r"""
import cupy as cp
_k = cp.RawKernel(r'''extern "C" __global__ void k(const float* x, float* y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; y[i] = a * x[i] + y[i]; }''', 'k')

def saxpy(n, a, x: cp.ndarray, y: cp.ndarray):
    _k(((n + 255) // 256,), (256,), (x, y, cp.float32(a), cp.int32(n)))
"""

TRITON_NO_MASK = TRITON_KERNEL.replace("mask=mask", "").replace(", )", ")") + """
def saxpy(n, a, x: torch.Tensor, y: torch.Tensor):
    _axpy[(triton.cdiv(n, 512),)](x, y, a, n, BLOCK=512)
"""

NUMBA_CUDA_NO_CHECK = """
from numba import cuda

@cuda.jit
def _k(a, x, y):
    i = cuda.grid(1)
    y[i] = a * x[i] + y[i]

def saxpy(a, x, y):
    _k[(x.shape[0] + 63) // 64, 64](a, x, y)
"""

NUMBA_CUDA_RIGHT = NUMBA_CUDA_NO_CHECK.replace("    y[i] =", "    if i < x.shape[0]:\n        y[i] =")

PYCUDA_NO_CHECK = r"""
import numpy as np
import pycuda.autoinit
from pycuda.compiler import SourceModule

_mod = SourceModule('''
__global__ void axpy(int n, float a, const float *x, float *y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    y[i] = a * x[i] + y[i];
}
''')
_axpy = _mod.get_function("axpy")

def saxpy(n, a, x, y):
    _axpy(np.int32(n), np.float32(a), x.gpudata, y.gpudata, block=(256, 1, 1), grid=((n + 255) // 256, 1))
"""

GUARDED = [("python-cupy", CUPY_NO_CHECK), ("python-triton", TRITON_NO_MASK), ("python-numba", NUMBA_CUDA_NO_CHECK),
           ("python-pycuda", PYCUDA_NO_CHECK)]


@pytest.mark.parametrize("model,code", GUARDED, ids=[m for m, _ in GUARDED])
def test_device_arrays_are_views_of_guarded_buffers(catalog, model, code):
    b, driver = _driver(catalog, "axpy", model, code)
    setup, teardown = "\n".join(b.setup), "\n".join(b.teardown)
    for name in ("x", "y"):
        assert f'hp_guarded(ns["{name}"]' in setup, b.setup
        assert 'hp_check_pad(' in teardown and f"'{name}'" in teardown, b.teardown
    timed = driver.split("t0 = _clock()", 1)[1].split("t1 = _clock()", 1)[0]
    assert "hp_check_pad" not in timed and "hp_guarded" not in timed, timed
    assert "def hp_check_pad" in driver and "def hp_guarded" in driver


def test_host_arrays_get_no_device_guard(catalog):
    b, _driver_text = _driver(catalog, "axpy", "python-numba", SCALARS[5][2])
    assert not any("hp_guarded" in s for s in b.setup), b.setup


def _guard_run(body: str) -> subprocess.CompletedProcess:
    prog = "import os, sys\nimport numpy as np\n" + adapt_python.DEVICE_GUARD_SOURCE + "\n" + textwrap.dedent(body)
    return subprocess.run([sys.executable, "-c", prog], capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("dtype,output", [("float32", True), ("float64", False), ("int32", True)])
def test_an_untouched_pad_passes(dtype, output):
    r = _guard_run(f"""
        host = np.arange(10, dtype=np.{dtype})
        full = hp_guarded(host, {output})
        assert full.size == host.size + HP_PAD and np.array_equal(full[:10], host)
        hp_check_pad(full[10:], "y", {output})
        print("ok")
    """)
    assert r.returncode == 0 and "ok" in r.stdout, r.stderr


@pytest.mark.parametrize("dtype,output", [("float32", True), ("float64", False), ("int64", True)])
def test_a_store_past_the_end_is_reported(dtype, output):
    r = _guard_run(f"""
        full = hp_guarded(np.ones(7, dtype=np.{dtype}), {output})
        full[7:10] = 3  # what a kernel without a mask stores past n
        hp_check_pad(full[7:], "y", {output})
    """)
    assert r.returncode == 5, (r.returncode, r.stderr)
    assert "hpceval out of bounds: the kernel wrote past the end of y (3 elements beyond n)" in r.stderr, r.stderr


def test_a_nan_stored_past_the_end_of_an_output_is_reported():
    """A kernel storing NaN (what it read past the end of an input) past the end of an output."""
    r = _guard_run("""
        full = hp_guarded(np.ones(5, dtype=np.float32), True)
        full[5] = np.float32(np.nan) * np.float32(2)
        hp_check_pad(full[5:], "y", True)
    """)
    assert r.returncode == 5 and "(1 elements beyond n)" in r.stderr, r.stderr


def test_the_harness_reads_an_out_of_bounds_report_as_wrong_result(catalog):
    plant = Plant("any", "axpy", "python-cupy", CUPY_NO_CHECK, OK)
    job = _job(catalog, plant)
    result = ProcResult(argv=["python3"], returncode=5, stdout="", seconds=0.1,
                        stderr="hpceval out of bounds: the kernel wrote past the end of y (511 elements beyond n)\n")
    e = job.run_failure(result, 6, "validation")
    assert e is not None and e.verdict == Verdict.wrong_result, e
    assert "wrote past the end of y (511 elements beyond n)" in e.evidence


@pytest.mark.parametrize("code,want", [(NUMBA_CUDA_RIGHT, {"correct"}),
                                       (NUMBA_CUDA_NO_CHECK, {"wrong_result", "runtime_error"})],
                         ids=["right", "no-bounds-check"])
def test_numba_cuda_simulator_with_guarded_arrays(catalog, evaluator, code, want):
    """The simulator runs numba.cuda on the guarded views: right code stays correct, a kernel without its bounds
    check does not pass (the simulator raises on the view's end, or the pad check reports it)."""
    spec, m = catalog.kernels["axpy"], catalog.models["python-numba"]
    b = choose_binding(_code(code), spec, catalog.languages[m.language], "paper", m)
    e = evaluator.evaluate(_code(code), spec, m, b)
    assert e.verdict.value in want, (e.verdict, e.evidence)


# ------------------------------------------------------------------------------------------------ on a GPU
def _evaluate(catalog, evaluator, model: str, code: str):
    spec, m = catalog.kernels["axpy"], catalog.models[model]
    b = choose_binding(_code(code), spec, catalog.languages[m.language], "paper", m)
    return evaluator.evaluate(_code(code), spec, m, b)


GPU_CASES = [
    ("python-triton", TRITON_NO_MASK, "wrong_result", "wrote past the end of y"),
    ("python-cupy", CUPY_NO_CHECK, "wrong_result", "wrote past the end of y"),
    ("python-numba", NUMBA_CUDA_NO_CHECK, "wrong_result", "wrote past the end of y"),
    ("python-pycuda", PYCUDA_NO_CHECK, "wrong_result", "wrote past the end of y"),
    ("python-numba", NUMBA_CUDA_RIGHT, "correct", ""),
    ("python-triton", SCALARS[0][2], "correct", ""),
    ("python-triton", SCALARS[2][2], "correct", ""),
    ("python-triton", SCALARS[3][2], "correct", ""),
    ("python-cupy", DEVICE_VALUES[0].code, "correct", ""),
]


@pytest.mark.gpu
@pytest.mark.skipif(nvidia_gpu() is None, reason="needs an NVIDIA GPU")
@pytest.mark.parametrize("model,code,want,evidence", GPU_CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(GPU_CASES)])
def test_on_the_gpu(catalog, evaluator, model, code, want, evidence):
    if model == "python-triton" and not has_triton:
        pytest.skip("needs torch and triton")
    e = _evaluate(catalog, evaluator, model, code)
    assert e.verdict.value == want, (e.verdict, e.evidence[-1500:])
    assert evidence in e.evidence, e.evidence
