"""Source text without comments: what the static checks read.

Directives stay ('#pragma', Fortran '!$omp'/'!$acc' sentinels), since they are code for the models checked;
a construct named only in a comment or a docstring must not count.
"""

from __future__ import annotations

import ast
import re

from hpceval.analysis.pyparse import parse_python
from hpceval.spec import Language


def strip_comments(code: str, lang: Language) -> str:
    """Remove comments (not directives: '#pragma' and Fortran '!$omp'/'!$acc' sentinels are kept)."""
    if lang.block_comment:
        start, end = (re.escape(t) for t in lang.block_comment)
        code = re.sub(start + r".*?" + end, " ", code, flags=re.DOTALL)
    marker = re.escape(lang.line_comment)
    keep = r"(?!\$)" if lang.id == "fortran" else ""
    if lang.id in ("python", "julia"):
        code = re.sub(r'"""(?:.|\n)*?"""|\'\'\'(?:.|\n)*?\'\'\'', " ", code)
    return re.sub(marker + keep + r"[^\n]*", "", code)


def python_imports(tree: ast.AST, from_imports: bool = True) -> dict[str, str]:
    """Each name a Python module's imports bind -> the dotted name it stands for: `import numba as nb` (nb ->
    numba), `import numba.cuda` (numba -> numba), `from numba import njit as fast` (fast -> numba.njit; with
    from_imports only)."""
    names: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                names[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
        elif from_imports and isinstance(node, ast.ImportFrom) and node.module:
            for a in node.names:
                names[a.asname or a.name] = f"{node.module}.{a.name}"
    return names


def usage_text(code: str, lang: Language) -> str:
    """The text the model-usage patterns read: comments removed and, in Python, import aliases spelled as the names
    they stand for (`import numba as nb; @nb.njit` and `from numba import njit as fast; @fast` read as
    `@numba.njit`; `from functools import lru_cache as njit; @njit` as `@functools.lru_cache`), since the patterns
    name the library's own spelling."""
    clean = strip_comments(code, lang)
    if lang.id != "python":
        return clean
    try:
        tree = parse_python(code)
    except (SyntaxError, ValueError):
        return clean
    for alias, name in python_imports(tree).items():
        if alias != name.split(".")[-1]:  # bound under another name than its own
            clean = re.sub(rf"(?<![\w.]){re.escape(alias)}\b", name, clean)
    return clean


def python_field(param: str, field: str) -> re.Pattern[str]:
    """`param.field` read as a value (not a method call `param.field(...)`)."""
    return re.compile(rf"(?<![\w.]){re.escape(param)}\s*\.\s*{re.escape(field)}\b(?!\s*\()")


def python_fields_as_names(code: str, renames: dict[tuple[str, str], str]) -> str:
    """Python source with each record field `param.field` read as the plain name renames[(param, field)]. A field the
    code rebinds (`C.data = A.data @ B.data`) becomes a write of the name's elements (`C_data[...] = ...`): the
    harness reads such a field back from the record after the call, so for every analysis it writes the output."""
    for (param, field), name in renames.items():
        code = re.sub(rf"^(\s*){re.escape(param)}\s*\.\s*{re.escape(field)}\s*=(?!=)", rf"\g<1>{name}[...] =",
                      code, flags=re.MULTILINE)
        code = python_field(param, field).sub(name, code)
    return code

