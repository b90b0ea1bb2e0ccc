"""The model-usage check reads import aliases as the names they stand for (analysis.source.usage_text).

Written as unseen LLM output: `import numba as nb; @nb.njit` is the most common way to write Numba, and was
`wrong_model` because the usage pattern names `@njit`/`@numba.njit`; an alias the other way round (`from functools
import lru_cache as njit; @njit`) passed the pattern on a word alone. Beside them: a right kernel under an alias
that is subtly wrong, an aliased NumPy (not Numba) decorator, and one that does not parse.
"""

from __future__ import annotations

import pytest

from hpceval.bind import choose_binding
from hpceval.checks.model_usage import usage_problem

BODY = """
def saxpy(n, a, x, y):
    for i in {loop}(n):
        y[i] = a * x[i] + y[i]{slip}
"""


def _code(head: str, decorator: str, loop: str = "range", slip: str = "") -> str:
    return head + "\n\n" + decorator + BODY.format(loop=loop, slip=slip)


CASES = [
    # right but unusual: module alias
    ("alias-module", _code("import numba as nb", "@nb.njit(parallel=True)", "nb.prange"), "correct"),
    # right but unusual: the decorator imported under another name
    ("alias-decorator", _code("from numba import njit as fast_jit, prange as prange_", "@fast_jit(parallel=True)",
                              "prange_"), "correct"),
    # right but unusual: a submodule alias
    ("alias-jit", _code("import numba as numba_lib\nimport numpy as np", "@numba_lib.jit(nopython=True)"), "correct"),
    # subtly wrong under an alias: y is scaled twice
    ("alias-wrong", _code("import numba as nb", "@nb.njit", slip=" * 2.0"), "wrong_result"),
    # wrong model: a cache decorator named like Numba's
    ("fake-njit", _code("from functools import lru_cache as njit", "@njit"), {"wrong_model", "runtime_error"}),
    # wrong model: NumPy's vectorize under a Numba-like alias
    ("numpy-as-nb", "import numpy as nb\n\n@nb.vectorize\ndef axpy_one(a, x, y):\n    return a * x + y\n\n"
                    "def saxpy(n, a, x, y):\n    y[:] = axpy_one(a, x, y)\n", "wrong_model"),
    # must stay a failure to build: right aliases, a body cut off mid-expression (incomplete: the cut-off rule)
    ("broken-body", _code("import numba as nb", "@nb.njit").replace("+ y[i]", "+"), {"build_error", "incomplete"}),
]


@pytest.mark.parametrize("cid,code,want", CASES, ids=[c[0] for c in CASES])
def test_numba_under_aliases(catalog, evaluator, cid, code, want):
    spec, m = catalog.kernels["axpy"], catalog.models["python-numba"]
    e = evaluator.evaluate(code, spec, m, choose_binding(code, spec, catalog.languages["python"], "paper", m))
    assert e.verdict.value in ({want} if isinstance(want, str) else want), (cid, e.verdict, e.evidence[-600:])


@pytest.mark.parametrize("code,uses", [
    ("import numba as nb\n@nb.njit\ndef f(x):\n    return x\n", True),
    ("from numba import njit as j\n@j\ndef f(x):\n    return x\n", True),
    ("from numba import cuda as c\n@c.jit\ndef k(x):\n    pass\n", True),
    ("from functools import lru_cache as njit\n@njit\ndef f(x):\n    return x\n", False),
    ("import numpy as nb\n@nb.vectorize\ndef f(x):\n    return x\n", False),
    # another library's njit under an alias reads as that library's (`@mylib.njit`), not as Numba's
    ("from mylib import njit as fast\n@fast\ndef f(x):\n    return x\n", False),
    ("from triton import jit as tj\n@tj\ndef k(x):\n    pass\n", False),  # Triton is not Numba
])
def test_usage_reads_aliases(catalog, code, uses):
    problem = usage_problem(code, catalog.models["python-numba"], catalog.languages["python"])
    assert (problem is None) is uses, problem
