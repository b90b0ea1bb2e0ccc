"""Array operations in Python: an operator or array method applied to a whole array parameter.

The NumPy prompts ask for array code. A suggestion may write it without naming NumPy at all: `return A * x` on the
SciPy CSR matrix the adapter passes for a CSR parameter (SciPy's sparse product, vectorised code over NumPy
arrays), `y += a * x` on the NumPy arrays the driver passes. The operation is on the array as a whole; an operation
on one element (`x[i]`) or on scalars is not array work. Read with Python's `ast`; code it cannot parse has none.
"""

from __future__ import annotations

import ast

from hpceval.analysis.pyparse import parse_python

_OPERATORS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Pow, ast.MatMult)
# methods and attributes of ndarray and scipy.sparse matrices that compute on the whole array
_METHODS = frozenset({"dot", "multiply", "sum", "transpose", "T", "matmul", "cumsum", "prod", "max", "min",
                      "mean", "conj", "conjugate", "power"})


def _whole(node: ast.AST, arrays: set[str]) -> bool:
    """An expression that is one of the array parameters as a whole (`x`, `A.T`, `A.transpose()`)."""
    if isinstance(node, ast.Name):
        return node.id in arrays
    if isinstance(node, ast.Attribute) and node.attr in _METHODS:
        return _whole(node.value, arrays)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return _whole(node.func, arrays)
    return False


def array_operation(code: str, function: str, arrays: set[str]) -> str | None:
    """The first operation of `function` on a whole array parameter (its source text), else None."""
    try:
        tree = parse_python(code)
    except SyntaxError:
        return None
    fns = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == function]
    for fn in fns[:1]:
        for node in ast.walk(fn):
            if isinstance(node, ast.BinOp) and isinstance(node.op, _OPERATORS) and (
                    _whole(node.left, arrays) or _whole(node.right, arrays)):
                return ast.unparse(node)
            if isinstance(node, ast.AugAssign) and isinstance(node.op, _OPERATORS) and _whole(node.value, arrays):
                return ast.unparse(node)
            if isinstance(node, (ast.Call, ast.Attribute)) and _whole(node, arrays) and not isinstance(node, ast.Name):
                return ast.unparse(node)
    return None
