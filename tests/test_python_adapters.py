"""The Python adapter layer (bind.adapt.python): the data crossing into and out of a suggested Python function.

Written as unseen LLM output before the adapters existed. What a parameter is comes from the suggestion's code
(annotations, what the body does with it, what it is handed to), never from its name:

* device arrays in and out: CuPy (`cp.ndarray`, `cp.` operations on it, a RawKernel/ElementwiseKernel handed it),
  Torch CUDA tensors (`.is_cuda`, `torch.Tensor`, a Triton kernel handed it), numba device arrays
  (`DeviceNDArray`, `.copy_to_host()`, a `@cuda.jit` kernel handed it), pyCUDA `gpuarray` (`.gpudata`, a
  SourceModule function handed it); returned device arrays read back with each library's own call;
* records grouping the kernel's arrays: a SciPy CSR matrix, the suggestion's own dataclass or NamedTuple, a dict,
  a tuple unpacked in the body.

Per family: right-but-unusual code (`correct`), subtly wrong code (`wrong_result`), the wrong model, and code
that must stay the LLM's fault (`runtime_error`/`build_error`). The CPU families (NumPy, Numba, numba.cuda under
its simulator) run end to end here; CuPy, Triton/Torch and pyCUDA are checked on their binding and driver text here
and end to end by the `gpu` tests on a GPU machine:

    PYTHONPATH=harness python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_python_adapters.py
"""

from __future__ import annotations

import textwrap
from concurrent.futures import ThreadPoolExecutor

import pytest

from hpceval.bind import choose_binding, render_unit
from hpceval.bind.adapt.python import infer_parameter_types
from hpceval.toolchains.cuda import nvidia_gpu


def _code(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def _bind(catalog, kernel: str, model: str, code: str):
    spec, m = catalog.kernels[kernel], catalog.models[model]
    return choose_binding(_code(code), spec, catalog.languages[m.language], "paper", m)


def _driver(catalog, kernel: str, model: str, code: str) -> tuple[object, str]:
    spec, m = catalog.kernels[kernel], catalog.models[model]
    b = _bind(catalog, kernel, model, code)
    assert b.error is None, b.error
    files = render_unit(_code(code), spec, catalog.languages[m.language], b, _hooks(m))
    return b, files["driver.py"]


def _hooks(model):
    from hpceval.toolchains import get_toolchain

    return get_toolchain(model.toolchain).hooks(model)


def _evaluate_all(catalog, evaluator, cases):
    def run(case):
        kernel, model, code, _want = case
        spec, m = catalog.kernels[kernel], catalog.models[model]
        b = choose_binding(_code(code), spec, catalog.languages[m.language], "paper", m)
        return case, b, evaluator.evaluate(_code(code), spec, m, b)

    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(run, cases))
    wrong = [(case[3], e.verdict.value, case[2][:160], b.evidence[:300], e.evidence[:400])
             for case, b, e in results if e.verdict.value != case[3]]
    assert not wrong, "\n\n".join(map(str, wrong))


# ------------------------------------------------------------------------------------------------ type inference
# (parameter, expected adapter kind) per suggestion; "numpy" is the host array every driver holds.

INFER = [
    # CuPy
    ("cupy-annotation", "import cupy as cp\ndef saxpy(a, x: cp.ndarray, y: cp.ndarray):\n    y += a * x\n",
     "saxpy", {"x": "cupy", "y": "cupy"}),
    ("cupy-ops-on-params", "import cupy\ndef gemv(A, x):\n    return cupy.matmul(A, x)\n", "gemv",
     {"A": "cupy", "x": "cupy"}),
    ("cupy-copies-itself", "import cupy as cp\ndef gemv(A, x, y):\n    d = cp.asarray(A) @ cp.asarray(x)\n"
     "    y[:] = cp.asnumpy(d)\n", "gemv", {"A": "numpy", "x": "numpy", "y": "numpy"}),
    ("cupy-rawkernel-straight", "import cupy as cp\n_k = cp.RawKernel(r'''extern \"C\" __global__ void k(const float* x,"
     " float* y, float a, int n) { int i = blockIdx.x*blockDim.x+threadIdx.x; if (i < n) y[i] += a*x[i]; }''', 'k')\n"
     "def saxpy(n, a, x, y):\n    _k(((n + 255) // 256,), (256,), (x, y, cp.float32(a), cp.int32(n)))\n",
     "saxpy", {"x": "cupy", "y": "cupy", "n": "numpy", "a": "numpy"}),
    ("cupy-elementwise-straight", "import cupy as cp\nop = cp.ElementwiseKernel('float32 a, float32 x', 'float32 y',"
     " 'y += a * x', 'axpy')\ndef saxpy(a, x, y):\n    op(a, x, y)\n", "saxpy", {"x": "cupy", "y": "cupy"}),
    # Torch (Triton wrappers)
    ("torch-is-cuda", "import torch\nimport triton\nimport triton.language as tl\n@triton.jit\ndef k(x, y, a, n, B: "
     "tl.constexpr):\n    o = tl.program_id(0) * B + tl.arange(0, B)\n    m = o < n\n    tl.store(y + o, a * tl.load(x + o, "
     "mask=m) + tl.load(y + o, mask=m), mask=m)\ndef saxpy(a, x, y):\n    assert x.is_cuda and y.is_cuda\n"
     "    n = x.numel()\n    k[(triton.cdiv(n, 1024),)](x, y, a, n, B=1024)\n", "saxpy", {"x": "torch", "y": "torch"}),
    ("torch-annotation", "import torch\ndef gemv(A: torch.Tensor, x: torch.Tensor) -> torch.Tensor:\n"
     "    return torch.mv(A, x)\n", "gemv", {"A": "torch", "x": "torch"}),
    ("torch-from-numpy-is-host", "import torch\ndef gemv(A, x, y):\n    t = torch.from_numpy(A).cuda() @ "
     "torch.from_numpy(x).cuda()\n    y[:] = t.cpu().numpy()\n", "gemv", {"A": "numpy", "x": "numpy", "y": "numpy"}),
    # numba.cuda
    ("numba-device-annotation", "from numba import cuda\nfrom numba.cuda.cudadrv.devicearray import DeviceNDArray\n"
     "def saxpy(a, x: DeviceNDArray, y: DeviceNDArray):\n    pass\n", "saxpy", {"x": "numba", "y": "numba"}),
    ("numba-copy-to-host", "from numba import cuda\ndef gemv(A, x):\n    return A.copy_to_host() @ x.copy_to_host()\n",
     "gemv", {"A": "numba", "x": "numba"}),
    ("numba-kernel-straight", "from numba import cuda\n@cuda.jit\ndef _k(a, x, y):\n    i = cuda.grid(1)\n"
     "    if i < x.size:\n        y[i] += a * x[i]\ndef saxpy(a, x, y):\n    _k.forall(x.size)(a, x, y)\n", "saxpy",
     {"x": "numba", "y": "numba"}),
    ("numba-to-device-is-host", "from numba import cuda\n@cuda.jit\ndef _k(a, x, y):\n    i = cuda.grid(1)\n"
     "    if i < x.size:\n        y[i] += a * x[i]\ndef saxpy(a, x, y):\n    dx = cuda.to_device(x)\n    dy = cuda.to_device(y)\n"
     "    _k.forall(x.size)(a, dx, dy)\n    dy.copy_to_host(y)\n", "saxpy", {"x": "numpy", "y": "numpy"}),
    # pyCUDA
    ("gpuarray-annotation", "import pycuda.gpuarray as gpuarray\ndef saxpy(a, x: gpuarray.GPUArray, y: gpuarray.GPUArray):"
     "\n    y += a * x\n", "saxpy", {"x": "gpuarray", "y": "gpuarray"}),
    ("gpuarray-gpudata", "import pycuda.autoinit\nfrom pycuda.compiler import SourceModule\nmod = SourceModule('...')\n"
     "f = mod.get_function('saxpy')\ndef saxpy(n, a, x, y):\n    f(x.gpudata, y.gpudata, a, n, block=(256, 1, 1), "
     "grid=((n + 255) // 256, 1))\n", "saxpy", {"x": "gpuarray", "y": "gpuarray"}),
    ("gpuarray-function-straight", "import numpy as np\nimport pycuda.autoinit\nfrom pycuda.compiler import SourceModule\n"
     "mod = SourceModule('...')\nf = mod.get_function('saxpy')\ndef saxpy(n, a, x, y):\n    f(np.int32(n), np.float32(a), x,"
     " y, block=(256, 1, 1), grid=((n + 255) // 256, 1))\n", "saxpy", {"x": "gpuarray", "y": "gpuarray"}),
    ("pycuda-in-out-is-host", "import numpy as np\nimport pycuda.autoinit\nimport pycuda.driver as drv\nfrom pycuda.compiler "
     "import SourceModule\nmod = SourceModule('...')\nf = mod.get_function('saxpy')\ndef saxpy(n, a, x, y):\n"
     "    f(np.int32(n), np.float32(a), drv.In(x), drv.InOut(y), block=(256, 1, 1), grid=((n + 255) // 256, 1))\n",
     "saxpy", {"x": "numpy", "y": "numpy"}),
    # NumPy and Numba stay host arrays
    ("numpy-plain", "import numpy as np\ndef saxpy(a, x, y):\n    y += a * x\n", "saxpy", {"x": "numpy", "y": "numpy"}),
    ("numba-njit-plain", "from numba import njit, prange\n@njit(parallel=True)\ndef saxpy(a, x, y):\n"
     "    for i in prange(x.size):\n        y[i] += a * x[i]\n", "saxpy", {"x": "numpy", "y": "numpy"}),
    # records
    ("scipy-annotation", "import scipy.sparse as sp\ndef spmv(A: sp.csr_matrix, x):\n    return A @ x\n", "spmv",
     {"A": "scipy_csr", "x": "numpy"}),
    ("scipy-fields", "import numpy as np\ndef spmv(A, x):\n    return np.add.reduceat(A.data * x[A.indices], "
     "A.indptr[:-1])\n", "spmv", {"A": "scipy_csr"}),
    ("dataclass-own", "from dataclasses import dataclass\nimport numpy as np\n@dataclass\nclass CSR:\n    row_ptr: np.ndarray\n"
     "    col_idx: np.ndarray\n    values: np.ndarray\ndef spmv(A: CSR, x, y):\n    y[:] = 0\n", "spmv", {"A": "record"}),
    ("dict-fields", "def spmv(mat, x, y):\n    v = mat['values']\n    c = mat['col_idx']\n    r = mat['row_ptr']\n",
     "spmv", {"mat": "dict"}),
    ("tuple-unpacked", "def spmv(csr, x, y):\n    row_ptr, col_idx, values = csr\n", "spmv", {"csr": "tuple"}),
]


@pytest.mark.parametrize("case", INFER, ids=[c[0] for c in INFER])
def test_parameter_types_come_from_the_code(catalog, case):
    _id, code, function, want = case
    got = infer_parameter_types(_code(code), function)
    for name, kind in want.items():
        assert (got[name].kind if name in got else None) == kind, (name, got)
        if kind not in (None, "numpy"):
            assert got[name].why, got[name]  # the evidence says what in the code decided it


# ------------------------------------------------------------------------------------------------ GPU binding text
# What the driver does for the GPU families, checked here without a GPU: the conversions are in the setup (before
# the clock starts) and the teardown (after it stops), never in the timed call; returned device arrays are read back
# with the library's own call.

CUPY_SAXPY = """
import cupy as cp

def saxpy(a, x: cp.ndarray, y: cp.ndarray):
    y += a * x
"""

CUPY_RETURNS_DEVICE = """
import cupy as cp

def gemv(A, x):
    dA = cp.asarray(A)
    dx = cp.asarray(x)
    return dA @ dx  # left on the device
"""

CUPY_RAWKERNEL = r"""
import cupy as cp

_src = r'''
extern "C" __global__ void axpy(const float* x, float* y, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
'''
_axpy = cp.RawKernel(_src, "axpy")

def saxpy(n, a, x, y):
    threads = 128
    _axpy(((n + threads - 1) // threads,), (threads,), (x, y, cp.float32(a), cp.int32(n)))
"""

TRITON_TENSORS = """
import torch
import triton
import triton.language as tl

@triton.jit
def _axpy(x_ptr, y_ptr, a, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, a * tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)

def saxpy(a: float, x: torch.Tensor, y: torch.Tensor):
    assert x.is_cuda and y.is_cuda
    n = x.numel()
    _axpy[(triton.cdiv(n, 512),)](x, y, a, n, BLOCK=512)
"""

TRITON_RETURNS_TENSOR = """
import torch
import triton
import triton.language as tl

@triton.jit
def _gemv_rows(A, x, y, m, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros((BLOCK,), dtype=tl.float64)
    for start in range(0, n, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n
        acc += tl.load(A + row * n + cols, mask=mask, other=0.0) * tl.load(x + cols, mask=mask, other=0.0)
    tl.store(y + row, tl.sum(acc, axis=0))

def gemv(A: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    m, n = A.shape
    y = torch.empty(m, device=A.device, dtype=A.dtype)
    _gemv_rows[(m,)](A, x, y, m, n, BLOCK=128)
    return y
"""

PYCUDA_GPUARRAY = r"""
import numpy as np
import pycuda.autoinit
import pycuda.gpuarray as gpuarray
from pycuda.compiler import SourceModule

_mod = SourceModule('''
__global__ void axpy(int n, float a, const float *x, float *y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
''')
_axpy = _mod.get_function("axpy")

def saxpy(n, a, x, y):
    _axpy(np.int32(n), np.float32(a), x.gpudata, y.gpudata, block=(256, 1, 1), grid=((n + 255) // 256, 1))
"""

PYCUDA_RETURNS_GPUARRAY = """
import pycuda.autoinit
import pycuda.gpuarray as gpuarray

def saxpy(a, x, y):
    dx = gpuarray.to_gpu(x)
    dy = gpuarray.to_gpu(y)
    return a * dx + dy
"""

NUMBA_CUDA_DEVICE = """
from numba import cuda

@cuda.jit
def _axpy(a, x, y):
    i = cuda.grid(1)
    if i < x.shape[0]:
        y[i] = a * x[i] + y[i]

def saxpy(a, x, y):
    # x and y are already on the device
    threads = 64
    _axpy[(x.shape[0] + threads - 1) // threads, threads](a, x, y)
    cuda.synchronize()
"""

GPU_TEXT = [
    # (kernel, model, code, expected setup fragments, expected teardown fragments, expected call fragment)
    ("axpy", "python-cupy", CUPY_SAXPY, ['cupy', 'ns["x"]', 'ns["y"]'], ['ns["y"][...]', ".get()"], None),
    ("gemv", "python-cupy", CUPY_RETURNS_DEVICE, [], [], None),
    ("axpy", "python-cupy", CUPY_RAWKERNEL, ['cupy', 'ns["x"]'], ['ns["y"][...]', ".get()"], None),
    ("axpy", "python-triton", TRITON_TENSORS, ["torch", "from_numpy", 'ns["x"]'], ['ns["y"][...]', ".cpu()"], None),
    ("gemv", "python-triton", TRITON_RETURNS_TENSOR, ["torch", 'ns["A"]', 'ns["x"]'], [], None),
    ("axpy", "python-pycuda", PYCUDA_GPUARRAY, ["gpuarray", 'ns["x"]'], ['ns["y"][...]', ".get()"], None),
    ("axpy", "python-pycuda", PYCUDA_RETURNS_GPUARRAY, [], [], None),
    ("axpy", "python-numba", NUMBA_CUDA_DEVICE, ["to_device", 'ns["x"]'], ['ns["y"][...]', "copy_to_host"], None),
]


@pytest.mark.parametrize("case", GPU_TEXT, ids=[f"{c[1]}-{i}" for i, c in enumerate(GPU_TEXT)])
def test_gpu_driver_text(catalog, case):
    kernel, model, code, setup, teardown, _call = case
    b, driver = _driver(catalog, kernel, model, code)
    joined_setup, joined_teardown = "\n".join(b.setup), "\n".join(b.teardown)
    for frag in setup:
        assert frag in joined_setup, (frag, b.setup, b.evidence)
    for frag in teardown:
        assert frag in joined_teardown, (frag, b.teardown, b.evidence)
    if not setup:  # a function that copies its host arguments itself gets them as they are
        assert not any("asarray" in s or "to_gpu" in s or "from_numpy" in s for s in b.setup), b.setup
    # the conversions are not in the timed region: between the clock's two readings there is only the call
    timed = driver.split("t0 = _clock()", 1)[1].split("t1 = _clock()", 1)[0]
    for word in ("asarray", "from_numpy", "to_device", "to_gpu", "copy_to_host", ".get()"):
        assert word not in timed, (word, timed)
    if b.returns:
        # a returned device array is read back with the library's own call, after the clock stopped
        assert "host_value(ret" in driver, driver
        assert "host_value(ret" not in timed, timed


def test_returned_device_values_are_read_back_by_the_driver(tmp_path):
    """The driver's read-back (host_value) on every device array type the Python GPU models return, with stand-ins
    of the libraries' array types (their own calls are what the driver must use: `.get()`, `.cpu().numpy()`,
    `.copy_to_host()`); a tuple keeps its elements in order."""
    import numpy as np

    from hpceval.bind.adapt.python import HOST_VALUE_SOURCE

    ns: dict = {}
    exec(HOST_VALUE_SOURCE, ns)  # noqa: S102 - the harness's own driver helper
    host_value = ns["host_value"]
    data = np.arange(4.0)

    def standin(module: str, **methods):
        cls = type("Array", (), methods)
        cls.__module__ = module
        cls.__array__ = lambda self, *a, **k: (_ for _ in ()).throw(TypeError("Implicit conversion to a NumPy array "
                                                                               "is not allowed"))
        return cls()

    cupy_like = standin("cupy._core.core", get=lambda self: data)
    torch_like = standin("torch", detach=lambda self: self, cpu=lambda self: self, numpy=lambda self: data)
    numba_like = standin("numba.cuda.cudadrv.devicearray", copy_to_host=lambda self: data)
    gpuarray_like = standin("pycuda.gpuarray", get=lambda self: data)
    for value in (cupy_like, torch_like, numba_like, gpuarray_like, data, [0.0, 1.0, 2.0, 3.0]):
        assert np.array_equal(np.asarray(host_value(value)), data), value
    pair = host_value((cupy_like, 3))
    assert np.array_equal(pair[0], data) and pair[1] == 3


# ------------------------------------------------------------------------------------------------ CPU, end to end

NUMPY_CASES = [
    # right but unusual: a SciPy CSR matrix, the suggestion's own dataclass / NamedTuple, a dict, a tuple
    ("spmv", "python-numpy", """
        import scipy.sparse

        def spmv(A: scipy.sparse.csr_matrix, x):
            return A @ x
        """, "correct"),
    ("spmv", "python-numpy", """
        import numpy as np

        def spmv(A, x):
            rows = np.repeat(np.arange(A.shape[0]), np.diff(A.indptr))
            return np.bincount(rows, weights=A.data * x[A.indices], minlength=A.shape[0])
        """, "correct"),
    ("spmv", "python-numpy", """
        from dataclasses import dataclass
        import numpy as np

        @dataclass
        class CSRMatrix:
            n: int
            row_ptr: np.ndarray
            col_idx: np.ndarray
            values: np.ndarray

        def spmv(A: CSRMatrix, x, y):
            rows = np.repeat(np.arange(A.n), np.diff(A.row_ptr))
            y[:] = np.bincount(rows, weights=A.values * x[A.col_idx], minlength=A.n)
        """, "correct"),
    ("spmv", "python-numpy", """
        from typing import NamedTuple
        import numpy as np

        class Csr(NamedTuple):
            indptr: np.ndarray
            indices: np.ndarray
            data: np.ndarray

        def spmv(m: Csr, x: np.ndarray) -> np.ndarray:
            n = len(m.indptr) - 1
            rows = np.repeat(np.arange(n), np.diff(m.indptr))
            return np.bincount(rows, weights=m.data * x[m.indices], minlength=n)
        """, "correct"),
    ("spmv", "python-numpy", """
        import numpy as np

        def spmv(mat, x, y):
            vals, cols, ptr = mat["values"], mat["col_idx"], mat["row_ptr"]
            rows = np.repeat(np.arange(len(ptr) - 1), np.diff(ptr))
            y[:] = np.bincount(rows, weights=vals * x[cols], minlength=len(ptr) - 1)
        """, "correct"),
    ("spmv", "python-numpy", """
        import numpy as np

        def spmv(csr, x):
            row_ptr, col_idx, values = csr
            n = row_ptr.shape[0] - 1
            rows = np.repeat(np.arange(n), np.diff(row_ptr))
            return np.bincount(rows, weights=values * x[col_idx], minlength=n)
        """, "correct"),
    # subtly wrong: the transpose; the row index where the column index belongs
    ("spmv", "python-numpy", """
        from scipy.sparse import csr_matrix

        def spmv(A: csr_matrix, x):
            return A.T @ x
        """, "wrong_result"),
    ("spmv", "python-numpy", """
        from dataclasses import dataclass
        import numpy as np

        @dataclass
        class CSRMatrix:
            row_ptr: np.ndarray
            col_idx: np.ndarray
            values: np.ndarray

        def spmv(A: CSRMatrix, x, y):
            n = len(A.row_ptr) - 1
            rows = np.repeat(np.arange(n), np.diff(A.row_ptr))
            y[:] = np.bincount(rows, weights=A.values * x[rows], minlength=n)
        """, "wrong_result"),
    # the LLM's fault: a method SciPy matrices do not have
    ("spmv", "python-numpy", """
        import scipy.sparse as sp

        def spmv(A: sp.csr_matrix, x):
            return A.multiply_vector(x)
        """, "runtime_error"),
]

NUMBA_SCIPY_ROWS = """
import numpy as np
from numba import njit, prange

@njit(parallel=True)
def _rows(indptr, indices, data, x, y):
    for i in prange(y.size):
        s = 0.0
        for k in range(indptr[i], indptr[i + 1]):
            s += data[k] * x[indices[k]]
        y[i] = s

def spmv(A, x):
    y = np.empty(A.shape[0])
    _rows(A.indptr, A.indices, A.data, x, y)
    return y
"""

NUMBA_CASES = [
    # right but unusual: a SciPy matrix unpacked into a parallel kernel; a tuple and a NamedTuple handed to njit
    ("spmv", "python-numba", NUMBA_SCIPY_ROWS, "correct"),
    ("spmv", "python-numba", """
        import numba

        @numba.njit(parallel=True)
        def spmv(csr, x, y):
            row_ptr, col_idx, values = csr
            for i in numba.prange(len(row_ptr) - 1):
                acc = 0.0
                for k in range(row_ptr[i], row_ptr[i + 1]):
                    acc += values[k] * x[col_idx[k]]
                y[i] = acc
        """, "correct"),
    ("spmv", "python-numba", """
        from collections import namedtuple
        from numba import njit, prange

        CSR = namedtuple("CSR", ["indptr", "indices", "data"])

        @njit(parallel=True)
        def spmv(A: CSR, x, y):
            for i in prange(len(A.indptr) - 1):
                t = 0.0
                for k in range(A.indptr[i], A.indptr[i + 1]):
                    t += A.data[k] * x[A.indices[k]]
                y[i] = t
        """, "correct"),
    # subtly wrong: the last entry of every row skipped
    ("spmv", "python-numba", NUMBA_SCIPY_ROWS.replace("indptr[i + 1]):", "indptr[i + 1] - 1):"), "wrong_result"),
    # the wrong model: SciPy does the work, no Numba at all
    ("spmv", "python-numba", """
        import scipy.sparse as sp

        def spmv(A: sp.csr_matrix, x):
            return A.dot(x)
        """, "wrong_model"),
    # the LLM's fault: Numba cannot type a dataclass instance
    ("spmv", "python-numba", """
        from dataclasses import dataclass
        import numpy as np
        from numba import njit, prange

        @dataclass
        class CSR:
            row_ptr: np.ndarray
            col_idx: np.ndarray
            values: np.ndarray

        @njit(parallel=True)
        def spmv(A: CSR, x, y):
            for i in prange(len(A.row_ptr) - 1):
                s = 0.0
                for k in range(A.row_ptr[i], A.row_ptr[i + 1]):
                    s += A.values[k] * x[A.col_idx[k]]
                y[i] = s
        """, "runtime_error"),
]

# numba.cuda runs under Numba's CUDA simulator here (toolchains.python), a GPU where there is one.
NUMBA_CUDA_CASES = [
    ("axpy", "python-numba", NUMBA_CUDA_DEVICE, "correct"),
    # a returned device array, annotated
    ("axpy", "python-numba", """
        from numba import cuda
        from numba.cuda.cudadrv.devicearray import DeviceNDArray

        @cuda.jit
        def _axpy(a, x, y, out):
            i = cuda.grid(1)
            if i < out.size:
                out[i] = a * x[i] + y[i]

        def saxpy(a, x: DeviceNDArray, y: DeviceNDArray) -> DeviceNDArray:
            out = cuda.device_array_like(y)
            _axpy.forall(y.size)(a, x, y, out)
            return out
        """, "correct"),
    # device inputs, a host result
    ("gemv", "python-numba", """
        import numpy as np
        from numba import cuda

        @cuda.jit
        def _gemv(A, x, y):
            i = cuda.grid(1)
            if i < y.size:
                s = 0.0
                for j in range(x.size):
                    s += A[i, j] * x[j]
                y[i] = s

        def gemv(A, x):
            d_y = cuda.device_array(A.shape[0], dtype=np.float64)
            _gemv.forall(A.shape[0])(A, x, d_y)
            return d_y.copy_to_host()
        """, "correct"),
    # subtly wrong: the last element is never written
    ("axpy", "python-numba", """
        from numba import cuda

        @cuda.jit
        def _axpy(a, x, y):
            i = cuda.grid(1)
            if i < x.shape[0] - 1:
                y[i] = a * x[i] + y[i]

        def saxpy(a, x, y):
            _axpy[(x.shape[0] + 63) // 64, 64](a, x, y)
        """, "wrong_result"),
    # the wrong model: the device arrays are copied to the host and NumPy computes; no kernel runs
    ("axpy", "python-numba", """
        from numba import cuda
        from numba.cuda.cudadrv.devicearray import DeviceNDArray

        def saxpy(a, x: DeviceNDArray, y: DeviceNDArray):
            h = a * x.copy_to_host() + y.copy_to_host()
            y.copy_to_device(h)
        """, "wrong_model"),
    # the LLM's fault: arithmetic on device arrays, which numba's device arrays do not have
    ("axpy", "python-numba", """
        from numba import cuda
        from numba.cuda.cudadrv.devicearray import DeviceNDArray

        def saxpy(a, x: DeviceNDArray, y: DeviceNDArray):
            y[:] = a * x + y
        """, "runtime_error"),
]


def test_numpy_records_end_to_end(catalog, evaluator):
    _evaluate_all(catalog, evaluator, NUMPY_CASES)


def test_numba_records_end_to_end(catalog, evaluator):
    _evaluate_all(catalog, evaluator, NUMBA_CASES)


def test_numba_cuda_device_arrays_end_to_end(catalog, evaluator):
    _evaluate_all(catalog, evaluator, NUMBA_CUDA_CASES)


# ------------------------------------------------------------------------------------------------ GPU, end to end

CUPY_CASES = [
    ("axpy", "python-cupy", CUPY_SAXPY, "correct"),
    ("gemv", "python-cupy", CUPY_RETURNS_DEVICE, "correct"),
    ("axpy", "python-cupy", CUPY_RAWKERNEL, "correct"),
    ("axpy", "python-cupy", """
        import cupy as cp

        _axpy = cp.ElementwiseKernel("float32 a, float32 x", "float32 y", "y = a * x + y", "axpy")

        def saxpy(a, x, y):
            _axpy(cp.float32(a), x, y)
        """, "correct"),
    ("axpy", "python-cupy", CUPY_RAWKERNEL.replace("if (i < n)", "if (i < n - 1)"), "wrong_result"),
    ("gemv", "python-cupy", """
        import cupy as cp

        def gemv(A: cp.ndarray, x: cp.ndarray):
            return A.astype(cp.float32) @ x.astype(cp.float32)  # single precision in a double kernel
        """, "wrong_result"),
    ("axpy", "python-cupy", """
        import cupy as cp
        import numpy as np

        def saxpy(a, x: cp.ndarray, y: cp.ndarray):
            h = a * cp.asnumpy(x) + cp.asnumpy(y)
            y.set(np.ascontiguousarray(h, dtype=np.float32))
        """, "wrong_model"),
    ("axpy", "python-cupy", """
        import cupy as cp

        def saxpy(a, x: cp.ndarray, y: cp.ndarray):
            y[:] = a * x.numpy() + y
        """, "runtime_error"),
]

TRITON_CASES = [
    ("axpy", "python-triton", TRITON_TENSORS, "correct"),
    ("gemv", "python-triton", TRITON_RETURNS_TENSOR, "correct"),
    ("axpy", "python-triton", TRITON_TENSORS.replace("mask = offs < n", "mask = offs < n - 1"), "wrong_result"),
    ("axpy", "python-triton", """
        import torch

        def saxpy(a, x: torch.Tensor, y: torch.Tensor):
            assert x.is_cuda
            y.add_(a * x)
        """, "wrong_model"),
    ("axpy", "python-triton", TRITON_TENSORS.replace("(x, y, a, n, BLOCK=512)", "(x.numpy(), y, a, n, BLOCK=512)"),
     "runtime_error"),
]

PYCUDA_CASES = [
    ("axpy", "python-pycuda", PYCUDA_GPUARRAY, "correct"),
    ("axpy", "python-pycuda", PYCUDA_RETURNS_GPUARRAY, "correct"),
    ("axpy", "python-pycuda", PYCUDA_GPUARRAY.replace("if (i < n)", "if (i < n - 1)"), "wrong_result"),
    ("axpy", "python-pycuda", """
        import pycuda.autoinit
        import pycuda.gpuarray as gpuarray

        def saxpy(a, x: gpuarray.GPUArray, y: gpuarray.GPUArray):
            y.set(a * x.get() + y.get())
        """, "wrong_model"),
    ("axpy", "python-pycuda", PYCUDA_GPUARRAY.replace("x.gpudata, y.gpudata", "x.gpu_data, y.gpu_data"),
     "runtime_error"),
]

needs_gpu = pytest.mark.skipif(nvidia_gpu() is None, reason="needs an NVIDIA GPU")


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("family", ["cupy", "triton", "pycuda"])
def test_gpu_families_end_to_end(catalog, evaluator, family):
    cases = {"cupy": CUPY_CASES, "triton": TRITON_CASES, "pycuda": PYCUDA_CASES}[family]
    _evaluate_all(catalog, evaluator, cases)


def test_every_family_has_eight_cases():
    """At least 8 cases per adapter family (inference, driver text and end-to-end verdicts together)."""
    families = {
        "cupy": [c for c in INFER if c[0].startswith("cupy")] + [c for c in GPU_TEXT if c[1] == "python-cupy"]
        + CUPY_CASES,
        "torch": [c for c in INFER if c[0].startswith("torch")] + [c for c in GPU_TEXT if c[1] == "python-triton"]
        + TRITON_CASES,
        "numba.cuda": [c for c in INFER if c[0].startswith("numba-")] + NUMBA_CUDA_CASES,
        "pycuda": [c for c in INFER if c[0].startswith(("gpuarray", "pycuda"))] + PYCUDA_CASES,
        "numpy records": NUMPY_CASES,
        "numba": NUMBA_CASES + [c for c in INFER if c[0].startswith("numba-njit")]
        + [c for c in INFER if c[0] in ("dict-fields", "tuple-unpacked")],
    }
    small = {k: len(v) for k, v in families.items() if len(v) < 8}
    assert not small, small
