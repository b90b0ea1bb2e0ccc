"""Python records whose fields the mapping must place one by one (bind.adapt.python.PythonRecords).

A suggestion's own class (a dataclass, a NamedTuple, a plain class with an `__init__`) that carries a kernel's
arrays with sizes of its own: a GEMM of three `Matrix(rows, cols, data)` objects repeats m, n and k, each as its own
matrix's extent; an AXPY of two `Vec(n, buf)` objects has an output record; a CSR class names its fields as it
likes (`ptr`, `idx`, `val`). The record adapter that needs fields named like the kernel's parameters could not
build these (`unbindable`: left out of the score). Such a record is flattened to its fields, as C++ structs and
Fortran derived types are (bind.adapt.common): the fields are mapped by what the function does with them, the
record is built from the mapped arrays (keywords, its constructor, or field by field), and an output field the
function rebinds (`C.data = A.data @ B.data`) is read back from the record after the call.

Written as answers of an LLM nobody tuned for, before the adapter existed: the right ones must be `correct`, the
subtly wrong ones `wrong_result`, a token Numba kernel beside host work `wrong_model`, and a syntax error stays
`build_error`.
"""

from __future__ import annotations

import pytest

from hpceval.contracts import Verdict

V = Verdict

MATRIX = """
from dataclasses import dataclass
import numpy as np

@dataclass
class Matrix:
    rows: int
    cols: int
    data: np.ndarray  # row-major, rows * cols
"""

CASES = [
    ("gemm-three-matrices-in-place", "gemm", "python-numpy", MATRIX + """
def matmul(A: Matrix, B: Matrix, C: Matrix) -> None:
    a = A.data.reshape(A.rows, A.cols)
    b = B.data.reshape(B.rows, B.cols)
    C.data[:] = (a @ b).reshape(-1)
""", V.correct),
    ("gemm-three-matrices-rebinds-the-output-field", "gemm", "python-numpy", MATRIX + """
def matmul(A: Matrix, B: Matrix, C: Matrix) -> None:
    C.data = (A.data.reshape(A.rows, A.cols) @ B.data.reshape(B.rows, B.cols)).ravel()
""", V.correct),
    ("gemm-three-matrices-row-slices", "gemm", "python-numpy", MATRIX + """
def matmul(A: Matrix, B: Matrix, C: Matrix) -> None:
    b = B.data.reshape(B.rows, B.cols)
    for i in range(A.rows):
        C.data[i * C.cols:(i + 1) * C.cols] = A.data[i * A.cols:(i + 1) * A.cols] @ b
""", V.correct),
    ("gemm-three-matrices-row-slices-misses-the-last-row", "gemm", "python-numpy", MATRIX + """
def matmul(A: Matrix, B: Matrix, C: Matrix) -> None:
    b = B.data.reshape(B.rows, B.cols)
    for i in range(A.rows - 1):
        C.data[i * C.cols:(i + 1) * C.cols] = A.data[i * A.cols:(i + 1) * A.cols] @ b
""", V.wrong_result),
    ("gemm-three-matrices-python-loops-are-no-numpy", "gemm", "python-numpy", MATRIX + """
def matmul(A: Matrix, B: Matrix, C: Matrix) -> None:
    for i in range(A.rows):
        for j in range(B.cols):
            s = 0.0
            for p in range(A.cols):
                s += A.data[i * A.cols + p] * B.data[p * B.cols + j]
            C.data[i * C.cols + j] = s
""", V.wrong_model),
    ("gemm-returns-a-new-matrix", "gemm", "python-numpy", MATRIX + """
def matmul(A: Matrix, B: Matrix) -> Matrix:
    a = np.asarray(A.data).reshape(A.rows, A.cols)
    b = np.asarray(B.data).reshape(B.rows, B.cols)
    return Matrix(A.rows, B.cols, (a @ b).ravel())
""", V.correct),
    ("gemm-returns-a-new-matrix-transposed", "gemm", "python-numpy", MATRIX + """
def matmul(A: Matrix, B: Matrix) -> Matrix:
    a = np.asarray(A.data).reshape(A.rows, A.cols)
    b = np.asarray(B.data).reshape(B.rows, B.cols)
    return Matrix(B.cols, A.rows, (a @ b).T.ravel())
""", V.wrong_result),
    ("axpy-returns-a-vec-record", "axpy", "python-numpy", """
from typing import NamedTuple
import numpy as np

class Vec(NamedTuple):
    n: int
    buf: np.ndarray

def axpy(a: float, x: Vec, y: Vec) -> Vec:
    return Vec(x.n, a * x.buf + y.buf)
""", V.correct),
    ("axpy-two-vec-records", "axpy", "python-numpy", """
from dataclasses import dataclass
import numpy as np

@dataclass
class Vec:
    n: int
    buf: np.ndarray

def axpy(a, x: Vec, y: Vec):
    y.buf[:] = a * x.buf + y.buf
""", V.correct),
    ("gemv-plain-class-with-renamed-init", "gemv", "python-numpy", """
import numpy as np

class Dense:
    def __init__(self, n_rows, n_cols, values):
        self.nr = n_rows
        self.nc = n_cols
        self.vals = np.asarray(values)

class Vector:
    def __init__(self, length, entries):
        self.length = length
        self.entries = entries

def dense_matvec(M: Dense, v: Vector, out: Vector) -> None:
    out.entries[:] = M.vals.reshape(M.nr, M.nc) @ v.entries
""", V.correct),
    ("spmv-own-csr-names", "spmv", "python-numpy", """
from typing import NamedTuple
import numpy as np

class Csr(NamedTuple):
    nrows: int
    ptr: np.ndarray
    idx: np.ndarray
    val: np.ndarray

def csr_matvec(A: Csr, x: np.ndarray, y: np.ndarray) -> None:
    for r in range(A.nrows):
        lo, hi = A.ptr[r], A.ptr[r + 1]
        y[r] = A.val[lo:hi] @ x[A.idx[lo:hi]]
""", V.correct),
    ("spmv-own-csr-names-skips-empty-rows", "spmv", "python-numpy", """
from typing import NamedTuple
import numpy as np

class Csr(NamedTuple):
    nrows: int
    ptr: np.ndarray
    idx: np.ndarray
    val: np.ndarray

def csr_matvec(A: Csr, x: np.ndarray, y: np.ndarray) -> None:
    for r in range(A.nrows):
        lo, hi = A.ptr[r], A.ptr[r + 1]
        if hi > lo:
            y[r] = A.val[lo:hi] @ x[A.idx[lo:hi]]
""", V.wrong_result),
    ("jacobi-grid-records", "jacobi", "python-numpy", """
from dataclasses import dataclass
import numpy as np

@dataclass
class Grid:
    nx: int
    ny: int
    nz: int
    cells: np.ndarray

def sweep(src: Grid, dst: Grid) -> None:
    u = src.cells.reshape(src.nx, src.ny, src.nz)
    v = dst.cells.reshape(dst.nx, dst.ny, dst.nz)
    v[1:-1, 1:-1, 1:-1] = (u[:-2, 1:-1, 1:-1] + u[2:, 1:-1, 1:-1] + u[1:-1, :-2, 1:-1] + u[1:-1, 2:, 1:-1]
                           + u[1:-1, 1:-1, :-2] + u[1:-1, 1:-1, 2:]) / 6.0
""", V.correct),
    ("gemm-numba-wrapper-unpacks-records", "gemm", "python-numba", MATRIX + """
from numba import njit, prange

@njit(parallel=True)
def _kernel(m, n, k, a, b, c):
    for i in prange(m):
        for j in range(n):
            s = 0.0
            for p in range(k):
                s += a[i * k + p] * b[p * n + j]
            c[i * n + j] = s

def matmul(A: Matrix, B: Matrix, C: Matrix) -> None:
    _kernel(A.rows, B.cols, A.cols, A.data, B.data, C.data)
""", V.correct),
    ("gemm-numba-token-kernel-beside-numpy", "gemm", "python-numba", MATRIX + """
from numba import njit, prange

@njit(parallel=True)
def _touch(c):
    for i in prange(1):
        c[i] = c[i]

def matmul(A: Matrix, B: Matrix, C: Matrix) -> None:
    C.data[:] = (A.data.reshape(A.rows, A.cols) @ B.data.reshape(B.rows, B.cols)).ravel()
    _touch(C.data)
""", V.wrong_model),
    ("gemm-three-matrices-syntax-error", "gemm", "python-numpy", MATRIX + """
def matmul(A: Matrix, B: Matrix, C: Matrix) -> None:
    for i in range(A.rows)
        for j in range(B.cols):
            C.data[i * C.cols + j] = A.data[i * A.cols:(i + 1) * A.cols] @ B.data[j::B.cols]
""", V.build_error),
]


@pytest.mark.parametrize("name,kernel,model,code,verdict", CASES, ids=[c[0] for c in CASES])
def test_python_record_fields(name, kernel, model, code, verdict, paper_verdict):
    e = paper_verdict(code, kernel, model, verdict)
    if verdict == V.correct and name.startswith("gemm-three"):
        assert "probe" in e.evidence or e.variant == "canonical", e.evidence
