"""A call of a module attribute that does not exist (`numba.axpy`, `np.spmv`) is a helper nobody defines.

Llama-2's `axpy/python-numba/paper/none` r3 is `return numba.axpy(a, b, n)`: Numba has no `axpy`. A call of a
helper nobody defines is `incomplete` by the rules, but only bare names were read (`saxpy(...)`), so a helper
spelled as an attribute of an imported module was not, and the answer left the score as `unbindable`. The import
of the suggestion in the sandbox (checks.builds_alone) now also asks each module the code calls through whether it
has the attribute, so the claim is the interpreter's, never a list of names guessed. Attributes that exist
(`np.add`, `numba.prange`, `sp.csr_matrix`) are graded as usual; a bare helper nobody defines stays `incomplete`.
Cases as an unseen LLM would write them, in the Python models (NumPy, Numba).
"""

from __future__ import annotations

import pytest

from hpceval.contracts import Verdict

V = Verdict

CASES = [
    ("numba-llama2-shape-unbound", "axpy", "python-numba", """import numba

@numba.jit
def axpy_numba(a, b, n):
    return numba.axpy(a, b, n)
""", V.incomplete),
    ("numba-bound-invented-saxpy", "axpy", "python-numba", """import numba
import numpy as np

@numba.njit
def axpy(a, x, y):
    y[:] = numba.saxpy(a, x, y)
""", V.incomplete),
    ("numpy-invented-spmv", "spmv", "python-numpy", """import numpy as np

def spmv(row_ptr, col_idx, values, x):
    return np.spmv(row_ptr, col_idx, values, x)
""", V.incomplete),
    ("numpy-submodule-alias-invented-gemv", "gemv", "python-numpy", """import numpy as np
import numpy.linalg as la

def gemv(A, x, y):
    y[:] = la.gemv(A, x)
""", V.incomplete),
    ("numpy-ufunc-with-out-right", "axpy", "python-numpy", """import numpy as np

def axpy(a, x, y):
    np.add(y, np.multiply(a, x), out=y)
""", V.correct),
    ("numba-prange-right", "axpy", "python-numba", """import numba
import numpy as np

@numba.njit(parallel=True)
def axpy(a, x, y):
    for i in numba.prange(x.shape[0]):
        y[i] += a * x[i]
""", V.correct),
    ("numpy-existing-function-wrong-transpose", "gemv", "python-numpy", """import numpy as np

def gemv(A, x, y):
    y[:] = np.dot(A.T[: len(y), : len(x)], x) if A.shape[0] == A.shape[1] else np.dot(A, x) * 2
""", V.wrong_result),
    ("numba-prompt-numpy-only", "axpy", "python-numba", """import numpy as np

def axpy(a, x, y):
    y[:] = np.add(a * x, y)
""", V.wrong_model),
    ("numpy-bare-helper-nobody-defines-beside-real-attributes", "axpy", "python-numpy", """import numpy as np

def axpy(a, x, y):
    y[:] = np.asarray(fused_axpy(a, np.ravel(x), y))
""", V.incomplete),
    ("scipy-sparse-module-alias-right", "spmv", "python-numpy", """import numpy as np
import scipy.sparse as sp

def spmv(n, row_ptr, col_idx, values, x):
    return sp.csr_matrix((values, col_idx, row_ptr), shape=(n, x.shape[0])) @ x
""", V.correct),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_missing_module_attributes_are_missing_helpers(case, paper_verdict):
    _, kernel, model, code, verdict = case
    e = paper_verdict(code, kernel, model, verdict)
    if verdict == V.incomplete:
        assert "never defines" in e.evidence, e.evidence
