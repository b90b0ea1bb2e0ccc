"""A complete function that lacks one of the kernel's data inputs computes another operation: the LLM's failure.

Llama-2's AXPY suggestions were mostly other kernels under the AXPY name (a dot product, `z = x + y` without `a`).
Such a function cannot be bound, and leaving it `unbindable` (outside the score) credited the LLM with nothing
wrong. A function with no parameter for a data input (an input array, or a real scalar of the formula such as
AXPY's `a`) cannot compute the kernel for the values it is given: `wrong_result`, with evidence that says so.
Left as they were: control parameters a solver may fix itself (CG's tol and max_iter), missing outputs (an
in-place update), sizes (implied by the arrays), and functions the harness failed to map for other reasons.
Cases written as an unseen LLM would write them.
"""

from __future__ import annotations

import pytest

from hpceval.contracts import Verdict

V = Verdict

CASES = [
    ("dot-product-as-axpy", "axpy", "cpp-openmp", """
#include <omp.h>
double dotProduct(float *x, float *y, int n) {
  double sum = 0.0;
#pragma omp parallel for reduction(+:sum)
  for (int j = 0; j < n; j++) sum += x[j] * y[j];
  return sum;
}
""", V.wrong_result, "no parameter for a"),
    ("vector-add-as-axpy", "axpy", "cpp-openmp", """
void axpyCPU(float *x, float *y, float *z, int n) {
#pragma omp parallel for
  for (int j = 0; j < n; j++) z[j] = x[j] + y[j];
}
""", V.wrong_result, "no parameter for a"),
    ("python-fixed-scale", "axpy", "python-numpy", """
import numpy as np

def axpy(x, y):
    return 2.0 * x + y
""", V.wrong_result, "no parameter for a"),
    ("gemv-without-x", "gemv", "cpp-openmp", """
void gemv(int m, int n, const double *A, double *y) {
#pragma omp parallel for
  for (int i = 0; i < m; i++) { double s = 0; for (int j = 0; j < n; j++) s += A[i * n + j]; y[i] = s; }
}
""", V.wrong_result, "no parameter for x"),
    # a demo that draws its own data (and so has no output to write either): the study's CuPy GEMV pattern
    ("demo-with-its-own-data", "gemv", "python-numpy", """
import numpy as np

def gemv_np(n):
    a = np.random.rand(n, n)
    b = np.random.rand(n)
    c = np.dot(a, b)
    print(c)
""", V.wrong_result, "no parameter for A, x"),
    # the scale factor travels in a struct: built by its fields (bind.adapt), never "not the kernel"
    ("scale-in-a-struct", "axpy", "cpp-openmp", """
struct Params { float a; int n; };
void saxpy(const Params &p, const float *x, float *y) {
#pragma omp parallel for
  for (int i = 0; i < p.n; i++) y[i] = p.a * x[i] + y[i];
}
""", None, ""),
    # Fortran: a vector sum under the AXPY name, and row sums under the GEMV name
    ("fortran-vector-add-as-axpy", "axpy", "fortran-openmp", """
subroutine saxpy(n, x, y)
  implicit none
  integer, intent(in) :: n
  real, intent(in) :: x(n)
  real, intent(inout) :: y(n)
  integer :: i
  !$omp parallel do
  do i = 1, n
    y(i) = x(i) + y(i)
  end do
  !$omp end parallel do
end subroutine saxpy
""", V.wrong_result, "a"),
    ("fortran-row-sums-as-gemv", "gemv", "fortran-openacc", """
subroutine gemv(m, n, A, y)
  integer, intent(in) :: m, n
  real(8), intent(in) :: A(n, m)
  real(8), intent(out) :: y(m)
  integer :: i, j
  !$acc parallel loop copyin(A) copyout(y)
  do i = 1, m
    y(i) = 0.0d0
    do j = 1, n
      y(i) = y(i) + A(j, i)
    end do
  end do
end subroutine gemv
""", V.wrong_result, "x"),
    # Fortran CG that fixes its own tolerance and cap: a solver's stopping rule, not another kernel
    ("fortran-cg-fixed-tolerance", "cg", "fortran-openmp", """
subroutine cg(n, nnz, row_ptr, col_idx, vals, b, x)
  implicit none
  integer, intent(in) :: n, nnz, row_ptr(n+1), col_idx(nnz)
  real(8), intent(in) :: vals(nnz), b(n)
  real(8), intent(inout) :: x(n)
  real(8) :: r(n), p(n), ap(n), rs, rs_new, alpha
  integer :: i, k, it
  do i = 1, n
    ap(i) = 0.0d0
    do k = row_ptr(i) + 1, row_ptr(i + 1)
      ap(i) = ap(i) + vals(k) * x(col_idx(k) + 1)
    end do
  end do
  r = b - ap
  p = r
  rs = dot_product(r, r)
  do it = 1, 10000
    if (sqrt(rs) < 1.0d-10) exit
    !$omp parallel do private(k)
    do i = 1, n
      ap(i) = 0.0d0
      do k = row_ptr(i) + 1, row_ptr(i + 1)
        ap(i) = ap(i) + vals(k) * p(col_idx(k) + 1)
      end do
    end do
    alpha = rs / dot_product(p, ap)
    x = x + alpha * p
    r = r - alpha * ap
    rs_new = dot_product(r, r)
    p = r + (rs_new / rs) * p
    rs = rs_new
  end do
end subroutine cg
""", None, ""),
    # CG with its own fixed tolerance and iteration cap: not a different kernel
    ("cg-fixed-tolerance", "cg", "python-numpy", """
import numpy as np

def cg(n, row_ptr, col_idx, values, b, x):
    def matvec(v):
        out = np.zeros(n)
        for i in range(n):
            out[i] = values[row_ptr[i]:row_ptr[i + 1]] @ v[col_idx[row_ptr[i]:row_ptr[i + 1]]]
        return out
    r = b - matvec(x)
    p = r.copy()
    rs = r @ r
    for _ in range(1000):
        Ap = matvec(p)
        alpha = rs / (p @ Ap)
        x += alpha * p
        r -= alpha * Ap
        rs_new = r @ r
        if np.sqrt(rs_new) < 1e-10:
            break
        p = r + (rs_new / rs) * p
        rs = rs_new
    return x
""", None, ""),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_a_function_without_a_data_input_is_not_the_kernel(case, catalog, evaluator):
    _, kernel, model, code, verdict, evidence = case
    e = evaluator.evaluate(code, catalog.kernels[kernel], catalog.models[model],
                           binding=_paper_binding(catalog, code, kernel, model))
    if verdict is None:  # fixed control parameters: never "not the kernel"
        assert "cannot compute" not in e.evidence, e.evidence
        return
    assert e.verdict == verdict, f"{e.verdict}: {e.evidence}"
    if verdict == V.unbindable:
        assert "cannot compute" not in e.evidence, e.evidence
        return
    assert evidence in e.evidence and "cannot compute" in e.evidence, e.evidence


def _paper_binding(catalog, code, kernel, model):
    from hpceval.bind.signature import infer_binding

    m = catalog.models[model]
    return infer_binding(code, catalog.kernels[kernel], catalog.languages[m.language], m)


# A HIP `__global__` kernel that only the suggestion's main launches, computing z = x + y under the AXPY name (the
# follow-up study's Llama-2 pattern): the kernel the harness would launch lacks `a`. The binding says so (the GPU
# toolchain cannot run here, so the verdict is taken from the binding as the evaluator takes it).
HIP_VECTOR_ADD = """
#include <hip/hip_runtime.h>
__global__ void axpy(float *x, float *y, float *z, int n) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < n) z[idx] = x[idx] + y[idx];
}
int main() {
  int n = 1000;
  float *x, *y, *z;
  hipMalloc((void **)&x, n * sizeof(float));
  hipMalloc((void **)&y, n * sizeof(float));
  hipMalloc((void **)&z, n * sizeof(float));
  axpy<<<(n + 255) / 256, 256>>>(x, y, z, n);
  hipDeviceSynchronize();
  return 0;
}
"""


def test_a_device_kernel_without_a_data_input_is_not_the_kernel(catalog):
    from hpceval.evaluate import _missing_data_inputs

    b = _paper_binding(catalog, HIP_VECTOR_ADD, "axpy", "cpp-hip")
    assert b.error and "no parameter for a" in b.error, b.error
    assert _missing_data_inputs(b.error, catalog.kernels["axpy"]) == ["a"]
    openmp = _paper_binding(catalog, HIP_VECTOR_ADD, "axpy", "cpp-openmp")  # not launchable there: as before
    assert openmp.error and "device kernel" in openmp.error


# Julia (no toolchain here: the binding decides, as the evaluator takes it): a vector sum under the AXPY name lacks
# `a`; a function that updates y from x and its own `a` argument is the kernel
JULIA_VECTOR_ADD = """
function axpy!(y, x)
    Threads.@threads for i in eachindex(y)
        y[i] = x[i] + y[i]
    end
    return y
end
"""
JULIA_AXPY = """
function axpy!(a, x, y)
    Threads.@threads for i in eachindex(y)
        y[i] = a * x[i] + y[i]
    end
end
"""


def test_a_julia_function_without_a_data_input_is_not_the_kernel(catalog):
    from hpceval.evaluate import _missing_data_inputs

    b = _paper_binding(catalog, JULIA_VECTOR_ADD, "axpy", "julia-threads")
    assert b.error and "no parameter for a" in b.error, b.error
    assert _missing_data_inputs(b.error, catalog.kernels["axpy"]) == ["a"]
    good = _paper_binding(catalog, JULIA_AXPY, "axpy", "julia-threads")
    assert good.error is None, good.error
