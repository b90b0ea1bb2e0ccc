"""An answer cut off before (or inside) its kernel, whose only complete functions are helpers, is `incomplete`.

The study's Copilot answers `gemv/cpp-openmp/paper/none` r14 (print routines, then cut), `cg/cpp-openmp` r3
(`vecset`) and `jacobi/cpp-openacc` r4 (`create_grid`) were called `wrong_result` by the not-the-kernel rule ("a
function without x cannot compute GEMV"): the cut tail was set aside, binding picked a helper, and the evidence
claimed an operation nobody wrote. Cut off, the kernel is missing, not another one. A complete kernel before the
cut is still graded, and an uncut answer without the kernel's inputs stays not-the-kernel. Cases written as an
unseen LLM would write them.
"""

from __future__ import annotations

import pytest

from hpceval.contracts import Verdict

V = Verdict

CASES = [
    ("cpp-print-helpers-then-cut", "gemv", "cpp-openmp", """
#include <iostream>
using namespace std;
void print_matrix(double *matrix, int rows, int columns) {
  for (int i = 0; i < rows; i++) { for (int j = 0; j < columns; j++) cout << matrix[i * columns + j] << " "; cout << endl; }
}
void gemv(int n, double *A, double *x, double *y) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
    double s = 0;
    for (int j = 0; j <
""", V.incomplete),
    ("cpp-vecset-then-cut", "cg", "cpp-openmp", """
void vecset(double *x, double *y, int n, double a) {
  for (int i = 0; i < n; i++) x[i] = a * y[i];
}
void cg(int n, const int *row_ptr, const int *col_idx, const double *values, const double *b, double *x) {
  double *r = new double[n];
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
""", V.incomplete),
    ("cpp-create-grid-then-cut-openacc", "jacobi", "cpp-openacc", """
#include <stdlib.h>
double *create_grid(int nx, int ny, int nz) {
  return (double *)calloc((size_t)nx * ny * nz, sizeof(double));
}
void jacobi(double *u, double *unew, int n) {
#pragma acc parallel loop
  for (int i = 1; i < n - 1; i++)
    for (int j = 1; j
""", V.incomplete),
    ("fortran-helper-then-cut", "gemv", "fortran-openmp", """
subroutine print_vector(v, n)
  integer, intent(in) :: n
  real(8), intent(in) :: v(n)
  print *, v
end subroutine print_vector

subroutine gemv(n, A, x, y)
  integer, intent(in) :: n
  real(8), intent(in) :: A(n, n), x(n)
  real(8), intent(out) :: y(n)
  integer :: i
  !$omp parallel do
  do i = 1, n
""", V.incomplete),
    ("python-helper-then-cut", "gemv", "python-numba", """
import numpy as np
from numba import njit, prange

def print_matrix(M):
    for row in M:
        print(" ".join(str(v) for v in row))

@njit(parallel=True)
def gemv(A, x, y):
    for i in prange(A.shape[0]):
        y[i] = np.dot(A[i, :],
""", V.incomplete),
    # a complete kernel before the cut: graded (the cut tail is a print routine)
    ("cpp-complete-kernel-then-cut-helper", "gemv", "cpp-openmp", """
void gemv(int n, const double *A, const double *x, double *y) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) { double s = 0; for (int j = 0; j < n; j++) s += A[i * n + j] * x[j]; y[i] = s; }
}
void print_vector(const double *v, int n) {
  for (int i = 0; i <
""", V.correct),
    # not cut: a function without x is another operation, as before
    ("cpp-uncut-row-sums", "gemv", "cpp-openmp", """
void gemv(int m, int n, const double *A, double *y) {
#pragma omp parallel for
  for (int i = 0; i < m; i++) { double s = 0; for (int j = 0; j < n; j++) s += A[i * n + j]; y[i] = s; }
}
""", V.wrong_result),
    ("python-uncut-demo", "gemv", "python-numpy", """
import numpy as np

def show(M):
    print(M)
""", V.wrong_result),
]

# Cut inside the kernel's parameter list (the study's cg/cpp-openmp r3 ends `double conj_grad(int n, double *A`):
# every brace is closed, the parenthesis is not.
CUT_IN_SIGNATURE = [
    ("cpp-helpers-then-cut-in-parameter-list", "cg", "cpp-openmp", """
#include <cmath>
void vecset(double *x, double *y, int n, double a) {
  for (int i = 0; i < n; ++i) x[i] = a * y[i];
}
double vecdot(double *x, double *y, int n) {
  double s = 0.0;
  for (int i = 0; i < n; ++i) s += x[i] * y[i];
  return s;
}
// Conjugate Gradients
double conj_grad(int n, double *A
""", V.incomplete),
    ("openacc-helper-then-cut-after-open-paren", "gemv", "cpp-openacc", """
void print_vec(const float *v, int n) { for (int i = 0; i < n; i++) (void)v[i]; }
void gemv(
""", V.incomplete),
    ("cpp-kernel-complete-then-next-signature-cut", "axpy", "cpp-openmp", """
void axpy(int n, float a, const float *x, float *y) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) y[i] = a * x[i] + y[i];
}
void axpy_check(int n, const float *y, const float *
""", V.correct),
    ("cpp-helper-only-uncut-stays-not-the-kernel", "gemv", "cpp-openmp", """
#include <cstdio>
void print_matrix(const double *m, int rows, int cols) {
  for (int i = 0; i < rows; i++) printf("%f\\n", m[i * cols]);
}
""", V.wrong_result),
]


@pytest.mark.parametrize("case", CASES + CUT_IN_SIGNATURE, ids=[c[0] for c in CASES + CUT_IN_SIGNATURE])
def test_cut_before_the_kernel(case, paper_evaluate):
    _, kernel, model, code, verdict = case
    e = paper_evaluate(code, kernel, model)
    assert e.verdict == verdict, f"{e.verdict}: {e.evidence}"
    if verdict == V.incomplete:
        assert "cut off" in e.evidence and "cannot compute" not in e.evidence, e.evidence
