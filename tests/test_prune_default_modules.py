"""Pruning keeps what a function's header evaluates at definition time (issue 28): parameter defaults
(`def axpy(a, x, y, np=np)`), decorators and annotations name module-level values (imports, constants) that the
function's body may never mention as globals. Dropping their definitions made right code fail with a NameError, a
harness fault charged to the LLM. Cases written as an unseen LLM would write them.
"""

from __future__ import annotations

import pytest

from hpceval.bind.signature import infer_binding
from hpceval.contracts import Verdict

V = Verdict

CASES = [
    ("module-as-default", "python-numpy", """
import numpy as np

def axpy(a, x, y, np=np):
    y[:] = np.add(a * x, y)
""", V.correct, ["import numpy as np"]),
    ("array-namespace-default", "python-numpy", """
import numpy

def axpy(a, x, y, out=None, xp=numpy):
    if out is None:
        out = y
    out[:] = xp.multiply(a, x) + y
""", V.correct, ["import numpy"]),
    # the completion file's conventional import (np) is added for a default that reads it, as for a body
    ("default-without-import", "python-numpy", """
def axpy(a, x, y, np=np):
    y[:] = np.add(a * x, y)
""", V.correct, ["import numpy as np"]),
    ("constant-as-default", "python-numpy", """
import numpy as np

DTYPE = np.float64

def axpy(a, x, y, dtype=DTYPE):
    y[:] = (a * x + y).astype(dtype)
""", V.correct, ["DTYPE = np.float64", "import numpy as np"]),
    ("decorator-reads-a-constant", "python-numba", """
import numba

OPTIONS = dict(parallel=True, fastmath=False)

@numba.njit(**OPTIONS)
def axpy(n, a, x, y):
    for i in numba.prange(n):
        y[i] = a * x[i] + y[i]
""", V.correct, ["OPTIONS = dict(parallel=True, fastmath=False)"]),
    ("annotations-name-a-module", "python-numpy", """
import numpy as np
import numpy.typing as npt

def axpy(a: float, x: npt.NDArray[np.float64], y: npt.NDArray[np.float64]) -> None:
    y += a * x
""", V.correct, ["import numpy.typing as npt"]),
    ("subtly-wrong-with-module-default", "python-numpy", """
import numpy as np

def axpy(a, x, y, np=np):
    y[:] = np.add(a * x, -y)
""", V.wrong_result, ["import numpy as np"]),
    ("numpy-under-numba-with-module-default", "python-numba", """
import numpy as np

def axpy(n, a, x, y, np=np):
    y[:] = np.add(a * x, y)
""", V.wrong_model, ["import numpy as np"]),
    # a default naming a module that does not exist: the LLM's build_error, never unbindable or a NameError's
    ("default-names-a-missing-module", "python-numpy", """
import numpyy

def axpy(a, x, y, xp=numpyy):
    y[:] = a * x + y
""", V.build_error, ["import numpyy"]),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_header_names_keep_their_definitions(case, catalog, evaluator):
    _, model_id, code, verdict, kept = case
    spec, model = catalog.kernels["axpy"], catalog.models[model_id]
    b = infer_binding(code, spec, catalog.languages["python"], model)
    assert b.error is None, b.error
    for line in kept:
        assert line in b.source, b.source
    e = evaluator.evaluate(code, spec, model, b)
    assert e.verdict == verdict, f"{e.verdict}: {e.evidence}"
    assert "NameError" not in e.evidence, e.evidence


def test_cupy_default_keeps_its_import(catalog):
    """A CuPy function with an array-module default (no GPU here: the pruned source is what is checked)."""
    code = """
import cupy

def axpy(a, x, y, out=None, xp=cupy):
    y_d = xp.asarray(y)
    y_d += a * xp.asarray(x)
    y[:] = xp.asnumpy(y_d)
"""
    m = catalog.models["python-cupy"]
    b = infer_binding(code, catalog.kernels["axpy"], catalog.languages["python"], m)
    assert b.error is None, b.error
    assert "import cupy" in b.source, b.source
