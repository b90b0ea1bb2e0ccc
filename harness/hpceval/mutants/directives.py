"""Clause operators of OpenMP and OpenACC directives (reduction, private, data-movement clauses and array
sections), shared by the C/C++ analyzer (#pragma omp/acc) and the Fortran one (!$omp/!$acc sentinels): the clauses
and their rules are the same whatever the sentinel, so they are written once, over the directive's text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from hpceval.mutants.core import INT_LITERAL

_CLAUSE = re.compile(r"\b(\w+)\s*\(")
_DATA_CLAUSES = {"map", "to", "from", "copy", "copyin", "copyout", "create", "pcopy", "pcopyin", "pcopyout",
                 "present_or_copy", "present_or_copyin", "present_or_copyout", "device", "host", "self"}
_MAP_TYPE = re.compile(r"^(\s*(?:always\s*,\s*)?)(tofrom|to|from)(\s*:)", re.IGNORECASE)
_MAP_SWAP = {"tofrom": "to", "to": "alloc", "from": "alloc"}
_ACC_SWAP = {"copy": "copyin", "copyin": "create", "copyout": "create", "pcopy": "pcopyin",
             "pcopyin": "pcreate", "pcopyout": "pcreate"}
_REDUCTION_SWAP = {"+": "*", "-": "*", "*": "+", "max": "min", "min": "max", ".and.": ".or.", ".or.": ".and.",
                   "&&": "||", "||": "&&", "iand": "ior", "ior": "iand"}
UNSTRUCTURED_DATA = re.compile(r"\b(?:enter\s+data|exit\s+data|update)\b", re.IGNORECASE)


def _clauses(text: str) -> list[tuple[str, int, int, int]]:
    """(name, start of name, start of contents, end of contents) of each `name(...)` clause, parentheses balanced."""
    out = []
    for m in _CLAUSE.finditer(text):
        depth, i = 1, m.end()
        while i < len(text) and depth:
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            i += 1
        if depth == 0:
            out.append((m.group(1).lower(), m.start(), m.end(), i - 1))
    return out


def clause_edits(text: str, *, lang: str, private_exempt: set[str],
                     section: re.Pattern[str]) -> Iterator[tuple[str, str, str, str | None]]:
    """Clause mutants of one OpenMP/OpenACC directive text (same rules for C and Fortran sentinels)."""
    is_acc = bool(re.match(r"\s*(#\s*pragma\s+acc|!\$acc)", text, re.IGNORECASE))
    for name, start, open_, close in _clauses(text):
        inner = text[open_:close]
        if name == "reduction" and ":" in inner:
            op, _, variables = inner.partition(":")
            yield "wrong-reduction", "reduction removed", _drop_clause(text, start, close), None
            new_op = _REDUCTION_SWAP.get(op.strip().lower())
            if new_op:
                yield ("wrong-reduction", "reduction operator",
                       text[:open_] + f"{new_op}:{variables}" + text[close:], None)
        elif name == "private" and not is_acc:
            kept = [v for v in (s.strip() for s in inner.split(",")) if v]
            removable = [v for v in kept if (v.lower() if lang == "fortran" else v) not in private_exempt]
            if not removable:
                continue
            rest = [v for v in kept if v not in removable]
            new = text[:open_] + ", ".join(rest) + text[close:] if rest else _drop_clause(text, start, close)
            yield "wrong-reduction", "private removed", new, None
        elif name in _DATA_CLAUSES:
            m = _MAP_TYPE.match(inner) if name == "map" else None
            if m and m.group(2).lower() in _MAP_SWAP:
                new_inner = m.group(1) + _MAP_SWAP[m.group(2).lower()] + inner[m.end(2):]
                yield "data-clause", "map type", text[:open_] + new_inner + text[close:], None
            elif name in _ACC_SWAP:
                yield "data-clause", "data clause", text[:start] + _ACC_SWAP[name] + text[start + len(name):], None
            for s in section.finditer(inner):
                a, b = open_ + s.start("len"), open_ + s.end("len")
                lead = s.group("len")[: len(s.group("len")) - len(s.group("len").lstrip())]
                yield "data-clause", "array section", text[:a] + lead + _minus_one(s.group("len")) + text[b:], None


def _minus_one(expr: str) -> str:
    """`expr - 1` as text, folding a trailing constant (n + 1 -> n, n - 1 -> n - 2, 8 -> 7)."""
    expr = expr.strip()
    if INT_LITERAL.match(expr):
        return str(int(expr) - 1)
    m = re.fullmatch(r"(.*?\S)\s*([+-])\s*(\d+)", expr)
    if m and not re.search(r"[<>=&|?]", m.group(1)):
        value = int(m.group(3)) * (1 if m.group(2) == "+" else -1) - 1
        return m.group(1) if value == 0 else f"{m.group(1)} {'+' if value > 0 else '-'} {abs(value)}"
    return f"{expr} - 1"


def _drop_clause(text: str, start: int, close: int) -> str:
    before = text[:start].rstrip(" \t,")
    return before + text[close + 1:]
