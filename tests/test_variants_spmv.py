"""CSR SpMV free-form signatures (no sample data: written as an unseen LLM would) through signature inference and
the real evaluator: nrows/ncols, y += A*x graded with a random y on entry, an intent(out) y never zeroed, refusals."""

from __future__ import annotations

import pytest

from variant_harness import GRADED, LANGS, check

ROW = "for (int i = 0; i < nrows; i++) { double s = 0; for (int j = row_ptr[i]; j < row_ptr[i+1]; j++) s += vals[j] * x[col_idx[j]];"
CASES = [
    ("cpp-nrows", "cpp-openmp", "void spmv_csr(int nrows, const int *row_ptr, const int *col_idx, const double *vals, const double *x, double *y) {\n#pragma omp parallel for\n" + ROW + " y[i] = s; } }", "canonical", "correct"),
    ("cpp-ncols", "cpp-openmp", "void spmv(int nrows, int ncols, int nnz, const int *row_ptr, const int *col_idx, const double *vals, const double *x, double *y) {\n#pragma omp parallel for\n" + ROW + " y[i] = s; } }", "rectangular", "correct"),
    ("cpp-accumulate", "cpp-openmp", "void spmv(int nrows, const int *row_ptr, const int *col_idx, const double *vals, const double *x, double *y) {\n#pragma omp parallel for\n" + ROW.replace("double s = 0;", "double s = y[i];") + " y[i] = s; } }", "accumulate", "correct"),
    ("cpp-off-by-one", "cpp-openmp", "void spmv(int nrows, const int *row_ptr, const int *col_idx, const double *vals, const double *x, double *y) {\n#pragma omp parallel for\n" + ROW.replace("j < row_ptr[i+1]", "j <= row_ptr[i+1]") + " y[i] = s; } }", "canonical", "runtime_error"),
    ("cpp-complex", "cpp-openmp", "#include <complex>\nvoid spmv(int n, const int *rp, const int *ci, const std::complex<double> *v, const std::complex<double> *x, std::complex<double> *y) { for (int i = 0; i < n; i++) { y[i] = 0; for (int j = rp[i]; j < rp[i+1]; j++) y[i] += v[j]*x[ci[j]]; } }", "complex", "unbindable"),
    ("cpp-one-based", "cpp-openmp", "void spmv(int n, const int *ia, const int *ja, const double *a, const double *x, double *y) {\n#pragma omp parallel for\nfor (int i = 0; i < n; i++) { double s = 0; for (int j = ia[i]-1; j < ia[i+1]-1; j++) s += a[j]*x[ja[j]-1]; y[i] = s; } }", "one_based", "correct"),
    ("cpp-inclusive-bound-zero-based", "cpp-openmp", "void spmv(int n, const int *row_ptr, const int *col_idx, const double *val, const double *x, double *y) {\n#pragma omp parallel for\nfor (int i = 0; i < n; i++) { double s = 0; for (int j = row_ptr[i]; j <= row_ptr[i+1]-1; j++) s += val[j]*x[col_idx[j]]; y[i] = s; } }", "canonical", "correct"),
    ("cpp-transposed-product", "cpp-openmp", "void spmv(int n, const int *row_ptr, const int *col_idx, const double *val, const double *x, double *y) {\nfor (int i = 0; i < n; i++) y[i] = 0;\n#pragma omp parallel for\nfor (int i = 0; i < n; i++) for (int j = row_ptr[i]; j < row_ptr[i+1]; j++) {\n#pragma omp atomic\n y[col_idx[j]] += val[j]*x[i]; } }", "canonical", "wrong_result"),
    ("cpp-vectors", "cpp-openmp", "#include <vector>\nvoid spmv_csr(const std::vector<int>& rowPtr, const std::vector<int>& colInd, const std::vector<double>& vals, const std::vector<double>& x, std::vector<double>& y) {\n int n = rowPtr.size() - 1;\n#pragma omp parallel for\nfor (int i = 0; i < n; i++) { double s = 0; for (int j = rowPtr[i]; j < rowPtr[i+1]; j++) s += vals[j]*x[colInd[j]]; y[i] = s; } }", "canonical", None),
    ("cpp-missing-helper", "cpp-openmp", "void spmv(int n, const int *row_ptr, const int *col_idx, const double *val, const double *x, double *y) {\n#pragma omp parallel for\nfor (int i = 0; i < n; i++) y[i] = row_dot(row_ptr[i], row_ptr[i+1], col_idx, val, x); }", "row_dot", "incomplete"),
    ("cpp-cut-off", "cpp-openmp", "void spmv(int n, const int *row_ptr, const int *col_idx, const double *val, const double *x, double *y) {\n#pragma omp parallel for\nfor (int i = 0; i < n; i++) {\n  double sum = 0.0;\n  for (int j = row_ptr[i]; j < row_ptr[i+1]; j++)", "", "incomplete"),
    ("cpp-struct-matrix", "cpp-openmp", "struct CSR { int n; int *rowptr; int *col; double *val; };\nvoid spmv(const CSR &A, const double *x, double *y) {\n#pragma omp parallel for\nfor (int i = 0; i < A.n; i++) { double s = 0; for (int j = A.rowptr[i]; j < A.rowptr[i+1]; j++) s += A.val[j]*x[A.col[j]]; y[i] = s; } }", "canonical", "correct"),
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
    ("f-zero-based", "fortran-openmp", """
     subroutine spmv(n, rowptr, colidx, val, x, y)
       integer, intent(in) :: n, rowptr(n+1), colidx(*)
       double precision, intent(in) :: val(*), x(n)
       double precision, intent(out) :: y(n)
       integer :: i, k
       !$omp parallel do private(k)
       do i = 1, n
         y(i) = 0.0d0
         do k = rowptr(i) + 1, rowptr(i+1)
           y(i) = y(i) + val(k) * x(colidx(k) + 1)
         end do
       end do
     end subroutine
     """, "zero_based", "correct"),
    ("f-assumed-shape", "fortran-openmp", """
     subroutine sparse_matvec(ia, ja, a, x, y)
       integer, intent(in) :: ia(:), ja(:)
       real(8), intent(in) :: a(:), x(:)
       real(8), intent(out) :: y(:)
       integer :: i, j
       !$omp parallel do private(j)
       do i = 1, size(ia) - 1
         y(i) = 0.0d0
         do j = ia(i), ia(i+1) - 1
           y(i) = y(i) + a(j) * x(ja(j))
         end do
       end do
     end subroutine
     """, "canonical", "correct"),
    ("f-diagonal-only", "fortran-openmp", """
     subroutine spmv(n, nnz, ia, ja, a, x, y)
       integer, intent(in) :: n, nnz, ia(n+1), ja(nnz)
       real(8), intent(in) :: a(nnz), x(n)
       real(8), intent(out) :: y(n)
       integer :: i, j
       !$omp parallel do private(j)
       do i = 1, n
         y(i) = 0.0d0
         do j = ia(i), ia(i+1) - 1
           y(i) = y(i) + a(j) * x(i)
         end do
       end do
     end subroutine
     """, "canonical", "wrong_result"),
    ("f-nnz-declared", "fortran-openmp", "subroutine spmv(n, nnz, row_ptr, col_ind, val, x, y)\n integer :: n, nnz, row_ptr(n+1), col_ind(nnz), i, j\n real(8) :: val(nnz), x(n), y(n)\n!$omp parallel do private(j)\n do i = 1, n\n  y(i) = 0\n  do j = row_ptr(i), row_ptr(i+1)-1\n   y(i) = y(i) + val(j)*x(col_ind(j))\n  end do\n end do\nend subroutine\n", "canonical", None),
    ("f-function-result", "fortran-openmp", "function spmv(n, ia, ja, a, x) result(y)\n integer, intent(in) :: n, ia(n+1), ja(*)\n real(8), intent(in) :: a(*), x(n)\n real(8) :: y(n)\n integer :: i, j\n!$omp parallel do private(j)\n do i = 1, n\n  y(i) = 0\n  do j = ia(i), ia(i+1)-1\n   y(i) = y(i) + a(j)*x(ja(j))\n  end do\n end do\nend function\n", "canonical", None),
    ("f-declarations-only", "fortran-openmp", "subroutine spmv(n, ia, ja, a, x, y)\n integer, intent(in) :: n, ia(n+1), ja(*)\n real(8), intent(in) :: a(*), x(n)\n real(8), intent(out) :: y(n)\nend subroutine\n", "declarations only", "incomplete"),
    ("f-derived-type", "fortran-openmp", "module csr_mod\n type csr\n  integer :: n\n  integer, allocatable :: ia(:), ja(:)\n  real(8), allocatable :: a(:)\n end type\ncontains\n subroutine spmv(mat, x, y)\n  type(csr), intent(in) :: mat\n  real(8), intent(in) :: x(:)\n  real(8), intent(out) :: y(:)\n  integer :: i, j\n  do i = 1, mat%n\n   y(i) = 0\n   do j = mat%ia(i), mat%ia(i+1)-1\n    y(i) = y(i) + mat%a(j)*x(mat%ja(j))\n   end do\n  end do\n end subroutine\nend module\n", "canonical", "wrong_model"),
    ("py-loops", "python-numba", "import numba\n@numba.njit(parallel=True)\ndef spmv(indptr, indices, data, x, y):\n    for i in numba.prange(len(indptr) - 1):\n        s = 0.0\n        for j in range(indptr[i], indptr[i + 1]):\n            s += data[j] * x[indices[j]]\n        y[i] = s\n", "canonical", "correct"),
    ("py-return", "python-numpy", "import numpy as np\ndef spmv(n, row_ptr, col_idx, values, x):\n    y = np.zeros(n)\n    for i in range(n):\n        y[i] = np.dot(values[row_ptr[i]:row_ptr[i+1]], x[col_idx[row_ptr[i]:row_ptr[i+1]]])\n    return y\n", "canonical", "correct"),
    ("py-accumulate-not-read", "python-numpy", "import numpy as np\ndef spmv(n, row_ptr, col_idx, values, x, y):\n    for i in range(n):\n        y[i] = np.dot(values[row_ptr[i]:row_ptr[i+1]], x[col_idx[row_ptr[i]:row_ptr[i+1]]])\n", "canonical", "correct"),
    ("py-one-based", "python-numba", "import numba\nimport numpy as np\n@numba.njit(parallel=True)\ndef spmv(n, rowptr, colind, val, x, y):\n    for i in numba.prange(n):\n        s = 0.0\n        for k in range(rowptr[i] - 1, rowptr[i + 1] - 1):\n            s += val[k] * x[colind[k] - 1]\n        y[i] = s\n", "one_based", "correct"),
    ("py-forgets-x", "python-numba", "from numba import njit, prange\n@njit(parallel=True)\ndef spmv(n, row_ptr, col_idx, values, x, y):\n    for i in prange(n):\n        s = 0.0\n        for k in range(row_ptr[i], row_ptr[i + 1]):\n            s += values[k]\n        y[i] = s\n", "canonical", "wrong_result"),
    ("py-accumulate", "python-numba", "from numba import njit, prange\n@njit(parallel=True)\ndef spmv(n, row_ptr, col_idx, values, x, y):\n    for i in prange(n):\n        for k in range(row_ptr[i], row_ptr[i + 1]):\n            y[i] += values[k] * x[col_idx[k]]\n", "accumulate", "correct"),
    ("py-scipy-order", "python-numpy", "import numpy as np\ndef csr_matvec(data, indices, indptr, x):\n    y = np.empty(len(indptr) - 1)\n    for i in range(len(indptr) - 1):\n        y[i] = data[indptr[i]:indptr[i+1]] @ x[indices[indptr[i]:indptr[i+1]]]\n    return y\n", "canonical", None),
    ("py-nnz", "python-numba", "import numba\n@numba.njit\ndef spmv(n, nnz, row_ptr, col_idx, values, x, y):\n    for i in range(n):\n        y[i] = 0.0\n        for k in range(row_ptr[i], row_ptr[i+1]):\n            y[i] += values[k] * x[col_idx[k]]\n", "canonical", None),
    ("py-method-only", "python-numpy", "import numpy as np\nclass CSRMatrix:\n    def __init__(self, indptr, indices, data):\n        self.indptr, self.indices, self.data = indptr, indices, data\n    def matvec(self, x):\n        return np.array([self.data[a:b] @ x[self.indices[a:b]] for a, b in zip(self.indptr[:-1], self.indptr[1:])])\n", "", "unbindable"),
    ("py-undefined-helper", "python-numpy", "import numpy as np\ndef spmv(row_ptr, col_idx, values, x):\n    return csr_kernel(row_ptr, col_idx, values, x)\n", "csr_kernel", "incomplete"),
    ("jl-canonical", "julia-threads", "function spmv!(y, rowptr, colval, nzval, x)\n    Threads.@threads for i in 1:length(y)\n        s = 0.0\n        for k in rowptr[i]:rowptr[i+1]-1\n            s += nzval[k] * x[colval[k]]\n        end\n        y[i] = s\n    end\nend\n", "canonical", None),
    ("jl-zero-based", "julia-threads", "function spmv(n, row_ptr, col_idx, values, x, y)\n    Threads.@threads for i in 1:n\n        s = 0.0\n        for k in row_ptr[i]+1:row_ptr[i+1]\n            s += values[k] * x[col_idx[k]+1]\n        end\n        y[i] = s\n    end\nend\n", "zero_based", None),
    ("jl-complex", "julia-threads", "function spmv(n, rp, ci, v::Vector{ComplexF64}, x::Vector{ComplexF64}, y::Vector{ComplexF64})\n    for i in 1:n\n        y[i] = sum(v[k] * x[ci[k]] for k in rp[i]:rp[i+1]-1)\n    end\nend\n", "complex", "unbindable"),
]


@pytest.mark.parametrize("lang", LANGS)
def test_spmv_bindings(catalog, evaluator, lang):
    check(catalog, evaluator, "spmv", CASES, lang, grade=False)


@pytest.mark.parametrize("lang", GRADED)
def test_spmv_signatures(catalog, evaluator, lang):
    check(catalog, evaluator, "spmv", CASES, lang, grade=True)
