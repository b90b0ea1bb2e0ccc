"""GEMM free-form signatures (no sample data: written as an unseen LLM would) through signature inference and the
real evaluator: variants graded at random alpha/beta, accumulate graded with a random C on entry, refusals."""

from __future__ import annotations

import pytest

from variant_harness import bind_and_grade

LOOP = "for (int i = 0; i < m; i++) for (int j = 0; j < n; j++) { double s = 0; for (int p = 0; p < k; p++) s += A[i*k+p] * B[p*n+j];"
CASES = [
    ("cpp-canonical-names", "cpp-openmp", "void matmul(int m, int n, int k, const double *A, const double *B, double *C) {\n#pragma omp parallel for\n" + LOOP + " C[i*n+j] = s; } }", "canonical", "correct"),
    ("cpp-alpha-beta", "cpp-openmp", "void gemm(int m, int n, int k, double alpha, const double *A, const double *B, double beta, double *C) {\n#pragma omp parallel for\n" + LOOP + " C[i*n+j] = alpha*s + beta*C[i*n+j]; } }", "alpha_beta", "correct"),
    ("cpp-ignores-beta", "cpp-openmp", "void gemm(int m, int n, int k, double alpha, const double *A, const double *B, double beta, double *C) {\n#pragma omp parallel for\n" + LOOP + " C[i*n+j] = alpha*s; } }", "alpha_beta", "wrong_result"),
    ("cpp-ignores-alpha", "cpp-openmp", "void gemm(int m, int n, int k, double alpha, const double *A, const double *B, double beta, double *C) {\n#pragma omp parallel for\n" + LOOP + " C[i*n+j] = s + beta*C[i*n+j]; } }", "alpha_beta", "wrong_result"),
    ("cpp-accumulate", "cpp-openmp", "void gemm(int m, int n, int k, const double *A, const double *B, double *C) {\n#pragma omp parallel for\nfor (int i = 0; i < m; i++) for (int j = 0; j < n; j++) for (int p = 0; p < k; p++) C[i*n+j] += A[i*k+p] * B[p*n+j]; }", "accumulate", "correct"),
    ("cpp-square", "cpp-openmp", "void gemm(int n, const double *A, const double *B, double *C) {\n#pragma omp parallel for\nfor (int i = 0; i < n; i++) for (int j = 0; j < n; j++) { double s = 0; for (int p = 0; p < n; p++) s += A[i*n+p] * B[p*n+j]; C[i*n+j] = s; } }", "square", "correct"),
    ("cpp-lda", "cpp-openmp", "void dgemm(int m, int n, int k, double alpha, const double *A, int lda, const double *B, int ldb, double beta, double *C, int ldc) {\n#pragma omp parallel for\nfor (int i = 0; i < m; i++) for (int j = 0; j < n; j++) { double s = 0; for (int p = 0; p < k; p++) s += A[i*lda+p] * B[p*ldb+j]; C[i*ldc+j] = alpha*s + beta*C[i*ldc+j]; } }", "blas", "correct"),
    ("cpp-complex", "cpp-openmp", "#include <complex>\nvoid gemm(int n, std::complex<double> *A, std::complex<double> *B, std::complex<double> *C) {}", "complex", "unbindable"),
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
]


@pytest.mark.parametrize("lang", ["cpp", "fortran", "python"])
def test_gemm_signatures(catalog, evaluator, lang):
    prefix = {"cpp": "cpp-", "fortran": "f-", "python": "py-"}[lang]
    assert bind_and_grade(catalog, evaluator, "gemm", [c for c in CASES if c[0].startswith(prefix)]) == []
