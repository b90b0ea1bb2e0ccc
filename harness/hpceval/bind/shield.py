"""Macro shield: the C/C++ driver's code after the suggestion is compiled as the harness wrote it.

The suggestion is `#include`d into the driver's translation unit (the glue needs its declarations), so a macro it
defines applies to every line of the driver that follows: `#define hpceval_timed(k, f) (0.2 * hpceval_timed(k, f))`
scales the recorded time, `#define hpceval_fp(v) (finish_the_work(), hpceval_fp(v))` finishes deferred work inside
the driver's fingerprint instead of the timed call, `#define snprintf(...)` rewrites the record. Each identifier
of the driver's text after the include is saved with `#pragma push_macro` before it and restored with
`#pragma pop_macro` after it (GCC, Clang and nvcc: a name that was no macro before is no macro after), so whatever
the suggestion defined, undefined or redefined under those names stops at the end of its own file.

Only the names the suggestion itself can make macros are shielded: those its text names in a `#define`, an
`#undef` or a `push_macro`/`pop_macro` pragma (directives cannot come out of a macro expansion, so this is every
macro the suggestion's own text defines). A macro that a system header it includes defines stays as the header
left it: `<cublas_v2.h>` makes `cublasCreate` a macro for `cublasCreate_v2`, and restoring the name to "no macro"
after the suggestion would leave the driver's own handle glue calling a function that does not exist.

The glue lines (the call, setup, teardown) are the driver's too: a function-like macro under the kernel's own name
could splice code into the timed call's expression (`#define gemm(...) (gemm)(__VA_ARGS__); }) * 0.2 + ...`), so
their names are shielded as well; the suggestion's function is called as the function it defined.
"""

from __future__ import annotations

import re

C_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)  # also checks/driver_access.py
_STRING = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'')
_IDENT = re.compile(r"\b[A-Za-z_]\w*\b")
_NEVER = frozenset({"main", "defined", "__VA_ARGS__", "__has_include"})


def identifiers(text: str) -> set[str]:
    """Identifiers of C/C++ text outside comments and string literals."""
    return set(_IDENT.findall(_STRING.sub(" ", C_COMMENT.sub(" ", text))))


# a directive's name after `#` (or the digraph `%:`), line continuations joined; and a pragma's macro name
_DIRECTIVE = re.compile(r"(?:#|%:)\s*(?:define|undef)\s+([A-Za-z_]\w*)")
_PRAGMA = re.compile(r"(?:push|pop)_macro\s*\(\s*\\?[\"']([A-Za-z_]\w*)")


def macro_names(suggestion: str) -> set[str]:
    """Every name the suggestion's text can define or undefine as a macro (a superset: comments and strings are
    searched too)."""
    text = re.sub(r"\\\r?\n", "", suggestion)  # translation phase 2: a continuation joins the lines
    return set(_DIRECTIVE.findall(text)) | set(_PRAGMA.findall(text))


def shield(driver: str, open_line: str, close_line: str, suggestion: str | None = None) -> str:
    """The driver with every identifier of its code after `close_line` (the line that ends the suggestion's
    inclusion) pushed before `open_line` (the line that starts it) and popped after `close_line`; with the
    `suggestion`'s text, only those it can define as macros (macro_names)."""
    start = driver.index(open_line)
    end = driver.index(close_line, start) + len(close_line)
    names = identifiers(driver[end:]) - _NEVER
    if suggestion is not None:
        names &= macro_names(suggestion)
    names = sorted(names)
    push = "".join(f'#pragma push_macro("{n}")\n' for n in names)
    pop = "".join(f'#pragma pop_macro("{n}")\n' for n in names)
    return driver[:start] + push + driver[start:end] + pop + driver[end:]
