"""A Python text with a syntax error and no function anywhere is `incomplete`, not `build_error`.

The verdict precedence puts `incomplete` before `build_error`: a text that holds no kernel function at all is
incomplete whatever else is wrong with it. Python's parser stops at the first syntax error, so a script of imports
and set-up that also has a syntax error (curly quotes pasted from a web page, an unbalanced bracket) used to reach
the import check and be graded `build_error`. Where no line of the text could define a function (no `def`, no
`lambda` outside comments), there is no kernel whatever the parser says. Where one could, the syntax error stays
the suggestion's `build_error` (the import in the sandbox says so). Unit cases on the completeness analysis, then
two end to end.
"""

from __future__ import annotations

import pytest

from hpceval.analysis.completeness import incomplete_reason
from hpceval.contracts import Verdict

NO_FUNCTION = [
    ("curly-quotes-set-up-script", """
import argparse
import cupy as cp
import seaborn as sns
parser = argparse.ArgumentParser(description=“GEMV benchmark”)
parser.add_argument(“--n”, type=int, default=1024)
args = parser.parse_args()
"""),
    ("unmatched-bracket-mid-script", """
import numpy as np
n = 1000
A = np.random.rand(n, n))
x = np.random.rand(n)
y = A @ x
print(y[:4])
"""),
    ("decorator-then-prose", """
from numba import njit, prange
@njit(parallel=True)
The function below computes y = a*x + y in parallel using prange over the elements.
It returns nothing: y is updated in place.
"""),
    ("markdown-fence-left-in", """
import numpy as np
```python
y = a * x + y
```
"""),
]

HAS_FUNCTION = [
    ("def-missing-colon-mid-file", """
import numpy as np
def gemv(A, x)
    return A @ x

print(gemv(np.eye(2), np.ones(2)))
"""),
    ("lambda-kernel-and-a-stray-bracket", """
import numpy as np
axpy = lambda a, x, y: a * x + y)
z = axpy(2.0, np.ones(3), np.ones(3))
"""),
    ("def-with-bad-indentation", """
import numpy as np
def axpy(a, x, y):
    y[:] = a * x + y
      return y

print(axpy(2.0, np.ones(3), np.ones(3)))
"""),
]


@pytest.mark.parametrize("name,code", NO_FUNCTION, ids=[c[0] for c in NO_FUNCTION])
def test_no_function_anywhere_is_incomplete(name, code):
    reason = incomplete_reason(code, "python")
    assert reason is not None and reason.startswith("incomplete: no function definition"), reason
    assert "syntax error" in reason, reason


@pytest.mark.parametrize("name,code", HAS_FUNCTION, ids=[c[0] for c in HAS_FUNCTION])
def test_a_function_with_a_syntax_error_is_left_to_the_import(name, code):
    assert incomplete_reason(code, "python") is None


def test_def_inside_a_string_keeps_the_import_verdict():
    """A conservative reading: `def` inside a string counts as a possible function (the import decides)."""
    code = 'import numpy as np\ndoc = "def axpy(a, x, y)"\nx = np.ones(3))\ny = 2\n'
    assert incomplete_reason(code, "python") is None


@pytest.mark.parametrize("name,code,verdict", [
    ("script-no-function", NO_FUNCTION[0][1], Verdict.incomplete),
    ("function-missing-colon", HAS_FUNCTION[0][1], Verdict.build_error),
])
def test_end_to_end(name, code, verdict, paper_verdict):
    paper_verdict(code, "gemv", "python-numpy", verdict)
