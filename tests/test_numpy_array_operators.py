"""NumPy model use: array operators and methods on the arrays the harness passes are NumPy work.

The study's `spmv/python-numpy/paper/keyword` r6 and r8 are `def spmv_csr_numpy(A, x): return A * x`: the adapter
passes `A` as a SciPy CSR matrix (built on NumPy arrays), and `A * x` is SciPy's vectorised sparse product. The
usage check only looked for the words `numpy`/`np.`/`.dot(`/`@`, so the answer was `wrong_model`, while the same
product spelled `A @ x` passed. An operator (`*`, `+`, `@`, ...) or an array method (`.dot`, `.multiply`, `.sum`,
`.T`) applied to a parameter the adapter made a NumPy array or SciPy sparse matrix is a NumPy construct; a
pure-Python loop over elements is not (and `analysis.pyloops` still catches a loop over NumPy). Cases written as
an unseen LLM would write them.
"""

from __future__ import annotations

import pytest

from hpceval.contracts import Verdict

V = Verdict

CASES = [
    ("spmv-sparse-times-vector", "spmv", "def spmv_csr_numpy(A, x):\n    return A * x\n", V.correct),
    ("spmv-sparse-dot-method", "spmv", "def spmv(A, x):\n    y = A.dot(x)\n    return y\n", V.correct),
    ("axpy-operators-in-place-no-import", "axpy", "def axpy(a, x, y):\n    y += a * x\n", V.correct),
    ("gemv-transpose-twice-operator", "gemv", "def gemv(A, x, y):\n    y[:] = (A.T).T.dot(x)\n", V.correct),
    ("axpy-operators-subtly-wrong-sign", "axpy", "def axpy(a, x, y):\n    y -= a * x\n", V.wrong_result),
    ("spmv-sparse-transposed-product", "spmv", "def spmv_csr(A, x):\n    return A.T * x\n", V.wrong_result),
    ("axpy-pure-python-loop", "axpy",
     "def axpy(a, x, y):\n    for i in range(len(x)):\n        y[i] = a * x[i] + y[i]\n", V.wrong_model),
    ("axpy-python-list-comprehension", "axpy",
     "def axpy(a, x, y):\n    y[:] = [a * xi + yi for xi, yi in zip(x, y)]\n", V.wrong_model),
    ("gemv-scalar-times-scalar-only", "gemv",
     "def gemv(A, x, y):\n    for i in range(len(y)):\n        s = 0.0\n"
     "        for j in range(len(x)):\n            s = s + A[i][j] * x[j]\n        y[i] = s\n", V.wrong_model),
    ("spmv-product-of-an-undefined-helper", "spmv", "def spmv(A, x):\n    return sparse_mul(A, x)\n", V.incomplete),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_array_operators_are_numpy_work(case, paper_verdict):
    _, kernel, code, verdict = case
    paper_verdict(code, kernel, "python-numpy", verdict)


def test_operators_on_scalars_or_elements_are_not_array_work():
    from hpceval.analysis.array_ops import array_operation

    loop = "def f(a, x, y):\n    for i in range(len(x)):\n        y[i] = a * x[i] + y[i]\n"
    assert array_operation(loop, "f", {"x", "y"}) is None
    assert array_operation("def f(a, x, y):\n    y += a * x\n", "f", {"x", "y"}) == "a * x"
    assert array_operation("def f(A, x):\n    return A.dot(x)\n", "f", {"A", "x"}) == "A.dot(x)"
    assert array_operation("def f(a, b):\n    return a * b\n", "f", set()) is None  # no array parameter
