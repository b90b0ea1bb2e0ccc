"""The static data-sharing rules: races and mismatched reductions are found, sound directive code is not flagged."""

from pathlib import Path

import pytest

from hpceval.analysis.sharing import sharing_problem
from hpceval.analysis.source import strip_comments

ROOT = Path(__file__).resolve().parents[1]

SOUND = {
    "cpp: temporary declared in the loop": ("cpp", """
void gemv(int m, int n, const double *A, const double *x, double *y) {
#pragma omp parallel for
  for (int i = 0; i < m; ++i) {
    double s = 0.0;
    for (int j = 0; j < n; ++j) s += A[i * n + j] * x[j];
    y[i] = s;
  }
}"""),
    "cpp: shared temporary made private": ("cpp", """
void gemv(int m, int n, const double *A, const double *x, double *y) {
  int i, j;
  double s;
#pragma omp parallel for private(j, s)
  for (i = 0; i < m; ++i) {
    s = 0.0;
    for (j = 0; j < n; ++j) s += A[i * n + j] * x[j];
    y[i] = s;
  }
}"""),
    "cpp: reduction with -": ("cpp", """
double f(int n, const double *x) {
  double s = 0.0;
#pragma omp parallel for reduction(-: s)
  for (int i = 0; i < n; ++i) s -= x[i];
  return s;
}"""),
    "cpp: max reduction": ("cpp", """
#include <cmath>
double f(int n, const double *x) {
  double m = 0.0;
#pragma omp parallel for reduction(max: m)
  for (int i = 0; i < n; ++i) m = std::fmax(m, x[i]);
  return m;
}"""),
    "cpp: atomic update": ("cpp", """
double f(int n, const double *x) {
  double s = 0.0;
#pragma omp parallel for
  for (int i = 0; i < n; ++i) {
#pragma omp atomic
    s += x[i];
  }
  return s;
}"""),
    "cpp: critical section": ("cpp", """
double f(int n, const double *x) {
  double s = 0.0;
#pragma omp parallel
  {
    double local = 0.0;
#pragma omp for
    for (int i = 0; i < n; ++i) local += x[i];
#pragma omp critical
    { s += local; }
  }
  return s;
}"""),
    "cpp: default(private)": ("cpp", """
void f(int n, double *y) {
  double t;
#pragma omp parallel for default(private) shared(y, n)
  for (int i = 0; i < n; ++i) { t = 2.0 * i; y[i] = t; }
}"""),
    "cpp: OpenACC temporary set afresh each iteration": ("cpp", """
void gemv(int m, int n, const double *A, const double *x, double *y) {
  double s;
#pragma acc parallel loop copyin(A[0:m*n], x[0:n]) copyout(y[0:m])
  for (int i = 0; i < m; ++i) {
    s = 0.0;
#pragma acc loop seq
    for (int j = 0; j < n; ++j) s += A[i * n + j] * x[j];
    y[i] = s;
  }
}"""),
    "cpp: OpenACC kernels region (the compiler finds reductions)": ("cpp", """
void gemv(int m, int n, const double *A, const double *x, double *y) {
#pragma acc kernels copyin(A[0:m*n], x[0:n]) copyout(y[0:m])
  for (int i = 0; i < m; ++i) {
    double s = 0.0;
#pragma acc loop
    for (int j = 0; j < n; ++j) s += A[i * n + j] * x[j];
    y[i] = s;
  }
}"""),
    "cpp: offload reduction mapped tofrom": ("cpp", """
double dot(int n, const double *x) {
  double s = 0.0;
#pragma omp target teams distribute parallel for map(to: x[0:n]) map(tofrom: s) reduction(+: s)
  for (int i = 0; i < n; ++i) s += x[i] * x[i];
  return s;
}"""),
    "cpp: threadprivate scratch": ("cpp", """
static double scratch;
#pragma omp threadprivate(scratch)
void axpy(int n, double a, const double *x, double *y) {
#pragma omp parallel for
  for (int i = 0; i < n; ++i) { scratch = a * x[i]; y[i] += scratch; }
}"""),
    "cpp: SIMD loop with a per-iteration temporary": ("cpp", """
void gemv(int m, int n, const double *A, const double *x, double *y) {
#pragma omp parallel for
  for (int i = 0; i < m; ++i) {
    double s = 0.0, t;
#pragma omp simd reduction(+: s)
    for (int j = 0; j < n; ++j) { t = A[i * n + j] * x[j]; s += t; }
    y[i] = s;
  }
}"""),
    "fortran: private temporary": ("fortran", """
subroutine gemv(m, n, A, x, y)
  integer, intent(in) :: m, n
  real(8), intent(in) :: A(n, m), x(n)
  real(8), intent(out) :: y(m)
  integer :: i, j
  real(8) :: s
  !$omp parallel do private(s)
  do i = 1, m
    s = 0.0d0
    do j = 1, n
      s = s + A(j, i) * x(j)
    end do
    y(i) = s
  end do
  !$omp end parallel do
end subroutine gemv"""),
    "fortran: array syntax and max reduction": ("fortran", """
subroutine f(n, x, y, m)
  integer, intent(in) :: n
  real(8), intent(in) :: x(n)
  real(8), intent(out) :: y(n), m
  integer :: i
  m = 0.0d0
  !$omp parallel do reduction(max:m)
  do i = 1, n
    y(i) = 2.0d0 * x(i)
    m = max(m, x(i))
  end do
end subroutine f"""),
}

BUGGY = {
    "cpp: sum without reduction": ("cpp", """
double f(int n, const double *x) {
  double s = 0.0;
#pragma omp parallel for
  for (int i = 0; i < n; ++i) s += x[i];
  return s;
}""", "data race: assignment to s"),
    "cpp: shared temporary": ("cpp", """
void gemv(int m, int n, const double *A, const double *x, double *y) {
  double s;
#pragma omp parallel for
  for (int i = 0; i < m; ++i) {
    s = 0.0;
    for (int j = 0; j < n; ++j) s += A[i * n + j] * x[j];
    y[i] = s;
  }
}""", "data race: assignment to s"),
    "cpp: worksharing loop, temporary shared by the parallel region": ("cpp", """
void axpy(int n, double a, const double *x, double *y) {
  double t;
#pragma omp parallel
  {
#pragma omp for
    for (int i = 0; i < n; ++i) { t = a * x[i]; y[i] += t; }
  }
}""", "data race: assignment to t"),
    "cpp: SIMD accumulation without reduction": ("cpp", """
double dot(int n, const double *x) {
  double s = 0.0;
#pragma omp simd
  for (int i = 0; i < n; ++i) s += x[i] * x[i];
  return s;
}""", "data race: reduction update of s"),
    "cpp: reduction operator": ("cpp", """
double f(int n, const double *x) {
  double s = 0.0;
#pragma omp parallel for reduction(*: s)
  for (int i = 0; i < n; ++i) s += x[i];
  return s;
}""", "reduction(*: s) but the loop updates s with `+`"),
    "cpp: OpenACC vector loop without reduction": ("cpp", """
void gemv(int m, int n, const double *A, const double *x, double *y) {
#pragma acc parallel loop gang copyin(A[0:m*n], x[0:n]) copyout(y[0:m])
  for (int i = 0; i < m; ++i) {
    double sum = 0.0;
#pragma acc loop vector
    for (int j = 0; j < n; ++j) sum += A[i * n + j] * x[j];
    y[i] = sum;
  }
}""", "data race: reduction update of sum"),
    "cpp: offload reduction mapped to only": ("cpp", """
double dot(int n, const double *x) {
  double s = 0.0;
#pragma omp target teams distribute parallel for map(to: x[0:n], s) reduction(+: s)
  for (int i = 0; i < n; ++i) s += x[i] * x[i];
  return s;
}""", "reduction variable s is mapped only to"),
    "cpp: OpenACC reduction copied in only": ("cpp", """
double dot(int n, const double *x) {
  double s = 0.0;
#pragma acc parallel loop copyin(x[0:n], s) reduction(+: s)
  for (int i = 0; i < n; ++i) s += x[i] * x[i];
  return s;
}""", "reduction variable s is mapped only copyin"),
    "fortran: private(s) missing": ("fortran", """
subroutine gemv(m, n, A, x, y)
  integer, intent(in) :: m, n
  real(8), intent(in) :: A(n, m), x(n)
  real(8), intent(out) :: y(m)
  integer :: i, j
  real(8) :: s
  !$omp parallel do private(j)
  do i = 1, m
    s = 0.0d0
    do j = 1, n
      s = s + A(j, i) * x(j)
    end do
    y(i) = s
  end do
  !$omp end parallel do
end subroutine gemv""", "data race: assignment to s"),
    "fortran: OpenACC vector loop without reduction, gang-private sum": ("fortran", """
subroutine gemv(m, n, A, x, y)
  integer, intent(in) :: m, n
  real(8), intent(in) :: A(n, m), x(n)
  real(8), intent(out) :: y(m)
  integer :: i, j
  real(8) :: s
  !$acc parallel loop gang private(s) copyin(A, x) copyout(y)
  do i = 1, m
    s = 0.0d0
    !$acc loop vector
    do j = 1, n
      s = s + A(j, i) * x(j)
    end do
    y(i) = s
  end do
end subroutine gemv""", "data race: reduction update of s"),
    "fortran: OpenACC reduction operator": ("fortran", """
subroutine dot(n, x, s)
  integer, intent(in) :: n
  real(8), intent(in) :: x(n)
  real(8), intent(out) :: s
  integer :: i
  s = 0.0d0
  !$acc parallel loop reduction(*:s) copyin(x)
  do i = 1, n
    s = s + x(i) * x(i)
  end do
end subroutine dot""", "reduction(*: s) but the loop updates s with `+`"),
}


@pytest.mark.parametrize("name", sorted(SOUND))
def test_sound_code_is_not_flagged(catalog, name):
    lang, code = SOUND[name]
    assert sharing_problem(code, catalog.languages[lang]) is None


@pytest.mark.parametrize("name", sorted(BUGGY))
def test_races_and_reduction_mismatches_are_found(catalog, name):
    lang, code, expected = BUGGY[name]
    assert expected in (sharing_problem(code, catalog.languages[lang]) or "")


def test_no_reference_solution_is_flagged(catalog):
    checked = 0
    for path in sorted(ROOT.glob("kernels_spec/*/solutions/*")):
        lang = {".cpp": "cpp", ".f90": "fortran"}.get(path.suffix)
        if lang is None:
            continue
        language = catalog.languages[lang]
        assert sharing_problem(strip_comments(path.read_text(), language), language) is None, path
        checked += 1
    assert checked >= 40
