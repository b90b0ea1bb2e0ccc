"""A bound Python suggestion whose module fails to import is `build_error` (issue 28), not `runtime_error`.

Python's "build" is compile-first's: the unit parsed and imported in the sandbox, as the driver imports it. An
import of a module that does not exist (`import numbaa`), of a name a package lacks (`from numpy import
fancy_thing`), of a submodule nobody wrote, or module-level code that raises, is the code failing to build, with
the precedence no_code > incomplete > build_error > runtime_error. An unused import is kept like a C++ `#include`:
the file as written does not import. A real dependency of the programming model that the environment lacks
(`numba` for a Numba suggestion: the model's own reference imports it) is the environment's fault: `infra_error`.
Cases written as an unseen LLM would write them.
"""

from __future__ import annotations

import pytest

from hpceval.contracts import Verdict

V = Verdict

NUMBA_BODY = """
@numba.njit(parallel=True)
def axpy(n, a, x, y):
    for i in numba.prange(n):
        y[i] = a * x[i] + y[i]
"""

CASES = [
    # a misspelt package, never used: the file as written does not import
    ("unused-misspelt-import", "python-numba", "import numba\nimport numbaa\n" + NUMBA_BODY,
     V.build_error, "No module named 'numbaa'"),
    # the misspelt package is the one the kernel uses
    ("misspelt-alias-used", "python-numba", """
import numbaa as nb

@nb.njit(parallel=True)
def axpy(n, a, x, y):
    for i in nb.prange(n):
        y[i] += a * x[i]
""", V.build_error, "No module named 'numbaa'"),
    # a name the package does not have
    ("name-numpy-lacks", "python-numpy", """
import numpy as np
from numpy import fancy_thing

def axpy(n, a, x, y):
    y[:] = a * x + y
""", V.build_error, "cannot import name 'fancy_thing'"),
    # a submodule of a real package that nobody wrote
    ("nonexistent-submodule", "python-numpy", """
import numpy as np
import scipy.sparse.linalg.nonexistent

def axpy(n, a, x, y):
    y += a * x
""", V.build_error, "scipy.sparse.linalg.nonexistent"),
    # module-level code the kernel needs raises when imported (np.zeroes is no NumPy function)
    ("module-constant-raises", "python-numpy", """
import numpy as np

SCALE = np.zeroes(1) + 1.0

def axpy(n, a, x, y):
    y[:] = SCALE[0] * a * x + y
""", V.build_error, "zeroes"),
    # wrong model AND a failing import: the build comes first
    ("numpy-under-numba-with-bad-import", "python-numba", """
import numpy as np
from numba import fast_jit

def axpy(n, a, x, y):
    y[:] = a * x + y
""", V.build_error, "fast_jit"),
    # right but unusual imports: submodule aliases, from-imports with aliases, importlib
    ("unusual-imports-correct", "python-numba", """
import importlib
import numba
import numpy.linalg as la
from numba import prange as pr

np = importlib.import_module("numpy")

@numba.njit(parallel=True)
def axpy(n, a, x, y):
    for i in pr(n):
        y[i] = a * x[i] + y[i]
""", V.correct, ""),
    # imports fine, kernel subtly wrong: stays wrong_result
    ("imports-fine-kernel-wrong", "python-numba", """
import math
import numba

@numba.njit(parallel=True)
def axpy(n, a, x, y):
    for i in numba.prange(n - 1):
        y[i] = a * x[i] + y[i]
""", V.wrong_result, ""),
    # imports fine, the kernel raises when called: stays runtime_error
    ("kernel-raises-when-called", "python-numpy", """
import numpy as np

def axpy(n, a, x, y):
    y[:] = a * x + y
    raise ValueError("done")
""", V.runtime_error, "done"),
    # cut off after a failing import: incomplete outranks build_error
    ("cut-off-after-bad-import", "python-numba", """
import numbaa

@numbaa.njit
def axpy(n, a, x, y):
    for i in range(n):
""", V.incomplete, ""),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_an_import_failure_is_a_build_error(case, catalog, evaluator):
    from hpceval.bind import choose_binding

    _, model_id, code, verdict, evidence = case
    spec, model = catalog.kernels["axpy"], catalog.models[model_id]
    b = choose_binding(code, spec, catalog.languages["python"], "paper", model)
    e = evaluator.evaluate(code, spec, model, b)
    assert e.verdict == verdict, f"{e.verdict}: {e.evidence}"
    assert evidence in e.evidence, e.evidence
    if verdict == V.build_error:
        assert "imported" in e.evidence, e.evidence


# Which missing module is whose: the model's own libraries (its reference solutions import them, or its name is the
# package) are the environment's; anything else the LLM imported is the LLM's.
MISSING = [
    ("python-numba", "numba", V.infra_error),
    ("python-numpy", "numpy", V.infra_error),
    ("python-cupy", "cupy", V.infra_error),
    ("python-pycuda", "pycuda", V.infra_error),
    ("python-triton", "triton", V.infra_error),
    ("python-numba", "numbaa", V.build_error),
    ("python-numba", "numba.fastmath_extra", V.build_error),  # numba is there: its missing submodule is the LLM's
    ("python-numpy", "cupyx_extras", V.build_error),
    # a published package the suggestion imports beside its kernel (a demo plot, CuPy beside Numba), missing here:
    # the environment's, not a wrong answer
    ("python-numba", "cupy", V.infra_error),
    ("python-numpy", "mpi4py", V.infra_error),
    ("python-numpy", "json", V.infra_error),  # the harness's interpreter has it: the sandbox lost it
    ("python-numpy", "scipy.sparse.linalg.nonexistent", V.build_error),  # scipy exists: its submodule does not
    ("python-numpy", "nump", V.build_error),
]


@pytest.mark.parametrize("model_id,module,verdict", MISSING)
def test_a_missing_library_of_the_model_is_the_environment(model_id, module, verdict, catalog):
    from hpceval.checks.python_import import import_failure

    stderr = (f'Traceback (most recent call last):\n  File "kernel.py", line 1, in <module>\n    import {module}\n'
              f"ModuleNotFoundError: No module named '{module}'\nhpceval driver: importing the suggestion failed\n")
    got = import_failure(stderr, catalog.models[model_id])
    assert got is not None
    assert got[0] == verdict, got
    assert module in got[1]


def test_no_import_failure_without_the_driver_saying_so(catalog):
    from hpceval.checks.python_import import import_failure

    stderr = "Traceback (most recent call last):\nModuleNotFoundError: No module named 'numbaa'\n"
    assert import_failure(stderr, catalog.models["python-numba"]) is None  # raised inside the kernel's call
