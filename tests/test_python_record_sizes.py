"""Python records of one array and its sizes, and returned arrays of the wrong size (bind.adapt.python, driver).

1. A suggestion's own class that holds a matrix and its sizes (`@dataclass class Matrix: rows; cols; data`, a
   NamedTuple, a plain class) was bound as if the parameter were the array itself: the driver handed a NumPy array,
   `A.data` was its memoryview, and right code was `runtime_error`. The record adapter took only records of at
   least two arrays, each field named like a kernel parameter. A class of the suggestion's own with sizes named
   like the kernel's sizes and one further field now carries, in that field, the input array whose shape is those
   sizes (the only one: two candidates and nothing is bound, as before).
2. A returned array with another number of elements than the output (`np.bincount` without `minlength` drops
   trailing empty rows) made the driver's own conversion raise, so the suggestion was `runtime_error` with a
   traceback in the driver. The driver now says what came back and the output is NaN: `wrong_result`, as the C++
   driver already did for a resized std::vector.
"""

from __future__ import annotations

import pytest

from hpceval.contracts import Verdict

V = Verdict

CASES = [
    ("dataclass-matrix-gemv", "gemv", """
from dataclasses import dataclass
import numpy as np

@dataclass
class Matrix:
    rows: int
    cols: int
    data: np.ndarray  # row-major, rows*cols

def gemv(A: Matrix, x: np.ndarray) -> np.ndarray:
    return A.data.reshape(A.rows, A.cols) @ x
""", V.correct),
    ("namedtuple-matrix-gemv", "gemv", """
from typing import NamedTuple
import numpy as np

class DenseMatrix(NamedTuple):
    nrows: int
    ncols: int
    values: np.ndarray

def matvec(M: DenseMatrix, v):
    out = np.empty(M.nrows)
    np.dot(np.asarray(M.values).reshape(M.nrows, M.ncols), v, out=out)
    return out
""", V.correct),
    ("dataclass-matrix-gemv-reads-it-transposed", "gemv", """
from dataclasses import dataclass
import numpy as np

@dataclass
class Matrix:
    rows: int
    cols: int
    data: np.ndarray

def gemv(A: Matrix, x: np.ndarray) -> np.ndarray:
    return A.data.reshape(-1)[: A.rows * A.cols].reshape(A.cols, A.rows).T @ x
""", V.wrong_result),
    ("plain-class-matrix-gemv", "gemv", """
import numpy as np

class Matrix:
    def __init__(self, rows, cols, entries):
        self.rows = rows
        self.cols = cols
        self.entries = entries

def gemv(A: Matrix, x):
    y = np.zeros(A.rows)
    E = np.asarray(A.entries).reshape(A.rows, A.cols)
    for i in range(A.rows):
        y[i] = E[i, :] @ x
    return y
""", V.correct),
    ("bincount-without-minlength", "spmv", """
import numpy as np

def spmv(csr, x):
    indptr, indices, data = csr["indptr"], csr["indices"], csr["data"]
    n = len(indptr) - 1
    row_of = np.repeat(np.arange(n), np.diff(indptr))
    return np.bincount(row_of, weights=data * x[indices])
""", V.wrong_result),
    ("returns-a-scalar-for-a-vector", "gemv", """
import numpy as np

def gemv(A, x):
    return float(np.sum(A @ x))
""", V.wrong_result),
    ("returns-a-column", "gemv", """
import numpy as np

def gemv(A, x):
    return (A @ x).reshape(-1, 1)
""", V.correct),
    ("own-exception-on-a-mismatch-stays-runtime-error", "gemv", """
import numpy as np

def gemv(A, x):
    return A @ x[:-1]
""", V.runtime_error),
]


@pytest.mark.parametrize("name,kernel,code,verdict", CASES, ids=[c[0] for c in CASES])
def test_python_records_and_returned_sizes(name, kernel, code, verdict, paper_verdict):
    e = paper_verdict(code, kernel, "python-numpy", verdict)
    if name == "bincount-without-minlength":
        assert "returned" in e.evidence and "elements" in e.evidence, e.evidence


def test_two_arrays_of_one_shape_stay_unbound(catalog):
    """A class with sizes and one array where two inputs have that shape (AXPY's x and y) names none of them."""
    from hpceval.bind.adapt.python import infer_parameter_types
    from hpceval.bind.roles import kernel_roles

    code = """
from dataclasses import dataclass
import numpy as np

@dataclass
class Vec:
    n: int
    buf: np.ndarray

def axpy(a, x: Vec, y: Vec):
    y.buf[:] = a * x.buf + y.buf
"""
    types = infer_parameter_types(code, "axpy")
    kr = kernel_roles(catalog.kernels["axpy"])
    assert types["x"].role(kr, "x") is None
