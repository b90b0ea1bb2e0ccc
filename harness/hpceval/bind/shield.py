"""Macro shield: the C/C++ driver's code after the suggestion is compiled as the harness wrote it.

The suggestion is `#include`d into the driver's translation unit (the glue needs its declarations), so a macro it
defines applies to every line of the driver that follows: `#define hpceval_timed(k, f) (0.2 * hpceval_timed(k, f))`
scales the recorded time, `#define hpceval_fp(v) (finish_the_work(), hpceval_fp(v))` finishes deferred work inside
the driver's fingerprint instead of the timed call, `#define snprintf(...)` rewrites the record. Each identifier
of the driver's text after the include is saved with `#pragma push_macro` before it and restored with
`#pragma pop_macro` after it (GCC, Clang and nvcc: a name that was no macro before is no macro after), so whatever
the suggestion defined, undefined or redefined under those names stops at the end of its own file.

Left to the suggestion's macros: the binding's function name and identifiers that only the glue lines use (the
call, setup, teardown), which name the suggestion's own functions and types.
"""

from __future__ import annotations

import re

_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_STRING = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'')
_IDENT = re.compile(r"\b[A-Za-z_]\w*\b")
_NEVER = frozenset({"main", "defined", "__VA_ARGS__", "__has_include"})


def identifiers(text: str) -> set[str]:
    """Identifiers of C/C++ text outside comments and string literals."""
    return set(_IDENT.findall(_STRING.sub(" ", _COMMENT.sub(" ", text))))


def shield(driver: str, open_line: str, close_line: str, glue: list[str], function: str) -> str:
    """The driver with every identifier of its code after `close_line` (the line that ends the suggestion's
    inclusion) pushed before `open_line` (the line that starts it) and popped after `close_line`. `glue`: the
    binding's lines (call, setup, teardown), whose names that the driver does not use elsewhere stay the
    suggestion's, as does `function`."""
    start = driver.index(open_line)
    end = driver.index(close_line, start) + len(close_line)
    rest = driver[end:]
    for line in sorted(glue, key=len, reverse=True):
        rest = rest.replace(line, " ")
    names = sorted(identifiers(rest) - _NEVER - {function})
    push = "".join(f'#pragma push_macro("{n}")\n' for n in names)
    pop = "".join(f'#pragma pop_macro("{n}")\n' for n in names)
    return driver[:start] + push + driver[start:end] + pop + driver[end:]
