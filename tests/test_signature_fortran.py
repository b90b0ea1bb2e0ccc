"""Signature inference for Fortran suggestions: declarations (type, kind, intent, extents) drive the mapping.

Fortran is case-insensitive: the mapping reports the suggestion's parameter names in lowercase.
"""

from __future__ import annotations

import textwrap
from concurrent.futures import ThreadPoolExecutor

import pytest

from hpceval.bind import choose_binding
from hpceval.bind.signature import infer_binding

SAXPY_BODY = """
  integer :: i
  do i = 1, n
    y(i) = a * x(i) + y(i)
  end do
"""

CASES = [
    ("canonical", "axpy", f"subroutine saxpy(n, a, x, y)\n  integer, intent(in) :: n\n  real, intent(in) :: a\n  real, intent(in) :: x(n)\n  real, intent(inout) :: y(n)\n{SAXPY_BODY}end subroutine saxpy\n",
     {"n": "n", "a": "a", "x": "x", "y": "y"}, "canonical", None),
    ("reordered-with-dimension-attr", "axpy", f"subroutine saxpy(x, y, a, n)\n  integer, intent(in) :: n\n  real, intent(in) :: a\n  real, dimension(n), intent(in) :: x\n  real, dimension(n), intent(inout) :: y\n{SAXPY_BODY}end subroutine\n",
     {"x": "x", "y": "y", "a": "a", "n": "n"}, "canonical", None),
    ("double-precision", "axpy", f"subroutine daxpy(n, a, x, y)\n  integer :: n\n  double precision :: a, x(n), y(n)\n{SAXPY_BODY}end subroutine\n",
     {"a": "a", "x": "x"}, "canonical", None),
    ("blas-strided", "axpy", "subroutine saxpy(n, a, x, incx, y, incy)\n  integer :: n, incx, incy, i\n  real :: a, x(*), y(*)\n  do i = 1, n\n    y(1+(i-1)*incy) = y(1+(i-1)*incy) + a*x(1+(i-1)*incx)\n  end do\nend subroutine\n",
     {"incx": "incx=1", "incy": "incy=1"}, "strided", None),
    ("assumed-shape-implied-length", "axpy", "subroutine saxpy(a, x, y)\n  real, intent(in) :: a, x(:)\n  real, intent(inout) :: y(:)\n  y = a * x + y\nend subroutine\n",
     {"a": "a", "x": "x", "y": "y"}, "canonical", None),
    ("gemv-kind-parameter", "gemv", "module k\n  integer, parameter :: dp = kind(1.0d0)\ncontains\nsubroutine gemv(m, n, A, x, y)\n  integer, intent(in) :: m, n\n  real(dp), intent(in) :: A(m, n), x(n)\n  real(dp), intent(out) :: y(m)\n  y = matmul(A, x)\nend subroutine\nend module k\n",
     {"m": "m", "n": "n", "a": "A"}, "canonical", None),
    ("gemv-square", "gemv", "subroutine gemv(n, A, x, y)\n  integer, intent(in) :: n\n  real(8), intent(in) :: A(n,n), x(n)\n  real(8), intent(out) :: y(n)\n  y = matmul(A, x)\nend subroutine\n",
     {"n": "m=n"}, "square", None),
    ("gemv-transposed", "gemv", "subroutine gemv(m, n, A, x, y)\n  integer, intent(in) :: m, n\n  real(8), intent(in) :: A(n, m), x(n)\n  real(8), intent(out) :: y(m)\n  integer :: i, j\n  do i = 1, m\n    y(i) = 0\n    do j = 1, n\n      y(i) = y(i) + A(j, i) * x(j)\n    end do\n  end do\nend subroutine\n",
     {"m": "m", "n": "n"}, "transposed(A)", None),
    ("gemv-alpha-beta-lda", "gemv", "subroutine gemv(m, n, alpha, a, lda, x, beta, y)\n  integer :: m, n, lda, i, j\n  real(8) :: alpha, beta, a(lda, *), x(*), y(*)\n  do i = 1, m\n    y(i) = beta * y(i)\n    do j = 1, n\n      y(i) = y(i) + alpha * a(i, j) * x(j)\n    end do\n  end do\nend subroutine\n",
     {"alpha": "alpha", "beta": "beta", "lda": "lda=lead:A"}, "blas", None),
    ("gemv-sizes-by-declaration", "gemv", "subroutine gemv(A, x, y, rows, cols)\n  integer :: rows, cols\n  real(8) :: A(rows, cols), x(cols), y(rows)\n  y = matmul(A, x)\nend subroutine\n",
     {"rows": "m", "cols": "n"}, "canonical", None),
    ("function-result", "gemv", "function gemv(A, x) result(y)\n  real(8), intent(in) :: A(:,:), x(:)\n  real(8) :: y(size(A,1))\n  y = matmul(A, x)\nend function\n",
     {"a": "A", "x": "x", "<return>": "y"}, "canonical", None),
    ("body-only-completion", "axpy", "  integer :: n\n  real :: a, x(n), y(n)\n  integer :: i\n  do i = 1, n\n    y(i) = a*x(i) + y(i)\n  end do\n",
     {"n": "n", "a": "a"}, "canonical", None),
    ("refuse-intent-contradiction", "axpy", "subroutine saxpy(n, a, x, y)\n  integer, intent(in) :: n\n  real, intent(in) :: a, x(n), y(n)\nend subroutine\n",
     None, None, "unbindable"),
    ("refuse-program-only", "axpy", "program saxpy\n  real :: x(10), y(10)\n  y = 2.0 * x + y\nend program\n", None, None, "only a main program"),
    ("refuse-missing-array", "gemv", "subroutine gemv(n, A, y)\n  integer :: n\n  real(8) :: A(n,n), y(n)\nend subroutine\n", None, None, "no parameter for x"),
    ("refuse-complex", "axpy", "subroutine caxpy(n, a, x, y)\n  integer :: n\n  complex :: a, x(n), y(n)\nend subroutine\n", None, None, "complex"),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_fortran_signature(catalog, case):
    _id, kernel, code, mapping, variant, error = case
    b = infer_binding(textwrap.dedent(code), catalog.kernels[kernel], "fortran")
    if error:
        assert b.error is not None, b.evidence
        assert error in b.error, b.error
        return
    assert b.error is None, b.error
    for param, role in mapping.items():
        assert b.mapping.get(param) == role, (param, b.mapping)
    assert b.variant == variant, b.evidence


GLUE_RUNS = [
    ("axpy", "fortran-openmp", "subroutine daxpy(n, a, x, y)\n  integer :: n, i\n  real(8) :: a, x(n), y(n)\n  !$omp parallel do\n  do i = 1, n\n    y(i) = a*x(i) + y(i)\n  end do\nend subroutine\n"),
    ("gemv", "fortran-openmp", "subroutine gemv(m, n, A, x, y)\n  integer, intent(in) :: m, n\n  real(8), intent(in) :: A(n, m), x(n)\n  real(8), intent(out) :: y(m)\n  integer :: i, j\n  !$omp parallel do private(j)\n  do i = 1, m\n    y(i) = 0\n    do j = 1, n\n      y(i) = y(i) + A(j, i) * x(j)\n    end do\n  end do\nend subroutine\n"),
    ("gemv", "fortran-openmp", "subroutine gemv(n, alpha, A, x, beta, y)\n  integer :: n, i, j\n  real(8) :: alpha, beta, A(n,n), x(n), y(n)\n  !$omp parallel do private(j)\n  do i = 1, n\n    y(i) = beta * y(i)\n    do j = 1, n\n      y(i) = y(i) + alpha * A(i, j) * x(j)\n    end do\n  end do\nend subroutine\n"),
]


def test_fortran_glue_runs(catalog, evaluator):
    def run(case):
        kernel, model, code = case
        spec, m = catalog.kernels[kernel], catalog.models[model]
        b = choose_binding(code, spec, catalog.languages[m.language], "paper", m)
        return case, b, evaluator.evaluate(code, spec, m, b)

    with ThreadPoolExecutor(2) as pool:
        for case, b, e in pool.map(run, GLUE_RUNS):
            assert e.verdict.value == "correct", (case[2][:60], b.evidence, e.evidence)
