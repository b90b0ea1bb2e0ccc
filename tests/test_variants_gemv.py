"""GEMV free-form signatures (written as an unseen LLM would) through signature inference and the real evaluator:
size names that the loops contradict (`n` used as the row count binds to m), square, alpha/beta at random values,
BLAS lda, accumulate with a random y on entry, refusals and wrong ones that must fail."""

from __future__ import annotations

import pytest

from variant_harness import GRADED, LANGS, check

ROWS = "#pragma omp parallel for\nfor (int i = 0; i < m; i++) { double s = 0; for (int j = 0; j < n; j++) s += A[i*n+j] * x[j]; "


def f(name: str, sig: str, decl: str, inner: str) -> str:
    return (f"subroutine {name}({sig})\n{decl}\n integer :: i, j\n!$omp parallel do private(j)\n do i = 1, m\n"
            f"  y(i) = 0.0d0\n  do j = 1, n\n   {inner}\n  end do\n end do\nend subroutine\n")


# a flat matrix subscript whose stride names an axis: the other axis is contradicted by the suggestion's own use
FLAT_F = ("subroutine gemv(m, n, a, x, y)\n integer :: m, n, i, j\n real(8) :: a(*), x(n), y(m)\n!$omp parallel do private(j)\n"
          " do i = 1, m\n  y(i) = 0.0d0\n  do j = 1, n\n   y(i) = y(i) + a((i-1)*STRIDE + j) * x(j)\n  end do\n end do\n"
          "end subroutine\n")
FLAT_PY = ("import numba\n@numba.njit(parallel=True)\ndef gemv(m, n, A, x, y):\n    for i in numba.prange(m):\n        s = 0.0\n"
           "        for j in range(n):\n            s += A[SUB] * x[j]\n        y[i] = s\n")

CASES = [
    ("cpp-canonical", "cpp-openmp", "void gemv(int m, int n, const double *A, const double *x, double *y) {\n" + ROWS + "y[i] = s; } }", "canonical", "correct"),
    ("cpp-n-is-rows", "cpp-openmp", "void matvec(int n, int m, const double *A, const double *x, double *y) {\n#pragma omp parallel for\nfor (int i = 0; i < n; i++) { double s = 0; for (int j = 0; j < m; j++) s += A[i*m+j] * x[j]; y[i] = s; } }", "canonical", "correct"),
    ("cpp-rows-cols", "cpp-openmp", "void gemv(const double *A, const double *x, double *y, int rows, int cols) {\n#pragma omp parallel for\nfor (int r = 0; r < rows; r++) { double s = 0; for (int c = 0; c < cols; c++) s += A[r*cols+c] * x[c]; y[r] = s; } }", "canonical", None),
    ("cpp-square", "cpp-openmp", "void gemv(int N, const double *A, const double *x, double *y) {\n#pragma omp parallel for\nfor (int i = 0; i < N; i++) { double s = 0; for (int j = 0; j < N; j++) s += A[i*N+j] * x[j]; y[i] = s; } }", "square", None),
    ("cpp-alpha-beta", "cpp-openmp", "void dgemv(int m, int n, double alpha, const double *A, const double *x, double beta, double *y) {\n" + ROWS + "y[i] = alpha * s + beta * y[i]; } }", "alpha_beta", "correct"),
    ("cpp-ignores-beta", "cpp-openmp", "void dgemv(int m, int n, double alpha, const double *A, const double *x, double beta, double *y) {\n" + ROWS + "y[i] = alpha * s; } }", "alpha_beta", "wrong_result"),
    ("cpp-column-major-read", "cpp-openmp", "void gemv(int m, int n, const double *A, const double *x, double *y) {\n#pragma omp parallel for\nfor (int i = 0; i < m; i++) { double s = 0; for (int j = 0; j < n; j++) s += A[i*m+j] * x[j]; y[i] = s; } }", "contradicted", "unbindable"),
    ("cpp-column-major-correct", "cpp-openmp", "void gemv(int m, int n, const double *A, const double *x, double *y) {\n#pragma omp parallel for\nfor (int i = 0; i < m; i++) { double s = 0; for (int j = 0; j < n; j++) s += A[j*m+i] * x[j]; y[i] = s; } }", "transposed", "correct"),
    ("f-flat-stride-contradicted", "fortran-openmp", FLAT_F.replace("STRIDE", "m"), "m is the stride", "unbindable"),
    ("f-flat-row-major", "fortran-openmp", FLAT_F.replace("STRIDE", "n"), "transposed", "correct"),
    ("py-flat-stride-contradicted", "python-numba", FLAT_PY.replace("SUB", "i*m + j"), "m is the stride", "unbindable"),
    ("py-flat-column-major", "python-numba", FLAT_PY.replace("SUB", "j*m + i"), "transposed", "correct"),
    ("cpp-missing-helper", "cpp-openmp", "void gemv(int m, int n, const double *A, const double *x, double *y) {\n#pragma omp parallel for\nfor (int i = 0; i < m; i++) y[i] = row_dot(A + i*n, x, n); }", "row_dot", "incomplete"),
    ("cpp-cut-off", "cpp-openmp", "void gemv(int m, int n, const double *A, const double *x, double *y) {\n#pragma omp parallel for\nfor (int i = 0; i < m; i++) {\n  double s = 0;", "", "incomplete"),
    ("cpp-complex", "cpp-openmp", "#include <complex>\nvoid zgemv(int m, int n, const std::complex<double> *A, const std::complex<double> *x, std::complex<double> *y) {\nfor (int i = 0; i < m; i++) { y[i] = 0; for (int j = 0; j < n; j++) y[i] += A[i*n+j] * x[j]; } }", "complex", "unbindable"),
    ("f-canonical", "fortran-openmp", f("gemv", "m, n, a, x, y", " integer, intent(in) :: m, n\n real(8), intent(in) :: a(m,n), x(n)\n real(8), intent(out) :: y(m)", "y(i) = y(i) + a(i,j) * x(j)"), "canonical", "correct"),
    ("f-n-is-rows", "fortran-openmp", "subroutine matvec(n, m, a, x, y)\n integer :: n, m, i, j\n real(8) :: a(n,m), x(m), y(n)\n!$omp parallel do private(j)\n do i = 1, n\n  y(i) = 0.0d0\n  do j = 1, m\n   y(i) = y(i) + a(i,j) * x(j)\n  end do\n end do\nend subroutine\n", "canonical", "correct"),
    ("f-transposed-storage", "fortran-openmp", "subroutine gemv(m, n, at, x, y)\n integer :: m, n, i, j\n real(8) :: at(n,m), x(n), y(m)\n!$omp parallel do private(j)\n do i = 1, m\n  y(i) = 0.0d0\n  do j = 1, n\n   y(i) = y(i) + at(j,i) * x(j)\n  end do\n end do\nend subroutine\n", "transposed", None),
    ("f-matmul", "fortran-openmp", "subroutine gemv(m, n, a, x, y)\n integer :: m, n\n real(8) :: a(m,n), x(n), y(m)\n!$omp parallel workshare\n y = matmul(a, x)\n!$omp end parallel workshare\nend subroutine\n", "canonical", None),
    ("f-wrong-index", "fortran-openmp", f("gemv", "m, n, a, x, y", " integer, intent(in) :: m, n\n real(8), intent(in) :: a(m,n), x(n)\n real(8), intent(out) :: y(m)", "y(i) = y(i) + a(i,j) * x(i)"), "canonical", "wrong_result"),
    ("f-intent-out-never-zeroed", "fortran-openmp", "subroutine gemv(m, n, a, x, y)\n integer, intent(in) :: m, n\n real(8), intent(in) :: a(m,n), x(n)\n real(8), intent(out) :: y(m)\n integer :: i, j\n!$omp parallel do private(j)\n do i = 1, m\n  do j = 1, n\n   y(i) = y(i) + a(i,j) * x(j)\n  end do\n end do\nend subroutine\n", "canonical", "wrong_result"),
    ("f-alpha-beta", "fortran-openmp", "subroutine dgemv_omp(m, n, alpha, a, x, beta, y)\n integer :: m, n, i\n real(8) :: alpha, beta, a(m,n), x(n), y(m)\n!$omp parallel do\n do i = 1, m\n  y(i) = alpha * dot_product(a(i,:), x) + beta * y(i)\n end do\nend subroutine\n", "alpha_beta", None),
    ("f-declarations-only", "fortran-openmp", "subroutine gemv(m, n, a, x, y)\n integer :: m, n\n real(8) :: a(m,n), x(n), y(m)\nend subroutine\n", "declarations only", "incomplete"),
    ("f-missing-helper", "fortran-openmp", "subroutine gemv(m, n, a, x, y)\n integer :: m, n, i\n real(8) :: a(m,n), x(n), y(m)\n do i = 1, m\n  call row_times_vector(a, x, y, i)\n end do\nend subroutine\n", "row_times_vector", "incomplete"),
    ("f-complex", "fortran-openmp", "subroutine zgemv(m, n, a, x, y)\n integer :: m, n\n complex(8) :: a(m,n), x(n), y(m)\n y = matmul(a, x)\nend subroutine\n", "complex", "unbindable"),
    ("py-dot", "python-numpy", "import numpy as np\ndef gemv(A, x):\n    return A.dot(x)\n", "canonical", "correct"),
    ("py-n-is-rows", "python-numba", "from numba import njit, prange\n@njit(parallel=True)\ndef matvec(n, m, A, x, y):\n    for i in prange(n):\n        s = 0.0\n        for j in range(m):\n            s += A[i, j] * x[j]\n        y[i] = s\n", "canonical", "correct"),
    ("py-alpha-beta", "python-numpy", "import numpy as np\ndef gemv(alpha, A, x, beta, y):\n    y[:] = alpha * (A @ x) + beta * y\n", "alpha_beta", "correct"),
    ("py-transposed-wrong", "python-numpy", "import numpy as np\ndef gemv(A, x, y):\n    y[:] = A[:, :len(y)].T @ x[:len(y)] if False else (A @ x) * 0.5\n", "canonical", "wrong_result"),
    ("py-accumulate", "python-numba", "import numba\n@numba.njit\ndef gemv(A, x, y):\n    for i in range(A.shape[0]):\n        for j in range(A.shape[1]):\n            y[i] += A[i, j] * x[j]\n", "accumulate", None),
    ("py-flat", "python-numpy", "def gemv(m, n, A, x, y):\n    for i in range(m):\n        y[i] = sum(A[i * n + j] * x[j] for j in range(n))\n", "canonical", None),
    ("py-einsum", "python-numpy", "import numpy as np\ndef gemv(A, x, out):\n    np.einsum('ij,j->i', A, x, out=out)\n", "canonical", None),
    ("py-no-params", "python-numpy", "import numpy as np\ndef gemv():\n    return np.ones((3, 3)) @ np.ones(3)\n", "takes no parameters", "unbindable"),
    ("py-cut-off", "python-numpy", "import numpy as np\ndef gemv(A, x):\n    return np.dot(A,\n", "", "incomplete"),
    ("py-undefined-helper", "python-numpy", "def gemv(A, x, y):\n    for i in range(A.shape[0]):\n        y[i] = rowdot(A[i], x)\n", "rowdot", "incomplete"),
    ("jl-canonical", "julia-threads", "function gemv!(y, A, x)\n    m, n = size(A)\n    Threads.@threads for i in 1:m\n        s = 0.0\n        for j in 1:n\n            s += A[i,j] * x[j]\n        end\n        y[i] = s\n    end\nend\n", "canonical", None),
    ("jl-returns", "julia-threads", "function gemv(A::Matrix{Float64}, x::Vector{Float64})\n    return A * x\nend\n", "canonical", None),
]


@pytest.mark.parametrize("lang", LANGS)
def test_gemv_bindings(catalog, evaluator, lang):
    check(catalog, evaluator, "gemv", CASES, lang, grade=False)


@pytest.mark.parametrize("lang", GRADED)
def test_gemv_signatures(catalog, evaluator, lang):
    check(catalog, evaluator, "gemv", CASES, lang, grade=True)
