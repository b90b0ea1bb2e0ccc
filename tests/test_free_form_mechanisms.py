"""Mechanisms found missing by a held-out round of free-form answers (C++, Fortran, Python; all six kernels).

Each case is written as the answer of an LLM nobody tuned for, and labelled before the mechanism existed; every
one of them was graded wrong before it:

* a jitted Numba function that only copies a host product into the output (`y[i] = tmp[i]`) did the work
  (analysis.where_python: a jitted copy carries the value it copies) -> was `correct`, is `wrong_model`;
* a SYCL answer whose sweeps run in host loops through a host accessor of the output's buffer
  (analysis.parallel_work: writes through a view of the output's storage are the output's) -> was `correct`;
* a Python dict or object that carries the output (`grids["unew"]`, `p.y`) is read back after the call
  (bind.adapt.python) -> was `runtime_error` (the dict was handed a NumPy array);
* a class with a syntax error that the bound function uses (prune keeps it, the import fails) -> was
  `runtime_error` (NameError in the call), is `build_error`;
* Fortran `optional` dummies may be left out of the call (bind.parse.fortran, glue.fortran) -> was `unbindable`;
* a function template over `std::span<const T>` is handed spans (deduction does not look through conversions)
  -> was `build_error` in the driver;
* a helper the answer declares and never defines is `incomplete` (the linker confirms it) -> was `build_error`;
* a row length that is a template parameter (`const double (*A)[N]`) is the harness's shortfall: `unbindable`,
  said as such -> was `build_error` in the driver;
* a wrapper whose only evidence is the jitted kernel it hands its parameters to (bind.parse.python: the callee's
  loops and subscripts, in the caller's names) -> was bound by position alone;
* `std::copy(x, x + n, xs)` writes xs, not x (bind.parse.cpp) -> x was "written but mapped to an input".
"""

from __future__ import annotations

import pytest

from hpceval.contracts import Verdict

V = Verdict

CASES = [
    ("numba-jitted-copy-of-host-product", "gemv", "python-numba", """
import numpy as np
from numba import njit, prange

@njit(parallel=True)
def _publish(dst, src):
    for i in prange(dst.shape[0]):
        dst[i] = src[i]

def gemv(A, x, y):
    _publish(y, A @ x)
""", V.wrong_model),
    ("numba-jitted-copy-of-jitted-product", "gemv", "python-numba", """
import numpy as np
from numba import njit, prange

@njit(parallel=True)
def _rows(A, x):
    out = np.empty(A.shape[0])
    for i in prange(A.shape[0]):
        s = 0.0
        for j in range(A.shape[1]):
            s += A[i, j] * x[j]
        out[i] = s
    return out

@njit(parallel=True)
def _publish(dst, src):
    for i in prange(dst.shape[0]):
        dst[i] = src[i]

def gemv(A, x, y):
    _publish(y, _rows(A, x))
""", V.correct),
    ("numba-wrapper-known-by-its-kernel", "gemm", "python-numba", """
import numpy as np
from numba import njit, prange

@njit(parallel=True)
def _kernel(m, n, k, A, B, C):
    for i in prange(m):
        for j in range(n):
            acc = 0.0
            for p in range(k):
                acc += A[i, p] * B[p, j]
            C[i, j] = acc

def matmul(lhs, rhs, out, rows, inner, cols):
    _kernel(rows, cols, inner, lhs, rhs, out)
""", V.correct),
    ("python-dict-carries-the-output", "jacobi", "python-numpy", """
import numpy as np

def jacobi_step(state):
    u, v = state["u"], state["unew"]
    v[1:-1, 1:-1, 1:-1] = (u[:-2, 1:-1, 1:-1] + u[2:, 1:-1, 1:-1] + u[1:-1, :-2, 1:-1]
                           + u[1:-1, 2:, 1:-1] + u[1:-1, 1:-1, :-2] + u[1:-1, 1:-1, 2:]) / 6.0
    return state
""", V.correct),
    ("python-dict-output-replaced", "axpy", "python-numpy", """
import numpy as np

def axpy(bundle):
    bundle["y"] = np.add(bundle["a"] * bundle["x"], bundle["y"])
""", V.correct),
    ("python-dict-output-replaced-wrongly", "axpy", "python-numpy", """
import numpy as np

def axpy(bundle):
    bundle["y"] = np.multiply(bundle["a"], bundle["x"])
""", V.wrong_result),
    ("python-class-with-syntax-error", "axpy", "python-numpy", """
import numpy as np

class Saxpy:
    def __init__(self, a):
        self.a = a

    def __call__(self, x, y):
        np.add(y, self.a * x, out=y
        return y

def axpy(a, x, y):
    return Saxpy(a)(x, y)
""", V.build_error),
    ("fortran-optional-status", "spmv", "fortran-openmp", """
module csr_kernels
  implicit none
contains
  subroutine spmv(n, rowptr, colidx, vals, x, y, info)
    integer, intent(in) :: n, rowptr(n + 1), colidx(*)
    double precision, intent(in) :: vals(*), x(n)
    double precision, intent(out) :: y(n)
    integer, intent(out), optional :: info
    integer :: i, jj
    !$omp parallel do private(jj)
    do i = 1, n
      y(i) = 0.0d0
      do jj = rowptr(i), rowptr(i + 1) - 1
        y(i) = y(i) + vals(jj) * x(colidx(jj))
      end do
    end do
    !$omp end parallel do
    if (present(info)) info = 0
  end subroutine spmv
end module csr_kernels
""", V.correct),
    ("cpp-span-template", "axpy", "cpp-openmp", """
#include <span>
#include <cstddef>

template <class T>
void axpy(T a, std::span<const T> x, std::span<T> y) {
  #pragma omp parallel for
  for (std::size_t i = 0; i < y.size(); ++i) y[i] += a * x[i];
}
""", V.correct),
    ("cpp-declared-helper-never-defined", "gemv", "cpp-openmp", """
#include <omp.h>

static double row_dot(const double* row, const double* x, int n);

void gemv(int m, int n, const double* A, const double* x, double* y) {
  #pragma omp parallel for
  for (int i = 0; i < m; ++i) y[i] = row_dot(A + (long)i * n, x, n);
}
""", V.incomplete),
    ("cpp-template-row-length", "gemv", "cpp-openmp", """
template <int COLS>
void gemv(int m, const double (*A)[COLS], const double* x, double* y) {
  #pragma omp parallel for
  for (int i = 0; i < m; ++i) {
    double s = 0.0;
    for (int j = 0; j < COLS; ++j) s += A[i][j] * x[j];
    y[i] = s;
  }
}
""", V.unbindable),
    ("cpp-copy-writes-its-destination-only", "gemv", "cpp-openmp", """
#include <algorithm>
#include <vector>

void gemv(int m, int n, double* A, double* x, double* y) {
  std::vector<double> xs(n);
  std::copy(x, x + n, xs.begin());
  #pragma omp parallel for
  for (int i = 0; i < m; ++i) {
    double s = 0.0;
    for (int j = 0; j < n; ++j) s += A[i * n + j] * xs[j];
    y[i] = s;
  }
}
""", V.correct),
    ("cpp-sizes-in-a-std-array", "gemm", "cpp-openmp", """
#include <array>

using Extents = std::array<int, 3>;  // {rows of A, columns of B, inner}

void gemm(const Extents& e, const double* A, const double* B, double* C) {
  #pragma omp parallel for
  for (int i = 0; i < e[0]; ++i)
    for (int j = 0; j < e[1]; ++j) {
      double s = 0.0;
      for (int p = 0; p < e[2]; ++p) s += A[i * e[2] + p] * B[p * e[1] + j];
      C[i * e[1] + j] = s;
    }
}
""", V.correct),
    ("cpp-sizes-in-an-int-pointer-swapped", "gemv", "cpp-openmp", """
void gemv(const int* shape, const double* A, const double* x, double* y) {
  #pragma omp parallel for
  for (int i = 0; i < shape[0]; ++i) {
    double s = 0.0;
    for (int j = 0; j < shape[1]; ++j) s += A[j * shape[0] + i] * x[j];
    y[i] = s;
  }
}
""", V.correct),
    ("openacc-helper-inside-the-callers-data-region", "axpy", "cpp-openacc", """
static void scale_add(int n, double a, const double* src, double* dst) {
  #pragma acc parallel loop present(src[0:n], dst[0:n])
  for (int i = 0; i < n; ++i) dst[i] += a * src[i];
}

void axpy(int n, double a, const double* x, double* y) {
  #pragma acc data copyin(x[0:n]) copy(y[0:n])
  {
    scale_add(n, a, x, y);
  }
}
""", V.correct),
    ("openacc-present-with-nothing-mapping-it", "axpy", "cpp-openacc", """
void axpy(int n, double a, const double* x, double* y) {
  #pragma acc parallel loop present(x[0:n], y[0:n])
  for (int i = 0; i < n; ++i) y[i] += a * x[i];
}
""", V.wrong_result),
    ("sycl-host-accessor-sweep", "axpy", "cpp-sycl", """
#include <sycl/sycl.hpp>

void axpy(sycl::queue& q, int n, double a, const double* x, double* y) {
  sycl::buffer<double, 1> xb(x, sycl::range<1>(n));
  sycl::buffer<double, 1> yb(y, sycl::range<1>(n));
  sycl::buffer<double, 1> tb{sycl::range<1>(n)};
  q.submit([&](sycl::handler& h) {
    sycl::accessor yy(yb, h, sycl::read_only);
    sycl::accessor tt(tb, h, sycl::write_only, sycl::no_init);
    h.parallel_for(sycl::range<1>(n), [=](sycl::id<1> i) { tt[i] = yy[i]; });
  });
  sycl::host_accessor hx(xb, sycl::read_only);
  sycl::host_accessor hy(yb, sycl::read_write);
  for (int i = 0; i < n; ++i) hy[i] = a * hx[i] + hy[i];
}
""", V.wrong_model),
]


@pytest.mark.parametrize("name,kernel,model,code,verdict", CASES, ids=[c[0] for c in CASES])
def test_free_form_mechanisms(name, kernel, model, code, verdict, paper_verdict):
    e = paper_verdict(code, kernel, model, verdict)
    if name == "cpp-template-row-length":
        assert "template parameter" in e.evidence, e.evidence
    if name == "cpp-declared-helper-never-defined":
        assert "row_dot" in e.evidence, e.evidence


MAPPED_OUT = [
    ("openacc-copyout-interior-only", "cpp-openacc", """
void jacobi(int nx, int ny, int nz, const double* u, double* unew) {
  #pragma acc parallel loop collapse(3) copyin(u[0:nx*ny*nz]) copyout(unew[0:nx*ny*nz])
  for (int i = 1; i < nx - 1; ++i)
    for (int j = 1; j < ny - 1; ++j)
      for (int k = 1; k < nz - 1; ++k) {
        long c = ((long)i * ny + j) * nz + k;
        unew[c] = (u[c - (long)ny * nz] + u[c + (long)ny * nz] + u[c - nz] + u[c + nz] + u[c - 1] + u[c + 1]) / 6.0;
      }
}
""", V.wrong_result),
    ("openacc-copyout-writes-the-boundary-too", "cpp-openacc", """
void jacobi(int nx, int ny, int nz, const double* u, double* unew) {
  #pragma acc parallel loop collapse(3) copyin(u[0:nx*ny*nz]) copyout(unew[0:nx*ny*nz])
  for (int i = 0; i < nx; ++i)
    for (int j = 0; j < ny; ++j)
      for (int k = 0; k < nz; ++k) {
        long c = ((long)i * ny + j) * nz + k;
        bool edge = i == 0 || j == 0 || k == 0 || i == nx - 1 || j == ny - 1 || k == nz - 1;
        unew[c] = edge ? u[c] : (u[c - (long)ny * nz] + u[c + (long)ny * nz] + u[c - nz] + u[c + nz]
                                 + u[c - 1] + u[c + 1]) / 6.0;
      }
}
""", V.correct),
    ("openacc-copy-keeps-the-boundary", "cpp-openacc", """
void jacobi(int nx, int ny, int nz, const double* u, double* unew) {
  #pragma acc parallel loop collapse(3) copyin(u[0:nx*ny*nz]) copy(unew[0:nx*ny*nz])
  for (int i = 1; i < nx - 1; ++i)
    for (int j = 1; j < ny - 1; ++j)
      for (int k = 1; k < nz - 1; ++k) {
        long c = ((long)i * ny + j) * nz + k;
        unew[c] = (u[c - (long)ny * nz] + u[c + (long)ny * nz] + u[c - nz] + u[c + nz] + u[c - 1] + u[c + 1]) / 6.0;
      }
}
""", V.correct),
    ("fortran-offload-map-from-interior-only", "fortran-openmp-offload", """
subroutine jacobi(nx, ny, nz, u, unew)
  implicit none
  integer, intent(in) :: nx, ny, nz
  double precision, intent(in) :: u(nx, ny, nz)
  double precision, intent(inout) :: unew(nx, ny, nz)
  integer :: i, j, k
  !$omp target teams distribute parallel do collapse(3) map(to: u) map(from: unew)
  do k = 2, nz - 1
    do j = 2, ny - 1
      do i = 2, nx - 1
        unew(i, j, k) = (u(i-1, j, k) + u(i+1, j, k) + u(i, j-1, k) + u(i, j+1, k) &
                         + u(i, j, k-1) + u(i, j, k+1)) / 6.0d0
      end do
    end do
  end do
end subroutine jacobi
""", V.wrong_result),
]


@pytest.mark.parametrize("name,model,code,verdict", MAPPED_OUT, ids=[c[0] for c in MAPPED_OUT])
def test_kept_output_mapped_out_only(name, model, code, verdict, paper_verdict):
    """An output kept in part but mapped out only is graded undefined on entry (checks.data_mapping)."""
    e = paper_verdict(code, "jacobi", model, verdict)
    if verdict == V.wrong_result:
        assert "mapped out only" in e.evidence, e.evidence
