"""Signature inference for C/C++ suggestions: which function, which mapping, which variant, or why not.

Binding-only cases run in milliseconds; a few glue cases are built and run through the sandbox to prove that the
temporaries, conversions and layouts they generate compute the canonical result.
"""

from __future__ import annotations

import textwrap
from concurrent.futures import ThreadPoolExecutor

import pytest

from hpceval.bind import choose_binding
from hpceval.bind.signature import infer_binding

CASES = [
    # (id, kernel, code, expected mapping (param -> role) or None, variant, error substring)
    ("canonical", "axpy", "void saxpy(int n, float a, const float *x, float *y) { for (int i = 0; i < n; i++) y[i] += a * x[i]; }",
     {"n": "n", "a": "a", "x": "x", "y": "y"}, "canonical", None),
    ("reordered", "axpy", "void saxpy(float *y, const float *x, const float a, const int n) { for (int i = 0; i < n; ++i) y[i] = a * x[i] + y[i]; }",
     {"y": "y", "x": "x", "a": "a", "n": "n"}, "canonical", None),
    ("blas-strided", "axpy", "void saxpy(int n, float a, const float *x, int incx, float *y, int incy) { for (int i = 0; i < n; i++) y[i*incy] += a * x[i*incx]; }",
     {"incx": "incx=1", "incy": "incy=1"}, "strided", None),
    ("double-for-float", "axpy", "void daxpy(int n, double a, double *x, double *y) { for (int i = 0; i < n; i++) y[i] += a * x[i]; }",
     {"x": "x", "y": "y"}, "canonical", None),
    ("helper-and-main", "axpy", """
        #include <cstdio>
        static void fill(float *v, int n) { for (int i = 0; i < n; i++) v[i] = 1; }
        void saxpy_omp(int n, float a, float *x, float *y) {
        #pragma omp parallel for
          for (int i = 0; i < n; i++) y[i] = a * x[i] + y[i];
        }
        int main() { float x[4], y[4]; fill(x, 4); saxpy_omp(4, 2.0f, x, y); return 0; }
        """, {"n": "n", "a": "a", "x": "x", "y": "y"}, "canonical", None),
    ("gemv-alpha-beta", "gemv", "void gemv(int m, int n, double alpha, const double *A, const double *x, double beta, double *y) { for (int i = 0; i < m; i++) { double s = 0; for (int j = 0; j < n; j++) s += A[i*n+j]*x[j]; y[i] = alpha*s + beta*y[i]; } }",
     {"alpha": "alpha", "beta": "beta", "m": "m", "n": "n"}, "alpha_beta", None),
    ("gemv-sizes-swapped-by-loops", "gemv", "void gemv(double *A, double *x, double *y, int n, int m) { for (int i = 0; i < n; i++) { y[i] = 0; for (int j = 0; j < m; j++) y[i] += A[i*m + j] * x[j]; } }",
     {"n": "m", "m": "n"}, "canonical", None),
    ("gemv-column-major", "gemv", "void gemv(int m, int n, const double *A, const double *x, double *y) { for (int i = 0; i < m; i++) { double s = 0; for (int j = 0; j < n; j++) s += A[j*m + i] * x[j]; y[i] = s; } }",
     {"m": "m", "n": "n"}, "transposed(A)", None),
    ("gemv-square", "gemv", "void gemv(int n, const double *A, const double *x, double *y) { for (int i = 0; i < n; i++) { double s = 0; for (int j = 0; j < n; j++) s += A[i*n + j] * x[j]; y[i] = s; } }",
     {"n": "m=n"}, "square", None),
    ("gemv-row-pointers", "gemv", "void gemv(double **A, double *x, double *y, int rows, int cols) { for (int i = 0; i < rows; i++) { y[i] = 0; for (int j = 0; j < cols; j++) y[i] += A[i][j] * x[j]; } }",
     {"A": "A", "rows": "m", "cols": "n"}, "canonical", None),
    ("gemv-nested-vectors", "gemv", "#include <vector>\nstd::vector<double> gemv(const std::vector<std::vector<double>> &A, const std::vector<double> &x) { std::vector<double> y(A.size()); for (size_t i = 0; i < A.size(); i++) for (size_t j = 0; j < x.size(); j++) y[i] += A[i][j]*x[j]; return y; }",
     {"A": "A", "x": "x", "<return>": "y"}, "canonical", None),
    ("gemv-accumulate", "gemv", "void gemv(int m, int n, const double *A, const double *x, double *y) { for (int i = 0; i < m; i++) for (int j = 0; j < n; j++) y[i] += A[i*n+j]*x[j]; }",
     {"y": "y"}, "accumulate", None),
    ("tuning-parameter", "axpy", "void saxpy(int n, float a, float *x, float *y, int num_threads) { for (int i = 0; i < n; i++) y[i] += a*x[i]; }",
     {"num_threads": "threads=threads"}, "canonical", None),
    # refusals
    ("refuse-no-length", "axpy", "#define N 1000\nvoid saxpy(float a, float *x, float *y) { for (int i = 0; i < N; i++) y[i] += a * x[i]; }",
     None, None, "no parameter for n"),
    ("refuse-complex", "axpy", "#include <complex>\nvoid saxpy(int n, std::complex<float> a, std::complex<float> *x, std::complex<float> *y) { for (int i = 0; i < n; i++) y[i] += a * x[i]; }",
     None, None, "complex"),
    # (a cudaStream_t is a context the driver creates: bind.adapt.cpp)
    ("refuse-unknown-parameter", "axpy", "#include <map>\nvoid saxpy(int n, float a, float *x, float *y, std::map<int, float> &memo) { }",
     None, None, "memo"),
    ("refuse-main-only", "axpy", "int main() { float x[10], y[10]; for (int i = 0; i < 10; i++) y[i] += 2 * x[i]; return 0; }",
     None, None, "only a main program"),
    ("refuse-cut-off", "gemv", "// gemv OpenMP function\nvoid gemv(int m, int n, double *A, double *x, double *y) {\n  for (int i = 0; i < m; i++) {",
     None, None, "cut off"),
    ("refuse-comments-only", "axpy", "// saxpy OpenMP\n// y = a*x + y\n", None, None, "no code"),
    ("refuse-name-contradiction", "axpy", "void saxpy(int n, float a, float *y) { for (int i = 0; i < n; i++) y[i] *= a; }",
     None, None, "no parameter for x"),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_cpp_signature(catalog, case):
    _id, kernel, code, mapping, variant, error = case
    b = infer_binding(textwrap.dedent(code), catalog.kernels[kernel], "cpp")
    if error:
        assert b.error is not None, b.evidence
        assert error in b.error, b.error
        assert b.error.startswith("unbindable: ")
        return
    assert b.error is None, b.error
    for param, role in mapping.items():
        assert b.mapping.get(param) == role, (param, b.mapping)
    assert b.variant == variant, b.evidence
    assert "bound" in b.evidence and b.mapping  # the mapping used is part of the evidence


def test_names_are_never_contradicted(catalog):
    """A parameter named x is never fed y: with the canonical order the names win over positions."""
    code = "void saxpy(int n, float a, float *y, float *x) { for (int i = 0; i < n; i++) y[i] += a * x[i]; }"
    b = infer_binding(code, catalog.kernels["axpy"], "cpp")
    assert b.mapping["x"] == "x" and b.mapping["y"] == "y"
    assert b.args == ["n", "a", "y.data()", "x.data()"]


def test_choose_binding_keeps_chat_canonical(catalog):
    b = choose_binding("void saxpy(float *y) {}", catalog.kernels["axpy"], catalog.languages["cpp"], "chat")
    assert b.args == ["n", "a", "x.data()", "y.data()"] and b.error is None


GLUE_RUNS = [
    # (kernel, model, code) that must be `correct` through the glue
    ("axpy", "cpp-openmp", "void daxpy(double *y, const double *x, double a, int n) {\n#pragma omp parallel for\n for (int i = 0; i < n; i++) y[i] += a * x[i]; }"),
    ("gemv", "cpp-openmp", "void gemv(double **A, double *x, double *y, int rows, int cols) {\n#pragma omp parallel for\n for (int i = 0; i < rows; i++) { y[i] = 0; for (int j = 0; j < cols; j++) y[i] += A[i][j] * x[j]; } }"),
    ("gemv", "cpp-openmp", "void gemv(int m, int n, const double *A, const double *x, double *y) {\n#pragma omp parallel for\n for (int i = 0; i < m; i++) { double s = 0; for (int j = 0; j < n; j++) s += A[j*m + i] * x[j]; y[i] = s; } }"),
    ("gemv", "cpp-openmp", "void gemv(int n, double alpha, const double *A, const double *x, double beta, double *y) {\n#pragma omp parallel for\n for (int i = 0; i < n; i++) { double s = 0; for (int j = 0; j < n; j++) s += A[i*n + j] * x[j]; y[i] = alpha * s + beta * y[i]; } }"),
    ("gemv", "cpp-openmp", "#include <vector>\nstd::vector<double> gemv(const std::vector<std::vector<double>> &A, const std::vector<double> &x) { std::vector<double> y(A.size(), 0.0);\n#pragma omp parallel for\n for (size_t i = 0; i < A.size(); i++) for (size_t j = 0; j < x.size(); j++) y[i] += A[i][j]*x[j]; return y; }"),
]


def test_cpp_glue_runs(catalog, evaluator):
    def run(case):
        kernel, model, code = case
        spec, m = catalog.kernels[kernel], catalog.models[model]
        b = choose_binding(code, spec, catalog.languages[m.language], "paper", m)
        return case, b, evaluator.evaluate(code, spec, m, b)

    with ThreadPoolExecutor(2) as pool:
        for case, b, e in pool.map(run, GLUE_RUNS):
            assert e.verdict.value == "correct", (case[2][:60], b.evidence, e.evidence)
