"""Where the work ran (issue 28, mechanism 6): model use judged on the code that WRITES THE OUTPUTS.

A construct's presence is not the model doing the work: a `prange` over one element (or a token `@njit` helper)
beside `np.dot` in plain Python, a one-thread GPU kernel beside a host loop doing the whole sweep, a CuPy function
computing with NumPy on host arrays. The outputs' values must come from jitted code (Numba) or device work (GPU
models); a token construct is `wrong_model` with evidence naming what wrote the outputs.

Suggestions an unseen LLM might write, per model family: right-but-unusual (must stay `correct`/silent), subtly
wrong, wrong model (token constructs of several kinds), and code that must stay `build_error`/`incomplete`.
Numba (CPU) runs through the real evaluator here; the GPU families' static rule runs here on the check itself
(the toolchains cannot run without a GPU); the dynamic GPU cases are `@pytest.mark.gpu`.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from hpceval.checks.base import Job
from hpceval.executors import Limits
from hpceval.toolchains import get_toolchain
from test_model_work import Plant, V, _check, _evaluate_all

OK = V.correct  # for the static cases: the check says nothing

# ================================================================================================ Numba (CPU)
NUMBA = [
    # ---- wrong model: token constructs beside plain Python / NumPy that writes the outputs
    Plant("numba-prange-over-one-element-beside-np-dot", "gemv", "python-numba", """\
import numpy as np
from numba import njit, prange


@njit(parallel=True)
def _warm(y):
    for i in prange(1):
        y[i] = y[i]


def gemv(m, n, A, x, y):
    _warm(y)
    y[:] = np.dot(A, x)
""", V.wrong_model, ("y", "np.dot(A, x)")),
    Plant("numba-token-scalar-helper-beside-matmul", "gemm", "python-numba", """\
import numba
import numpy as np


@numba.njit
def _one(alpha):
    return alpha * 1.0


def gemm(m, n, k, A, B, C):
    C[:, :] = _one(1.0) * (A @ B)
""", V.wrong_model, ("C", "A @ B")),
    Plant("numba-jitted-size-helper-python-loop", "axpy", "python-numba", """\
import numba


@numba.njit(cache=False)
def _count(n):
    return n


def saxpy(n, a, x, y):
    for i in range(_count(n)):
        y[i] = a * x[i] + y[i]
""", V.wrong_model, ("y", "a * x[i] + y[i]")),
    Plant("numba-vectorize-identity-inside-host-dot", "gemv", "python-numba", """\
import numpy as np
from numba import vectorize, float64


@vectorize([float64(float64)])
def ident(v):
    return v


def gemv(m, n, A, x, y):
    np.dot(A, ident(x), out=y)
""", V.wrong_model, ("y", "np.dot")),
    Plant("numba-jitted-dot-helper-host-cg-loop", "cg", "python-numba", """\
import numpy as np
from numba import njit


@njit
def dot(a, b):
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i] * b[i]
    return s


def matvec(n, row_ptr, col_idx, values, v):
    rows = np.repeat(np.arange(n), np.diff(row_ptr[: n + 1]))
    nnz = row_ptr[n]
    return np.bincount(rows, weights=values[:nnz] * v[col_idx[:nnz]], minlength=n)


def cg(n, nnz, row_ptr, col_idx, values, b, x, tol, max_iter):
    r = b - matvec(n, row_ptr, col_idx, values, x)
    p = r.copy()
    rr = dot(r, r)
    bnorm = np.sqrt(dot(b, b))
    for _ in range(max_iter):
        if np.sqrt(rr) <= tol * bnorm:
            break
        q = matvec(n, row_ptr, col_idx, values, p)
        alpha = rr / dot(p, q)
        x += alpha * p
        r -= alpha * q
        rr_new = dot(r, r)
        p = r + (rr_new / rr) * p
        rr = rr_new
""", V.wrong_model, ("x",)),
    Plant("numba-jitted-row-pointer-copy-python-spmv", "spmv", "python-numba", """\
import numpy as np
from numba import njit


@njit
def _rows(row_ptr, n):
    return row_ptr[: n + 1].copy()


def spmv(n, nnz, row_ptr, col_idx, values, x, y):
    rp = _rows(row_ptr, n)
    for i in range(n):
        acc = 0.0
        for k in range(rp[i], rp[i + 1]):
            acc += values[k] * x[col_idx[k]]
        y[i] = acc
""", V.wrong_model, ("y",)),
    Plant("numba-unused-stencil-numpy-slices", "jacobi", "python-numba", """\
import numpy as np
from numba import stencil


@stencil
def _avg(u):
    return (u[-1, 0, 0] + u[1, 0, 0] + u[0, -1, 0] + u[0, 1, 0] + u[0, 0, -1] + u[0, 0, 1]) / 6.0


def jacobi(nx, ny, nz, u, unew):
    unew[1:-1, 1:-1, 1:-1] = (u[:-2, 1:-1, 1:-1] + u[2:, 1:-1, 1:-1] + u[1:-1, :-2, 1:-1]
                              + u[1:-1, 2:, 1:-1] + u[1:-1, 1:-1, :-2] + u[1:-1, 1:-1, 2:]) / 6.0
""", V.wrong_model, ("unew",)),
    Plant("numba-jitted-identity-scale-beside-host-loop", "gemv", "python-numba", """\
import numba


@numba.njit
def scale(v):
    return v


def gemv(m, n, A, x, y):
    for i in range(m):
        s = 0.0
        for j in range(n):
            s += A[i, j] * x[j]
        y[i] = scale(1.0) * s
""", V.wrong_model, ("y",)),
    # ---- right but unusual: the outputs' values come from jitted code
    Plant("numba-plain-wrapper-calls-jitted-loop", "gemv", "python-numba", """\
import numpy as np
import numba


@numba.njit(parallel=True)
def _rows(A, x, out):
    for i in numba.prange(A.shape[0]):
        s = 0.0
        for j in range(A.shape[1]):
            s += A[i, j] * x[j]
        out[i] = s


def gemv(m, n, A, x, y):
    A = np.ascontiguousarray(A)
    _rows(A, x, y)
""", OK),
    Plant("numba-vectorize-ufunc-writes-the-output", "axpy", "python-numba", """\
import numpy as np
from numba import vectorize, float32


@vectorize([float32(float32, float32, float32)])
def _fma(a, x, y):
    return a * x + y


def saxpy(n, a, x, y):
    y[:n] = _fma(np.float32(a), x[:n], y[:n])
""", OK),
    Plant("numba-guvectorize-row-kernel-out-argument", "gemv", "python-numba", """\
import numpy as np
from numba import guvectorize, float64


@guvectorize([(float64[:], float64[:], float64[:])], "(n),(n)->()")
def _rowdot(row, v, res):
    s = 0.0
    for j in range(row.shape[0]):
        s += row[j] * v[j]
    res[0] = s


def gemv(m, n, A, x, y):
    _rowdot(A, x, y)
""", OK),
    Plant("numba-jitted-returns-array-copied-into-output", "gemm", "python-numba", """\
import numpy as np
from numba import njit, prange


@njit(parallel=True)
def _product(A, B):
    m, k = A.shape
    n = B.shape[1]
    C = np.zeros((m, n))
    for i in prange(m):
        for p in range(k):
            for j in range(n):
                C[i, j] += A[i, p] * B[p, j]
    return C


def gemm(m, n, k, A, B, C):
    result = _product(A, B)
    C[:, :] = result
""", OK),
    Plant("numba-host-temp-filled-by-jit-then-elementwise-copy", "spmv", "python-numba", """\
import numpy as np
import numba


@numba.njit
def _csr(n, row_ptr, col_idx, values, x, out):
    for i in range(n):
        s = 0.0
        for k in range(row_ptr[i], row_ptr[i + 1]):
            s += values[k] * x[col_idx[k]]
        out[i] = s


def spmv(n, nnz, row_ptr, col_idx, values, x, y):
    tmp = np.empty(n)
    _csr(n, row_ptr, col_idx, values, x, tmp)
    for i in range(n):
        y[i] = tmp[i]
""", OK),
    Plant("numba-stencil-run-by-njit-wrapper", "jacobi", "python-numba", """\
import numba


@numba.stencil
def _avg(u):
    return (u[-1, 0, 0] + u[1, 0, 0] + u[0, -1, 0] + u[0, 1, 0] + u[0, 0, -1] + u[0, 0, 1]) / 6.0


@numba.njit
def _sweep(u):
    return _avg(u)


def jacobi(nx, ny, nz, u, unew):
    out = _sweep(u)
    unew[1:-1, 1:-1, 1:-1] = out[1:-1, 1:-1, 1:-1]
""", OK),
    Plant("numba-host-cg-driver-loop-jitted-kernels", "cg", "python-numba", """\
import numpy as np
from numba import njit


@njit
def _matvec(n, row_ptr, col_idx, values, v, out):
    for i in range(n):
        s = 0.0
        for k in range(row_ptr[i], row_ptr[i + 1]):
            s += values[k] * v[col_idx[k]]
        out[i] = s


@njit
def _axpy(alpha, p, x):
    for i in range(x.shape[0]):
        x[i] += alpha * p[i]


def cg(n, nnz, row_ptr, col_idx, values, b, x, tol, max_iter):
    q = np.empty(n)
    _matvec(n, row_ptr, col_idx, values, x, q)
    r = b - q
    p = r.copy()
    rr = float(r @ r)
    stop = tol * float(np.sqrt(b @ b))
    for _ in range(max_iter):
        if np.sqrt(rr) <= stop:
            break
        _matvec(n, row_ptr, col_idx, values, p, q)
        alpha = rr / float(p @ q)
        _axpy(alpha, p, x)
        _axpy(-alpha, q, r)
        rr_new = float(r @ r)
        p = r + (rr_new / rr) * p
        rr = rr_new
""", OK),
    # ---- must stay build_error / incomplete
    Plant("numba-syntax-error-stays-build-error", "axpy", "python-numba", """\
from numba import njit


@njit
def saxpy(n, a, x, y)
    for i in range(n):
        y[i] = a * x[i] + y[i]
""", V.build_error),
    Plant("numba-undefined-jitted-helper-stays-incomplete", "gemv", "python-numba", """\
import numpy as np


def gemv(m, n, A, x, y):
    _gemv_kernel(m, n, A, x, y)
""", V.incomplete),
]


@pytest.fixture(scope="module")
def numba_results(catalog):
    return _evaluate_all(catalog, NUMBA)


@pytest.mark.parametrize("plant", NUMBA, ids=lambda p: p.id)
def test_numba_outputs_are_written_by_jitted_code(plant: Plant, numba_results):
    e = numba_results[plant.id]
    if plant.verdict == OK:  # the evaluator's own verdict: the numbers and the model
        plant = Plant(plant.id, plant.kernel, plant.model, plant.code, V.correct)
    _check(plant, e)


# ================================================================================================ the static rule
def _job(catalog, plant: Plant, mapping: dict[str, str] | None = None, function: str = "") -> Job:
    spec = catalog.kernels[plant.kernel]
    model = catalog.models[plant.model]
    return Job(workdir=Path("/nonexistent"), spec=spec, model=model, lang=catalog.languages[model.language],
               toolchain=get_toolchain(model.toolchain), code=plant.code, mapping=mapping or {}, env={},
               build_limits=Limits(), run_limits=Limits(), seed=0, timing_wanted=False, runner=None, base={},
               function=function)


def _static(catalog, plant: Plant, mapping=None, function="") -> None:
    from hpceval.checks.where_work_ran import work_where_the_model_runs

    e = work_where_the_model_runs(_job(catalog, plant, mapping, function))
    if plant.verdict == OK:
        assert e is None, f"{plant.id}: right code failed: {e.evidence if e else ''}"
        return
    assert e is not None, f"{plant.id}: the token construct passed"
    assert e.verdict == plant.verdict, f"{plant.id}: {e.verdict}: {e.evidence}"
    for text in plant.evidence:
        assert text in e.evidence, f"{plant.id}: {text!r} not in {e.evidence!r}"


# ------------------------------------------------------------------------------------------------ CuPy
CUPY = [
    Plant("cupy-imported-numpy-does-the-product", "gemv", "python-cupy", """\
import cupy as cp
import numpy as np


def gemv(m, n, A, x, y):
    d_x = cp.asarray(x)
    y[:] = np.dot(A, cp.asnumpy(d_x))
""", V.wrong_model, ("y", "np.dot")),
    Plant("cupy-host-matmul-round-tripped-through-the-device", "gemm", "python-cupy", """\
import cupy as cp


def gemm(m, n, k, A, B, C):
    d_C = cp.asarray(A @ B)
    C[:, :] = cp.asnumpy(d_C)
""", V.wrong_model, ("C", "A @ B")),
    Plant("cupy-token-device-zeroing-host-loop", "axpy", "python-cupy", """\
import cupy as cp


def saxpy(n, a, x, y):
    d_y = cp.zeros(n, dtype=cp.float32)
    d_y += 0
    for i in range(n):
        y[i] = a * x[i] + y[i]
""", V.wrong_model, ("y",)),
    Plant("cupy-device-norm-beside-host-spmv", "spmv", "python-cupy", """\
import cupy as cp
import numpy as np


def spmv(n, nnz, row_ptr, col_idx, values, x, y):
    scale = float(cp.linalg.norm(cp.ones(1)))
    for i in range(n):
        s = 0.0
        for k in range(row_ptr[i], row_ptr[i + 1]):
            s += values[k] * x[col_idx[k]]
        y[i] = s * scale
""", V.wrong_model, ("y",)),
    Plant("cupy-host-numpy-slices-jacobi", "jacobi", "python-cupy", """\
import cupy as cp
import numpy as np


def jacobi(nx, ny, nz, u, unew):
    d_u = cp.asarray(u)
    h = cp.asnumpy(d_u)
    unew[1:-1, 1:-1, 1:-1] = (h[:-2, 1:-1, 1:-1] + h[2:, 1:-1, 1:-1] + h[1:-1, :-2, 1:-1]
                              + h[1:-1, 2:, 1:-1] + h[1:-1, 1:-1, :-2] + h[1:-1, 1:-1, 2:]) / 6.0
""", V.wrong_model, ("unew",)),
    Plant("cupy-right-dot-arithmetic", "gemv", "python-cupy", """\
import cupy as cp


def gemv(m, n, A, x, y):
    y[:] = cp.dot(cp.asarray(A), cp.asarray(x)).get()
""", OK),
    Plant("cupy-right-host-finishing-step-on-device-result", "axpy", "python-cupy", """\
import cupy as cp


def saxpy(n, a, x, y):
    ax = (cp.float32(a) * cp.asarray(x)).get()
    y[:] = ax + y
""", OK),
    Plant("cupy-right-rawkernel-launch", "axpy", "python-cupy", """\
import cupy as cp

_k = cp.RawKernel(r'''
extern "C" __global__ void axpy(int n, float a, const float* x, float* y) {
    int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
''', "axpy")


def saxpy(n, a, x, y):
    dx = cp.asarray(x)
    dy = cp.asarray(y)
    _k(((n + 255) // 256,), (256,), (cp.int32(n), cp.float32(a), dx, dy))
    cp.asnumpy(dy, out=y)
""", OK),
    Plant("cupy-right-returns-device-result", "gemm", "python-cupy", """\
import cupy as cp


def gemm(m, n, k, A, B, C):
    out = cp.matmul(cp.asarray(A), cp.asarray(B))
    C[...] = out.get()
    return C
""", OK),
    Plant("cupy-syntax-error-left-to-the-build", "gemv", "python-cupy", """\
import cupy as cp

def gemv(m, n, A, x, y)
    y[:] = cp.asnumpy(cp.asarray(A) @ cp.asarray(x))
""", OK),
]

# ------------------------------------------------------------------------------------------------ pyCUDA
PYCUDA_HEAD = """\
import numpy as np
import pycuda.autoinit
import pycuda.driver as drv
from pycuda.compiler import SourceModule

mod = SourceModule('''
__global__ void noop(double *v) { if (threadIdx.x == 0 && blockIdx.x == 0) v[0] = v[0]; }
__global__ void gemv_rows(int m, int n, const double *A, const double *x, double *y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < m) { double s = 0.0; for (int j = 0; j < n; ++j) s += A[i * n + j] * x[j]; y[i] = s; }
}
''')
noop = mod.get_function("noop")
gemv_rows = mod.get_function("gemv_rows")
"""
PYCUDA = [
    Plant("pycuda-one-thread-kernel-beside-host-dot", "gemv", "python-pycuda", PYCUDA_HEAD + """

def gemv(m, n, A, x, y):
    noop(drv.InOut(y), block=(1, 1, 1), grid=(1, 1))
    y[:] = A.dot(x)
""", V.wrong_model, ("y", "A.dot(x)")),
    Plant("pycuda-gpuarray-alloc-then-host-loop", "gemv", "python-pycuda", PYCUDA_HEAD + """
import pycuda.gpuarray as gpuarray


def gemv(m, n, A, x, y):
    d_y = gpuarray.zeros(m, np.float64)
    for i in range(m):
        y[i] = np.sum(A[i, :] * x)
""", V.wrong_model, ("y",)),
    Plant("pycuda-kernel-on-a-copy-host-overwrites", "gemv", "python-pycuda", PYCUDA_HEAD + """

def gemv(m, n, A, x, y):
    gemv_rows(np.int32(m), np.int32(n), drv.In(A), drv.In(x), drv.Out(y), block=(128, 1, 1),
              grid=((m + 127) // 128, 1))
    y[:] = A @ x
""", V.wrong_model, ("y", "A @ x")),
    Plant("pycuda-host-axpy-after-mem-alloc", "axpy", "python-pycuda", """\
import numpy as np
import pycuda.autoinit
import pycuda.driver as cuda


def saxpy(n, a, x, y):
    d = cuda.mem_alloc(4)
    cuda.memcpy_htod(d, np.zeros(1, np.float32))
    y[:n] = a * x[:n] + y[:n]
""", V.wrong_model, ("y",)),
    Plant("pycuda-right-inout-driver-args", "gemv", "python-pycuda", PYCUDA_HEAD + """

def gemv(m, n, A, x, y):
    gemv_rows(np.int32(m), np.int32(n), drv.In(np.ascontiguousarray(A)), drv.In(x), drv.Out(y),
              block=(128, 1, 1), grid=((m + 127) // 128, 1))
""", OK),
    Plant("pycuda-right-memcpy-dtoh-into-output", "gemv", "python-pycuda", PYCUDA_HEAD + """

def gemv(m, n, A, x, y):
    a_gpu = drv.mem_alloc(A.nbytes)
    x_gpu = drv.mem_alloc(x.nbytes)
    y_gpu = drv.mem_alloc(y.nbytes)
    drv.memcpy_htod(a_gpu, np.ascontiguousarray(A))
    drv.memcpy_htod(x_gpu, x)
    gemv_rows(np.int32(m), np.int32(n), a_gpu, x_gpu, y_gpu, block=(64, 1, 1), grid=((m + 63) // 64, 1))
    drv.memcpy_dtoh(y, y_gpu)
""", OK),
    Plant("pycuda-right-elementwise-kernel-gpuarray", "axpy", "python-pycuda", """\
import numpy as np
import pycuda.autoinit
import pycuda.gpuarray as gpuarray
from pycuda.elementwise import ElementwiseKernel

axpy = ElementwiseKernel("float a, float *x, float *y", "y[i] = a * x[i] + y[i]", "axpy")


def saxpy(n, a, x, y):
    gx = gpuarray.to_gpu(x)
    gy = gpuarray.to_gpu(y)
    axpy(np.float32(a), gx, gy)
    gy.get(y)
""", OK),
    Plant("pycuda-right-gpuarray-arithmetic-host-copy-loop", "axpy", "python-pycuda", """\
import numpy as np
import pycuda.autoinit
import pycuda.gpuarray as gpuarray


def saxpy(n, a, x, y):
    res = (np.float32(a) * gpuarray.to_gpu(x) + gpuarray.to_gpu(y)).get()
    for i in range(n):
        y[i] = res[i]
""", OK),
]

# ------------------------------------------------------------------------------------------------ numba.cuda
NUMBA_CUDA_ROW = '''@cuda.jit
def _row(A, x, y):
    i = cuda.grid(1)
    if i < y.size:
        s = 0.0
        for j in range(x.size):
            s += A[i, j] * x[j]
        y[i] = s
'''
NUMBA_CUDA = [
    Plant("numba-cuda-one-thread-kernel-beside-host-loop", "axpy", "python-numba", """\
from numba import cuda


@cuda.jit
def _touch(y):
    if cuda.grid(1) == 0:
        y[0] = y[0]


def saxpy(n, a, x, y):
    d_y = cuda.to_device(y)
    _touch[1, 1](d_y)
    d_y.copy_to_host(y)
    for i in range(n):
        y[i] = a * x[i] + y[i]
""", V.wrong_model, ("y",)),
    Plant("numba-cuda-kernel-on-scratch-host-numpy-product", "gemm", "python-numba", """\
import numpy as np
from numba import cuda


@cuda.jit
def _fill(buf):
    i = cuda.grid(1)
    if i < buf.size:
        buf[i] = 0.0


def gemm(m, n, k, A, B, C):
    scratch = cuda.device_array(m * n)
    _fill[(m * n + 127) // 128, 128](scratch)
    C[:, :] = np.matmul(A, B)
""", V.wrong_model, ("C", "np.matmul")),
    Plant("numba-cuda-host-spmv-with-device-row-pointer", "spmv", "python-numba", """\
from numba import cuda


def spmv(n, nnz, row_ptr, col_idx, values, x, y):
    d_rp = cuda.to_device(row_ptr)
    rp = d_rp.copy_to_host()
    for i in range(n):
        acc = 0.0
        for k in range(rp[i], rp[i + 1]):
            acc += values[k] * x[col_idx[k]]
        y[i] = acc
""", V.wrong_model, ("y",)),
    Plant("numba-cuda-host-jacobi-loop-after-launch", "jacobi", "python-numba", """\
from numba import cuda


@cuda.jit
def _noop(a):
    pass


def jacobi(nx, ny, nz, u, unew):
    _noop[1, 32](cuda.to_device(u))
    for i in range(1, nx - 1):
        for j in range(1, ny - 1):
            for k in range(1, nz - 1):
                unew[i, j, k] = (u[i - 1, j, k] + u[i + 1, j, k] + u[i, j - 1, k] + u[i, j + 1, k]
                                 + u[i, j, k - 1] + u[i, j, k + 1]) / 6.0
""", V.wrong_model, ("unew",)),
    Plant("numba-cuda-right-kernel-writes-host-array-directly", "axpy", "python-numba", """\
from numba import cuda


@cuda.jit
def _axpy(a, x, y):
    i = cuda.grid(1)
    if i < x.size:
        y[i] = a * x[i] + y[i]


def saxpy(n, a, x, y):
    _axpy[(n + 255) // 256, 256](a, x, y)
""", OK),
    Plant("numba-cuda-right-forall-and-copy-to-host", "gemv", "python-numba", """\
from numba import cuda


""" + NUMBA_CUDA_ROW + """

def gemv(m, n, A, x, y):
    dA, dx = cuda.to_device(A), cuda.to_device(x)
    dy = cuda.device_array_like(y)
    _row.forall(m)(dA, dx, dy)
    y[:] = dy.copy_to_host()
""", OK),
    Plant("numba-cuda-right-host-remainder-after-device-bulk", "axpy", "python-numba", """\
from numba import cuda


@cuda.jit
def _axpy4(a, x, y, n4):
    i = cuda.grid(1) * 4
    if i < n4:
        for t in range(4):
            y[i + t] = a * x[i + t] + y[i + t]


def saxpy(n, a, x, y):
    n4 = n - n % 4
    dy = cuda.to_device(y)
    _axpy4[(n4 // 4 + 127) // 128 + 1, 128](a, cuda.to_device(x), dy, n4)
    dy.copy_to_host(y)
    for i in range(n4, n):
        y[i] = a * x[i] + y[i]
""", OK),
    Plant("numba-cuda-right-nested-launch-helper", "gemv", "python-numba", """\
import numpy as np
from numba import cuda


""" + NUMBA_CUDA_ROW + """

def gemv(m, n, A, x, y):
    def launch(out):
        _row[(m + 63) // 64, 64](cuda.to_device(A), cuda.to_device(x), out)

    d_y = cuda.device_array(m, dtype=np.float64)
    launch(d_y)
    d_y.copy_to_host(y)
""", OK),
]

# ------------------------------------------------------------------------------------------------ Triton
TRITON_HEAD = """\
import torch
import triton
import triton.language as tl


@triton.jit
def _copy(src, dst, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(dst + offs, tl.load(src + offs, mask=offs < n), mask=offs < n)
"""
TRITON_AXPY = '''@triton.jit
def _axpy(x_ptr, y_ptr, a, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, a * tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)
'''
TRITON = [
    Plant("triton-token-copy-kernel-torch-cpu-matmul", "gemm", "python-triton", TRITON_HEAD + """

def gemm(m, n, k, A, B, C):
    a = torch.from_numpy(A)
    b = torch.from_numpy(B)
    C[:, :] = torch.matmul(a, b).numpy()
""", V.wrong_model, ("C", "torch.matmul")),
    Plant("triton-copy-kernel-then-host-numpy-gemv", "gemv", "python-triton", TRITON_HEAD + """

def gemv(m, n, A, x, y):
    dx = torch.from_numpy(x).cuda()
    out = torch.empty_like(dx)
    _copy[(triton.cdiv(n, 128),)](dx, out, n, BLOCK=128)
    y[:] = A @ out.cpu().numpy()
""", V.wrong_model, ("y", "A @")),
    Plant("triton-host-axpy-loop", "axpy", "python-triton", TRITON_HEAD + """

def saxpy(n, a, x, y):
    t = torch.from_numpy(y).cuda()
    _copy[(1,)](t, t, 1, BLOCK=16)
    for i in range(n):
        y[i] += a * x[i]
""", V.wrong_model, ("y",)),
    Plant("triton-right-wrapper-grid-on-host", "axpy", "python-triton", """\
import torch
import triton
import triton.language as tl


""" + TRITON_AXPY + """

def saxpy(n, a, x, y):
    dx = torch.from_numpy(x).to("cuda")
    dy = torch.from_numpy(y).to("cuda")
    grid = lambda meta: (triton.cdiv(n, meta["BLOCK"]),)
    _axpy[grid](dx, dy, a, n, BLOCK=1024)
    y[:] = dy.cpu().numpy()
""", OK),
    Plant("triton-right-torch-device-result-copied-back", "gemv", "python-triton", TRITON_HEAD + """

def gemv(m, n, A, x, y):
    dA = torch.tensor(A, device="cuda")
    dx = torch.tensor(x, device="cuda")
    y[:] = (dA @ dx).cpu().numpy()
""", OK),
    Plant("triton-right-copy-back-with-np-copyto", "axpy", "python-triton", """\
import numpy as np
import torch
import triton
import triton.language as tl


""" + TRITON_AXPY + """

def saxpy(n, a, x, y):
    dx, dy = torch.from_numpy(x).cuda(), torch.from_numpy(y).cuda()
    _axpy[(triton.cdiv(n, 256),)](dx, dy, a, n, BLOCK=256)
    np.copyto(y, dy.cpu().numpy())
""", OK),
]

GPU_PYTHON = CUPY + PYCUDA + NUMBA_CUDA + TRITON


@pytest.mark.parametrize("plant", GPU_PYTHON, ids=lambda p: p.id)
def test_gpu_python_outputs_come_from_device_work(plant: Plant, catalog):
    _static(catalog, plant)


def test_a_free_form_signature_is_read_through_the_mapping(catalog):
    """The suggestion's own names: `out` is the kernel's y (the binding's mapping says so)."""
    wrong = Plant("cupy-free-form-host-dot", "gemv", "python-cupy", """\
import cupy as cp
import numpy as np


def matvec_gpu(mat, vec, out):
    _ = cp.asarray(vec)
    out[:] = np.dot(mat, vec)
""", V.wrong_model, ("out", "np.dot(mat, vec)"))
    _static(catalog, wrong, {"mat": "A", "vec": "x", "out": "y"}, "matvec_gpu")
    right = Plant("cupy-free-form-device-dot", "gemv", "python-cupy",
                  wrong.code.replace("np.dot(mat, vec)", "cp.asnumpy(cp.asarray(mat) @ cp.asarray(vec))"), OK)
    _static(catalog, right, {"mat": "A", "vec": "x", "out": "y"}, "matvec_gpu")


def test_a_returned_output_is_judged_by_its_return_value(catalog):
    wrong = Plant("cupy-returns-host-product", "gemv", "python-cupy", """\
import cupy as cp
import numpy as np


def gemv(A, x):
    cp.cuda.Device(0).use()
    return np.asarray(A) @ np.asarray(x)
""", V.wrong_model, ("returned", "@"))
    _static(catalog, wrong, {"A": "A", "x": "x"}, "gemv")
    right = Plant("cupy-returns-device-product", "gemv", "python-cupy",
                  wrong.code.replace("np.asarray(A) @ np.asarray(x)", "cp.asnumpy(cp.asarray(A) @ cp.asarray(x))"),
                  OK)
    _static(catalog, right, {"A": "A", "x": "x"}, "gemv")


# ------------------------------------------------------------------------------------------------ CUDA / HIP
CUDA_ONE_THREAD = """\
#include <cuda_runtime.h>
__global__ void touch(double *y) { y[0] = y[0]; }
"""
CUDA = [
    Plant("cuda-one-thread-kernel-beside-host-gemv", "gemv", "cpp-cuda", CUDA_ONE_THREAD + """
void gemv(int m, int n, const double *A, const double *x, double *y) {
  double *d_y;
  cudaMalloc(&d_y, sizeof(double));
  touch<<<1, 1>>>(d_y);
  cudaDeviceSynchronize();
  cudaFree(d_y);
  for (int i = 0; i < m; ++i) {
    double s = 0.0;
    for (int j = 0; j < n; ++j) s += A[i * n + j] * x[j];
    y[i] = s;
  }
}
""", V.wrong_model, ("y", "host")),
    Plant("cuda-host-axpy-loop-after-launch", "axpy", "cpp-cuda", """\
#include <cuda_runtime.h>
__global__ void warmup() {}
void saxpy(int n, float a, const float *x, float *y) {
  warmup<<<1, 32>>>();
  cudaDeviceSynchronize();
  for (int i = 0; i < n; i++) y[i] += a * x[i];
}
""", V.wrong_model, ("y",)),
    Plant("cuda-kernel-zeroes-host-product", "gemm", "cpp-cuda", """\
#include <cuda_runtime.h>
__global__ void zero(double *c, int total) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < total) c[i] = 0.0;
}
void gemm(int m, int n, int k, const double *A, const double *B, double *C) {
  double *d_C;
  cudaMalloc(&d_C, sizeof(double) * m * n);
  zero<<<(m * n + 255) / 256, 256>>>(d_C, m * n);
  cudaMemcpy(C, d_C, sizeof(double) * m * n, cudaMemcpyDeviceToHost);
  cudaFree(d_C);
  for (int i = 0; i < m; ++i)
    for (int p = 0; p < k; ++p)
      for (int j = 0; j < n; ++j)
        C[i * n + j] += A[i * k + p] * B[p * n + j];
}
""", V.wrong_model, ("C",)),
    Plant("cuda-host-helper-does-the-spmv", "spmv", "cpp-cuda", """\
#include <cuda_runtime.h>
__global__ void nothing(int *p) { if (p) p[0] = p[0]; }
static void host_rows(int n, const int *rp, const int *ci, const double *v, const double *x, double *out) {
  for (int i = 0; i < n; ++i) {
    double s = 0.0;
    for (int k = rp[i]; k < rp[i + 1]; ++k) s += v[k] * x[ci[k]];
    out[i] = s;
  }
}
void spmv(int n, int nnz, const int *row_ptr, const int *col_idx, const double *values, const double *x, double *y) {
  nothing<<<1, 1>>>(nullptr);
  host_rows(n, row_ptr, col_idx, values, x, y);
}
""", V.wrong_model, ("host_rows",)),
    Plant("cuda-right-host-wrapper-alloc-copy-launch", "gemv", "cpp-cuda", """\
#include <cuda_runtime.h>
__global__ void rows(int m, int n, const double *A, const double *x, double *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < m) {
    double s = 0.0;
    for (int j = 0; j < n; ++j) s += A[(size_t)i * n + j] * x[j];
    y[i] = s;
  }
}
void gemv(int m, int n, const double *A, const double *x, double *y) {
  double *dA, *dx, *dy;
  cudaMalloc(&dA, sizeof(double) * m * n);
  cudaMalloc(&dx, sizeof(double) * n);
  cudaMalloc(&dy, sizeof(double) * m);
  cudaMemcpy(dA, A, sizeof(double) * m * n, cudaMemcpyHostToDevice);
  cudaMemcpy(dx, x, sizeof(double) * n, cudaMemcpyHostToDevice);
  rows<<<(m + 127) / 128, 128>>>(m, n, dA, dx, dy);
  cudaMemcpy(y, dy, sizeof(double) * m, cudaMemcpyDeviceToHost);
  cudaFree(dA); cudaFree(dx); cudaFree(dy);
}
""", OK),
    Plant("cuda-right-host-sums-per-block-partials-into-staging", "gemv", "cpp-cuda", """\
#include <cuda_runtime.h>
#include <vector>
__global__ void partial(int m, int n, int chunks, const double *A, const double *x, double *part) {
  int i = blockIdx.x, c = threadIdx.x;
  if (i < m && c < chunks) {
    double s = 0.0;
    for (int j = c; j < n; j += chunks) s += A[(size_t)i * n + j] * x[j];
    part[(size_t)i * chunks + c] = s;
  }
}
void gemv(int m, int n, const double *A, const double *x, double *y) {
  const int chunks = 32;
  double *dA, *dx, *dp;
  cudaMalloc(&dA, sizeof(double) * m * n);
  cudaMalloc(&dx, sizeof(double) * n);
  cudaMalloc(&dp, sizeof(double) * m * chunks);
  cudaMemcpy(dA, A, sizeof(double) * m * n, cudaMemcpyHostToDevice);
  cudaMemcpy(dx, x, sizeof(double) * n, cudaMemcpyHostToDevice);
  partial<<<m, chunks>>>(m, n, chunks, dA, dx, dp);
  std::vector<double> h((size_t)m * chunks);
  cudaMemcpy(h.data(), dp, sizeof(double) * m * chunks, cudaMemcpyDeviceToHost);
  for (int i = 0; i < m; ++i) {
    double s = 0.0;
    for (int c = 0; c < chunks; ++c) s += h[(size_t)i * chunks + c];
    y[i] = s;
  }
  cudaFree(dA); cudaFree(dx); cudaFree(dp);
}
""", OK),
    Plant("cuda-right-cublas-call", "gemm", "cpp-cuda", """\
#include <cublas_v2.h>
#include <cuda_runtime.h>
void gemm(int m, int n, int k, const double *A, const double *B, double *C) {
  double *dA, *dB, *dC;
  cudaMalloc(&dA, sizeof(double) * m * k);
  cudaMalloc(&dB, sizeof(double) * k * n);
  cudaMalloc(&dC, sizeof(double) * m * n);
  cudaMemcpy(dA, A, sizeof(double) * m * k, cudaMemcpyHostToDevice);
  cudaMemcpy(dB, B, sizeof(double) * k * n, cudaMemcpyHostToDevice);
  cublasHandle_t h;
  cublasCreate(&h);
  const double one = 1.0, zero = 0.0;
  cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, dB, n, dA, k, &zero, dC, n);
  cudaMemcpy(C, dC, sizeof(double) * m * n, cudaMemcpyDeviceToHost);
  cublasDestroy(h);
  cudaFree(dA); cudaFree(dB); cudaFree(dC);
}
""", OK),
    Plant("cuda-right-device-bulk-host-remainder", "axpy", "cpp-cuda", """\
#include <cuda_runtime.h>
__global__ void axpy4(int n4, float a, const float4 *x, float4 *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n4 / 4) {
    float4 xv = x[i], yv = y[i];
    yv.x += a * xv.x; yv.y += a * xv.y; yv.z += a * xv.z; yv.w += a * xv.w;
    y[i] = yv;
  }
}
void saxpy(int n, float a, const float *x, float *y) {
  int n4 = n - n % 4;
  float *dx, *dy;
  cudaMalloc(&dx, sizeof(float) * (n4 + 4));
  cudaMalloc(&dy, sizeof(float) * (n4 + 4));
  cudaMemcpy(dx, x, sizeof(float) * n4, cudaMemcpyHostToDevice);
  cudaMemcpy(dy, y, sizeof(float) * n4, cudaMemcpyHostToDevice);
  axpy4<<<(n4 / 4 + 255) / 256 + 1, 256>>>(n4, a, (const float4 *)dx, (float4 *)dy);
  cudaMemcpy(y, dy, sizeof(float) * n4, cudaMemcpyDeviceToHost);
  for (int i = n4; i < n; ++i) y[i] = a * x[i] + y[i];
  cudaFree(dx); cudaFree(dy);
}
""", OK),
]

HIP = [
    Plant("hip-one-thread-kernel-host-jacobi", "jacobi", "cpp-hip", """\
#include <hip/hip_runtime.h>
__global__ void token(double *p) { p[0] = p[0]; }
void jacobi(int nx, int ny, int nz, const double *u, double *unew) {
  double *d;
  hipMalloc(&d, sizeof(double));
  hipLaunchKernelGGL(token, dim3(1), dim3(1), 0, 0, d);
  hipDeviceSynchronize();
  hipFree(d);
  for (int i = 1; i < nx - 1; ++i)
    for (int j = 1; j < ny - 1; ++j)
      for (int k = 1; k < nz - 1; ++k) {
        long c = ((long)i * ny + j) * nz + k;
        unew[c] = (u[c - (long)ny * nz] + u[c + (long)ny * nz] + u[c - nz] + u[c + nz] + u[c - 1] + u[c + 1]) / 6.0;
      }
}
""", V.wrong_model, ("unew",)),
    Plant("hip-host-axpy-after-empty-kernel", "axpy", "cpp-hip", """\
#include <hip/hip_runtime.h>
__global__ void k_empty() {}
void saxpy(int n, float a, const float *x, float *y) {
  k_empty<<<dim3(1), dim3(1)>>>();
  for (int i = 0; i < n; ++i) {
    y[i] = a * x[i] + y[i];
  }
}
""", V.wrong_model, ("y",)),
    Plant("hip-host-gemm-after-device-copy", "gemm", "cpp-hip", """\
#include <hip/hip_runtime.h>
__global__ void scale(double *a, int n) { int i = threadIdx.x; if (i < n) a[i] *= 1.0; }
void gemm(int m, int n, int k, const double *A, const double *B, double *C) {
  double *dA;
  hipMalloc(&dA, sizeof(double) * m * k);
  hipMemcpy(dA, A, sizeof(double) * m * k, hipMemcpyHostToDevice);
  scale<<<1, 64>>>(dA, 64);
  hipFree(dA);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double s = 0;
      for (int p = 0; p < k; ++p) s += A[i * k + p] * B[p * n + j];
      C[i * n + j] = s;
    }
}
""", V.wrong_model, ("C",)),
    Plant("hip-host-spmv-with-pointer-walk", "spmv", "cpp-hip", """\
#include <hip/hip_runtime.h>
__global__ void ping(int *p) {}
void spmv(int n, int nnz, const int *row_ptr, const int *col_idx, const double *values, const double *x, double *y) {
  hipLaunchKernelGGL(ping, dim3(1), dim3(1), 0, 0, nullptr);
  int row = 0;
  while (row < n) {
    double acc = 0;
    for (int k = row_ptr[row]; k < row_ptr[row + 1]; k++) acc += values[k] * x[col_idx[k]];
    y[row] = acc;
    row++;
  }
}
""", V.wrong_model, ("y",)),
    Plant("hip-right-launch-kernel-ggl", "axpy", "cpp-hip", """\
#include <hip/hip_runtime.h>
__global__ void axpy(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
void saxpy(int n, float a, const float *x, float *y) {
  float *dx, *dy;
  hipMalloc(&dx, n * sizeof(float));
  hipMalloc(&dy, n * sizeof(float));
  hipMemcpy(dx, x, n * sizeof(float), hipMemcpyHostToDevice);
  hipMemcpy(dy, y, n * sizeof(float), hipMemcpyHostToDevice);
  hipLaunchKernelGGL(axpy, dim3((n + 255) / 256), dim3(256), 0, 0, n, a, dx, dy);
  hipMemcpy(y, dy, n * sizeof(float), hipMemcpyDeviceToHost);
  hipFree(dx); hipFree(dy);
}
""", OK),
    Plant("hip-right-host-staging-copy-loop", "gemv", "cpp-hip", """\
#include <hip/hip_runtime.h>
#include <vector>
__global__ void rows(int m, int n, const double *A, const double *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < m) { double s = 0; for (int j = 0; j < n; ++j) s += A[(size_t)i * n + j] * x[j]; y[i] = (float)s; }
}
void gemv(int m, int n, const double *A, const double *x, double *y) {
  double *dA, *dx; float *dy;
  hipMalloc(&dA, sizeof(double) * m * n); hipMalloc(&dx, sizeof(double) * n); hipMalloc(&dy, sizeof(float) * m);
  hipMemcpy(dA, A, sizeof(double) * m * n, hipMemcpyHostToDevice);
  hipMemcpy(dx, x, sizeof(double) * n, hipMemcpyHostToDevice);
  rows<<<(m + 63) / 64, 64>>>(m, n, dA, dx, dy);
  std::vector<float> h(m);
  hipMemcpy(h.data(), dy, sizeof(float) * m, hipMemcpyDeviceToHost);
  for (int i = 0; i < m; ++i) y[i] = static_cast<double>(h[i]);
  hipFree(dA); hipFree(dx); hipFree(dy);
}
""", OK),
    Plant("hip-right-host-zero-fill-then-device-accumulate", "gemv", "cpp-hip", """\
#include <hip/hip_runtime.h>
__global__ void acc(int m, int n, const double *A, const double *x, double *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < m) for (int j = 0; j < n; ++j) y[i] += A[(size_t)i * n + j] * x[j];
}
void gemv(int m, int n, const double *A, const double *x, double *y) {
  for (int i = 0; i < m; ++i) y[i] = 0.0;
  double *dA, *dx, *dy;
  hipMalloc(&dA, sizeof(double) * m * n); hipMalloc(&dx, sizeof(double) * n); hipMalloc(&dy, sizeof(double) * m);
  hipMemcpy(dA, A, sizeof(double) * m * n, hipMemcpyHostToDevice);
  hipMemcpy(dx, x, sizeof(double) * n, hipMemcpyHostToDevice);
  hipMemcpy(dy, y, sizeof(double) * m, hipMemcpyHostToDevice);
  acc<<<(m + 63) / 64, 64>>>(m, n, dA, dx, dy);
  hipMemcpy(y, dy, sizeof(double) * m, hipMemcpyDeviceToHost);
  hipFree(dA); hipFree(dx); hipFree(dy);
}
""", OK),
    Plant("hip-unparseable-function-left-to-the-build", "axpy", "cpp-hip", """\
#include <hip/hip_runtime.h>
void saxpy(int n, float a, const float *x, float *y) {
  for (int i = 0; i < n; ++i) y[i] = a * x[i] + y[i]
""", OK),
]


@pytest.mark.parametrize("plant", CUDA + HIP, ids=lambda p: p.id)
def test_cuda_hip_outputs_come_from_device_work(plant: Plant, catalog):
    _static(catalog, plant)


def test_references_pass_the_static_rule(catalog):
    """Every reference solution of every model the rule reads: right code, silent check."""
    from hpceval.checks.where_work_ran import work_where_the_model_runs

    seen = 0
    for kernel in catalog.kernels.values():
        for path in sorted((kernel.folder / "solutions").glob("*")):
            model_id = path.name.split(".")[0]
            if model_id not in catalog.models:
                continue
            plant = Plant(path.name, kernel.id, model_id, path.read_text(), OK)
            e = work_where_the_model_runs(_job(catalog, plant))
            assert e is None, f"{kernel.id}/{path.name}: {e.evidence}"
            seen += 1
    assert seen >= 60


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="no nvcc")
def test_the_cuda_cases_compile(tmp_path):
    """The CUDA cases are real CUDA (nvcc -c): the rule is judged on code that builds."""
    from hpceval.toolchains.cuda import cuda_root

    cublas = cuda_root() is not None and (cuda_root() / "include" / "cublas_v2.h").is_file()
    for plant in CUDA:
        if "cublas" in plant.code and not cublas:
            continue  # the toolkit here has no cuBLAS headers
        src = tmp_path / f"{plant.id}.cu"
        src.write_text(plant.code)
        flags = ["-c", "-w", "-std=c++17", "-arch=sm_80", str(src), "-o", str(tmp_path / f"{plant.id}.o")]
        result = subprocess.run(["nvcc", *flags], capture_output=True, text=True, timeout=300)
        assert result.returncode == 0, f"{plant.id}: {result.stderr[-800:]}"


# ================================================================================================ dynamic (GPU probe)
def _probe(tmp_path, *launches: tuple[tuple[int, int, int], tuple[int, int, int]]) -> Path:
    lines = ["hpceval-probe 1 -"]
    for i, (grid, block) in enumerate(launches):
        lines.append(f"K {1000 + 10 * i} {1005 + 10 * i} kernel_{i}(double*) grid={','.join(map(str, grid))} "
                     f"block={','.join(map(str, block))}")
    (tmp_path / "gpu_probe.txt").write_text("\n".join(lines) + "\n")
    return tmp_path


@pytest.mark.parametrize(("launches", "token"), [
    ([((1, 1, 1), (1, 1, 1))] * 6, True),                        # one thread per call
    ([((1, 1, 1), (16, 1, 1))] * 6, True),                       # half a warp at every size
    ([((1, 1, 1), (1, 1, 1))] * 5 + [((4, 1, 1), (256, 1, 1))], False),  # a real launch at the large size
    ([((64, 64, 1), (16, 16, 1))] * 6, False),
    ([((1, 1, 1), (32, 1, 1))] * 6, False),                      # a warp: a (small) parallel launch
])
def test_probe_thread_counts_decide_token_launches(tmp_path, launches, token):
    from hpceval.toolchains.cuda import probe_verdict, read_probe

    problem, evidence = probe_verdict(read_probe(_probe(tmp_path, *launches)), 6, largest_output=4096)
    if token:
        assert problem is not None and "thread" in problem, problem
    else:
        assert problem is None, problem
        assert "GPU kernels ran" in evidence


def test_probe_without_launch_dimensions_keeps_the_old_rule(tmp_path):
    """An older probe's record (no grid/block): a kernel ran is all that can be said."""
    from hpceval.toolchains.cuda import probe_verdict, read_probe

    (tmp_path / "gpu_probe.txt").write_text("hpceval-probe 1 -\nK 1 5 k(double*)\n")
    assert probe_verdict(read_probe(tmp_path), 6, largest_output=4096)[0] is None


def test_small_outputs_never_make_a_launch_a_token(tmp_path):
    from hpceval.toolchains.cuda import probe_verdict, read_probe

    _probe(tmp_path, *[((1, 1, 1), (1, 1, 1))] * 3)
    assert probe_verdict(read_probe(tmp_path), 3, largest_output=8)[0] is None


# ------------------------------------------------------------------------------------------------ on the GPU
def _gpu() -> bool:
    from hpceval.toolchains.cuda import nvidia_gpu

    return nvidia_gpu() is not None


GPU_DYNAMIC = [
    Plant("gpu-cuda-serial-device-kernel-one-thread", "gemv", "cpp-cuda", """\
#include <cuda_runtime.h>
__global__ void serial(int m, int n, const double *A, const double *x, double *y) {
  for (int i = 0; i < m; ++i) { double s = 0; for (int j = 0; j < n; ++j) s += A[(size_t)i * n + j] * x[j]; y[i] = s; }
}
void gemv(int m, int n, const double *A, const double *x, double *y) {
  double *dA, *dx, *dy;
  cudaMalloc(&dA, sizeof(double) * m * n); cudaMalloc(&dx, sizeof(double) * n); cudaMalloc(&dy, sizeof(double) * m);
  cudaMemcpy(dA, A, sizeof(double) * m * n, cudaMemcpyHostToDevice);
  cudaMemcpy(dx, x, sizeof(double) * n, cudaMemcpyHostToDevice);
  serial<<<1, 1>>>(m, n, dA, dx, dy);
  cudaMemcpy(y, dy, sizeof(double) * m, cudaMemcpyDeviceToHost);
  cudaFree(dA); cudaFree(dx); cudaFree(dy);
}
""", V.wrong_model, ("thread",)),
    *[p for p in CUDA + CUPY + PYCUDA + NUMBA_CUDA + TRITON if p.verdict == V.wrong_model][:12],
]


@pytest.mark.gpu
@pytest.mark.skipif(not _gpu(), reason="needs an NVIDIA GPU")
@pytest.mark.parametrize("plant", GPU_DYNAMIC, ids=lambda p: p.id)
def test_on_the_gpu_token_constructs_are_wrong_model(plant: Plant, catalog):
    e = _evaluate_all(catalog, [plant])[plant.id]
    _check(Plant(plant.id, plant.kernel, plant.model, plant.code, plant.verdict), e)


@pytest.mark.gpu
@pytest.mark.skipif(not _gpu(), reason="needs an NVIDIA GPU")
@pytest.mark.parametrize("plant", [p for p in CUDA + CUPY + PYCUDA + NUMBA_CUDA + TRITON if p.verdict == OK
                                   and "syntax" not in p.id], ids=lambda p: p.id)
def test_on_the_gpu_right_code_stays_correct(plant: Plant, catalog):
    e = _evaluate_all(catalog, [plant])[plant.id]
    assert not isinstance(e, BaseException), e
    assert e.verdict == V.correct, f"{plant.id}: {e.verdict}: {e.evidence}"
