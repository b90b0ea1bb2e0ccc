"""CG free-form signatures (no sample data: written as an unseen LLM would): a dense matrix (the study's prompt
names no storage), x0/tol/max_iter with or without defaults, x returned instead of updated, refusals."""

from __future__ import annotations

import pytest

from variant_harness import bind_and_grade

PY_BODY = """
    r = b - A @ x; p = r.copy(); rs = r @ r
    for _ in range(max_iter):
        Ap = A @ p; a = rs / (p @ Ap); x += a * p; r -= a * Ap; rn = r @ r
        if np.sqrt(rn) <= tol * np.linalg.norm(b):
            break
        p = r + rn / rs * p; rs = rn
    return x
"""
CASES = [
    ("py-dense-return", "python-numpy", "import numpy as np\ndef conjugate_gradient(A, b, tol=1e-10, max_iter=1000):\n    x = np.zeros_like(b)" + PY_BODY, "dense", "correct"),
    ("py-dense-x0", "python-numpy", "import numpy as np\ndef cg(A, b, x0=None, tol=1e-10, max_iter=1000):\n    x = np.zeros_like(b) if x0 is None else x0.copy()" + PY_BODY, "dense+x0", "correct"),
    ("py-dense-no-iterations", "python-numpy", "import numpy as np\ndef cg(A, b, x0, tol=1e-10, max_iter=1000):\n    return x0.copy()\n", "dense+x0", "wrong_result"),
    ("py-no-matrix", "python-numpy", "import numpy as np\ndef cg(b, tol):\n    return b\n", "no parameter", "unbindable"),
    ("cpp-dense", "cpp-openmp", """
     #include <vector>
     #include <cmath>
     void cg(int n, const double *A, const double *b, double *x, double tol, int max_iter) {
       std::vector<double> r(n), p(n), Ap(n);
       #pragma omp parallel for
       for (int i = 0; i < n; i++) { double s = 0; for (int j = 0; j < n; j++) s += A[i*n+j] * x[j]; r[i] = b[i] - s; p[i] = r[i]; }
       double rs = 0, bn = 0; for (int i = 0; i < n; i++) { rs += r[i]*r[i]; bn += b[i]*b[i]; }
       for (int it = 0; it < max_iter && std::sqrt(rs) > tol * std::sqrt(bn); it++) {
         #pragma omp parallel for
         for (int i = 0; i < n; i++) { double s = 0; for (int j = 0; j < n; j++) s += A[i*n+j] * p[j]; Ap[i] = s; }
         double pAp = 0; for (int i = 0; i < n; i++) pAp += p[i]*Ap[i];
         double a = rs / pAp, rn = 0;
         #pragma omp parallel for reduction(+:rn)
         for (int i = 0; i < n; i++) { x[i] += a*p[i]; r[i] -= a*Ap[i]; rn += r[i]*r[i]; }
         for (int i = 0; i < n; i++) p[i] = r[i] + rn/rs*p[i];
         rs = rn;
       }
     }
     """, "dense", "correct"),
]


@pytest.mark.parametrize("lang", ["cpp", "python"])
def test_cg_signatures(catalog, evaluator, lang):
    prefix = {"cpp": "cpp-", "fortran": "f-", "python": "py-"}[lang]
    assert bind_and_grade(catalog, evaluator, "cg", [c for c in CASES if c[0].startswith(prefix)]) == []
