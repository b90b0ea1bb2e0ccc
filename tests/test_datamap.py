"""The static offload data-mapping rules: bugs that shared-memory CPU offload hides are found, sound code is not."""

import pytest

from hpceval.datamap import data_mapping_problem

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
    from hpceval.validate import strip_comments

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
