"""Structural edge cases (issue 28, mechanism 5): every kernel declares, in its spec.toml, the named structures real
inputs have (SpMV: empty rows, the first and the last among them, a dense row, a single column; GEMV/GEMM: one
row, one column, tall, wide, square; Jacobi: the thinnest grids with an interior; CG: a diagonal system). The case
generator draws each structure, checks that make_inputs really produced it (`holds`), and a kernel that skips a
structure fails with evidence naming it. Suggestions below are written as an unseen LLM would."""

from __future__ import annotations

import re
import shutil
import textwrap
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from hpceval.cases.generate import validation_cases
from hpceval.spec import SpecError, eval_expr, load_catalog

REPO = Path(__file__).resolve().parents[1]

DECLARED = {
    "spmv": {"empty_rows", "dense_row", "single_column"},
    "gemv": {"one_row", "one_column", "tall", "wide", "square"},
    "gemm": {"one_row", "one_column", "tall", "wide", "square"},
    "jacobi": {"no_interior", "thinnest_interior"},
    "cg": {"diagonal"},
}


@pytest.mark.parametrize("kernel", sorted(DECLARED))
def test_kernels_declare_their_structures(catalog, kernel):
    names = {s.name for s in catalog.kernels[kernel].structures}
    assert DECLARED[kernel] <= names
    assert all(s.doc for s in catalog.kernels[kernel].structures)


@pytest.mark.parametrize("kernel", sorted(DECLARED))
def test_every_structure_is_drawn_and_holds(catalog, kernel):
    spec = catalog.kernels[kernel]
    cases = validation_cases(spec, 7)
    drawn = {c.structure for c in cases if c.structure}
    assert drawn == {s.name for s in spec.structures}
    for case in cases:
        if case.structure:
            s = next(x for x in spec.structures if x.name == case.structure)
            assert bool(eval_expr(s.holds, case.inputs)), (kernel, case.label)
            assert case.structure in case.label


def test_spmv_empty_rows_include_first_and_last(catalog):
    spec = catalog.kernels["spmv"]
    for case in validation_cases(spec, 11):
        if case.structure == "empty_rows":
            rp = case.inputs["row_ptr"]
            assert rp[0] == rp[1] and rp[-2] == rp[-1]


def test_cg_diagonal_is_diagonal(catalog):
    spec = catalog.kernels["cg"]
    case = next(c for c in validation_cases(spec, 3) if c.structure == "diagonal")
    n = case.inputs["n"]
    assert case.inputs["nnz"] == n and np.array_equal(case.inputs["col_idx"], np.arange(n))


def _kernel_folder(tmp_path: Path, kernel: str, spec_extra: str) -> Path:
    root = tmp_path / "kernels"
    root.mkdir()
    shutil.copy(REPO / "kernels_spec" / "models.toml", root / "models.toml")
    shutil.copytree(REPO / "kernels_spec" / kernel, root / kernel)
    with (root / kernel / "spec.toml").open("a") as f:
        f.write(spec_extra)
    return root


def test_structure_the_generator_ignores_is_refused(tmp_path):
    """A spec that declares a structure its make_inputs does not produce fails loudly, naming the structure."""
    root = _kernel_folder(tmp_path, "gemv", textwrap.dedent("""
        [[structures]]
        name = "zero_matrix"
        doc = "A is all zeros"
        sizes = [{ m = 5, n = 4, zeros = 1 }]
        holds = "not A.any()"
    """))
    spec = load_catalog(root).kernels["gemv"]
    with pytest.raises(SpecError, match="zero_matrix"):
        validation_cases(spec, 1)


def test_structure_expression_names_only_parameters(tmp_path):
    root = _kernel_folder(tmp_path, "gemv", textwrap.dedent("""
        [[structures]]
        name = "odd"
        doc = "odd"
        sizes = [{ m = 5, n = 4 }]
        holds = "q > 1"
    """))
    with pytest.raises(SpecError, match="q"):
        load_catalog(root)


# ----------------------------------------------------------------------------------------- suggestions (unseen LLM)

CPP_SPMV_SKIPS_EMPTY = """
#include <omp.h>
void spmv(int n, int nnz, const int *row_ptr, const int *col_idx, const double *values, const double *x, double *y) {
    #pragma omp parallel for schedule(dynamic, 32)
    for (int i = 0; i < n; i++) {
        const int start = row_ptr[i], end = row_ptr[i + 1];
        if (start == end) continue;  // nothing to do for an empty row
        double acc = 0.0;
        for (int j = start; j < end; j++) acc += values[j] * x[col_idx[j]];
        y[i] = acc;
    }
}
"""

FORTRAN_SPMV_SKIPS_EMPTY = """
subroutine spmv(n, nnz, row_ptr, col_idx, values, x, y)
  implicit none
  integer, intent(in) :: n, nnz, row_ptr(n+1), col_idx(nnz)
  real(8), intent(in) :: values(nnz), x(n)
  real(8), intent(inout) :: y(n)
  integer :: i, k
  !$omp parallel do private(k)
  do i = 1, n
    if (row_ptr(i+1) == row_ptr(i)) cycle
    y(i) = 0.0d0
    do k = row_ptr(i), row_ptr(i+1) - 1
      y(i) = y(i) + values(k) * x(col_idx(k))
    end do
  end do
  !$omp end parallel do
end subroutine spmv
"""

NUMPY_SPMV_REDUCEAT = """
import numpy as np

def spmv(n, nnz, row_ptr, col_idx, values, x, y):
    products = values * x[col_idx]
    y[:] = np.add.reduceat(products, row_ptr[:-1])
"""

NUMBA_SPMV_WHILE = """
import numpy as np
from numba import njit, prange

@njit(parallel=True)
def spmv(n, nnz, row_ptr, col_idx, values, x, y):
    for i in prange(n):
        j = row_ptr[i]
        s = 0.0
        while j < row_ptr[i + 1]:
            s += values[j] * x[col_idx[j]]
            j += 1
        y[i] = s
"""

CPP_SPMV_DOES_NOT_BUILD = """
void spmv(int n, int nnz, const int *row_ptr, const int *col_idx, const double *values, const double *x, double *y) {
    #pragma omp parallel for
    for (int i = 0; i < n; i++) {
        double s = 0.0
        for (int j = row_ptr[i]; j < row_ptr[i + 1]; j++) s += values[j] * x[col_idx[j]];
        y[i] = s;
    }
}
"""

CPP_GEMV_UNROLL_MISSES_ONE_COLUMN = """
void gemv(int m, int n, const double *A, const double *x, double *y) {
    #pragma omp parallel for
    for (int i = 0; i < m; i++) {
        const double *row = A + (long)i * n;
        double s0 = 0.0, s1 = 0.0;
        int j = 0;
        for (; j + 1 < n; j += 2) { s0 += row[j] * x[j]; s1 += row[j + 1] * x[j + 1]; }
        if (j < n && n > 1) s0 += row[j] * x[j];  /* leftover column */
        y[i] = s0 + s1;
    }
}
"""

FORTRAN_GEMV_MATMUL = """
subroutine gemv(m, n, A, x, y)
  integer, intent(in) :: m, n
  real(8), intent(in) :: A(m, n), x(n)
  real(8), intent(out) :: y(m)
  integer :: i
  !$omp parallel do
  do i = 1, m
    y(i) = dot_product(A(i, :), x)
  end do
  !$omp end parallel do
end subroutine gemv
"""

# A square matrix is the shape real inputs have most often; a fast path taken only for it escaped every
# non-square validation size.
CPP_GEMV_SQUARE_PATH_UNZEROED = """
#include <omp.h>
// y = A*x, A row-major m x n. Square matrices take a column sweep that streams A once per column block.
void gemv(int m, int n, const double *A, const double *x, double *y) {
    if (m == n) {
        #pragma omp parallel for
        for (int i = 0; i < m; ++i)
            for (int j = 0; j < n; ++j)
                y[i] += A[(long)i * n + j] * x[j];   // y accumulates in place
        return;
    }
    #pragma omp parallel for
    for (int i = 0; i < m; ++i) {
        double s = 0.0;
        for (int j = 0; j < n; ++j) s += A[(long)i * n + j] * x[j];
        y[i] = s;
    }
}
"""

NUMPY_GEMV_SQUARE_TRANSPOSED = """
import numpy as np

def gemv(m, n, A, x, y):
    # for square A the transpose is a free view: use whichever is contiguous
    y[:] = A.T @ x if m == n else A @ x
"""

CPP_GEMV_SQUARE_PATH_RIGHT = """
void gemv(int m, int n, const double *A, const double *x, double *y) {
    if (m == n) {  // square: two rows per iteration
        #pragma omp parallel for
        for (int i = 0; i < m - 1; i += 2) {
            double s0 = 0.0, s1 = 0.0;
            for (int j = 0; j < n; ++j) { s0 += A[(long)i * n + j] * x[j]; s1 += A[(long)(i + 1) * n + j] * x[j]; }
            y[i] = s0; y[i + 1] = s1;
        }
        if (m % 2) { double s = 0.0; for (int j = 0; j < n; ++j) s += A[(long)(m - 1) * n + j] * x[j]; y[m - 1] = s; }
        return;
    }
    #pragma omp parallel for
    for (int i = 0; i < m; ++i) {
        double s = 0.0;
        for (int j = 0; j < n; ++j) s += A[(long)i * n + j] * x[j];
        y[i] = s;
    }
}
"""

CPP_GEMM_SQUARE_TILES_DROP_REMAINDER = """
#include <algorithm>
#define TILE 16
void gemm(int m, int n, int k, const double *A, const double *B, double *C) {
    if (m == n && n == k) {  // square: cache-blocked
        const int nt = n / TILE * TILE;
        #pragma omp parallel for
        for (int i = 0; i < n; ++i) std::fill(C + (long)i * n, C + (long)(i + 1) * n, 0.0);
        #pragma omp parallel for collapse(2)
        for (int ii = 0; ii < nt; ii += TILE)
            for (int jj = 0; jj < nt; jj += TILE)
                for (int pp = 0; pp < nt; pp += TILE)
                    for (int i = ii; i < ii + TILE; ++i)
                        for (int p = pp; p < pp + TILE; ++p)
                            for (int j = jj; j < jj + TILE; ++j)
                                C[(long)i * n + j] += A[(long)i * n + p] * B[(long)p * n + j];
        return;
    }
    #pragma omp parallel for
    for (int i = 0; i < m; ++i)
        for (int j = 0; j < n; ++j) {
            double s = 0.0;
            for (int p = 0; p < k; ++p) s += A[(long)i * k + p] * B[(long)p * n + j];
            C[(long)i * n + j] = s;
        }
}
"""

FORTRAN_GEMM_SQUARE_TRANSPOSED = """
subroutine gemm(m, n, k, A, B, C)
  integer, intent(in) :: m, n, k
  real(8), intent(in) :: A(m, k), B(k, n)
  real(8), intent(out) :: C(m, n)
  integer :: i, j, p
  if (m == n .and. n == k) then
    !$omp parallel workshare
    C = matmul(transpose(A), B)
    !$omp end parallel workshare
    return
  end if
  !$omp parallel do private(i, p)
  do j = 1, n
    do i = 1, m
      C(i, j) = 0.0d0
      do p = 1, k
        C(i, j) = C(i, j) + A(i, p) * B(p, j)
      end do
    end do
  end do
  !$omp end parallel do
end subroutine gemm
"""

CPP_JACOBI_SKIPS_THIN = """
void jacobi(int nx, int ny, int nz, const double *u, double *unew) {
    if (nx < 4 || ny < 4 || nz < 4) return;  // grid too small for the stencil
    #pragma omp parallel for collapse(2)
    for (int i = 1; i < nx - 1; i++)
        for (int j = 1; j < ny - 1; j++)
            for (int k = 1; k < nz - 1; k++) {
                long c = ((long)i * ny + j) * nz + k;
                unew[c] = (u[c - ny * nz] + u[c + ny * nz] + u[c - nz] + u[c + nz] + u[c - 1] + u[c + 1]) / 6.0;
            }
}
"""

NUMPY_JACOBI_SLICES = """
import numpy as np

def jacobi(nx, ny, nz, u, unew):
    c = unew[1:-1, 1:-1, 1:-1]
    c[...] = u[:-2, 1:-1, 1:-1]
    c += u[2:, 1:-1, 1:-1]
    c += u[1:-1, :-2, 1:-1]
    c += u[1:-1, 2:, 1:-1]
    c += u[1:-1, 1:-1, :-2]
    c += u[1:-1, 1:-1, 2:]
    c /= 6.0
"""

CG_BODY = """
    std::vector<double> r(n), p(n), ap(n);
    double rr = 0.0, bb = 0.0;
    #pragma omp parallel for reduction(+:rr, bb)
    for (int i = 0; i < n; i++) {
        double s = 0.0;
        for (int k = row_ptr[i]; k < row_ptr[i + 1]; k++) s += values[k] * x[col_idx[k]];
        r[i] = b[i] - s; p[i] = r[i]; rr += r[i] * r[i]; bb += b[i] * b[i];
    }
    const double bnorm = std::sqrt(bb);
    for (int it = 0; it < max_iter && std::sqrt(rr) > tol * bnorm; it++) {
        double pap = 0.0;
        #pragma omp parallel for reduction(+:pap)
        for (int i = 0; i < n; i++) {
            double s = 0.0;
            for (int k = row_ptr[i]; k < row_ptr[i + 1]; k++) s += values[k] * p[col_idx[k]];
            ap[i] = s; pap += p[i] * s;
        }
        const double alpha = rr / pap;
        double rn = 0.0;
        #pragma omp parallel for reduction(+:rn)
        for (int i = 0; i < n; i++) { x[i] += alpha * p[i]; r[i] -= alpha * ap[i]; rn += r[i] * r[i]; }
        const double beta = rn / rr;
        rr = rn;
        #pragma omp parallel for
        for (int i = 0; i < n; i++) p[i] = r[i] + beta * p[i];
    }
}
"""

CPP_CG_DIAGONAL_SHORTCUT = """
#include <cmath>
#include <vector>
void cg(int n, int nnz, const int *row_ptr, const int *col_idx, const double *values, const double *b, double *x,
        double tol, int max_iter) {
    if (nnz == n) {  // a diagonal matrix: solve directly
        #pragma omp parallel for
        for (int i = 0; i < n; i++) x[i] = b[i] / values[row_ptr[i]];
        return;
    }
""" + CG_BODY

FORTRAN_CG_DIAGONAL_OFF_BY_ONE = """
subroutine cg(n, nnz, row_ptr, col_idx, values, b, x, tol, max_iter)
  implicit none
  integer, intent(in) :: n, nnz, max_iter
  integer, intent(in) :: row_ptr(n + 1), col_idx(nnz)
  real(8), intent(in) :: values(nnz), b(n), tol
  real(8), intent(inout) :: x(n)
  real(8), allocatable :: r(:), p(:), ap(:)
  real(8) :: rr, rr_new, bb, pap, alpha, beta, s
  integer :: i, k, it
  if (nnz == n) then
    ! diagonal system: one division per row
    !$omp parallel do
    do i = 1, n
      x(i) = b(i) / values(min(row_ptr(i + 1), nnz))
    end do
    !$omp end parallel do
    return
  end if
  allocate(r(n), p(n), ap(n))
  rr = 0.0d0
  bb = 0.0d0
  !$omp parallel do private(k, s) reduction(+:rr, bb)
  do i = 1, n
    s = 0.0d0
    do k = row_ptr(i), row_ptr(i + 1) - 1
      s = s + values(k) * x(col_idx(k))
    end do
    r(i) = b(i) - s
    p(i) = r(i)
    rr = rr + r(i) * r(i)
    bb = bb + b(i) * b(i)
  end do
  !$omp end parallel do
  do it = 1, max_iter
    if (sqrt(rr) <= tol * sqrt(bb)) exit
    pap = 0.0d0
    !$omp parallel do private(k, s) reduction(+:pap)
    do i = 1, n
      s = 0.0d0
      do k = row_ptr(i), row_ptr(i + 1) - 1
        s = s + values(k) * p(col_idx(k))
      end do
      ap(i) = s
      pap = pap + p(i) * s
    end do
    !$omp end parallel do
    alpha = rr / pap
    rr_new = 0.0d0
    !$omp parallel do reduction(+:rr_new)
    do i = 1, n
      x(i) = x(i) + alpha * p(i)
      r(i) = r(i) - alpha * ap(i)
      rr_new = rr_new + r(i) * r(i)
    end do
    !$omp end parallel do
    beta = rr_new / rr
    rr = rr_new
    !$omp parallel do
    do i = 1, n
      p(i) = r(i) + beta * p(i)
    end do
    !$omp end parallel do
  end do
  deallocate(r, p, ap)
end subroutine cg
"""

# (id, kernel, model, code, verdicts allowed, structure the evidence must name or "")
SUGGESTIONS = [
    ("cpp-spmv-skips-empty", "spmv", "cpp-openmp", CPP_SPMV_SKIPS_EMPTY, {"wrong_result"}, "empty_rows"),
    ("f-spmv-skips-empty", "spmv", "fortran-openmp", FORTRAN_SPMV_SKIPS_EMPTY, {"wrong_result"}, "empty_rows"),
    ("py-spmv-reduceat", "spmv", "python-numpy", NUMPY_SPMV_REDUCEAT, {"wrong_result", "runtime_error"}, "empty_rows"),
    ("py-spmv-numba-while", "spmv", "python-numba", NUMBA_SPMV_WHILE, {"correct"}, ""),
    ("cpp-spmv-build", "spmv", "cpp-openmp", CPP_SPMV_DOES_NOT_BUILD, {"build_error"}, ""),
    ("cpp-gemv-one-column", "gemv", "cpp-openmp", CPP_GEMV_UNROLL_MISSES_ONE_COLUMN, {"wrong_result"}, "one_column"),
    ("f-gemv-dot-product", "gemv", "fortran-openmp", FORTRAN_GEMV_MATMUL, {"correct"}, ""),
    ("cpp-gemv-square-unzeroed", "gemv", "cpp-openmp", CPP_GEMV_SQUARE_PATH_UNZEROED, {"wrong_result"}, "square"),
    ("py-gemv-square-transposed", "gemv", "python-numpy", NUMPY_GEMV_SQUARE_TRANSPOSED, {"wrong_result"}, "square"),
    ("cpp-gemv-square-right", "gemv", "cpp-openmp", CPP_GEMV_SQUARE_PATH_RIGHT, {"correct"}, ""),
    ("cpp-gemm-square-tiles", "gemm", "cpp-openmp", CPP_GEMM_SQUARE_TILES_DROP_REMAINDER, {"wrong_result"}, "square"),
    ("f-gemm-square-transposed", "gemm", "fortran-openmp", FORTRAN_GEMM_SQUARE_TRANSPOSED, {"wrong_result"}, "square"),
    ("cpp-jacobi-skips-thin", "jacobi", "cpp-openmp", CPP_JACOBI_SKIPS_THIN, {"wrong_result"}, "thinnest_interior"),
    ("py-jacobi-slices", "jacobi", "python-numpy", NUMPY_JACOBI_SLICES, {"correct"}, ""),
    ("cpp-cg-diagonal-shortcut", "cg", "cpp-openmp", CPP_CG_DIAGONAL_SHORTCUT, {"correct"}, ""),
    ("f-cg-diagonal-off-by-one", "cg", "fortran-openmp", FORTRAN_CG_DIAGONAL_OFF_BY_ONE, {"wrong_result"}, "diagonal"),
]


def named_structures(evidence: str) -> set[str]:
    """The structures the evidence says failed: the failing case's own, and the list after it."""
    names = set(re.findall(r"\bstructure (\w+), size", evidence))
    listed = re.search(r"fails the structures?: ([\w, ]+)", evidence)
    return names | ({n.strip() for n in listed.group(1).split(",")} if listed else set())


def _grade(catalog, evaluator, case):
    cid, kernel, model, code, verdicts, structure = case
    e = evaluator.evaluate(textwrap.dedent(code).strip() + "\n", catalog.kernels[kernel], catalog.models[model])
    if e.verdict.value not in verdicts:
        return f"{cid}: {e.verdict.value} (expected {sorted(verdicts)}): {e.evidence[:300]}"
    if structure and structure not in named_structures(e.evidence):
        return f"{cid}: evidence does not name the structure {structure}: {e.evidence[:300]}"
    return None


def test_suggestions_against_structures(catalog, evaluator):
    with ThreadPoolExecutor(2) as pool:
        problems = [p for p in pool.map(lambda c: _grade(catalog, evaluator, c), SUGGESTIONS) if p]
    assert not problems, "\n".join(problems)
