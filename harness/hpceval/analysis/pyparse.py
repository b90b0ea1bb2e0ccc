"""Python parsing that is safe from the evaluation threads.

CPython 3.11 converts a parse tree to Python objects with one recursion counter per interpreter, not per thread.
A garbage collection inside that conversion can run a finaliser that lets another thread parse, and the first
parse then fails with `SystemError: AST constructor recursion depth mismatch` - an error of the harness that
would otherwise reach a suggestion's verdict. Every parse the harness makes goes through one lock.
"""

from __future__ import annotations

import ast
import threading

_LOCK = threading.RLock()  # re-entrant: a finaliser run by a collection inside a parse may parse too


def parse_python(source: str, mode: str = "exec") -> ast.AST:
    """`ast.parse`, one thread at a time (raises what `ast.parse` raises: SyntaxError, ValueError)."""
    with _LOCK:
        return ast.parse(source, mode=mode)
