"""A parameter named like a scalar role but used as an array is an array (issue 28).

Llama-2's Numba "AXPY" `def axpy_loop(a, b, n): a[i] += b[i]` is a vector sum without a scalar. The binder gave
its array `a` the scalar role `a` (by name), found nothing for `y`, and refused the function (`unbindable`, outside
the score), while the same shape in C++ (`float *a`) or Fortran (`real :: a(n)`) is a counted failure: no
parameter for the scale factor, "not the kernel" (`wrong_result`). Untyped Python/Julia parameters the body
subscripts are arrays, so the one not-the-kernel rule decides in every language. Cases written as an unseen LLM
would write them.
"""

from __future__ import annotations

import pytest

from hpceval.contracts import Verdict

V = Verdict

CASES = [
    ("numba-vector-sum-named-a", "python-numba", """
import numba

@numba.jit
def axpy_loop(a, b, n):
    for i in range(n):
        a[i] += b[i]

a = np.array([1, 2, 3])
b = np.array([4, 5, 6])
axpy_loop(a, b, len(a))
""", V.wrong_result, "no parameter for a"),
    ("numpy-slice-sum-named-a", "python-numpy", """
import numpy as np

def axpy(a, b):
    a[:] = a[:] + b[:]
""", V.wrong_result, "no parameter for a"),
    ("cpp-vector-sum-named-a", "cpp-openmp", """
void axpy(float *a, float *b, int n) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) a[i] += b[i];
}
""", V.wrong_result, "no parameter for a"),
    ("fortran-vector-sum-named-a", "fortran-openmp", """
subroutine axpy(a, b, n)
  integer :: n, i
  real :: a(n), b(n)
  !$omp parallel do
  do i = 1, n
    a(i) = a(i) + b(i)
  end do
end subroutine axpy
""", V.wrong_result, "no parameter for a"),
    # right but unusual: the arrays are a and b, the scale factor alpha
    ("numba-arrays-a-b-with-alpha", "python-numba", """
import numba

@numba.njit(parallel=True)
def axpy(alpha, a, b, n):
    for i in numba.prange(n):
        b[i] = alpha * a[i] + b[i]
""", V.correct, ""),
    ("numpy-canonical-a", "python-numpy", """
import numpy as np

def axpy(a, x, y):
    y += a * x
""", V.correct, ""),
    # subtly wrong: the scalar is there, the update forgets y
    ("numba-forgets-y", "python-numba", """
import numba

@numba.njit(parallel=True)
def axpy(a, x, y, n):
    for i in numba.prange(n):
        y[i] = a * x[i]
""", V.wrong_result, ""),
    # wrong model AND no scalar: not the kernel first (no binding to run it with)
    ("plain-loop-vector-sum-under-numba", "python-numba", """
def axpy(a, b, n):
    for i in range(n):
        a[i] = a[i] + b[i]
""", V.wrong_result, "no parameter for a"),
    # a vector sum that does not import: build_error outranks not-the-kernel
    ("vector-sum-with-bad-import", "python-numba", """
import numbaa

def axpy(a, b, n):
    for i in range(n):
        a[i] += b[i]
""", V.build_error, "numbaa"),
    # cut off: incomplete outranks everything after no_code
    ("vector-sum-cut-off", "python-numba", """
import numba

@numba.njit
def axpy(a, b, n):
    for i in range(n):
""", V.incomplete, ""),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_a_scalar_name_on_an_array_is_not_the_kernel(case, catalog, evaluator):
    from hpceval.bind.signature import infer_binding

    _, model_id, code, verdict, evidence = case
    model = catalog.models[model_id]
    spec = catalog.kernels["axpy"]
    b = infer_binding(code, spec, catalog.languages[model.language], model)
    e = evaluator.evaluate(code, spec, model, binding=b)
    assert e.verdict == verdict, f"{e.verdict}: {e.evidence}"
    assert evidence in e.evidence, e.evidence
    if evidence.startswith("no parameter"):
        assert "cannot compute" in e.evidence, e.evidence


def test_julia_vector_sum_named_a_lacks_the_scalar(catalog):
    """Julia (no toolchain here: the binding decides, as the evaluator takes it)."""
    from hpceval.bind.signature import infer_binding
    from hpceval.evaluate import _missing_data_inputs

    code = """
function axpy!(a, b)
    Threads.@threads for i in eachindex(a)
        a[i] += b[i]
    end
end
"""
    m = catalog.models["julia-threads"]
    b = infer_binding(code, catalog.kernels["axpy"], catalog.languages["julia"], m)
    assert b.error and "no parameter for a" in b.error, b.error
    assert _missing_data_inputs(b.error, catalog.kernels["axpy"]) == ["a"]


def test_llama2_numba_r1_is_counted(catalog, evaluator):
    """The corpus' own suggestion (read from ../shared, or HPCEVAL_SHARED; skipped when absent)."""
    from conftest import SHARED
    from hpceval.bind.signature import infer_binding

    path = SHARED / "corpus/llama2-sample/AXPY/Python/GeneratedCode.py"
    if not path.is_file():
        pytest.skip("llama2-sample corpus not present")
    text = path.read_text()
    start = text.index("def axpy_loop(a, b, n)")
    code = "import numba\n\n@numba.jit\n" + text[start:text.index("# SUGGESTION 2", start)]
    m = catalog.models["python-numba"]
    b = infer_binding(code, catalog.kernels["axpy"], catalog.languages["python"], m)
    e = evaluator.evaluate(code, catalog.kernels["axpy"], m, binding=b)
    assert e.verdict == V.wrong_result and "no parameter for a" in e.evidence, f"{e.verdict}: {e.evidence}"
