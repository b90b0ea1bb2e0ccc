"""GEMM free-form signatures (no sample data: written as an unseen LLM would) through signature inference and the
real evaluator: variants graded at random alpha/beta, accumulate graded with a random C on entry, refusals."""

from __future__ import annotations

import pytest

from variant_harness import GRADED, LANGS, check

LOOP = "for (int i = 0; i < m; i++) for (int j = 0; j < n; j++) { double s = 0; for (int p = 0; p < k; p++) s += A[i*k+p] * B[p*n+j];"
CASES = [
    ("cpp-canonical-names", "cpp-openmp", "void matmul(int m, int n, int k, const double *A, const double *B, double *C) {\n#pragma omp parallel for\n" + LOOP + " C[i*n+j] = s; } }", "canonical", "correct"),
    ("cpp-alpha-beta", "cpp-openmp", "void gemm(int m, int n, int k, double alpha, const double *A, const double *B, double beta, double *C) {\n#pragma omp parallel for\n" + LOOP + " C[i*n+j] = alpha*s + beta*C[i*n+j]; } }", "alpha_beta", "correct"),
    ("cpp-ignores-beta", "cpp-openmp", "void gemm(int m, int n, int k, double alpha, const double *A, const double *B, double beta, double *C) {\n#pragma omp parallel for\n" + LOOP + " C[i*n+j] = alpha*s; } }", "alpha_beta", "wrong_result"),
    ("cpp-ignores-alpha", "cpp-openmp", "void gemm(int m, int n, int k, double alpha, const double *A, const double *B, double beta, double *C) {\n#pragma omp parallel for\n" + LOOP + " C[i*n+j] = s + beta*C[i*n+j]; } }", "alpha_beta", "wrong_result"),
    ("cpp-accumulate", "cpp-openmp", "void gemm(int m, int n, int k, const double *A, const double *B, double *C) {\n#pragma omp parallel for\nfor (int i = 0; i < m; i++) for (int j = 0; j < n; j++) for (int p = 0; p < k; p++) C[i*n+j] += A[i*k+p] * B[p*n+j]; }", "accumulate", "correct"),
    ("cpp-square", "cpp-openmp", "void gemm(int n, const double *A, const double *B, double *C) {\n#pragma omp parallel for\nfor (int i = 0; i < n; i++) for (int j = 0; j < n; j++) { double s = 0; for (int p = 0; p < n; p++) s += A[i*n+p] * B[p*n+j]; C[i*n+j] = s; } }", "square", "correct"),
    ("cpp-lda", "cpp-openmp", "void dgemm(int m, int n, int k, double alpha, const double *A, int lda, const double *B, int ldb, double beta, double *C, int ldc) {\n#pragma omp parallel for\nfor (int i = 0; i < m; i++) for (int j = 0; j < n; j++) { double s = 0; for (int p = 0; p < k; p++) s += A[i*lda+p] * B[p*ldb+j]; C[i*ldc+j] = alpha*s + beta*C[i*ldc+j]; } }", "blas", "correct"),
    ("cpp-complex", "cpp-openmp", "#include <complex>\nvoid gemm(int n, std::complex<double> *A, std::complex<double> *B, std::complex<double> *C) { for (int i = 0; i < n*n; i++) C[i] = A[i] * B[i]; }", "complex", "unbindable"),
    ("cpp-float", "cpp-openmp", "void gemm(int m, int n, int k, const float *A, const float *B, float *C) {\n#pragma omp parallel for\nfor (int i = 0; i < m; i++) for (int j = 0; j < n; j++) { float s = 0; for (int p = 0; p < k; p++) s += A[i*k+p] * B[p*n+j]; C[i*n+j] = s; } }", "canonical", "correct"),
    ("f-alpha-beta", "fortran-openmp", """
     subroutine dgemm_omp(m, n, k, alpha, a, b, beta, c)
       integer, intent(in) :: m, n, k
       real(8), intent(in) :: alpha, beta, a(m,k), b(k,n)
       real(8), intent(inout) :: c(m,n)
       integer :: i, j, l
       !$omp parallel do private(i, l)
       do j = 1, n
         do i = 1, m
           c(i,j) = beta * c(i,j)
           do l = 1, k
             c(i,j) = c(i,j) + alpha * a(i,l) * b(l,j)
           end do
         end do
       end do
     end subroutine
     """, "alpha_beta", "correct"),
    ("f-intent-out-never-zeroed", "fortran-openmp", """
     subroutine gemm(m, n, k, a, b, c)
       integer, intent(in) :: m, n, k
       real(8), intent(in) :: a(m,k), b(k,n)
       real(8), intent(out) :: c(m,n)
       integer :: i, j, l
       !$omp parallel do private(i, l)
       do j = 1, n
         do i = 1, m
           do l = 1, k
             c(i,j) = c(i,j) + a(i,l) * b(l,j)
           end do
         end do
       end do
     end subroutine
     """, "canonical", "wrong_result"),
    ("f-square", "fortran-openmp", """
     subroutine matmul_omp(n, a, b, c)
       integer :: n, i, j
       real(8) :: a(n,n), b(n,n), c(n,n)
       !$omp parallel do
       do j = 1, n
         do i = 1, n
           c(i,j) = sum(a(i,:) * b(:,j))
         end do
       end do
     end subroutine
     """, "square", "correct"),
    ("py-return", "python-numpy", "import numpy as np\ndef gemm(A, B):\n    return np.dot(A, B)\n", "canonical", "correct"),
    ("py-alpha-beta", "python-numpy", "import numpy as np\ndef gemm(alpha, A, B, beta, C):\n    C[:] = alpha * (A @ B) + beta * C\n", "alpha_beta", "correct"),
    ("py-ignores-beta", "python-numpy", "import numpy as np\ndef gemm(alpha, A, B, beta, C):\n    C[:] = alpha * (A @ B)\n", "alpha_beta", "wrong_result"),
    ("py-accumulate", "python-numpy", "import numpy as np\ndef gemm(A, B, C):\n    C += A @ B\n", "accumulate", "correct"),
    ("py-defaults", "python-numpy", "import numpy as np\ndef gemm(A, B, C, alpha=1.0, beta=0.0):\n    C[:] = alpha * np.matmul(A, B) + beta * C\n", "alpha_beta", "correct"),
    ('cpp-n-is-rows', 'cpp-openmp', 'void matmul(int n, int m, int p, const double *A, const double *B, double *C) {\n#pragma omp parallel for\nfor (int i = 0; i < n; i++) for (int j = 0; j < m; j++) { double s = 0; for (int l = 0; l < p; l++) s += A[i*p+l] * B[l*m+j]; C[i*m+j] = s; } }', 'canonical', 'correct'),
    ('cpp-missing-helper', 'cpp-openmp', 'void gemm(int m, int n, int k, const double *A, const double *B, double *C) {\n#pragma omp parallel for\nfor (int i = 0; i < m; i++) for (int j = 0; j < n; j++) C[i*n+j] = dot_row_col(A, B, i, j, k, n); }', 'dot_row_col', 'incomplete'),
    ('f-canonical', 'fortran-openmp', 'subroutine gemm(m, n, k, a, b, c)\n integer, intent(in) :: m, n, k\n real(8), intent(in) :: a(m,k), b(k,n)\n real(8), intent(out) :: c(m,n)\n integer :: i, j, l\n!$omp parallel do private(i, l)\n do j = 1, n\n  do i = 1, m\n   c(i,j) = 0.0d0\n   do l = 1, k\n    c(i,j) = c(i,j) + a(i,l) * b(l,j)\n   end do\n  end do\n end do\nend subroutine\n', 'canonical', 'correct'),
    ('f-matmul-intrinsic', 'fortran-openmp', 'subroutine gemm(m, n, k, a, b, c)\n integer :: m, n, k\n real(8) :: a(m,k), b(k,n), c(m,n)\n!$omp parallel workshare\n c = matmul(a, b)\n!$omp end parallel workshare\nend subroutine\n', 'canonical', 'correct'),
    ('f-transposed-a-wrong', 'fortran-openmp', 'subroutine gemm(m, n, k, a, b, c)\n integer, intent(in) :: m, n, k\n real(8), intent(in) :: a(m,k), b(k,n)\n real(8), intent(out) :: c(m,n)\n integer :: i, j, l\n!$omp parallel do private(i, l)\n do j = 1, n\n  do i = 1, m\n   c(i,j) = 0.0d0\n   do l = 1, k\n    c(i,j) = c(i,j) + a(i,l) * b(l,i)\n   end do\n  end do\n end do\nend subroutine\n', 'canonical', 'wrong_result'),
    ('f-lda', 'fortran-openmp', 'subroutine dgemm_omp(m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)\n integer :: m, n, k, lda, ldb, ldc\n real(8) :: alpha, beta, a(lda,*), b(ldb,*), c(ldc,*)\n integer :: i, j, l\n real(8) :: s\n!$omp parallel do private(i, l, s)\n do j = 1, n\n  do i = 1, m\n   s = 0.0d0\n   do l = 1, k\n    s = s + a(i,l) * b(l,j)\n   end do\n   c(i,j) = alpha * s + beta * c(i,j)\n  end do\n end do\nend subroutine\n', 'blas', None),
    ('f-real4', 'fortran-openmp', 'subroutine sgemm(m, n, k, a, b, c)\n integer :: m, n, k\n real :: a(m,k), b(k,n), c(m,n)\n integer :: i, j, l\n!$omp parallel do private(i, l)\n do j = 1, n\n  do i = 1, m\n   c(i,j) = 0.0\n   do l = 1, k\n    c(i,j) = c(i,j) + a(i,l) * b(l,j)\n   end do\n  end do\n end do\nend subroutine\n', 'canonical', None),
    ('f-declarations-only', 'fortran-openmp', 'subroutine gemm(m, n, k, a, b, c)\n integer :: m, n, k\n real(8) :: a(m,k), b(k,n), c(m,n)\n\nend subroutine\n', 'declarations only', 'incomplete'),
    ('f-complex', 'fortran-openmp', 'subroutine zgemm(m, n, k, a, b, c)\n integer :: m, n, k\n complex(8) :: a(m,k), b(k,n), c(m,n)\n c = matmul(a, b)\nend subroutine\n', 'complex', 'unbindable'),
    ('py-numba-loops', 'python-numba', 'import numba\nimport numpy as np\n@numba.njit(parallel=True)\ndef matmul(A, B, C):\n    m, k = A.shape\n    n = B.shape[1]\n    for i in numba.prange(m):\n        for j in range(n):\n            s = 0.0\n            for p in range(k):\n                s += A[i, p] * B[p, j]\n            C[i, j] = s\n', 'canonical', 'correct'),
    ('py-transposed-wrong', 'python-numpy', 'import numpy as np\ndef gemm(A, B):\n    return A.T @ B.T\n', 'canonical', None),
    ('py-einsum', 'python-numpy', "import numpy as np\ndef gemm(m, n, k, A, B, C):\n    C[...] = np.einsum('ik,kj->ij', A, B)\n", 'canonical', None),
    ('py-float32', 'python-numpy', 'import numpy as np\ndef sgemm(A, B):\n    return np.matmul(A.astype(np.float32), B.astype(np.float32))\n', 'canonical', None),
    ('py-cut-off', 'python-numpy', 'import numpy as np\ndef gemm(A, B, C):\n    C[:] = np.dot(A,\n', '', 'incomplete'),
    ('py-no-params', 'python-numpy', 'import numpy as np\ndef gemm():\n    A = np.ones((4, 4))\n    return A @ A\n', 'takes no parameters', 'unbindable'),
    ('jl-canonical', 'julia-threads', 'function gemm!(C, A, B)\n    m, k = size(A); n = size(B, 2)\n    Threads.@threads for j in 1:n\n        for i in 1:m\n            s = 0.0\n            for p in 1:k\n                s += A[i,p] * B[p,j]\n            end\n            C[i,j] = s\n        end\n    end\nend\n', 'canonical', None),
    ('jl-alpha-beta', 'julia-threads', 'function gemm!(C, A, B, alpha, beta)\n    C .= alpha .* (A * B) .+ beta .* C\nend\n', 'alpha_beta', None),
]


@pytest.mark.parametrize("lang", LANGS)
def test_gemm_bindings(catalog, evaluator, lang):
    check(catalog, evaluator, "gemm", CASES, lang, grade=False)


@pytest.mark.parametrize("lang", GRADED)
def test_gemm_signatures(catalog, evaluator, lang):
    check(catalog, evaluator, "gemm", CASES, lang, grade=True)
