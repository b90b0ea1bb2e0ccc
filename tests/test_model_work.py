"""The model did the kernel's work (issue 12, item 5): suggestions an unseen LLM might write, through the real evaluator.

Four rules, each with kernels that must fail and kernels that must pass, across kernels and languages:

1. directive models (OpenMP, OpenMP offload, OpenACC; C++ and Fortran): the parallel/offload construct encloses the
   loop nest that writes the outputs (a parallel zeroing loop before a serial product is `wrong_model`);
2. NumPy: no Python-level loops doing scalar element work in the bound function (a triple loop is `wrong_model`;
   CG's iteration loop over vectorised NumPy passes);
3. Kokkos and 4. Numba: tests/test_model_work_runtime.py.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import pytest

from hpceval.contracts import Evaluation, Verdict
from hpceval.evaluate import Evaluator
from hpceval.executors.local import LocalExecutor

V = Verdict


@dataclass(frozen=True)
class Plant:
    id: str
    kernel: str
    model: str
    code: str
    verdict: Verdict
    evidence: tuple[str, ...] = ()


# ------------------------------------------------------------------------------------------------ 1. directives
GEMM_HEAD = "void gemm(int m, int n, int k, const double *A, const double *B, double *C) {\n"
GEMM_PRODUCT = """\
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j)
      for (int p = 0; p < k; ++p)
        C[i * n + j] += A[i * k + p] * B[p * n + j];
"""
GEMM_ZERO = "  for (int i = 0; i < m; ++i)\n    for (int j = 0; j < n; ++j)\n      C[i * n + j] = 0.0;\n"

DIRECTIVE_FAIL = [
    Plant("cpp-omp-gemv-token-inner-reduction-beside-serial-sum", "gemv", "cpp-openmp", """\
void gemv(int m, int n, const double *A, const double *x, double *y) {
  for (int i = 0; i < m; ++i) {
    double sum = 0.0;
    #pragma omp parallel for reduction(+:sum)
    for (int t = 0; t < 1; ++t) sum += 0.0;   /* warm the team */
    for (int j = 0; j < n; ++j) sum += A[i * n + j] * x[j];
    y[i] = sum;
  }
}
""", V.wrong_model, ("the loop nest writing y",)),
    Plant("fortran-omp-gemv-inner-parallel-on-other-scalar", "gemv", "fortran-openmp", """\
subroutine gemv(m, n, A, x, y)
  integer, intent(in) :: m, n
  real(8), intent(in) :: A(m, n), x(n)
  real(8), intent(out) :: y(m)
  integer :: i, j
  real(8) :: s, chk
  do i = 1, m
    chk = 0.0d0
    !$omp parallel do reduction(+:chk)
    do j = 1, n
      chk = chk + x(j)
    end do
    !$omp end parallel do
    s = 0.0d0
    do j = 1, n
      s = s + A(i, j) * x(j)
    end do
    y(i) = s
  end do
end subroutine gemv
""", V.wrong_model, ("the loop nest writing y",)),
    Plant("cpp-omp-gemm-parallel-zeroing-serial-product", "gemm", "cpp-openmp",
          GEMM_HEAD + "#pragma omp parallel for collapse(2)\n" + GEMM_ZERO + GEMM_PRODUCT + "}\n", V.wrong_model,
          ("the loop nest writing C", "outside any parallel construct")),
    Plant("cpp-omp-gemv-parallel-init-serial-accumulate", "gemv", "cpp-openmp", """\
#include <omp.h>
void gemv(int m, int n, const double *A, const double *x, double *y) {
  #pragma omp parallel for
  for (int i = 0; i < m; i++) y[i] = 0.0;
  for (int i = 0; i < m; i++) {
    for (int j = 0; j < n; j++) {
      y[i] += A[i * n + j] * x[j];
    }
  }
}
""", V.wrong_model, ("writing y",)),
    Plant("fortran-omp-gemm-parallel-zeroing-serial-product", "gemm", "fortran-openmp", """\
subroutine gemm(m, n, k, A, B, C)
  implicit none
  integer, intent(in) :: m, n, k
  real(8), intent(in) :: A(m, k), B(k, n)
  real(8), intent(out) :: C(m, n)
  integer :: i, j, p
  !$omp parallel do private(i)
  do j = 1, n
    do i = 1, m
      C(i, j) = 0.0d0
    end do
  end do
  !$omp end parallel do
  do j = 1, n
    do p = 1, k
      do i = 1, m
        C(i, j) = C(i, j) + A(i, p) * B(p, j)
      end do
    end do
  end do
end subroutine gemm
""", V.wrong_model, ("writing C",)),
    Plant("cpp-acc-spmv-data-region-host-loop", "spmv", "cpp-openacc", """\
void spmv(int n, int nnz, const int *row_ptr, const int *col_idx, const double *values, const double *x, double *y) {
#pragma acc data copyin(row_ptr[0:n+1], col_idx[0:nnz], values[0:nnz], x[0:n]) copyout(y[0:n])
  {
#pragma acc parallel loop present(y)
    for (int i = 0; i < n; ++i) y[i] = 0.0;
#pragma acc update self(y[0:n])
    for (int i = 0; i < n; ++i)
      for (int j = row_ptr[i]; j < row_ptr[i + 1]; ++j)
        y[i] += values[j] * x[col_idx[j]];
#pragma acc update device(y[0:n])
  }
}
""", V.wrong_model, ("writing y",)),
    Plant("cpp-offload-gemv-device-zeroing-host-product", "gemv", "cpp-openmp-offload", """\
void gemv(int m, int n, const double *A, const double *x, double *y) {
  #pragma omp target teams distribute parallel for map(from: y[0:m])
  for (int i = 0; i < m; ++i) y[i] = 0.0;
  for (int i = 0; i < m; ++i) {
    double sum = 0.0;
    for (int j = 0; j < n; ++j) sum += A[(long)i * n + j] * x[j];
    y[i] = sum;
  }
}
""", V.wrong_model, ("writing y",)),
    Plant("fortran-omp-jacobi-single-thread-does-the-sweep", "jacobi", "fortran-openmp", """\
subroutine jacobi(nx, ny, nz, u, unew)
  implicit none
  integer, intent(in) :: nx, ny, nz
  real(8), intent(in) :: u(nx, ny, nz)
  real(8), intent(inout) :: unew(nx, ny, nz)
  integer :: i, j, k
  !$omp parallel
  !$omp single
  do k = 2, nz - 1
    do j = 2, ny - 1
      do i = 2, nx - 1
        unew(i, j, k) = (u(i-1, j, k) + u(i+1, j, k) + u(i, j-1, k) + u(i, j+1, k) &
                         + u(i, j, k-1) + u(i, j, k+1)) / 6.0d0
      end do
    end do
  end do
  !$omp end single
  !$omp end parallel
end subroutine jacobi
""", V.wrong_model, ("writing unew", "single")),
    Plant("cpp-omp-axpy-master-only", "axpy", "cpp-openmp", """\
void saxpy(int n, float a, const float *x, float *y) {
#pragma omp parallel
  {
#pragma omp master
    for (int i = 0; i < n; i++) y[i] = a * x[i] + y[i];
  }
}
""", V.wrong_model, ("writing y",)),
    Plant("fortran-acc-gemv-serial-host-product", "gemv", "fortran-openacc", """\
subroutine gemv(m, n, A, x, y)
  implicit none
  integer, intent(in) :: m, n
  real(8), intent(in) :: A(m, n), x(n)
  real(8), intent(out) :: y(m)
  integer :: i, j
  !$acc parallel loop copyout(y)
  do i = 1, m
    y(i) = 0.0d0
  end do
  do j = 1, n
    do i = 1, m
      y(i) = y(i) + A(i, j) * x(j)
    end do
  end do
end subroutine gemv
""", V.wrong_model, ("writing y",)),
]

DIRECTIVE_PASS = [
    # the value written is computed by a construct nested in the loop that writes it (an inner parallel reduction):
    # slow, but the model does the kernel's work
    Plant("cpp-omp-gemv-inner-parallel-reduction", "gemv", "cpp-openmp", """\
void gemv(const int m, const int n, const double* A, const double* x, double* y) {
  for (int i = 0; i < m; ++i) {
    double sum = 0.0;
#pragma omp parallel for reduction(+ : sum)
    for (int j = 0; j < n; ++j) sum += A[i * n + j] * x[j];
    y[i] = sum;
  }
}
""", V.correct),
    Plant("fortran-omp-gemv-inner-parallel-reduction", "gemv", "fortran-openmp", """\
subroutine gemv(m, n, A, x, y)
  integer, intent(in) :: m, n
  real(8), intent(in) :: A(m, n), x(n)
  real(8), intent(out) :: y(m)
  integer :: i, j
  real(8) :: s
  do i = 1, m
    s = 0.0d0
    !$omp parallel do reduction(+:s)
    do j = 1, n
      s = s + A(i, j) * x(j)
    end do
    !$omp end parallel do
    y(i) = s
  end do
end subroutine gemv
""", V.correct),
    Plant("cpp-acc-gemm-inner-parallel-reduction", "gemm", "cpp-openacc", """\
void gemm(int m, int n, int k, const double *A, const double *B, double *C) {
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double acc = 0.0;
      #pragma acc parallel loop reduction(+:acc) copyin(A[0:m*k], B[0:k*n])
      for (int p = 0; p < k; ++p) acc += A[i * k + p] * B[p * n + j];
      C[i * n + j] = acc;
    }
}
""", V.correct),
    Plant("cpp-omp-gemm-parallel-zeroing-parallel-product", "gemm", "cpp-openmp",
          GEMM_HEAD + "#pragma omp parallel for collapse(2)\n" + GEMM_ZERO + "#pragma omp parallel for\n"
          + GEMM_PRODUCT + "}\n", V.correct),
    Plant("cpp-omp-gemm-for-inside-parallel-block", "gemm", "cpp-openmp",
          GEMM_HEAD + "#pragma omp parallel\n{\n#pragma omp for\n" + GEMM_ZERO + "#pragma omp for\n" + GEMM_PRODUCT
          + "}\n}\n", V.correct),
    Plant("cpp-omp-gemm-taskloop-under-single", "gemm", "cpp-openmp",
          GEMM_HEAD + "#pragma omp parallel\n#pragma omp single\n{\n" + GEMM_ZERO + "#pragma omp taskloop\n"
          + GEMM_PRODUCT + "}\n}\n", V.correct),
    Plant("cpp-omp-axpy-serial-remainder", "axpy", "cpp-openmp", """\
void saxpy(int n, float a, const float *x, float *y) {
  const int n4 = n - n % 4;
  #pragma omp parallel for
  for (int i = 0; i < n4; i += 4) {
    y[i] = a * x[i] + y[i];
    y[i + 1] = a * x[i + 1] + y[i + 1];
    y[i + 2] = a * x[i + 2] + y[i + 2];
    y[i + 3] = a * x[i + 3] + y[i + 3];
  }
  for (int i = n4; i < n; ++i) y[i] = a * x[i] + y[i];  // remainder
}
""", V.correct),
    Plant("fortran-omp-gemv-parallel-do", "gemv", "fortran-openmp", """\
subroutine gemv(m, n, A, x, y)
  implicit none
  integer, intent(in) :: m, n
  real(8), intent(in) :: A(m, n), x(n)
  real(8), intent(out) :: y(m)
  integer :: i, j
  real(8) :: acc
  !$omp parallel do private(j, acc)
  do i = 1, m
    acc = 0.0d0
    do j = 1, n
      acc = acc + A(i, j) * x(j)
    end do
    y(i) = acc
  end do
  !$omp end parallel do
end subroutine gemv
""", V.correct),
    Plant("cpp-acc-spmv-parallel-loop-seq-inner", "spmv", "cpp-openacc", """\
void spmv(int n, int nnz, const int *row_ptr, const int *col_idx, const double *values, const double *x, double *y) {
#pragma acc parallel loop copyin(row_ptr[0:n+1], col_idx[0:nnz], values[0:nnz], x[0:n]) copyout(y[0:n])
  for (int i = 0; i < n; ++i) {
    double dot = 0.0;
#pragma acc loop seq
    for (int j = row_ptr[i]; j < row_ptr[i + 1]; ++j) dot += values[j] * x[col_idx[j]];
    y[i] = dot;
  }
}
""", V.correct),
    Plant("fortran-acc-gemm-kernels-region", "gemm", "fortran-openacc", """\
subroutine gemm(m, n, k, A, B, C)
  implicit none
  integer, intent(in) :: m, n, k
  real(8), intent(in) :: A(m, k), B(k, n)
  real(8), intent(out) :: C(m, n)
  integer :: i, j, p
  real(8) :: s
  !$acc kernels copyin(A, B) copyout(C)
  do j = 1, n
    do i = 1, m
      s = 0.0d0
      do p = 1, k
        s = s + A(i, p) * B(p, j)
      end do
      C(i, j) = s
    end do
  end do
  !$acc end kernels
end subroutine gemm
""", V.correct),
    Plant("cpp-offload-jacobi-target-teams", "jacobi", "cpp-openmp-offload", """\
void jacobi(int nx, int ny, int nz, const double *u, double *unew) {
  const long total = (long)nx * ny * nz;
#pragma omp target teams distribute parallel for collapse(3) map(to: u[0:total]) map(tofrom: unew[0:total])
  for (int i = 1; i < nx - 1; ++i)
    for (int j = 1; j < ny - 1; ++j)
      for (int k = 1; k < nz - 1; ++k) {
        long c = ((long)i * ny + j) * nz + k;
        unew[c] = (u[c - (long)ny * nz] + u[c + (long)ny * nz] + u[c - nz] + u[c + nz] + u[c - 1] + u[c + 1]) / 6.0;
      }
}
""", V.correct),
    Plant("cpp-omp-cg-serial-early-exit-zeroing", "cg", "cpp-openmp", """\
#include <cmath>
#include <vector>
void cg(int n, int nnz, const int *row_ptr, const int *col_idx, const double *values, const double *b, double *x,
        double tol, int max_iter) {
  std::vector<double> r(n), p(n), q(n);
  double bb = 0.0;
  for (int i = 0; i < n; ++i) bb += b[i] * b[i];
  if (bb == 0.0) {
    for (int i = 0; i < n; ++i) x[i] = 0.0;
    return;
  }
  double rr = 0.0;
#pragma omp parallel for reduction(+:rr)
  for (int i = 0; i < n; ++i) {
    double s = 0.0;
    for (int j = row_ptr[i]; j < row_ptr[i + 1]; ++j) s += values[j] * x[col_idx[j]];
    r[i] = b[i] - s;
    p[i] = r[i];
    rr += r[i] * r[i];
  }
  for (int it = 0; it < max_iter && std::sqrt(rr) > tol * std::sqrt(bb); ++it) {
    double pq = 0.0;
#pragma omp parallel for reduction(+:pq)
    for (int i = 0; i < n; ++i) {
      double s = 0.0;
      for (int j = row_ptr[i]; j < row_ptr[i + 1]; ++j) s += values[j] * p[col_idx[j]];
      q[i] = s;
      pq += p[i] * s;
    }
    double alpha = rr / pq, rr2 = 0.0;
#pragma omp parallel for reduction(+:rr2)
    for (int i = 0; i < n; ++i) {
      x[i] += alpha * p[i];
      r[i] -= alpha * q[i];
      rr2 += r[i] * r[i];
    }
    double beta = rr2 / rr;
    rr = rr2;
#pragma omp parallel for
    for (int i = 0; i < n; ++i) p[i] = r[i] + beta * p[i];
  }
}
""", V.correct),
]

# ------------------------------------------------------------------------------------------------ 2. NumPy
NUMPY_FAIL = [
    Plant("numpy-gemm-triple-python-loop", "gemm", "python-numpy", """\
import numpy as np


def gemm(m, n, k, A, B, C):
    C[:, :] = np.zeros((m, n))
    for i in range(m):
        for j in range(n):
            for p in range(k):
                C[i, j] += A[i, p] * B[p, j]
""", V.wrong_model, ("Python-level loop", "for i in range(m)")),
    Plant("numpy-gemv-row-and-column-loops", "gemv", "python-numpy", """\
import numpy as np


def gemv(m, n, A, x, y):
    for i in range(m):
        total = 0.0
        for j in range(n):
            total += A[i][j] * x[j]
        y[i] = total
""", V.wrong_model, ("Python-level loop",)),
    Plant("numpy-axpy-element-loop", "axpy", "python-numpy", """\
import numpy as np


def saxpy(n, a, x, y):
    i = 0
    while i < n:
        y[i] = a * x[i] + y[i]
        i += 1
""", V.wrong_model, ("Python-level loop",)),
    Plant("numpy-spmv-row-and-entry-loops", "spmv", "python-numpy", """\
import numpy as np


def spmv(n, nnz, row_ptr, col_idx, values, x, y):
    y[:] = np.zeros(n)
    for row in range(n):
        for idx in range(row_ptr[row], row_ptr[row + 1]):
            y[row] += values[idx] * x[col_idx[idx]]
""", V.wrong_model, ("Python-level loop",)),
    Plant("numpy-jacobi-triple-loop", "jacobi", "python-numpy", """\
import numpy as np


def jacobi(nx, ny, nz, u, unew):
    for i in range(1, nx - 1):
        for j in range(1, ny - 1):
            for k in range(1, nz - 1):
                unew[i, j, k] = (u[i - 1, j, k] + u[i + 1, j, k] + u[i, j - 1, k] + u[i, j + 1, k]
                                 + u[i, j, k - 1] + u[i, j, k + 1]) / 6.0
""", V.wrong_model, ("Python-level loop",)),
    Plant("numpy-cg-python-matvec-inside-iterations", "cg", "python-numpy", """\
import numpy as np


def _matvec(n, row_ptr, col_idx, values, v):
    out = np.zeros(n)
    for i in range(n):
        s = 0.0
        for j in range(row_ptr[i], row_ptr[i + 1]):
            s += values[j] * v[col_idx[j]]
        out[i] = s
    return out


def cg(n, nnz, row_ptr, col_idx, values, b, x, tol, max_iter):
    r = b - _matvec(n, row_ptr, col_idx, values, x)
    p = r.copy()
    rr = r @ r
    bnorm = np.linalg.norm(b)
    for _ in range(max_iter):
        if np.sqrt(rr) <= tol * bnorm:
            break
        q = _matvec(n, row_ptr, col_idx, values, p)
        alpha = rr / (p @ q)
        x += alpha * p
        r -= alpha * q
        rr_new = r @ r
        p = r + (rr_new / rr) * p
        rr = rr_new
""", V.wrong_model, ("Python-level loop", "_matvec")),
    Plant("numpy-gemv-list-comprehension", "gemv", "python-numpy", """\
import numpy as np


def gemv(m, n, A, x, y):
    y[:] = np.array([sum(A[i, j] * x[j] for j in range(n)) for i in range(m)])
""", V.wrong_model, ("Python-level loop",)),
]

NUMPY_PASS = [
    Plant("numpy-gemm-matmul", "gemm", "python-numpy", """\
import numpy as np


def gemm(m, n, k, A, B, C):
    C[:] = A @ B
""", V.correct),
    Plant("numpy-gemv-dot-out", "gemv", "python-numpy", """\
import numpy as np


def gemv(m, n, A, x, y):
    np.dot(A, x, out=y)
""", V.correct),
    Plant("numpy-gemv-row-loop-vectorised-body", "gemv", "python-numpy", """\
import numpy as np


def gemv(m, n, A, x, y):
    for i in range(m):
        y[i] = A[i, :] @ x
""", V.correct),
    Plant("numpy-jacobi-slices-with-fixed-offset-loop", "jacobi", "python-numpy", """\
import numpy as np


def jacobi(nx, ny, nz, u, unew):
    acc = np.zeros_like(u[1:-1, 1:-1, 1:-1])
    for axis in range(3):
        acc += np.roll(u, 1, axis=axis)[1:-1, 1:-1, 1:-1] + np.roll(u, -1, axis=axis)[1:-1, 1:-1, 1:-1]
    unew[1:-1, 1:-1, 1:-1] = acc / 6.0
""", V.correct),
    Plant("numpy-spmv-per-row-slices", "spmv", "python-numpy", """\
import numpy as np


def spmv(n, nnz, row_ptr, col_idx, values, x, y):
    for i in range(n):
        lo, hi = row_ptr[i], row_ptr[i + 1]
        y[i] = np.dot(values[lo:hi], x[col_idx[lo:hi]])
""", V.correct),
    Plant("numpy-cg-iteration-loop-vectorised", "cg", "python-numpy", """\
import numpy as np


def cg(n, nnz, row_ptr, col_idx, values, b, x, tol, max_iter):
    rows = np.repeat(np.arange(n), np.diff(row_ptr[: n + 1]))

    def matvec(v):
        return np.bincount(rows, weights=values[:nnz] * v[col_idx[:nnz]], minlength=n)

    r = b - matvec(x)
    p = r.copy()
    rr = float(r @ r)
    stop = tol * np.linalg.norm(b)
    it = 0
    while it < max_iter and np.sqrt(rr) > stop:
        q = matvec(p)
        alpha = rr / float(p @ q)
        x += alpha * p
        r -= alpha * q
        rr_new = float(r @ r)
        p = r + (rr_new / rr) * p
        rr = rr_new
        it += 1
""", V.correct),
    Plant("numpy-axpy-unused-naive-sibling", "axpy", "python-numpy", """\
import numpy as np


def saxpy_naive(n, a, x, y):
    for i in range(n):
        y[i] = a * x[i] + y[i]


def saxpy(n, a, x, y):
    y += a * x
""", V.correct),
]

PLANTS = DIRECTIVE_FAIL + DIRECTIVE_PASS + NUMPY_FAIL + NUMPY_PASS


def _evaluate_all(catalog, plants: list[Plant]) -> dict[str, Evaluation | BaseException]:
    evaluator = Evaluator(catalog, LocalExecutor(), timing=False)
    for kernel in {p.kernel for p in plants}:
        catalog.kernels[kernel].module  # noqa: B018 - import reference.py once, before the threads

    def one(plant: Plant) -> Evaluation | BaseException:
        try:
            return evaluator.evaluate(plant.code, catalog.kernels[plant.kernel], catalog.models[plant.model])
        except BaseException as exc:  # noqa: BLE001 - reported by the plant's own test
            return exc

    with ThreadPoolExecutor(max_workers=max(2, min(4, os.cpu_count() or 2))) as pool:
        return dict(zip([p.id for p in plants], pool.map(one, plants), strict=True))


@pytest.fixture(scope="module")
def results(catalog) -> dict[str, Evaluation | BaseException]:
    return _evaluate_all(catalog, PLANTS)


def _check(plant: Plant, e: Evaluation | BaseException) -> None:
    if isinstance(e, BaseException):
        raise e
    assert e.verdict == plant.verdict, f"{plant.id}: got {e.verdict}: {e.evidence}"
    for text in plant.evidence:
        assert text in e.evidence, f"{plant.id}: {text!r} not in evidence {e.evidence!r}"
    if plant.verdict == V.wrong_model:
        assert e.max_rel_error is not None, "the numbers were validated first: only the model was wrong"


@pytest.mark.parametrize("plant", DIRECTIVE_FAIL + DIRECTIVE_PASS, ids=lambda p: p.id)
def test_directive_construct_encloses_the_writing_loop_nest(plant: Plant, results):
    _check(plant, results[plant.id])


@pytest.mark.parametrize("plant", NUMPY_FAIL + NUMPY_PASS, ids=lambda p: p.id)
def test_numpy_has_no_python_element_loops(plant: Plant, results):
    _check(plant, results[plant.id])
