"""A repetition count beside the kernel's parameters (kernels_spec/*/variants.toml, variant `repeat`).

Benchmark-minded answers wrap the kernel in a loop over a count the caller passes (`nrep`, `reps`, Thrust's
`numIters`): the function is the kernel repeated. Without a role for that parameter the function was `unbindable`
(left out of the score). The count is a variant parameter graded at its canonical value 1, where the function is
the kernel itself; an AXPY repeated accumulates, so a wrapper that runs one repetition too many is wrong there.
Written as unseen answers before the variant existed, in C++, Fortran and Python.
"""

from __future__ import annotations

import pytest

from hpceval.contracts import Verdict

V = Verdict

CASES = [
    ("cpp-gemm-nrep", "gemm", "cpp-openmp", """
#include <omp.h>
void gemm_bench(int m, int n, int k, const double* A, const double* B, double* C, int nrep) {
  for (int r = 0; r < nrep; ++r) {
    #pragma omp parallel for
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        double s = 0.0;
        for (int p = 0; p < k; ++p) s += A[i * k + p] * B[p * n + j];
        C[i * n + j] = s;
      }
  }
}
""", V.correct),
    ("cpp-axpy-reps-one-too-many", "axpy", "cpp-openmp", """
void axpy_repeat(int n, double a, const double* x, double* y, int reps) {
  for (int r = 0; r <= reps; ++r) {
    #pragma omp parallel for
    for (int i = 0; i < n; ++i) y[i] += a * x[i];
  }
}
""", V.wrong_result),
    ("fortran-gemv-nrep-trailing", "gemv", "fortran-openmp", """
subroutine gemv_rep(m, n, a, x, y, nrep)
  implicit none
  integer, intent(in) :: m, n, nrep
  double precision, intent(in) :: a(m, n), x(n)
  double precision, intent(out) :: y(m)
  integer :: i, j, r
  do r = 1, nrep
    !$omp parallel do private(j)
    do i = 1, m
      y(i) = 0.0d0
      do j = 1, n
        y(i) = y(i) + a(i, j) * x(j)
      end do
    end do
    !$omp end parallel do
  end do
end subroutine gemv_rep
""", V.correct),
    ("python-spmv-num-iters", "spmv", "python-numba", """
import numpy as np
from numba import njit, prange

@njit(parallel=True)
def spmv(n, row_ptr, col_idx, values, x, y, numIters):
    for it in range(numIters):
        for i in prange(n):
            s = 0.0
            for jj in range(row_ptr[i], row_ptr[i + 1]):
                s += values[jj] * x[col_idx[jj]]
            y[i] = s
""", V.correct),
    ("python-axpy-repeat-keyword", "axpy", "python-numpy", """
import numpy as np

def axpy(a, x, y, repeat=10):
    for _ in range(repeat):
        y += a * x
    return y
""", V.correct),
]


@pytest.mark.parametrize("name,kernel,model,code,verdict", CASES, ids=[c[0] for c in CASES])
def test_repetition_count(name, kernel, model, code, verdict, paper_verdict):
    e = paper_verdict(code, kernel, model, verdict)
    if verdict == V.correct and "keyword" not in name:
        assert "repeat" in (e.variant or ""), e.variant
