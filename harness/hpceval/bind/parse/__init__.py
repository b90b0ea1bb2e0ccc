"""Parse suggestions with tree-sitter (C/C++, Fortran, Python, Julia): functions, parameters, body facts, pruning.

For signature inference the binder needs, per function of a suggestion: its parameters (name, position, element
type and precision, scalar or array, rank, container, const/intent, declared extents, default value) and a few
facts about its body (which loop bounds index which arrays, which parameters are written, whether an output is
read before it is first written, what is returned, which other functions it calls). It also needs the
suggestion's other top-level items (includes, imports, typedefs, constants, helper functions) so that a build
unit can be *pruned* to the chosen function and what it depends on: LLM completions often repeat the function,
trail off mid-definition or add a test main that does not compile.

tree-sitter is error tolerant, so truncated or partly garbled code still yields the functions that are complete.

Each language's grammar is different enough to need its own reader (parse.cpp, parse.python, parse.fortran,
parse.julia), but the binder must see one shape: this package is that single entry point (`parse`) and re-exports
the records of parse.common, so callers never import a language module.
"""

from __future__ import annotations

from hpceval.bind.parse.common import (
    REAL_WORDS_32,
    REAL_WORDS_64,
    Facts,
    Item,
    SFunction,
    SParam,
    Unit,
    has_error,
    parser,
    text_of,
    walk,
)
from hpceval.bind.parse.cpp import c_sanitize, parse_cpp
from hpceval.bind.parse.fortran import fortran_uses, parse_fortran
from hpceval.bind.parse.julia import parse_julia
from hpceval.bind.parse.python import parse_python

__all__ = [
    "REAL_WORDS_32", "REAL_WORDS_64", "Facts", "Item", "SFunction", "SParam", "Unit", "c_sanitize", "fortran_uses",
    "has_error", "parse", "parse_cpp", "parse_fortran", "parse_julia", "parse_python", "parser", "text_of", "walk",
]


def parse(code: str, lang: str) -> Unit:
    if lang == "cpp":
        return parse_cpp(code)
    if lang == "python":
        return parse_python(code)
    if lang == "fortran":
        return parse_fortran(code)
    if lang == "julia":
        return parse_julia(code)
    raise ValueError(f"signature inference does not know language {lang}")
