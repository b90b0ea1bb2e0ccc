"""Fortran suggestions as modules: the driver `use`s the suggestion's module, so its procedures need one.

Shared by the driver rendering (bind) and the suggestion's own build unit (bind.prune.unit_alone): both must
build the same module from the same source, so the wrapping lives here, below both.
"""

from __future__ import annotations

import re

_FORTRAN_MODULE = re.compile(r"^\s*module\s+(?!procedure\b)(\w+)\s*$", re.IGNORECASE | re.MULTILINE)
_FORTRAN_PROGRAM = re.compile(r"^\s*program\s+\w+.*?^\s*end\s*program\b[^\n]*$", re.IGNORECASE | re.MULTILINE | re.DOTALL)


def fortran_kernel_source(code: str) -> tuple[str, str]:
    """Return (module source, module name): a suggestion's own module, or its procedures wrapped in one.

    Wrapping gives the driver an explicit interface (so assumed-shape dummies work) without imposing
    `implicit none` on sloppy code. A `program` block (a test main) is dropped.
    """
    code = _FORTRAN_PROGRAM.sub("", code)
    match = _FORTRAN_MODULE.search(code)
    if match:
        return code, match.group(1)
    return f"module hpceval_kernel\ncontains\n{code}\nend module hpceval_kernel\n", "hpceval_kernel"


_OMP_CALL = re.compile(r"\bomp_\w+\s*\(", re.IGNORECASE)
_USES_OMP_LIB = re.compile(r"^\s*(?:!\$\s*)?use\s*(?:,\s*\w+\s*::)?\s*omp_lib\b", re.IGNORECASE | re.MULTILINE)


_DEFINES_OMP = re.compile(r"^[ \t]*(?:[\w(),*=]+[ \t]+)*(?:function|subroutine)[ \t]+omp_\w+", re.IGNORECASE | re.MULTILINE)


def with_omp_lib(source: str) -> str:
    """Fortran: a kernel that calls omp_* routines without `use omp_lib` gets it at module level (as a C++ kernel
    gets <omp.h> from the driver), so the routines have their interfaces and types instead of implicit REAL ones."""
    code = re.sub(r"!(?!\$)[^\n]*", "", source)
    if not _OMP_CALL.search(code) or _USES_OMP_LIB.search(code) or _DEFINES_OMP.search(code):
        return source  # a suggestion that defines omp_* itself builds as written (the interposition check judges it)
    match = _FORTRAN_MODULE.search(source)
    if not match:
        return source
    return source[:match.end()] + "\n  use omp_lib" + source[match.end():]
