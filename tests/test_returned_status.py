"""A function that writes its output in place and returns a status (an iteration count, a residual norm, a flag)
is graded on what it wrote: the status is never read as the output.

The Python driver took any returned value of a canonically named function as its one output: a CG that updates x
in place and returns the number of iterations had x overwritten with that count (`wrong_result`: "the call returned
1 elements (shape ()) for x") on right code, and on a one-unknown system the count would even have fit. A returned
0-d value (an int, a bool, a float) is a status, not an array output; the array written in place stays. Written as
unseen answers before the change, for NumPy and Numba: right code returning a count, a norm or a flag; a function
that returns the solution array instead (still graded on it); code that returns a count but never writes x (still
wrong); and one that must stay `build_error`.
"""

from __future__ import annotations

import pytest

from hpceval.contracts import Verdict

V = Verdict

CG_NUMPY_COUNT = """
import numpy as np

def cg(n, nnz, row_ptr, col_idx, values, b, x, tol, max_iter):
    rows = np.repeat(np.arange(n), np.diff(row_ptr))
    def A(v):
        return np.bincount(rows, weights=values * v[col_idx], minlength=n)
    r = b - A(x)
    p = r.copy()
    rs = r @ r
    bn = np.linalg.norm(b)
    k = 0
    while k < max_iter and np.sqrt(rs) > tol * bn:
        ap = A(p)
        a = rs / (p @ ap)
        x += a * p
        r -= a * ap
        rs_new = r @ r
        p = r + (rs_new / rs) * p
        rs = rs_new
        k += 1
    return k
"""

CG_NUMPY_NORM = CG_NUMPY_COUNT.replace("    return k\n", "    return float(np.sqrt(rs)) / bn if bn else 0.0\n")
CG_NUMPY_FLAG = CG_NUMPY_COUNT.replace("    return k\n", "    return bool(np.sqrt(rs) <= tol * bn)\n")
CG_NUMPY_RETURNS_X = CG_NUMPY_COUNT.replace("    return k\n", "    return x\n")
CG_NUMPY_NEVER_WRITES_X = CG_NUMPY_COUNT.replace("    r = b - A(x)", "    x = x.copy()\n    r = b - A(x)")
CG_NUMPY_BROKEN = CG_NUMPY_COUNT.replace("a = rs / (p @ ap)", "a = rs / (p @ ap")

CG_NUMBA_COUNT = """
import numpy as np
from numba import njit, prange

@njit(parallel=True, cache=False)
def _spmv(n, row_ptr, col_idx, values, v, out):
    for i in prange(n):
        s = 0.0
        for p in range(row_ptr[i], row_ptr[i + 1]):
            s += values[p] * v[col_idx[p]]
        out[i] = s

def cg(n, nnz, row_ptr, col_idx, values, b, x, tol, max_iter):
    ap = np.empty(n)
    _spmv(n, row_ptr, col_idx, values, x, ap)
    r = b - ap
    p = r.copy()
    rs = float(r @ r)
    bn = float(np.sqrt(b @ b))
    it = 0
    for it in range(max_iter):
        if np.sqrt(rs) <= tol * bn:
            break
        _spmv(n, row_ptr, col_idx, values, p, ap)
        a = rs / float(p @ ap)
        x += a * p
        r -= a * ap
        rs_new = float(r @ r)
        p = r + (rs_new / rs) * p
        rs = rs_new
    return it
"""

CASES = [
    ("numpy-returns-the-iteration-count", "python-numpy", CG_NUMPY_COUNT, V.correct),
    ("numpy-returns-the-relative-residual", "python-numpy", CG_NUMPY_NORM, V.correct),
    ("numpy-returns-a-converged-flag", "python-numpy", CG_NUMPY_FLAG, V.correct),
    ("numpy-returns-x-itself", "python-numpy", CG_NUMPY_RETURNS_X, V.correct),
    ("numpy-count-but-x-never-written", "python-numpy", CG_NUMPY_NEVER_WRITES_X, V.wrong_result),
    ("numpy-broken-stays-build-error", "python-numpy", CG_NUMPY_BROKEN, V.build_error),
    ("numba-returns-the-iteration-count", "python-numba", CG_NUMBA_COUNT, V.correct),
    ("numba-count-but-x-never-written", "python-numba",
     CG_NUMBA_COUNT.replace("    ap = np.empty(n)", "    x = x.copy()\n    ap = np.empty(n)"), V.wrong_result),
]


@pytest.mark.parametrize("name,model,code,verdict", CASES, ids=[c[0] for c in CASES])
def test_a_returned_status_is_not_the_output(name, model, code, verdict, paper_verdict):
    paper_verdict(code, "cg", model, verdict)
