"""Integer C expressions as they appear in data-clause sections and launch geometry: `(long)m * n`, `(n + 255) / 256`.

One reader for the two places that evaluate them: the offload section check (datamap.py) and the mutation
operators' test for launch mutants that only enlarge a grid (hpceval.mutants.gpu_launch).
"""

from __future__ import annotations

import ast
import math
import re

# An integer C cast, `(long)` or `(std::size_t)`, and `static_cast<...>`: they do not change a size's value.
C_INT_CAST = re.compile(r"\(\s*(?:const\s+)?(?:unsigned\s+|signed\s+)?(?:long\s+long|long|int|short|size_t|"
                        r"std::size_t|ptrdiff_t|std::ptrdiff_t|u?int(?:32|64)_t|unsigned)\s*\)")
CALLS = {"ceil": math.ceil, "floor": math.floor, "max": max, "min": min, "int": int, "abs": abs}


def strip_c_casts(text: str) -> str:
    """The expression without integer casts and literal suffixes (`2L`, `256u`)."""
    text = re.sub(r"\bstatic_cast\s*<[^<>]*>", "", C_INT_CAST.sub("", text))
    return re.sub(r"(\d)[uUlL]+\b", r"\1", text)


def evaluate(node: ast.AST, values: dict[str, int], c_division: bool) -> float:
    """The value of a parsed arithmetic expression; `/` of two ints truncates toward zero when c_division.
    Raises ValueError for anything but numbers, known names, + - * / // % << >> and the CALLS."""
    if isinstance(node, ast.Expression):
        return evaluate(node.body, values, c_division)
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return node.value
    if isinstance(node, ast.Name) and node.id in values:
        return values[node.id]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        v = evaluate(node.operand, values, c_division)
        return -v if isinstance(node.op, ast.USub) else v
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in CALLS and not node.keywords:
        return CALLS[node.func.id](*(evaluate(a, values, c_division) for a in node.args))
    if isinstance(node, ast.BinOp):
        a, b = evaluate(node.left, values, c_division), evaluate(node.right, values, c_division)
        if isinstance(node.op, ast.Div) and c_division and isinstance(a, int) and isinstance(b, int):
            q = abs(a) // abs(b)  # C: truncation toward zero
            return q if (a < 0) == (b < 0) else -q
        ops = {ast.Add: lambda: a + b, ast.Sub: lambda: a - b, ast.Mult: lambda: a * b, ast.Div: lambda: a / b,
               ast.FloorDiv: lambda: a // b, ast.Mod: lambda: a % b, ast.LShift: lambda: a << b,
               ast.RShift: lambda: a >> b}
        if type(node.op) in ops:
            return ops[type(node.op)]()
    raise ValueError(f"not an arithmetic expression: {ast.dump(node)[:80]}")
