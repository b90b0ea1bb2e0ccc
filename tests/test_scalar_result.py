"""Scalar results (issue 28, mechanism 4): a kernel spec may declare a returned scalar (a DOT-like kernel), and a
function that returns the result instead of writing an output is bound to it, in C++, Fortran, Python (NumPy and
Numba) and Julia (driver text). Graded on a `dot` kernel of a temporary kernels folder (HPCEVAL_KERNELS_SPEC-style
user folder), as an unseen LLM would write it."""

from __future__ import annotations

import shutil
import textwrap
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from hpceval.bind import choose_binding, render_unit
from hpceval.evaluate import Evaluator
from hpceval.executors.local import LocalExecutor
from hpceval.spec import SpecError, load_catalog

REPO = Path(__file__).resolve().parents[1]

DOT_SPEC = """
id = "dot"
name = "DOT"
function = "dot"
summary = "the dot product x . y of two vectors of length n (double precision), returned"
words = "dot product"
aliases = ["dot"]
dtype = "float64"
flops = "2*n"
bytes = "16*n"

[[params]]
name = "n"
kind = "int"
doc = "number of elements"

[[params]]
name = "x"
kind = "real"
shape = ["n"]
doc = "first vector"

[[params]]
name = "y"
kind = "real"
shape = ["n"]
doc = "second vector"

[[params]]
name = "result"
kind = "real"
intent = "out"
returned = true
doc = "x . y, the function's return value"

[tolerance]
reduction = "n"

[sizes]
validation = [{ n = 1 }, { n = 7 }, { n = 31 }, { n = 1000 }, { n = 4099 }]
timing = { n = 1000000 }
"""

DOT_REFERENCE = '''
"""DOT reference."""
import numpy as np


def make_inputs(size, rng, dtype):
    n = size["n"]
    return {"n": n, "x": rng.uniform(-1, 1, n).astype(dtype), "y": rng.uniform(-1, 1, n).astype(dtype),
            "result": np.zeros(1, dtype=dtype)}


def reference(inp):
    return {"result": np.array([np.dot(np.asarray(inp["x"], np.float64), np.asarray(inp["y"], np.float64))])}
'''


@pytest.fixture(scope="module")
def dot_catalog(tmp_path_factory):
    root = tmp_path_factory.mktemp("kernels")
    shutil.copy(REPO / "kernels_spec" / "models.toml", root / "models.toml")
    (root / "dot").mkdir()
    (root / "dot" / "spec.toml").write_text(DOT_SPEC)
    (root / "dot" / "reference.py").write_text(DOT_REFERENCE)
    return load_catalog(root)


@pytest.fixture(scope="module")
def dot_evaluator(dot_catalog):
    return Evaluator(dot_catalog, LocalExecutor(), timing=False)


def test_spec_declares_returned_scalar(dot_catalog):
    spec = dot_catalog.kernels["dot"]
    assert spec.returned is not None and spec.returned.name == "result"
    assert spec.param("result").is_output


def test_returned_must_be_one_scalar_output(tmp_path):
    root = tmp_path / "k"
    (root / "dot").mkdir(parents=True)
    shutil.copy(REPO / "kernels_spec" / "models.toml", root / "models.toml")
    bad = DOT_SPEC.replace('name = "y"\nkind = "real"\nshape = ["n"]', 'name = "y"\nkind = "real"\nshape = ["n"]\nreturned = true')
    (root / "dot" / "spec.toml").write_text(bad)
    (root / "dot" / "reference.py").write_text(DOT_REFERENCE)
    with pytest.raises(SpecError, match="returned"):
        load_catalog(root)


CPP_RETURNS = """
#include <omp.h>
double dot(int n, const double *x, const double *y) {
    double sum = 0.0;
    #pragma omp parallel for reduction(+:sum)
    for (int i = 0; i < n; i++) sum += x[i] * y[i];
    return sum;
}
"""
CPP_RETURNS_VECTORS = """
#include <vector>
#include <omp.h>
double dot_product(const std::vector<double> &a, const std::vector<double> &b) {
    double s = 0.0;
    const long n = (long)a.size();
    #pragma omp parallel for reduction(+:s) schedule(static)
    for (long i = 0; i < n; ++i) s += a[i] * b[i];
    return s;
}
"""
CPP_WRITES_POINTER = """
void dot(int n, const double *x, const double *y, double *result) {
    double s = 0.0;
    #pragma omp parallel for reduction(+:s)
    for (int i = 0; i < n; i++) s += x[i] * y[i];
    *result = s;
}
"""
CPP_SKIPS_FIRST = """
double dot(int n, const double *x, const double *y) {
    double sum = 0.0;
    #pragma omp parallel for reduction(+:sum)
    for (int i = 1; i < n; i++) sum += x[i] * y[i];
    return sum;
}
"""
CPP_FLOAT_ACCUMULATOR = """
double dot(int n, const double *x, const double *y) {
    float sum = 0.0f;
    #pragma omp parallel for reduction(+:sum)
    for (int i = 0; i < n; i++) sum += (float)(x[i] * y[i]);
    return sum;
}
"""
CPP_BUILD_ERROR = """
double dot(int n, const double *x, const double *y) {
    #pragma omp parallel for reduction(+:total)
    for (int i = 0; i < n; i++) total += x[i] * y[i];
    return total;
}
"""
F_FUNCTION = """
function dot(n, x, y) result(s)
  implicit none
  integer, intent(in) :: n
  real(8), intent(in) :: x(n), y(n)
  real(8) :: s
  integer :: i
  s = 0.0d0
  !$omp parallel do reduction(+:s)
  do i = 1, n
    s = s + x(i) * y(i)
  end do
  !$omp end parallel do
end function dot
"""
F_WRONG = """
real(8) function dot(n, x, y)
  implicit none
  integer, intent(in) :: n
  real(8), intent(in) :: x(n), y(n)
  integer :: i
  dot = 0.0d0
  !$omp parallel do reduction(+:dot)
  do i = 1, n
    dot = dot + x(i) * x(i)
  end do
  !$omp end parallel do
end function dot
"""
PY_NUMPY = """
import numpy as np

def dot(x, y):
    return float(np.dot(x, y))
"""
PY_NUMPY_WRONG = """
import numpy as np

def dot(n, x, y):
    return np.sum(x[:n - 1] * y[:n - 1])
"""
PY_NUMBA = """
from numba import njit, prange

@njit(parallel=True)
def dot(n, x, y):
    s = 0.0
    for i in prange(n):
        s += x[i] * y[i]
    return s
"""

# (id, model, code, verdict)
SUGGESTIONS = [
    ("cpp-returns", "cpp-openmp", CPP_RETURNS, "correct"),
    ("cpp-returns-vectors", "cpp-openmp", CPP_RETURNS_VECTORS, "correct"),
    ("cpp-writes-pointer", "cpp-openmp", CPP_WRITES_POINTER, "correct"),
    ("cpp-skips-first", "cpp-openmp", CPP_SKIPS_FIRST, "wrong_result"),
    ("cpp-float-accumulator", "cpp-openmp", CPP_FLOAT_ACCUMULATOR, "wrong_result"),
    ("cpp-build-error", "cpp-openmp", CPP_BUILD_ERROR, "build_error"),
    ("f-function-result", "fortran-openmp", F_FUNCTION, "correct"),
    ("f-wrong", "fortran-openmp", F_WRONG, "wrong_result"),
    ("py-numpy", "python-numpy", PY_NUMPY, "correct"),
    ("py-numpy-wrong", "python-numpy", PY_NUMPY_WRONG, "wrong_result"),
    ("py-numba", "python-numba", PY_NUMBA, "correct"),
]


def _grade(cat, ev, case):
    cid, model, code, verdict = case
    m = cat.models[model]
    code = textwrap.dedent(code).strip() + "\n"
    b = choose_binding(code, cat.kernels["dot"], cat.languages[m.language], "paper", m)
    e = ev.evaluate(code, cat.kernels["dot"], m, b)
    if e.verdict.value != verdict:
        return f"{cid}: {e.verdict.value}, expected {verdict}: {e.evidence[:300]} [{b.error or b.evidence}]"
    return None


def test_scalar_suggestions(dot_catalog, dot_evaluator):
    with ThreadPoolExecutor(2) as pool:
        problems = [p for p in pool.map(lambda c: _grade(dot_catalog, dot_evaluator, c), SUGGESTIONS) if p]
    assert not problems, "\n".join(problems)


def test_julia_driver_binds_the_returned_scalar(dot_catalog):
    code = "function dot(n, x, y)\n    s = 0.0\n    Threads.@threads for i in 1:n\n    end\n    return sum(x .* y)\nend\n"
    m = dot_catalog.models["julia-threads"]
    lang = dot_catalog.languages["julia"]
    b = choose_binding(code, dot_catalog.kernels["dot"], lang, "paper", m)
    assert b.error is None, b.error
    from hpceval.toolchains import get_toolchain

    tc = get_toolchain(m.toolchain)
    files = render_unit(code, dot_catalog.kernels["dot"], lang, b, tc.hooks(m), tc.driver_ext)
    driver = next(t for name, t in files.items() if "driver" in name)
    assert "ret isa Number && length(result) == 1" in driver and "result[1] = ret" in driver
