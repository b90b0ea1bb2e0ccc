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
from dataclasses import dataclass

_RAW_CPP = re.compile(r'R"([^()\\\s]{0,16})\(')


@dataclass(frozen=True)
class _Rules:
    """The constructs of one language that can hold a line: comments end at the line, the rest may span lines."""

    line_comment: str
    block: tuple[str, str] | None = None  # block comment delimiters
    nested: bool = False  # block comments nest (Julia)
    triple: tuple[str, ...] = ()  # triple-quoted strings
    quotes: str = '"'  # one-character string quotes
    quotes_span_lines: bool = False  # a plain string may hold a newline (Julia)
    raw_strings: bool = False  # C++ R"delim(...)delim"
    char_after_word: bool = True  # a quote right after a word character opens a literal (not C++'s 1'000)


RULES = {
    "python": _Rules("#", triple=('"""', "'''"), quotes="'\""),
    "cpp": _Rules("//", block=("/*", "*/"), quotes="'\"", raw_strings=True, char_after_word=False),
    "julia": _Rules("#", block=("#=", "=#"), nested=True, triple=('"""',), quotes_span_lines=True),
}


def protected_lines(block: str, lang: str) -> set[int]:
    """0-based indices of the lines of `block` that start inside a string literal or block comment."""
    rules = RULES.get(lang)
    if rules is None:
        return set()
    inside = _scan(block, rules)  # one bool per character: inside a literal that began before it
    out = set()
    offset = 0
    for i, line in enumerate(block.split("\n")):
        if i and inside[offset - 1]:  # the newline that ends the previous line is inside a literal
            out.add(i)
        offset += len(line) + 1
    return out


def _scan(text: str, rules: _Rules) -> list[bool]:
    inside = [False] * len(text)
    i, n = 0, len(text)
    while i < n:
        if rules.block and text.startswith(rules.block[0], i):
            end = _block_end(text, i + len(rules.block[0]), rules)
            _mark(inside, i + len(rules.block[0]), end)
            i = end + len(rules.block[1])
            continue
        if text.startswith(rules.line_comment, i):
            i = _line_end(text, i)
            continue
        raw = _RAW_CPP.match(text, i) if rules.raw_strings and not _after_word(text, i) else None
        if raw:
            close = f"){raw.group(1)}\""
            end = text.find(close, raw.end())
            end = n if end < 0 else end
            _mark(inside, raw.end(), end)
            i = end + len(close)
            continue
        quote = next((q for q in rules.triple if text.startswith(q, i)), None)
        if quote is None and text[i] in rules.quotes and (rules.char_after_word or text[i] == '"'
                                                         or not _after_word(text, i)):
            quote = text[i]
        if quote is not None:
            end = _string_end(text, i + len(quote), quote, multiline=len(quote) == 3 or rules.quotes_span_lines)
            _mark(inside, i + len(quote), end)
            i = end + len(quote)
            continue
        i += 1
    return inside


def _after_word(text: str, i: int) -> bool:
    return i > 0 and (text[i - 1].isalnum() or text[i - 1] == "_")


def _block_end(text: str, i: int, rules: _Rules) -> int:
    """Index of the block comment's closing delimiter (nested ones counted), or the end of the block."""
    assert rules.block is not None
    opening, closing = rules.block
    depth = 1
    while i < len(text):
        if rules.nested and text.startswith(opening, i):
            depth, i = depth + 1, i + len(opening)
        elif text.startswith(closing, i):
            depth -= 1
            if not depth:
                return i
            i += len(closing)
        else:
            i += 1
    return len(text)


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
