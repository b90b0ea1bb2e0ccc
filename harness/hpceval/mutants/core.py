"""The shared core of the mutation operators: what a mutant is and how a capped set is sampled, the candidate edit
that an analyzer proposes, and the tree-sitter plumbing (grammars, tree walks, a parsed source text) every analysis
of a source text uses.

It exists so that the operator framework (analyzer.py), the launch-geometry analysis (gpu_launch.py), the clause
operators (directives.py) and the language modules (cpp.py, fortran.py, python.py) share one definition of these;
it imports none of them.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

from tree_sitter import Language as TSLanguage
from tree_sitter import Node, Parser

KINDS: tuple[str, ...] = (
    "off-by-one", "swapped-index", "dropped-term", "arithmetic", "zeroed-output", "unwritten-output",
    "removed-parallel", "wrong-reduction", "wrong-init", "data-clause",
)
"""Operator kinds, in the order sampling visits them."""

DEFAULT_CAP = 16


class UnsupportedLanguage(ValueError):
    """No mutation operators exist (yet) for this language."""


@dataclass(frozen=True)
class Mutant:
    """One mutated version of a source text."""

    kind: str
    description: str
    code: str
    line: int
    expect: str | None = None
    """The verdict a correct validator must give when the bug implies one (a removed construct: wrong_model)."""
    operator: str = ""
    """kind/sub-operator, e.g. off-by-one/start; sampling takes turns over these within a kind."""

    def diff(self, original: str, max_lines: int = 8) -> str:
        """The changed lines, '-' old and '+' new, at most max_lines of them."""
        lines = [ln for ln in difflib.unified_diff(original.splitlines(), self.code.splitlines(), lineterm="", n=0)
                 if ln[:1] in "+-" and not ln.startswith(("---", "+++"))]
        if len(lines) > max_lines:
            lines = lines[:max_lines] + [f"... ({len(lines) - max_lines} more changed lines)"]
        return "\n".join(lines)


def sample(mutants: list[Mutant], cap: int) -> list[Mutant]:
    """At most `cap` mutants, deterministically: kinds take turns (so every kind present is represented) and
    within a kind the picks are spread evenly over the sites. The result keeps the input order."""
    if len(mutants) <= cap:
        return list(mutants)
    by_kind: dict[str, list[int]] = {}
    for i, m in enumerate(mutants):
        by_kind.setdefault(m.kind, []).append(i)
    kinds = sorted(by_kind, key=lambda k: KINDS.index(k) if k in KINDS else len(KINDS))
    quota = dict.fromkeys(kinds, 0)
    left = cap
    while left > 0:
        progressed = False
        for kind in kinds:
            if left and quota[kind] < len(by_kind[kind]):
                quota[kind] += 1
                left -= 1
                progressed = True
        if not progressed:
            break
    chosen: list[int] = []
    for kind in kinds:
        chosen += _spread([mutants[i].operator for i in by_kind[kind]], by_kind[kind], quota[kind])
    return [mutants[i] for i in sorted(chosen)]


def _spread(operators: list[str], sites: list[int], q: int) -> list[int]:
    """q of the sites: sub-operators take turns, and each one's picks are evenly spaced over its sites."""
    groups: dict[str, list[int]] = {}
    for op, site in zip(operators, sites, strict=True):
        groups.setdefault(op, []).append(site)
    take = dict.fromkeys(groups, 0)
    while q > 0:
        for op in groups:
            if q and take[op] < len(groups[op]):
                take[op] += 1
                q -= 1
    return [g[int((j + 0.5) * len(g) / take[op])] for op, g in groups.items() for j in range(take[op])]


# ---------------------------------------------------------------------------------------------- machinery

Edit = tuple[int, int, str]  # byte range of the source and its replacement


@dataclass
class Cand:
    """A candidate mutant: the edits one operator makes at one site, before equivalents and duplicates are dropped."""

    kind: str
    label: str
    line: int
    edits: list[Edit]
    ctx: tuple[int, int] | None = None  # byte range shown before/after in the description
    note: str = ""
    expect: str | None = None
    variant: str = ""  # the sub-operator (e.g. loop start vs end), so sampling spreads over them


@dataclass
class Assign:
    """A computational statement: `lhs op rhs`, or a return (lhs None)."""

    stmt: Node
    lhs: Node | None
    op: Node | None
    rhs: Node | None
    output: bool  # writes an output-like location (array element, dereference, declared output)


@cache
def ts_language(name: str) -> TSLanguage:
    if name == "cpp":
        import tree_sitter_cpp as mod
    elif name == "fortran":
        import tree_sitter_fortran as mod
    else:
        import tree_sitter_python as mod
    return TSLanguage(mod.language())


def walk(node: Node) -> Iterator[Node]:
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(n.children))


def field_name(node: Node, child: Node) -> str | None:
    for i, c in enumerate(node.children):
        if c.id == child.id:
            return node.field_name_for_child(i)
    return None


def short(text: str, limit: int = 70) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


INT_LITERAL = re.compile(r"^-?\d+$")
"""A plain integer literal (with an optional minus sign)."""


class SourceText:
    """One source text parsed with tree-sitter, and byte-level access to it: the base of every analysis of it."""

    ts_name = ""
    casefold = False

    def __init__(self, code: str) -> None:
        self.code = code
        self.src = code.encode()
        parser = Parser(ts_language(self.ts_name))
        self.root = parser.parse(self.src).root_node
        self.all_nodes = list(walk(self.root))

    def text(self, node: Node) -> str:
        return self.src[node.start_byte:node.end_byte].decode()

    def name(self, node: Node) -> str:
        t = self.text(node)
        return t.lower() if self.casefold else t

    def of_type(self, *types: str) -> list[Node]:
        return [n for n in self.all_nodes if n.type in types]

    def apply(self, edits: list[Edit], lo: int = 0, hi: int | None = None) -> str:
        """The source (its bytes lo:hi) with the edits that lie within it applied."""
        hi = len(self.src) if hi is None else hi
        out = self.src[lo:hi]
        for s, e, new in sorted(edits, key=lambda x: x[0], reverse=True):
            if lo <= s and e <= hi:
                out = out[: s - lo] + new.encode() + out[e - lo:]
        return out.decode()
