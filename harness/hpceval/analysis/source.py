"""Source text without comments: what the static checks read.

Directives stay ('#pragma', Fortran '!$omp'/'!$acc' sentinels), since they are code for the models checked;
a construct named only in a comment or a docstring must not count.
"""

from __future__ import annotations

import re

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


def _python_aliases(code: str) -> dict[str, str]:
    """Import aliases of Python code -> the name they stand for: `import numba as nb` (nb -> numba),
    `from numba import njit as fast` (fast -> njit), `import numba.cuda as nc` (nc -> numba.cuda)."""
    import ast

    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return {}
    aliases: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for a in node.names:
                if a.asname and a.asname != a.name:
                    aliases[a.asname] = a.name
    return aliases


def usage_text(code: str, lang: Language) -> str:
    """The text the model-usage patterns read: comments removed and, in Python, import aliases spelled as the names
    they stand for, so `import numba as nb; @nb.njit` and `from numba import njit as fast; @fast` are the Numba
    decorators they are (the patterns name the library's own spelling)."""
    clean = strip_comments(code, lang)
    if lang.id != "python":
        return clean
    for alias, name in _python_aliases(code).items():
        clean = re.sub(rf"(?<![\w.]){re.escape(alias)}\b", name, clean)
    return clean
