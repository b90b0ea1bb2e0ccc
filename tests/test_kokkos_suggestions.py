"""Kokkos suggestions written as an unseen LLM would: functors that only the suggestion's own `main` launches, and
code written for the CUDA backend graded in a build without CUDA.

The study's Kokkos prompts made Copilot write a functor (a struct with members and `operator()(int i)`) and a test
`main` that builds Views and calls `Kokkos::parallel_for(n, Functor(...))`. There is no host function the driver
could call and `main` is never built, so such a suggestion was `incomplete`, though a reader sees a correct Kokkos
kernel. The harness now launches the functor itself (bind/functor.py): its members are the parameters, the range
is the extent of the View the index subscripts first (or the functor's one integer member), and the grade is the
functor's own numbers."""

from __future__ import annotations

import pytest

from hpceval.contracts import Verdict

V = Verdict
MAIN_AXPY = """
int main(int argc, char **argv) {
  Kokkos::initialize(argc, argv);
  {
    const int N = 1 << 20;
    Kokkos::View<double *> x("x", N), y("y", N);
    Kokkos::deep_copy(x, 1.0);
    Kokkos::deep_copy(y, 2.0);
    Kokkos::parallel_for(N, %s);
    Kokkos::fence();
  }
  Kokkos::finalize();
  return 0;
}
"""

CASES = [
    ("axpy-functor-with-constructor", "axpy", """
#include <Kokkos_Core.hpp>

struct AxpyFunctor {
  double a;
  Kokkos::View<const double *> x;
  Kokkos::View<double *> y;
  AxpyFunctor(double a_, Kokkos::View<const double *> x_, Kokkos::View<double *> y_) : a(a_), x(x_), y(y_) {}
  KOKKOS_INLINE_FUNCTION
  void operator()(const int i) const { y(i) = a * x(i) + y(i); }
};
""" + MAIN_AXPY % "AxpyFunctor(2.0, x, y)", V.correct),
    ("axpy-aggregate-functor", "axpy", """
#include <Kokkos_Core.hpp>

struct Axpy {
  double a;
  Kokkos::View<double *> x, y;
  KOKKOS_INLINE_FUNCTION void operator()(int i) const {
    y(i) += a * x(i);
  }
};
""" + MAIN_AXPY % "Axpy{2.0, x, y}", V.correct),
    ("axpy-functor-forgets-y", "axpy", """
#include <Kokkos_Core.hpp>

struct Saxpy {
  double a;
  Kokkos::View<double *> x, y;
  KOKKOS_INLINE_FUNCTION void operator()(const int i) const { y(i) = a * x(i); }
};
""" + MAIN_AXPY % "Saxpy{2.0, x, y}", V.wrong_result),
    ("axpy-functor-raw-pointers", "axpy", """
#include <Kokkos_Core.hpp>

struct AxpyPtr {
  int n;
  double a;
  const double *x;
  double *y;
  KOKKOS_INLINE_FUNCTION void operator()(const int i) const {
    if (i < n) y[i] = a * x[i] + y[i];
  }
};

int main() {
  Kokkos::initialize();
  double *x = new double[100], *y = new double[100];
  Kokkos::parallel_for(100, AxpyPtr{100, 2.0, x, y});
  Kokkos::finalize();
}
""", V.correct),
    # raw pointers and no size member (the range was main's N): the launcher takes the size; then prose
    ("axpy-functor-pointers-no-size", "axpy", """
#include <Kokkos_Core.hpp>
#include <cstdio>

// Kokkos functor for saxpy
struct saxpy_functor {
  const double a;
  const double *x;
  double *y;

  saxpy_functor(double a_, const double *x_, double *y_) : a(a_), x(x_), y(y_) {}

  KOKKOS_INLINE_FUNCTION
  void operator()(const int i) const { y[i] = a * x[i] + y[i]; }
};

int main(int argc, char *argv[]) {
  Kokkos::initialize(argc, argv);
  int N = 1000;
  double *x = new double[N], *y = new double[N];
  saxpy_functor f(2.0, x, y);
  Kokkos::parallel_for(N, f);
  Kokkos::finalize();
  return 0;
}

Here is the output :

    0 0.000000 0.000000 1 1.000000 4.000000
""", V.correct),
    ("gemv-row-functor-pointers", "gemv", """
#include <Kokkos_Core.hpp>

struct MatVec {
  int ncols;
  const double *A, *x;
  double *y;
  KOKKOS_INLINE_FUNCTION void operator()(const int row) const {
    double s = 0;
    for (int c = 0; c < ncols; ++c) s += A[row * ncols + c] * x[c];
    y[row] = s;
  }
};
""", V.correct),
    ("gemv-row-functor", "gemv", """
#include <Kokkos_Core.hpp>

struct GemvRow {
  Kokkos::View<const double **> A;
  Kokkos::View<const double *> x;
  Kokkos::View<double *> y;
  GemvRow(Kokkos::View<const double **> A_, Kokkos::View<const double *> x_, Kokkos::View<double *> y_)
      : A(A_), x(x_), y(y_) {}
  KOKKOS_INLINE_FUNCTION void operator()(const int i) const {
    double sum = 0.0;
    for (int j = 0; j < (int)A.extent(1); ++j) sum += A(i, j) * x(j);
    y(i) = sum;
  }
};

int main(int argc, char *argv[]) {
  Kokkos::initialize(argc, argv);
  {
    int M = 1000, N = 500;
    Kokkos::View<double **> A("A", M, N);
    Kokkos::View<double *> x("x", N), y("y", M);
    Kokkos::parallel_for("gemv", M, GemvRow(A, x, y));
  }
  Kokkos::finalize();
}
""", V.correct),
    # a helper that only checks the result beside the functor: the functor is the kernel
    ("functor-with-a-check-helper", "axpy", """
#include <Kokkos_Core.hpp>
#include <cmath>
#include <cstdio>

struct Axpy {
  double a;
  Kokkos::View<const double *> x;
  Kokkos::View<double *> y;
  KOKKOS_INLINE_FUNCTION void operator()(const int i) const { y(i) = a * x(i) + y(i); }
};

bool check(int n, const double *expected, const double *got) {
  for (int i = 0; i < n; ++i)
    if (std::fabs(expected[i] - got[i]) > 1e-12) return false;
  return true;
}
""", V.correct),
    ("functor-cut-off", "axpy", """
#include <Kokkos_Core.hpp>

struct Axpy {
  double a;
  Kokkos::View<double *> x, y;
  KOKKOS_INLINE_FUNCTION void operator()(int i) const {
    y(i) = a * x(i) +
""", V.incomplete),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_a_functor_launched_only_from_main_is_graded_on_its_numbers(case, catalog, evaluator):
    _, kernel, code, verdict = case
    from hpceval.bind import choose_binding

    model, spec = catalog.models["cpp-kokkos"], catalog.kernels[kernel]
    binding = choose_binding(code, spec, catalog.languages[model.language], "paper", model)
    e = evaluator.evaluate(code, spec, model, binding=binding)
    assert e.verdict == verdict, f"{e.verdict}: {e.evidence[:600]}"
    if verdict in (V.correct, V.wrong_result):
        assert "launched by the harness" in binding.evidence, binding.evidence


# Written for Kokkos' CUDA backend (the study's AXPY none r7 pattern): the spaces stand for this build's device space
CUDA_VIEWS = """
#include <Kokkos_Core.hpp>

void saxpy(int n, float a, Kokkos::View<float *, Kokkos::CudaSpace> x, Kokkos::View<float *, Kokkos::Cuda> y) {
  Kokkos::parallel_for("saxpy", Kokkos::RangePolicy<Kokkos::Cuda>(0, n), KOKKOS_LAMBDA(const int i) {
    y(i) = a * x(i) + y(i);
  });
  Kokkos::fence();
}
"""


def test_cuda_spaces_in_a_build_without_cuda_stand_for_its_device_space(catalog, evaluator):
    from hpceval.bind import choose_binding
    from hpceval.toolchains.kokkos import Kokkos

    model, spec = catalog.models["cpp-kokkos"], catalog.kernels["axpy"]
    if Kokkos().backend == "cuda":
        pytest.skip("a CUDA build has these spaces")
    binding = choose_binding(CUDA_VIEWS, spec, catalog.languages[model.language], "paper", model)
    e = evaluator.evaluate(CUDA_VIEWS, spec, model, binding=binding)
    assert e.verdict == V.correct, f"{e.verdict}: {e.evidence[:600]}"
    assert "read as this build's device space" in e.evidence, e.evidence
