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
