"""Feasible variants (issue 28, mechanism 4): a variant whose storage grows faster than the canonical kernel's (CG
with a dense matrix: n^2 instead of 7n) is timed at a size that fits the machine's memory and the sandbox's
limits, and the evidence says so; never an allocation that cannot succeed (the 48^3 timing size gives a dense
CG a 91 GiB matrix)."""

from __future__ import annotations

import textwrap

import numpy as np

from hpceval.bind import choose_binding
from hpceval.bind.graded import graded_spec
from hpceval.cases.feasible import feasible_timing, footprint_bytes
from hpceval.evaluate import Evaluator
from hpceval.executors import Limits
from hpceval.executors.local import LocalExecutor

GIB = 1 << 30

NUMPY_DENSE_CG = """
import numpy as np

def conjugate_gradient(A, b, x, tol, max_iter):
    r = b - A @ x
    p = r.copy()
    rs = r @ r
    bnorm = np.linalg.norm(b)
    for _ in range(max_iter):
        if np.sqrt(rs) <= tol * bnorm:
            break
        Ap = A @ p
        alpha = rs / (p @ Ap)
        x += alpha * p
        r -= alpha * Ap
        rs_new = r @ r
        p = r + (rs_new / rs) * p
        rs = rs_new
    return x
"""

CPP_DENSE_CG = """
#include <cmath>
#include <vector>
void cg_dense(int n, const double *A, const double *b, double *x, double tol, int max_iter) {
    std::vector<double> r(n), p(n), Ap(n);
    double rs = 0.0, bb = 0.0;
    #pragma omp parallel for reduction(+:rs, bb)
    for (int i = 0; i < n; i++) {
        double s = 0.0;
        for (int j = 0; j < n; j++) s += A[(long)i * n + j] * x[j];
        r[i] = b[i] - s; p[i] = r[i]; rs += r[i] * r[i]; bb += b[i] * b[i];
    }
    for (int it = 0; it < max_iter && std::sqrt(rs) > tol * std::sqrt(bb); it++) {
        double pAp = 0.0;
        #pragma omp parallel for reduction(+:pAp)
        for (int i = 0; i < n; i++) {
            double s = 0.0;
            for (int j = 0; j < n; j++) s += A[(long)i * n + j] * p[j];
            Ap[i] = s; pAp += p[i] * s;
        }
        double alpha = rs / pAp, rn = 0.0;
        #pragma omp parallel for reduction(+:rn)
        for (int i = 0; i < n; i++) { x[i] += alpha * p[i]; r[i] -= alpha * Ap[i]; rn += r[i] * r[i]; }
        double beta = rn / rs;
        rs = rn;
        #pragma omp parallel for
        for (int i = 0; i < n; i++) p[i] = r[i] + beta * p[i];
    }
}
"""


def _graded(catalog, kernel, model, code):
    m = catalog.models[model]
    code = textwrap.dedent(code).strip() + "\n"
    b = choose_binding(code, catalog.kernels[kernel], catalog.languages[m.language], "paper", m)
    assert b.error is None, b.error
    return graded_spec(catalog.kernels[kernel], b), b, code


def test_dense_cg_at_the_spec_timing_size_cannot_fit(catalog):
    spec, b, _ = _graded(catalog, "cg", "python-numpy", NUMPY_DENSE_CG)
    assert b.variant.startswith("dense")
    assert footprint_bytes(spec, spec.sizes.timing) > 64 * GIB  # the 91 GiB matrix


def test_dense_cg_is_shrunk_to_fit(catalog):
    spec, _, _ = _graded(catalog, "cg", "python-numpy", NUMPY_DENSE_CG)
    limits = Limits(memory_mb=4096, address_space_mb=16384)
    small, note = feasible_timing(spec, limits)
    assert small.sizes.timing != spec.sizes.timing
    assert footprint_bytes(small, small.sizes.timing) <= 4096 * (1 << 20)
    assert "timing size" in note and "48" in note and "dense" in note
    # the size keeps its flags (weighted Laplacian) and shrinks only its extents
    assert small.sizes.timing.get("weighted") == 1 and small.sizes.timing.get("laplacian") == 1
    assert small.sizes.timing["nx"] >= 8  # not needlessly tiny: still a real solve


def test_budget_follows_the_sandbox_limit(catalog):
    spec, _, _ = _graded(catalog, "cg", "python-numpy", NUMPY_DENSE_CG)
    big, _ = feasible_timing(spec, Limits(memory_mb=4096, address_space_mb=16384))
    tiny, _ = feasible_timing(spec, Limits(memory_mb=256, address_space_mb=16384))
    assert np.prod(list(tiny.sizes.timing.values())) < np.prod(list(big.sizes.timing.values()))


def test_canonical_kernels_keep_their_timing_size(catalog):
    for kernel in ("axpy", "gemv", "gemm", "spmv", "jacobi", "cg"):
        spec = catalog.kernels[kernel]
        same, note = feasible_timing(spec, Limits())
        assert same.sizes.timing == spec.sizes.timing and note == "", kernel


def test_csr_variant_keeps_its_timing_size(catalog):
    code = "import numpy as np\n\ndef spmv(nrows, ncols, row_ptr, col_idx, vals, x, y):\n" \
           "    for i in range(nrows):\n        y[i] = vals[row_ptr[i]:row_ptr[i+1]] @ x[col_idx[row_ptr[i]:row_ptr[i+1]]]\n"
    spec, b, _ = _graded(catalog, "spmv", "python-numpy", code)
    same, note = feasible_timing(spec, Limits())
    assert same.sizes.timing == spec.sizes.timing and note == ""


def _timed_eval(catalog, model, code):
    spec = catalog.kernels["cg"]
    m = catalog.models[model]
    b = choose_binding(textwrap.dedent(code).strip() + "\n", spec, catalog.languages[m.language], "paper", m)
    ev = Evaluator(catalog, LocalExecutor(), timing=True, run_limits=Limits(wall_s=120, memory_mb=512))
    return ev.evaluate(textwrap.dedent(code).strip() + "\n", spec, m, b)


def test_dense_cg_numpy_is_timed_not_infra_error(catalog):
    e = _timed_eval(catalog, "python-numpy", NUMPY_DENSE_CG)
    assert e.verdict.value == "correct", e.evidence
    assert "timing size" in e.evidence and e.time_median_s


def test_dense_cg_cpp_openmp_is_timed(catalog):
    e = _timed_eval(catalog, "cpp-openmp", CPP_DENSE_CG)
    assert e.verdict.value == "correct", e.evidence
    assert "timing size" in e.evidence


def test_wrong_dense_cg_is_still_wrong_at_the_feasible_size(catalog):
    wrong = NUMPY_DENSE_CG.replace("alpha = rs / (p @ Ap)", "alpha = rs / (p @ p)")  # a step without A
    e = _timed_eval(catalog, "python-numpy", wrong)
    assert e.verdict.value == "wrong_result", e.evidence
