"""Signature inference for Python suggestions: untyped parameters, so names, subscripts and returns decide."""

from __future__ import annotations

import textwrap
from concurrent.futures import ThreadPoolExecutor

import pytest

from hpceval.bind import choose_binding
from hpceval.bind.signature import infer_binding

CASES = [
    ("canonical", "axpy", "def saxpy(n, a, x, y):\n    for i in range(n):\n        y[i] += a * x[i]\n",
     {"n": "n", "a": "a", "x": "x", "y": "y"}, "canonical", None),
    ("returns-new-array", "axpy", "import numpy as np\ndef saxpy(a, x, y):\n    return a * x + y\n",
     {"a": "a", "x": "x", "y": "y", "<return>": "y"}, "canonical", None),
    ("alpha-name", "axpy", "def axpy(alpha, x, y):\n    y += alpha * x\n",
     {"alpha": "a", "x": "x", "y": "y"}, "canonical", None),
    ("tuple-return-with-time", "axpy", "import time\ndef saxpy(a, x, y):\n    t0 = time.time()\n    z = a * x + y\n    return z, time.time() - t0\n",
     {"<return>": "y"}, "canonical", None),
    ("gemv-returns", "gemv", "import numpy as np\ndef gemv_npy(A, x):\n    return np.dot(A, x)\n",
     {"A": "A", "x": "x", "<return>": "y"}, "canonical", None),
    ("gemv-accumulate", "gemv", "def gemv_numba(A, x, y):\n    for i in range(A.shape[0]):\n        for j in range(A.shape[1]):\n            y[i] += A[i, j] * x[j]\n    return y\n",
     {"A": "A", "x": "x", "y": "y"}, "accumulate", None),
    ("gemv-alpha-beta", "gemv", "def gemv(A, x, y, alpha, beta):\n    return alpha * A.dot(x) + beta * y\n",
     {"alpha": "alpha", "beta": "beta"}, "alpha_beta", None),
    ("gemv-letters", "gemv", "def gemv_numba(a, b, c, m, n):\n    for i in range(m):\n        c[i] = 0\n        for j in range(n):\n            c[i] += a[i, j] * b[j]\n",
     {"a": "A", "b": "x", "c": "y", "m": "m", "n": "n"}, "canonical", None),
    ("gemv-flat", "gemv", "def gemv(m, n, A, x, y):\n    for i in range(m):\n        s = 0.0\n        for j in range(n):\n            s += A[i * n + j] * x[j]\n        y[i] = s\n",
     {"A": "A"}, "canonical", None),
    ("gemv-size-names-swapped", "gemv", "def gemv(A, x, y, n, m):\n    for i in range(n):\n        y[i] = 0.0\n        for j in range(m):\n            y[i] += A[i, j] * x[j]\n",
     {"n": "m", "m": "n"}, "canonical", None),
    ("default-parameter-left-alone", "axpy", "def saxpy(a, x, y, inplace=True):\n    y += a * x\n",
     {"inplace": "default"}, "canonical", None),
    ("keyword-stray-def-line", "axpy", "# saxpy numpy\ndef\n# computes y = a*x + y\ndef saxpy(a, x, y):\n    y[:] = a * x + y\n",
     {"a": "a"}, "canonical", None),
    ("body-only-completion", "axpy", "    for i in range(n):\n        y[i] = a * x[i] + y[i]\n",
     {"n": "n", "a": "a", "x": "x", "y": "y"}, "canonical", None),
    ("refuse-no-parameters", "axpy", "import numpy as np\ndef saxpy():\n    x = np.ones(10)\n    y = np.ones(10)\n    return 2 * x + y\n", None, None, "takes no parameters"),
    ("refuse-script", "axpy", "import numpy as np\nx = np.random.rand(100)\ny = np.random.rand(100)\ny = 0.5 * x + y\nprint(y)\n", None, None, "no function definition"),
    ("refuse-extra-parameter", "axpy", "def saxpy(a, x, y, stream):\n    y += a * x\n", None, None, "stream"),
    ("refuse-missing-scalar", "axpy", "def saxpy(x, y):\n    y += 2.0 * x\n", None, None, "no parameter for a"),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_python_signature(catalog, case):
    _id, kernel, code, mapping, variant, error = case
    b = infer_binding(textwrap.dedent(code) if not _id.startswith("body") else code, catalog.kernels[kernel], "python")
    if error:
        assert b.error is not None, b.evidence
        assert error in b.error, b.error
        return
    assert b.error is None, b.error
    for param, role in mapping.items():
        assert b.mapping.get(param) == role, (param, b.mapping)
    assert b.variant == variant, b.evidence


GLUE_RUNS = [
    ("axpy", "python-numpy", "import numpy as np\ndef saxpy(a, x, y):\n    return np.add(a * x, y)\n"),
    ("axpy", "python-numpy", "import numpy as np\nimport time\ndef saxpy(a, x, y):\n    t0 = time.time()\n    z = a * x + y\n    return z, time.time() - t0\n"),
    ("gemv", "python-numba", "import numba\n@numba.njit(parallel=True)\ndef gemv(A, x, y, n, m):\n    for i in numba.prange(n):\n        y[i] = 0.0\n        for j in range(m):\n            y[i] += A[i, j] * x[j]\n"),
    ("gemv", "python-numpy", "def gemv(A, x, y, alpha, beta):\n    return alpha * np.dot(A, x) + beta * y\n"),
    ("gemv", "python-numba", "from numba import njit, prange\n@njit(parallel=True)\ndef gemv(m, n, A, x, y):\n    for i in prange(m):\n        s = 0.0\n        for j in range(n):\n            s += A[i * n + j] * x[j]\n        y[i] = s\n"),
]


# alpha/beta variants are graded at alpha = 2 (result halved) and beta = 0 with y = 1, so these are caught:
GLUE_WRONG = [
    ("gemv", "python-numpy", "import numpy as np\ndef gemv(m, n, alpha, a, x, y):\n    for i in range(m):\n"
     "        y[i] = alpha * y[i]\n        y[i] += np.dot(a[i, :], x)\n"),  # alpha scales y, not A*x
    ("gemv", "python-numpy", "import numpy as np\ndef gemv(A, x, y, alpha, beta):\n    y += alpha * np.dot(A, x)\n"),  # beta ignored
]


def test_python_glue_runs(catalog, evaluator):
    def run(case):
        kernel, model, code = case
        spec, m = catalog.kernels[kernel], catalog.models[model]
        b = choose_binding(code, spec, catalog.languages[m.language], "paper", m)
        return case, b, evaluator.evaluate(code, spec, m, b)

    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(run, GLUE_RUNS + GLUE_WRONG))
    for case, b, e in results[:len(GLUE_RUNS)]:
        assert e.verdict.value == "correct", (case[2][:60], b.evidence, e.evidence)
    for case, b, e in results[len(GLUE_RUNS):]:
        assert b.variant.startswith("alpha_beta") and e.verdict.value == "wrong_result", (case[2][:60], b.evidence, e.evidence)
