"""`std::array<T, N>` parameters for the kernel's arrays, written as unseen LLM output.

N is part of the type: fixed at compile time, so a function whose kernel array is a `std::array<double, 1024>`
computes the kernel for 1024 elements and no other size; the harness, which grades every kernel over several
sizes, cannot hand it the arrays it is given. That is the suggestion's limit, not the harness's: `wrong_result`
("cannot compute the kernel for the sizes it is given"), once it builds. A function template over N
(`template <size_t N>`) is generic, but its extent would have to be instantiated per size at compile time, which
the driver (one binary over run-time sizes) cannot do: `unbindable`, the harness's shortfall, said as such.
Compile first still wins: one that does not build is `build_error`. A std::array that is only a local changes
nothing.
"""

from __future__ import annotations

import pytest

from hpceval.bind import choose_binding
from hpceval.bind.signature import infer_binding


def _bind(catalog, code: str, kernel: str, model: str):
    m = catalog.models[model]
    return infer_binding(code, catalog.kernels[kernel], catalog.languages[m.language], m)


LITERAL = """
#include <array>
void saxpy(int n, float a, const std::array<float, 1024> &x, std::array<float, 1024> &y) {
  for (int i = 0; i < n; ++i) y[i] = a * x[i] + y[i];
}
"""

CONSTEXPR = """
#include <array>
#include <cstddef>
constexpr std::size_t N = 512;
void gemv(const std::array<double, N * N> &A, const std::array<double, N> &x, std::array<double, N> &y) {
  for (std::size_t i = 0; i < N; ++i) {
    double s = 0.0;
    for (std::size_t j = 0; j < N; ++j) s += A[i * N + j] * x[j];
    y[i] = s;
  }
}
"""

MACRO_OPENMP = """
#include <array>
#define LEN 4096
void saxpy(float a, const std::array<float, LEN> &x, std::array<float, LEN> &y) {
  #pragma omp parallel for
  for (int i = 0; i < LEN; ++i) y[i] = a * x[i] + y[i];
}
"""

NESTED = """
#include <array>
using Mat = std::array<std::array<double, 64>, 64>;
void gemm(const Mat &A, const Mat &B, Mat &C) {
  for (int i = 0; i < 64; ++i)
    for (int j = 0; j < 64; ++j) {
      double s = 0;
      for (int k = 0; k < 64; ++k) s += A[i][k] * B[k][j];
      C[i][j] = s;
    }
}
"""

TEMPLATE_N = """
#include <array>
#include <cstddef>
template <std::size_t N>
void saxpy(float a, const std::array<float, N> &x, std::array<float, N> &y) {
  for (std::size_t i = 0; i < N; ++i) y[i] = a * x[i] + y[i];
}
"""

BUILD_ERROR = """
#include <array>
void saxpy(int n, float a, const std::array<float, 1024> &x, std::array<float, 1024> &y) {
  for (int i = 0; i < n; ++i) y[i] = a * x[i] + yy[i];
}
"""

LOCAL_ONLY = """
#include <algorithm>
#include <array>
void saxpy(int n, float a, const float *x, float *y) {
  #pragma omp parallel for
  for (int b = 0; b < (n + 3) / 4; ++b) {
    std::array<float, 4> lane{};
    const int w = std::min(4, n - 4 * b);
    for (int k = 0; k < w; ++k) lane[k] = a * x[4 * b + k] + y[4 * b + k];
    for (int k = 0; k < w; ++k) y[4 * b + k] = lane[k];
  }
}
"""

FIXED = [(LITERAL, "axpy", "cpp-openmp"), (CONSTEXPR, "gemv", "cpp-openmp"), (MACRO_OPENMP, "axpy", "cpp-openmp"),
         (NESTED, "gemm", "cpp-openmp")]
FIXED_IDS = ["literal", "constexpr", "macro", "nested-alias"]


@pytest.mark.parametrize("code,kernel,model", FIXED, ids=FIXED_IDS)
def test_fixed_extent_says_it_cannot_take_the_sizes(catalog, code, kernel, model):
    b = _bind(catalog, code, kernel, model)
    assert b.error, "a compile-time extent cannot take the case's sizes"
    assert "compile-time extent" in b.error and "std::array" in b.error, b.error


def test_template_extent_is_the_harness_shortfall(catalog):
    b = _bind(catalog, TEMPLATE_N, "axpy", "cpp-openmp")
    assert b.error.startswith("unbindable:") and "template" in b.error, b.error
    assert "compile-time extent" not in b.error, b.error


def test_local_std_array_binds(catalog):
    b = _bind(catalog, LOCAL_ONLY, "axpy", "cpp-openmp")
    assert not b.error, b.error


E2E = [(LITERAL, "axpy", "cpp-openmp", "wrong_result"), (NESTED, "gemm", "cpp-openmp", "wrong_result"),
       (TEMPLATE_N, "axpy", "cpp-openmp", "unbindable"), (BUILD_ERROR, "axpy", "cpp-openmp", "build_error"),
       (LOCAL_ONLY, "axpy", "cpp-openmp", "correct")]


@pytest.mark.parametrize("code,kernel,model,verdict", E2E, ids=["literal", "nested", "template", "build-error", "local"])
def test_verdicts(evaluator, catalog, code, kernel, model, verdict):
    spec, m = catalog.kernels[kernel], catalog.models[model]
    ev = evaluator.evaluate(code, spec, m, choose_binding(code, spec, catalog.languages[m.language], "paper", m))
    assert ev.verdict == verdict, f"{ev.verdict}: {ev.evidence[-1500:]}"
    if verdict == "wrong_result":
        assert "compile-time extent" in ev.evidence, ev.evidence
