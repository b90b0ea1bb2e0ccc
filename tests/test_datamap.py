"""The static offload data-mapping rules: bugs that shared-memory CPU offload hides are found, sound code is not."""

import pytest

from hpceval.analysis.datamap import data_mapping_problem, section_problem
from hpceval.analysis.source import strip_comments
from hpceval.cases.generate import validation_cases

SOUND_CPP = {
    "explicit maps": """
void saxpy(int n, float a, const float *x, float *y) {
#pragma omp target teams distribute parallel for map(to: x[0:n]) map(tofrom: y[0:n])
  for (int i = 0; i < n; ++i) y[i] = a * x[i] + y[i];
}""",
    "enter/exit data": """
void saxpy(int n, float a, const float *x, float *y) {
#pragma omp target enter data map(to: x[0:n], y[0:n])
#pragma omp target teams distribute parallel for
  for (int i = 0; i < n; ++i) y[i] = a * x[i] + y[i];
#pragma omp target exit data map(from: y[0:n]) map(release: x[0:n])
}""",
    "update from": """
void saxpy(int n, float a, const float *x, float *y) {
#pragma omp target data map(to: x[0:n], y[0:n])
  {
#pragma omp target teams distribute parallel for
    for (int i = 0; i < n; ++i) y[i] = a * x[i] + y[i];
#pragma omp target update from(y[0:n])
  }
}""",
    "unified shared memory": """
#pragma omp requires unified_shared_memory
void saxpy(int n, float a, const float *x, float *y) {
#pragma omp target teams distribute parallel for
  for (int i = 0; i < n; ++i) y[i] = a * x[i] + y[i];
}""",
    "device-only temporary": """
void scale(int n, const double *x, double *y) {
  double *t = new double[n];
#pragma acc data copyin(x[0:n]) create(t[0:n]) copyout(y[0:n])
  {
#pragma acc parallel loop
    for (int i = 0; i < n; ++i) t[i] = 2 * x[i];
#pragma acc parallel loop
    for (int i = 0; i < n; ++i) y[i] = t[i];
  }
  delete[] t;
}""",
    "device pointer": """
#include <omp.h>
void fill(int n, double *y) {
  double *d = (double*)omp_target_alloc(n * sizeof(double), 0);
#pragma omp target teams distribute parallel for is_device_ptr(d)
  for (int i = 0; i < n; ++i) d[i] = 1.0;
#pragma omp target teams distribute parallel for is_device_ptr(d) map(from: y[0:n])
  for (int i = 0; i < n; ++i) y[i] = d[i];
}""",
    "output allocated, then copied back": """
void fill(int n, double *y) {
#pragma omp target data map(alloc: y[0:n])
  {
#pragma omp target teams distribute parallel for
    for (int i = 0; i < n; ++i) y[i] = 2.0 * i;
#pragma omp target update from(y[0:n])
  }
}""",
    "stack array in region": """
void f(int n, double *y) {
#pragma omp target teams distribute parallel for map(from: y[0:n])
  for (int i = 0; i < n; ++i) { double t[2]; t[0] = i; y[i] = t[0]; }
}""",
}

BUGGY_CPP = {
    "y never mapped": ("""
void saxpy(int n, float a, const float *x, float *y) {
#pragma omp target teams distribute parallel for map(to: x[0:n])
  for (int i = 0; i < n; ++i) y[i] = a * x[i] + y[i];
}""", "pointer y is used inside an offload region but never mapped"),
    "y only copied in": ("""
void saxpy(int n, float a, const float *x, float *y) {
#pragma acc parallel loop copyin(x[0:n], y[0:n])
  for (int i = 0; i < n; ++i) y[i] = a * x[i] + y[i];
}""", "y is written inside an offload region but only mapped copyin"),
    "present only": ("""
void saxpy(int n, float a, const float *x, float *y) {
#pragma acc parallel loop present(x[0:n], y[0:n])
  for (int i = 0; i < n; ++i) y[i] = a * x[i] + y[i];
}""", "only mapped present"),
    "input only allocated": ("""
void saxpy(int n, float a, const float *x, float *y) {
#pragma omp target teams distribute parallel for map(alloc: x[0:n]) map(tofrom: y[0:n])
  for (int i = 0; i < n; ++i) y[i] = a * x[i] + y[i];
}""", "x is read inside an offload region but only mapped alloc"),
    # the evidence names the pointers as the code spells them, every one that is unmapped
    "several unmapped, spelled in capitals": ("""
void gemm(int n, const double *A, const double *B, double *C) {
#pragma acc kernels
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      for (int k = 0; k < n; ++k) C[i * n + j] += A[i * n + k] * B[k * n + j];
}""", "pointers A, B, C are used inside an offload region but never mapped"),
    "map to in a multi-line pragma": ("""
void gemv(int m, int n, const double *A, const double *x, double *y) {
#pragma omp target teams distribute parallel for \\
    map(to: A[0:m*n], x[0:n]) map(to: y[0:m])
  for (int i = 0; i < m; ++i) { double s = 0; for (int j = 0; j < n; ++j) s += A[i*n+j]*x[j]; y[i] = s; }
}""", "y is written"),
}

SOUND_FORTRAN = {
    "implicit mapping": """
subroutine saxpy(n, a, x, y)
  integer :: n, i
  real :: a, x(n), y(n)
  !$omp target teams distribute parallel do
  do i = 1, n
    y(i) = a * x(i) + y(i)
  end do
end subroutine""",
    "acc copy": """
subroutine saxpy(n, a, x, y)
  integer :: n, i
  real :: a, x(n), y(n)
  !$acc parallel loop copyin(x) &
  !$acc& copy(y)
  do i = 1, n
    y(i) = a * x(i) + y(i)
  end do
end subroutine""",
}

BUGGY_FORTRAN = {
    "map to only": ("""
subroutine saxpy(n, a, x, y)
  integer :: n, i
  real :: a, x(n), y(n)
  !$omp target teams distribute parallel do map(to: x, y)
  do i = 1, n
    y(i) = a * x(i) + y(i)
  end do
  !$omp end target teams distribute parallel do
end subroutine""", "y is written inside an offload region but only mapped to"),
    "acc create for an input": ("""
subroutine saxpy(n, a, x, y)
  integer :: n, i
  real :: a, x(n), y(n)
  !$acc parallel loop create(x) copy(y)
  do i = 1, n
    y(i) = a * x(i) + y(i)
  end do
end subroutine""", "x is read inside an offload region but only mapped create"),
    "acc copyin": ("""
subroutine saxpy(n, a, x, y)
  integer :: n, i
  real :: a, x(n), y(n)
  !$acc kernels copyin(x, y)
  do i = 1, n
    y(i) = a * x(i) + y(i)
  end do
  !$acc end kernels
end subroutine""", "only mapped copyin"),
}


@pytest.mark.parametrize("name", SOUND_CPP)
def test_sound_cpp_is_accepted(catalog, name):
    assert data_mapping_problem(SOUND_CPP[name], catalog.languages["cpp"]) is None


@pytest.mark.parametrize("name", BUGGY_CPP)
def test_buggy_cpp_is_found(catalog, name):
    code, expected = BUGGY_CPP[name]
    assert expected in (data_mapping_problem(code, catalog.languages["cpp"]) or "")


@pytest.mark.parametrize("name", SOUND_FORTRAN)
def test_sound_fortran_is_accepted(catalog, name):
    assert data_mapping_problem(SOUND_FORTRAN[name], catalog.languages["fortran"]) is None


@pytest.mark.parametrize("name", BUGGY_FORTRAN)
def test_buggy_fortran_is_found(catalog, name):
    code, expected = BUGGY_FORTRAN[name]
    assert expected in (data_mapping_problem(code, catalog.languages["fortran"]) or "")


def test_every_offload_reference_is_sound(catalog):
    from hpceval.analysis.source import strip_comments

    checked = 0
    for spec in catalog.kernels.values():
        for model in (m for m in catalog.models.values() if m.mapping_check):
            path = spec.solution_path(model, catalog)
            if path.is_file():
                lang = catalog.languages[model.language]
                assert data_mapping_problem(strip_comments(path.read_text(), lang), lang) is None, path
                checked += 1
    assert checked >= 20


def test_unmapped_output_gets_wrong_result_end_to_end(catalog, evaluator):
    code, _ = BUGGY_CPP["y never mapped"]
    result = evaluator.evaluate(code, catalog.kernels["axpy"], catalog.models["cpp-openmp-offload"])
    assert result.verdict == "wrong_result"
    assert "never mapped" in result.evidence


# ---------------------------------------------------------------------------------------------- array sections
SECTIONS_SOUND = {
    "whole arrays": ("axpy", """
void saxpy(int n, float a, const float *x, float *y) {
#pragma acc parallel loop copyin(x[0:n]) copy(y[0:n])
  for (int i = 0; i < n; ++i) y[i] = a * x[i] + y[i];
}""", None),
    "two halves and a local size": ("axpy", """
void saxpy(int n, float a, const float *x, float *y) {
  const int half = n / 2;
#pragma acc data copyin(x[0:half]) copyin(x[half:n - half]) copy(y[0:n])
  {
#pragma acc parallel loop
    for (int i = 0; i < n; ++i) y[i] = a * x[i] + y[i];
  }
}""", None),
    "renamed parameters": ("axpy", """
void saxpy(int len, float a, const float *in, float *out) {
#pragma omp target teams distribute parallel for map(to: in[0:len]) map(tofrom: out[0:len])
  for (int i = 0; i < len; ++i) out[i] = a * in[i] + out[i];
}""", {"len": "n", "a": "a", "in": "x", "out": "y"}),
    "jacobi: only the interior planes of unew travel": ("jacobi", """
void jacobi(int nx, int ny, int nz, const double *u, double *unew) {
  const long n = (long)nx * ny * nz, plane = (long)ny * nz;
#pragma acc parallel loop collapse(3) copyin(u[0:n]) copy(unew[plane:n - 2 * plane])
  for (int i = 1; i < nx - 1; ++i)
    for (int j = 1; j < ny - 1; ++j)
      for (int k = 1; k < nz - 1; ++k) {
        const long c = ((long)i * ny + j) * nz + k;
        unew[c] = (u[c - plane] + u[c + plane] + u[c - nz] + u[c + nz] + u[c - 1] + u[c + 1]) / 6.0;
      }
}""", None),
    # a section that moves one row per iteration of a host loop around the region: the union over the loop covers A
    "per-row section inside a host loop": ("gemm", """
void gemm(int m, int n, int k, const double *A, const double *B, double *C) {
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double acc = 0.0;
      #pragma acc parallel loop reduction(+:acc) copyin(A[i*k:k], B[0:k*n])
      for (int p = 0; p < k; ++p) acc += A[i * k + p] * B[p * n + j];
      C[i * n + j] = acc;
    }
}""", None),
    "per-row output section, loop written i++ and <=": ("gemv", """
void gemv(int m, int n, const double *A, const double *x, double *y) {
  for (long r = 0; r <= m - 1; r++) {
    double s = 0.0;
#pragma omp target teams distribute parallel for reduction(+:s) map(to: A[r * n:n], x[0:n]) map(tofrom: s)
    for (int j = 0; j < n; ++j) s += A[r * n + j] * x[j];
    y[r] = s;
  }
}""", None),
    "a size the rules cannot evaluate": ("axpy", """
int length(int n);
void saxpy(int n, float a, const float *x, float *y) {
#pragma acc parallel loop copyin(x[0:length(n)]) copy(y[0:n])
  for (int i = 0; i < n; ++i) y[i] = a * x[i] + y[i];
}""", None),
}

SECTIONS_SHORT = {
    "per-row section one short inside a host loop": ("gemm", """
void gemm(int m, int n, int k, const double *A, const double *B, double *C) {
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double acc = 0.0;
      #pragma acc parallel loop reduction(+:acc) copyin(A[i*k:k-1], B[0:k*n])
      for (int p = 0; p < k; ++p) acc += A[i * k + p] * B[p * n + j];
      C[i * n + j] = acc;
    }
}""", "A[i*k:k-1]:"),
    "host loop stops one row early": ("gemm", """
void gemm(int m, int n, int k, const double *A, const double *B, double *C) {
  for (int i = 0; i < m - 1; ++i)
    for (int j = 0; j < n; ++j) {
      double acc = 0.0;
      #pragma acc parallel loop reduction(+:acc) copyin(A[i*k:k], B[0:k*n])
      for (int p = 0; p < k; ++p) acc += A[i * k + p] * B[p * n + j];
      C[i * n + j] = acc;
    }
}""", "A[i*k:k]:"),
    "input one short": ("axpy", """
void saxpy(int n, float a, const float *x, float *y) {
#pragma acc parallel loop copyin(x[0:n - 1]) copy(y[0:n])
  for (int i = 0; i < n; ++i) y[i] = a * x[i] + y[i];
}""", "x[0:n - 1]: 1 of the"),
    "output copied back in part": ("gemv", """
void gemv(int m, int n, const double *A, const double *x, double *y) {
#pragma omp target teams distribute parallel for map(to: A[0:(long)m * n], x[0:n]) map(from: y[0:m / 2])
  for (int i = 0; i < m; ++i) {
    double s = 0.0;
    for (int j = 0; j < n; ++j) s += A[(long)i * n + j] * x[j];
    y[i] = s;
  }
}""", "elements of y that the kernel writes lie outside"),
    "CSR row pointer without its last entry": ("spmv", """
void spmv(int n, int nnz, const int *row_ptr, const int *col_idx, const double *values, const double *x, double *y) {
#pragma acc parallel loop copyin(row_ptr[0:n], col_idx[0:nnz], values[0:nnz], x[0:n]) copyout(y[0:n])
  for (int i = 0; i < n; ++i) {
    double s = 0.0;
    for (int k = row_ptr[i]; k < row_ptr[i + 1]; ++k) s += values[k] * x[col_idx[k]];
    y[i] = s;
  }
}""", "row_ptr[0:n]: 1 of the"),
}


def _section_check(catalog, kernel, code, mapping):
    spec = catalog.kernels[kernel]
    return section_problem(code, catalog.languages["cpp"], spec, validation_cases(spec, 7), mapping)


@pytest.mark.parametrize("name", sorted(SECTIONS_SOUND))
def test_sections_that_cover_the_footprint_pass(catalog, name):
    kernel, code, mapping = SECTIONS_SOUND[name]
    assert _section_check(catalog, kernel, code, mapping) is None


@pytest.mark.parametrize("name", sorted(SECTIONS_SHORT))
def test_short_sections_are_found(catalog, name):
    kernel, code, expected = SECTIONS_SHORT[name]
    assert expected in (_section_check(catalog, kernel, code, None) or "")


def test_no_reference_section_is_short(catalog):
    lang = catalog.languages["cpp"]
    checked = 0
    for spec in catalog.kernels.values():
        cases = validation_cases(spec, 7)
        for model in ("cpp-openacc", "cpp-openmp-offload"):
            path = spec.folder / "solutions" / f"{model}.cpp"
            assert section_problem(strip_comments(path.read_text(), lang), lang, spec, cases) is None, path
            checked += 1
    assert checked == 12
