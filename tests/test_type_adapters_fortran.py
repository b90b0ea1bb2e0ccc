"""The Fortran glue builds the suggestion's own dummy types (bind.adapt.fortran): derived types (a CSR type with
allocatable components, a matrix type) built by their components, and assumed-shape arrays, in a module or not.

Cases are whole suggestions as an unseen LLM might write them, evaluated end to end (infer_binding +
evaluator.evaluate, no timing): right-but-unusual ones must be `correct`, subtly wrong ones `wrong_result`, a serial
one `wrong_model`, one that does not compile `build_error` (never `unbindable`).
"""

from __future__ import annotations

import re

import pytest

from hpceval.contracts import Verdict

V = Verdict

CSR_MODULE = """
module sparse_mod
  implicit none
  type :: csr_matrix
    integer :: n, nnz
    integer, allocatable :: row_ptr(:), col_ind(:)
    real(8), allocatable :: val(:)
  end type csr_matrix
contains
"""
CSR_SPMV = CSR_MODULE + """
  subroutine spmv(A, x, y)
    type(csr_matrix), intent(in) :: A
    real(8), intent(in) :: x(:)
    real(8), intent(out) :: y(:)
    integer :: i, k
    !$omp parallel do private(k)
    do i = 1, A%n
      y(i) = 0.0d0
      do k = A%row_ptr(i), A%row_ptr(i + 1) - 1
        y(i) = y(i) + A%val(k) * x(A%col_ind(k))
      end do
    end do
    !$omp end parallel do
  end subroutine spmv
end module sparse_mod
"""
DENSE_GEMV = """
module linalg
  implicit none
  type dense_matrix
    integer :: rows, cols
    real(8), allocatable :: a(:,:)
  end type dense_matrix
contains
  subroutine gemv(mat, x, y)
    type(dense_matrix), intent(in) :: mat
    real(8), intent(in) :: x(:)
    real(8), intent(inout) :: y(:)
    integer :: i, j
    !$omp parallel do private(j)
    do i = 1, mat%rows
      y(i) = 0.0d0
      do j = 1, mat%cols
        y(i) = y(i) + mat%a(i, j) * x(j)
      end do
    end do
  end subroutine gemv
end module linalg
"""

CASES = [
    ("derived-type-csr-allocatable", "spmv", "fortran-openmp", CSR_SPMV, V.correct),
    ("derived-type-matrix-gemv", "gemv", "fortran-openmp", DENSE_GEMV, V.correct),
    ("assumed-shape-in-a-module", "axpy", "fortran-openmp", """
module blas1
contains
  subroutine saxpy(a, x, y)
    real, intent(in) :: a
    real, intent(in) :: x(:)
    real, intent(inout) :: y(:)
    integer :: i
    !$omp parallel do
    do i = 1, size(x)
      y(i) = a * x(i) + y(i)
    end do
    !$omp end parallel do
  end subroutine saxpy
end module blas1
""", V.correct),
    ("assumed-shape-external", "gemv", "fortran-openmp", """
subroutine gemv(A, x, y)
  implicit none
  real(8), intent(in) :: A(:,:), x(:)
  real(8), intent(out) :: y(:)
  integer :: i, j
  !$omp parallel do private(j)
  do i = 1, size(A, 1)
    y(i) = 0.0d0
    do j = 1, size(A, 2)
      y(i) = y(i) + A(i, j) * x(j)
    end do
  end do
  !$omp end parallel do
end subroutine gemv
""", V.correct),
    # the row's last entry is dropped
    ("derived-type-csr-drops-last", "spmv", "fortran-openmp", CSR_SPMV.replace("row_ptr(i + 1) - 1", "row_ptr(i + 1) - 2"), V.wrong_result),
    ("assumed-shape-skips-last", "axpy", "fortran-openmp", """
module blas1
contains
  subroutine saxpy(a, x, y)
    real, intent(in) :: a, x(:)
    real, intent(inout) :: y(:)
    integer :: i
    !$omp parallel do
    do i = 1, size(x) - 1
      y(i) = a * x(i) + y(i)
    end do
  end subroutine saxpy
end module blas1
""", V.wrong_result),
    # x read at the row index
    ("derived-type-matrix-reads-x-by-row", "gemv", "fortran-openmp", DENSE_GEMV.replace("* x(j)", "* x(i)").replace("intent(inout) :: y", "intent(out) :: y"), V.wrong_result),
    ("derived-type-csr-serial", "spmv", "fortran-openmp", re.sub(r"\s*!\$omp[^\n]*", "", CSR_SPMV), V.wrong_model),
    # a component the type does not have
    ("derived-type-unknown-component", "spmv", "fortran-openmp", CSR_SPMV.replace("do i = 1, A%n", "do i = 1, A%nrows"), V.build_error),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_fortran_types(case, catalog, evaluator):
    from hpceval.bind.signature import infer_binding

    _, kernel, model, code, verdict = case
    m = catalog.models[model]
    binding = infer_binding(code, catalog.kernels[kernel], catalog.languages[m.language], m)
    e = evaluator.evaluate(code, catalog.kernels[kernel], m, binding=binding)
    assert e.verdict == verdict, f"{e.verdict}: {e.evidence}\nbinding: {binding.evidence}"


def test_derived_type_glue_fills_its_components(catalog):
    """The derived type is declared once and each component is filled from its role."""
    from hpceval.bind.signature import infer_binding

    m = catalog.models["fortran-openmp"]
    b = infer_binding(CASES[0][3], catalog.kernels["spmv"], catalog.languages[m.language], m)
    assert b.error is None, b.error
    assert any("type(csr_matrix)" in d for d in b.decls), b.decls
    assert b.mapping.get("a%row_ptr") == "row_ptr" and b.mapping.get("a%val") == "values", b.mapping
