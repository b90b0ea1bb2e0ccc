"""A size or shape query on an output (`y.size()`, `C.resize(n, 0)`, `y.extent(0)`) touches none of its elements:
the first element access decides whether the output is read before written (the accumulate variant, graded with
a random output on entry) or written first (a pure output, NaN-poisoned). Before, any call naming the output
counted as a write, so `for (i < y.size()) y[i] += ...` (and ParEval's GEMM output `C.resize(M*N, 0); C[..] += ...`)
was graded as a pure output and failed on its NaNs although it computes y += A*x exactly.

Cases as an unseen LLM would write them (std::vector parameters, OpenMP): right but unusual (size-query loop bounds,
resize that keeps the contents, an empty()/capacity() guard), a zeroing call that stays a write (assign,
std::fill), a write-first output whose loop bound is z.size(), subtly wrong, wrong model, and one that stays
build_error. (A Kokkos body inside parallel_for's lambda is an argument of a call, still counted as a write: not
covered here.)
"""

from __future__ import annotations

import pytest

from variant_harness import bind_and_grade

VEC_GEMV = "void gemv(std::vector<double> const& A, std::vector<double> const& x, std::vector<double> &y, size_t M, size_t N) {\n"
VEC_GEMM = ("void gemm(std::vector<double> const& A, std::vector<double> const& B, std::vector<double> &C, size_t M, "
            "size_t K, size_t N) {\n")
VEC_AXPY = ("void axpy(double alpha, std::vector<double> const& x, std::vector<double> const& y, "
            "std::vector<double> &z) {\n")
INC = "#include <vector>\n#include <omp.h>\n"

# (id, kernel, model, code, variant, verdict)
CASES = [
    ("gemv-size-bound-accumulates", "gemv", "cpp-openmp", INC + VEC_GEMV +
     "#pragma omp parallel for\nfor (size_t i = 0; i < y.size(); ++i)\n  for (size_t j = 0; j < N; ++j)\n"
     "    y[i] += A[i * N + j] * x[j];\n}\n", "accumulate", "correct"),
    ("gemm-resize-keeps-contents", "gemm", "cpp-openmp", INC + VEC_GEMM +
     "C.resize(M * N, 0);\n#pragma omp parallel for\nfor (size_t i = 0; i < M; i++)\n  for (size_t j = 0; j < N; j++)\n"
     "    for (size_t k = 0; k < K; k++)\n      C[i * N + j] += A[i * K + k] * B[k * N + j];\n}\n", "accumulate",
     "correct"),
    ("gemv-empty-guard-accumulates", "gemv", "cpp-openmp", INC + VEC_GEMV +
     "if (y.empty() || y.capacity() < M) return;\n#pragma omp parallel for\nfor (size_t i = 0; i < M; ++i)\n"
     "  for (size_t j = 0; j < x.size(); ++j) y[i] += A[i * N + j] * x[j];\n}\n", "accumulate", "correct"),
    ("axpy-size-bound-writes-first", "axpy", "cpp-openmp", INC + VEC_AXPY +
     "#pragma omp parallel for\nfor (size_t i = 0; i < z.size(); ++i) z[i] = alpha * x[i] + y[i];\n}\n",
     "out_of_place", "correct"),
    ("gemm-resize-then-fill-writes-first", "gemm", "cpp-openmp", INC + "#include <algorithm>\n" + VEC_GEMM +
     "C.resize(M * N);\nstd::fill(C.begin(), C.end(), 0.0);\n#pragma omp parallel for\n"
     "for (size_t i = 0; i < M; i++)\n  for (size_t k = 0; k < K; k++)\n    for (size_t j = 0; j < N; j++)\n"
     "      C[i * N + j] += A[i * K + k] * B[k * N + j];\n}\n", "canonical", "correct"),
    ("gemv-assign-writes-first", "gemv", "cpp-openmp", INC + VEC_GEMV +
     "y.assign(M, 0.0);\n#pragma omp parallel for\nfor (size_t i = 0; i < y.size(); ++i)\n"
     "  for (size_t j = 0; j < N; ++j) y[i] += A[i * N + j] * x[j];\n}\n", "canonical", "correct"),
    ("gemv-size-bound-wrong-index", "gemv", "cpp-openmp", INC + VEC_GEMV +
     "#pragma omp parallel for\nfor (size_t i = 0; i < y.size(); ++i)\n  for (size_t j = 0; j < N; ++j)\n"
     "    y[i] += A[i * N + j] * x[i];\n}\n", "", "wrong_result"),
    ("gemv-size-bound-serial", "gemv", "cpp-openmp", INC + VEC_GEMV +
     "for (size_t i = 0; i < y.size(); ++i)\n  for (size_t j = 0; j < N; ++j)\n    y[i] += A[i * N + j] * x[j];\n}\n",
     "accumulate", "wrong_model"),
    ("gemm-resize-syntax-error", "gemm", "cpp-openmp", INC + VEC_GEMM +
     "C.resize(M * N, 0)\n#pragma omp parallel for\nfor (size_t i = 0; i < M; i++)\n  for (size_t j = 0; j < N; j++)\n"
     "    for (size_t k = 0; k < K; k++)\n      C[i * N + j] += A[i * K + k] * B[k * N + j];\n}\n", "", "build_error"),
]


def _grade(catalog, evaluator, case, grade):
    cid, kernel, model, code, variant, verdict = case
    if verdict in ("wrong_result", "build_error"):  # the variant is whatever binds; the verdict is what matters
        from hpceval.bind import choose_binding

        spec, m = catalog.kernels[kernel], catalog.models[model]
        b = choose_binding(code, spec, catalog.languages[m.language], "paper", m)
        if not grade:
            return []
        e = evaluator.evaluate(code, spec, m, b)
        return [] if e.verdict.value == verdict else [f"{cid}: {e.verdict.value}: {e.evidence[:300]}"]
    return bind_and_grade(catalog, evaluator, kernel, [(cid, model, code, variant, verdict if grade else None)])


@pytest.mark.parametrize("case", [c for c in CASES if c[5] not in ("wrong_result", "build_error")], ids=lambda c: c[0])
def test_size_queries_bind(catalog, evaluator, case):
    assert not _grade(catalog, evaluator, case, grade=False)


@pytest.mark.slow  # builds and runs every case (a minute on 2 cores); the bindings above are the fast check
@pytest.mark.parametrize("case", [c for c in CASES if c[5] is not None], ids=lambda c: c[0])
def test_size_queries_graded(catalog, evaluator, case):
    assert not _grade(catalog, evaluator, case, grade=True)
