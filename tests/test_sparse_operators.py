"""A matrix parameter used only through a sparse matrix's operators is a SciPy CSR matrix where the kernel is sparse.

The study's Copilot wrote `def spmv_csr_numpy(A, x): return A * x` under a CSR SpMV prompt: for a SciPy CSR matrix
`A * x` is the matrix-vector product. Such an `A` has no CSR field reads (`A.indptr`...), so it was taken for a
dense array and the function called "not the kernel" (no row_ptr, col_idx). What a parameter is comes from how it
is used (`A * x`, `A @ x`, `A.dot(x)`) and from the kernel graded: where the kernel's variants carry CSR arrays
the matrix is made of them; where they carry a dense matrix (GEMV) it stays dense, and `A * x` is then the
element-wise product it is for NumPy (wrong). Cases written as an unseen LLM would write them.
"""

from __future__ import annotations

import pytest

from hpceval.bind import choose_binding
from hpceval.contracts import Verdict

V = Verdict

CASES = [
    ("spmv-star-operator", "spmv", "python-numpy", """
import numpy as np
import scipy.sparse as sp

def spmv_csr_numpy(A, x):
    return A * x
""", V.correct),
    ("spmv-matmul-operator", "spmv", "python-numpy", """
import numpy as np

def spmv(A, x):
    y = A @ x
    return y
""", V.correct),
    ("spmv-dot-method-into-output", "spmv", "python-numpy", """
import numpy as np

def csr_spmv(A, x, y):
    y[:] = A.dot(x)
""", V.correct),
    ("spmv-star-with-scale-is-wrong", "spmv", "python-numpy", """
import numpy as np

def spmv(A, x):
    return 2.0 * (A * x)
""", V.wrong_result),
    ("spmv-transpose-is-wrong", "spmv", "python-numpy", """
import numpy as np

def spmv(A, x):
    return A.T @ x
""", V.wrong_result),
    ("spmv-undefined-helper-stays-incomplete", "spmv", "python-numpy", """
import numpy as np

def spmv(A, x):
    return sparse_matvec(A, x)
""", V.incomplete),
    # the product called through the class (`csr_matrix.dot(A, x)`: the study's Copilot wrote it twice, for CuPy)
    ("spmv-class-dot-call", "spmv", "python-numpy", """
import scipy.sparse

def spmv_csr(A, x):
    return scipy.sparse.csr_matrix.dot(A, x)
""", V.correct),
    ("spmv-imported-class-dot-into-output", "spmv", "python-numpy", """
from scipy.sparse import csr_array

def spmv(A, x, y):
    y[:] = csr_array.dot(A, x)
""", V.correct),
    ("spmv-class-dot-of-the-wrong-operand", "spmv", "python-numpy", """
import scipy.sparse as sp

def spmv(A, x):
    return sp.csr_matrix.dot(A, x) * 2.0
""", V.wrong_result),
    ("gemv-matmul-stays-dense", "gemv", "python-numpy", """
import numpy as np

def gemv(A, x):
    return A @ x
""", V.correct),
    ("gemv-star-is-elementwise", "gemv", "python-numpy", """
import numpy as np

def gemv(A, x):
    return A * x
""", (V.wrong_result, V.runtime_error)),  # an n x n broadcast returned for y: a counted failure, never sparse
    ("spmv-numba-operator-is-not-numba", "spmv", "python-numba", """
import numpy as np

def spmv(A, x):
    return A * x
""", V.wrong_model),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_a_matrix_used_by_its_operators(case, paper_evaluate):
    _, kernel, model, code, verdict = case
    e = paper_evaluate(code, kernel, model)
    assert e.verdict in (verdict if isinstance(verdict, tuple) else (verdict,)), f"{e.verdict}: {e.evidence}"
    assert "cannot compute" not in e.evidence, e.evidence


def test_the_evidence_names_the_sparse_matrix(catalog):
    spec, m = catalog.kernels["spmv"], catalog.models["python-numpy"]
    code = "def spmv(A, x):\n    return A * x\n"
    b = choose_binding(code, spec, catalog.languages[m.language], "paper", m)
    assert b.error is None, b.error
    assert b.mapping["A"] == "A{row_ptr, col_idx, values}", b.mapping
    dense = choose_binding(code, catalog.kernels["gemv"], catalog.languages[m.language], "paper", m)
    assert dense.mapping.get("A") == "A", dense.mapping


@pytest.mark.parametrize("code", [
    "import cupy\n\ndef spmv_csr_cupy(A, x):\n    return cupy.sparse.csr_matrix.dot(A, x)\n",
    "import cupyx.scipy.sparse as csp\n\ndef spmv(A, x):\n    return csp.csr_matrix.dot(A, x)\n",
])
def test_a_class_method_product_binds_the_matrix_on_the_gpu_models(catalog, code):
    """CuPy runs on the device only: the binding is what this machine can show (the matrix carries the CSR arrays)."""
    spec, m = catalog.kernels["spmv"], catalog.models["python-cupy"]
    b = choose_binding(code, spec, catalog.languages[m.language], "paper", m)
    assert b.error is None, b.error
    assert b.mapping["A"] == "A{row_ptr, col_idx, values}", b.mapping
