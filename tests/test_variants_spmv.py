"""CSR SpMV free-form signatures (no sample data: written as an unseen LLM would) through signature inference and
the real evaluator: nrows/ncols, y += A*x graded with a random y on entry, an intent(out) y never zeroed, refusals."""

from __future__ import annotations

import pytest

from variant_harness import bind_and_grade

ROW = "for (int i = 0; i < nrows; i++) { double s = 0; for (int j = row_ptr[i]; j < row_ptr[i+1]; j++) s += vals[j] * x[col_idx[j]];"
CASES = [
    ("cpp-nrows", "cpp-openmp", "void spmv_csr(int nrows, const int *row_ptr, const int *col_idx, const double *vals, const double *x, double *y) {\n#pragma omp parallel for\n" + ROW + " y[i] = s; } }", "canonical", "correct"),
    ("cpp-ncols", "cpp-openmp", "void spmv(int nrows, int ncols, int nnz, const int *row_ptr, const int *col_idx, const double *vals, const double *x, double *y) {\n#pragma omp parallel for\n" + ROW + " y[i] = s; } }", "rectangular", "correct"),
    ("cpp-accumulate", "cpp-openmp", "void spmv(int nrows, const int *row_ptr, const int *col_idx, const double *vals, const double *x, double *y) {\n#pragma omp parallel for\n" + ROW.replace("double s = 0;", "double s = y[i];") + " y[i] = s; } }", "accumulate", "correct"),
    ("cpp-off-by-one", "cpp-openmp", "void spmv(int nrows, const int *row_ptr, const int *col_idx, const double *vals, const double *x, double *y) {\n#pragma omp parallel for\n" + ROW.replace("j < row_ptr[i+1]", "j <= row_ptr[i+1]") + " y[i] = s; } }", "canonical", "runtime_error"),
    ("cpp-complex", "cpp-openmp", "#include <complex>\nvoid spmv(int n, const int *rp, const int *ci, const std::complex<double> *v, const std::complex<double> *x, std::complex<double> *y) {}", "complex", "unbindable"),
    ("f-nrows", "fortran-openmp", """
     subroutine csr_spmv(nrows, ia, ja, a, x, y)
       integer, intent(in) :: nrows, ia(nrows+1), ja(*)
       real(8), intent(in) :: a(*), x(*)
       real(8), intent(out) :: y(nrows)
       integer :: i, j
       !$omp parallel do private(j)
       do i = 1, nrows
         y(i) = 0.0d0
         do j = ia(i), ia(i+1) - 1
           y(i) = y(i) + a(j) * x(ja(j))
         end do
       end do
     end subroutine
     """, "canonical", "correct"),
    ("f-intent-out-never-zeroed", "fortran-openmp", """
     subroutine spmv(n, ia, ja, a, x, y)
       integer, intent(in) :: n, ia(n+1), ja(*)
       real(8), intent(in) :: a(*), x(n)
       real(8), intent(out) :: y(n)
       integer :: i, j
       !$omp parallel do private(j)
       do i = 1, n
         do j = ia(i), ia(i+1) - 1
           y(i) = y(i) + a(j) * x(ja(j))
         end do
       end do
     end subroutine
     """, "canonical", "wrong_result"),
    ("f-accumulate", "fortran-openmp", """
     subroutine spmv(nrows, ncols, rowptr, colind, vals, x, y)
       integer :: nrows, ncols, rowptr(nrows+1), colind(*), i, j
       real(8) :: vals(*), x(ncols), y(nrows)
       !$omp parallel do private(j)
       do i = 1, nrows
         do j = rowptr(i), rowptr(i+1)-1
           y(i) = y(i) + vals(j)*x(colind(j))
         end do
       end do
     end subroutine
     """, "rectangular+accumulate", "correct"),
    ("py-loops", "python-numba", "import numba\n@numba.njit(parallel=True)\ndef spmv(indptr, indices, data, x, y):\n    for i in numba.prange(len(indptr) - 1):\n        s = 0.0\n        for j in range(indptr[i], indptr[i + 1]):\n            s += data[j] * x[indices[j]]\n        y[i] = s\n", "canonical", "correct"),
    ("py-return", "python-numpy", "import numpy as np\ndef spmv(n, row_ptr, col_idx, values, x):\n    y = np.zeros(n)\n    for i in range(n):\n        y[i] = np.dot(values[row_ptr[i]:row_ptr[i+1]], x[col_idx[row_ptr[i]:row_ptr[i+1]]])\n    return y\n", "canonical", "correct"),
    ("py-accumulate-not-read", "python-numpy", "import numpy as np\ndef spmv(n, row_ptr, col_idx, values, x, y):\n    for i in range(n):\n        y[i] = np.dot(values[row_ptr[i]:row_ptr[i+1]], x[col_idx[row_ptr[i]:row_ptr[i+1]]])\n", "canonical", "correct"),
]


@pytest.mark.parametrize("lang", ["cpp", "fortran", "python"])
def test_spmv_signatures(catalog, evaluator, lang):
    prefix = {"cpp": "cpp-", "fortran": "f-", "python": "py-"}[lang]
    assert bind_and_grade(catalog, evaluator, "spmv", [c for c in CASES if c[0].startswith(prefix)]) == []
