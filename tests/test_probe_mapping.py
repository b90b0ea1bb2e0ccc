"""Probe by execution (hpceval.probe) through the real evaluator: free-form signatures whose sizes nothing in the
body tells apart (no loop bounds a subscript of a known extent), so the positional reading is a guess, and a wrong
one. The binder hands the near-tied mappings to the evaluator, which runs each on a small case with distinct sizes
and keeps the one that validates: the verdict must be `correct`, with the kept mapping named in the evidence. A
kernel wrong under every reading stays wrong (the probe never turns a wrong kernel into a correct one)."""

from __future__ import annotations

import textwrap

import pytest

from hpceval.bind import choose_binding

# y[:p] = A[:p,:q] @ x[:q] with (q, p) first: by position q would be m (rows), but it is the column count
PY_SWAPPED = """
import numpy as np
def mv(q, p, A, x, y):
    y[:p] = A[:p, :q] @ x[:q]
"""
PY_WRONG = """
import numpy as np
def mv(q, p, A, x, y):
    y[:p] = A[:p, :q] @ x[:q] + 1.0
"""
# the row slices are pointer arithmetic handed to std::inner_product: no subscript tells q from p
CPP_SWAPPED = """
#include <numeric>
void mv(int q, int p, const double *A, const double *x, double *y) {
#pragma omp parallel for
  for (int r = 0; r < p; r++) y[r] = std::inner_product(A + (long)r*q, A + (long)(r+1)*q, x, 0.0);
}
"""
CASES = [
    ("python-swapped", "python-numpy", PY_SWAPPED, "correct", "kept q->n, p->m"),
    ("python-wrong-every-reading", "python-numpy", PY_WRONG, "wrong_result", "none of"),
    pytest.param("cpp-swapped", "cpp-openmp", CPP_SWAPPED, "correct", "kept q->n, p->m", marks=pytest.mark.slow),
]


@pytest.mark.parametrize(("cid", "model", "code", "verdict", "note"), CASES)
def test_probe_keeps_the_mapping_that_validates(catalog, evaluator, cid, model, code, verdict, note):
    spec, m = catalog.kernels["gemv"], catalog.models[model]
    code = textwrap.dedent(code).strip() + "\n"
    b = choose_binding(code, spec, catalog.languages[m.language], "paper", m)
    assert b.error is None, b.error
    assert b.alternatives, f"{cid}: no near tie handed to the probe ({b.evidence})"
    e = evaluator.evaluate(code, spec, m, b)
    assert e.verdict.value == verdict, f"{cid}: {e.verdict.value}: {e.evidence[:400]}"
    assert "probe:" in e.evidence and note in e.evidence, e.evidence[:600]
