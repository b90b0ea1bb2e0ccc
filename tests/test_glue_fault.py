"""A bound build that fails in the harness's own text is the harness's fault, never the LLM's `build_error`.

The glue the harness writes around a suggestion (the driver's call, temporaries, copies) can fail to compile where
the suggestion itself is right: a type the glue cannot build, a template the driver's arguments do not match. When
the suggestion's unit builds alone (checks.builds_alone) and every compiler error lies in the driver, the row is
`unbindable` (outside the score, counted per LLM as the harness's shortfall) with the compiler's lines; when the
suggestion itself does not build, or the failure is the linker's (a helper declared and never defined), it stays
the LLM's verdict. The glue faults are simulated by a binding whose call is broken, as a harness bug would break
it; the suggestions are written as an unseen LLM would write them.
"""

from __future__ import annotations

import pytest

from hpceval.bind import canonical_binding
from hpceval.checks.builds_alone import glue_fault_lines
from hpceval.contracts import Verdict

V = Verdict

CPP_RIGHT = """
#include <omp.h>
void saxpy(int n, float a, const float *x, float *y) {
  #pragma omp parallel for
  for (int i = 0; i < n; i++) y[i] = a * x[i] + y[i];
}
"""
CPP_BROKEN = CPP_RIGHT.replace("y[i] = a * x[i] + y[i];", "y[i] = a * x[i] + z[i];")
# A suggestion that defines a name the driver defines too: the compiler places the clash in the driver's text, but
# the suggestion caused it (gaming the driver, or an unlucky name): it must stay the LLM's build_error, never leave
# the score as a glue fault.
CPP_CLASH = CPP_RIGHT + """
static inline int hpceval_threads() { return 64; }
"""
CPP_LINK = """
#include <omp.h>
float scale(float a, float v);
void saxpy(int n, float a, const float *x, float *y) {
  #pragma omp parallel for
  for (int i = 0; i < n; i++) y[i] = scale(a, x[i]) + y[i];
}
"""
FORTRAN_RIGHT = """
subroutine saxpy(n, a, x, y)
  integer, intent(in) :: n
  real, intent(in) :: a, x(n)
  real, intent(inout) :: y(n)
  integer :: i
  !$omp parallel do
  do i = 1, n
    y(i) = a * x(i) + y(i)
  end do
end subroutine saxpy
"""
PY_RIGHT = """
import numpy as np

def saxpy(n, a, x, y):
    y[:] = a * x + y
"""


def _broken_glue(catalog, kernel: str, model: str):
    """The canonical binding with one argument the driver cannot compile (a harness bug, simulated)."""
    m = catalog.models[model]
    b = canonical_binding(catalog.kernels[kernel], catalog.languages[m.language])
    return b.model_copy(update={"args": [*b.args, "hpceval_glue_bug"]})


@pytest.mark.parametrize("case", [
    ("cpp-right-broken-glue", CPP_RIGHT, "cpp-openmp", True, V.unbindable),
    ("cpp-broken-suggestion-broken-glue", CPP_BROKEN, "cpp-openmp", True, V.build_error),
    ("cpp-broken-suggestion", CPP_BROKEN, "cpp-openmp", False, V.build_error),
    ("cpp-right", CPP_RIGHT, "cpp-openmp", False, V.correct),
    ("cpp-defines-a-driver-name", CPP_CLASH, "cpp-openmp", False, V.build_error),
    ("cpp-helper-never-defined", CPP_LINK, "cpp-openmp", False, None),
    ("fortran-right-broken-glue", FORTRAN_RIGHT, "fortran-openmp", True, V.unbindable),
], ids=lambda c: c[0])
def test_a_glue_that_does_not_compile_is_the_harness_fault(case, catalog, evaluator):
    _, code, model, broken, expected = case
    binding = _broken_glue(catalog, "axpy", model) if broken else None
    e = evaluator.evaluate(code, catalog.kernels["axpy"], catalog.models[model], binding=binding)
    if expected is None:  # the linker's complaint about the suggestion's own helper: the LLM's, whichever verdict
        assert e.verdict in (V.build_error, V.incomplete), f"{e.verdict}: {e.evidence}"
        return
    assert e.verdict == expected, f"{e.verdict}: {e.evidence}"
    if expected == V.unbindable:
        assert "builds alone" in e.evidence and "hpceval_glue_bug" in e.evidence, e.evidence


def test_python_glue_errors_stay_the_runs_verdict(catalog, evaluator):
    """Python has no separate build of the driver: a bad call is a run failure, left as the run reports it (the
    rule is for compiled drivers); the right suggestion with its canonical glue stays correct."""
    model = catalog.models["python-numpy"]
    e = evaluator.evaluate(PY_RIGHT, catalog.kernels["axpy"], model)
    assert e.verdict == V.correct, e.evidence


@pytest.mark.parametrize("text, in_driver", [
    ("driver.cpp:120:5: error: too many arguments to function 'void axpy(int, double, const double*, double*)'",
     True),
    ("kernel.cpp:4:50: error: 'z' was not declared in this scope\ndriver.cpp:120:5: error: something", False),
    ("/tmp/w/driver.f90:33:20: Error: More actual than formal arguments in procedure call", True),
    ("driver.cpp:(.text+0x1a): undefined reference to `scale(double, double)'\ncollect2: error: ld returned 1", False),
    ("error: unknown", False),  # no file named: cannot be placed in the driver
    ("driver.cpp:88:19: error: redefinition of 'int hpceval_threads()'", False),  # a clash with the suggestion
    ("driver.cpp:12:5: error: conflicting declaration 'double x'", False),
])
def test_only_errors_placed_in_the_driver_count(text, in_driver):
    assert bool(glue_fault_lines(text)) == in_driver
