"""Which lines of a suggestion lie inside a string literal or a block comment: the lines an importer never touches.

Why: dump authors put markers between suggestions (`### End of Output`, `-----`), and the importers take such
lines out (importers.markers). The same characters are also the LLM's own text inside its code: a numpydoc
underline (`-------`) in a Python docstring, a row of `=` in a C block comment or a raw string, a Julia docstring.
Deleting those changes the program (the docstring is a value; a raw string is data), so a line whose start lies
inside a multi-line literal is code, whatever it looks like. This is a lexer, not a parser: it tracks only the
constructs that can span lines, per language, and it recovers at the end of the block (an unterminated literal
runs to the end, and every line after its opening is protected: an importer keeps too much rather than edit code).

    Python   '''…''' and \"\"\"…\"\"\" (any prefix), '…'/"…" continued by a backslash; `#` comments
    C/C++    /* … */, R"delim( … )delim", "…" continued by a backslash; `//` comments; '…' character literals
    Julia    \"\"\"…\"\"\", "…" (may span lines), #= … =# (nested); `#` comments (``` is a Markdown fence here)
    Fortran  nothing spans lines (a string continued with `&` is rare and not tracked); `!` comments
"""

from __future__ import annotations

import re

_RAW_CPP = re.compile(r'R"([^()\\\s]{0,16})\(')


def protected_lines(block: str, lang: str) -> set[int]:
    """0-based indices of the lines of `block` that start inside a string literal or block comment."""
    scan = {"python": _scan_python, "cpp": _scan_cpp, "julia": _scan_julia}.get(lang)
    if scan is None:
        return set()
    inside = scan(block)  # one bool per character: inside a literal that began before it
    out = set()
    offset = 0
    for i, line in enumerate(block.split("\n")):
        if i and inside[offset - 1]:  # the newline that ends the previous line is inside a literal
            out.add(i)
        offset += len(line) + 1
    return out


def _scan_python(text: str) -> list[bool]:
    inside = [False] * len(text)
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "#":
            i = _line_end(text, i)
            continue
        if c in "'\"":
            quote = text[i:i + 3] if text[i:i + 3] in ('"""', "'''") else c
            end = _string_end(text, i + len(quote), quote, multiline=len(quote) == 3)
            _mark(inside, i + len(quote), end)
            i = end + len(quote)
            continue
        i += 1
    return inside


def _scan_cpp(text: str) -> list[bool]:
    inside = [False] * len(text)
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            i = _line_end(text, i)
            continue
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end
            _mark(inside, i + 2, end)
            i = end + 2
            continue
        raw = _RAW_CPP.match(text, i) if c == "R" and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")) \
            else None
        if raw:
            close = f"){raw.group(1)}\""
            end = text.find(close, raw.end())
            end = n if end < 0 else end
            _mark(inside, raw.end(), end)
            i = end + len(close)
            continue
        if c == '"' or (c == "'" and not (i and (text[i - 1].isalnum() or text[i - 1] == "_"))):  # 1'000 is a number
            end = _string_end(text, i + 1, c, multiline=False)
            _mark(inside, i + 1, end)
            i = end + 1
            continue
        i += 1
    return inside


def _scan_julia(text: str) -> list[bool]:
    inside = [False] * len(text)
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("#=", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("#=", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("=#", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            end = j - 2 if not depth else n
            _mark(inside, i + 2, end)
            i = end + 2
            continue
        if c == "#":
            i = _line_end(text, i)
            continue
        if c == '"':  # not backticks: a ``` line in an answer is a Markdown fence, not a command literal
            quote = '"""' if text.startswith('"""', i) else c
            end = _string_end(text, i + len(quote), quote, multiline=True)
            _mark(inside, i + len(quote), end)
            i = end + len(quote)
            continue
        i += 1
    return inside


def _line_end(text: str, i: int) -> int:
    end = text.find("\n", i)
    return len(text) if end < 0 else end


def _string_end(text: str, i: int, quote: str, multiline: bool) -> int:
    """Index of the closing `quote` (or where an unterminated literal stops: the line end, or the block end)."""
    n = len(text)
    while i < n:
        if text[i] == "\\":
            i += 2  # an escape, or a backslash-newline that continues the literal
            continue
        if text.startswith(quote, i):
            return i
        if text[i] == "\n" and not multiline:
            return i
        i += 1
    return n


def _mark(inside: list[bool], start: int, end: int) -> None:
    for k in range(start, min(end, len(inside))):
        inside[k] = True
