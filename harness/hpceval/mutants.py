"""Mutants of a known-correct kernel, derived automatically from its source text: the validator's self-test.

A mutant is the reference solution with one small, realistic bug: an off-by-one loop bound, swapped index
variables, a dropped term of a sum, a swapped arithmetic operator, a zeroed or unwritten output, a removed
parallel construct, a wrong reduction or data-sharing clause, a wrong accumulator initialisation, or a wrong
data-movement clause of an offload directive. A validator that accepts a mutant has a hole.

Operators are general source-level rules per language, never special cases of a kernel or file. Sites
(loop headers, subscripts, assignments, binary operators) are found with tree-sitter, so comments, strings and
#include lines are never touched; directives (#pragma, !$omp/!$acc sentinels, numba decorators) are rewritten
with regexes over their own text. Rules that would give mutants known to be equivalent are left out:
  * an index expression symmetric in the swapped variables (`A[i + j]`), `x * 1` -> `x / 1`, `x + 0` -> `x - 0`;
  * removing from private() a variable the language makes private anyway (the loop variable of the associated
    loop in C/C++, every do-loop variable in Fortran), and private() of OpenACC (scalars are firstprivate);
  * the bound of a loop that also ends otherwise (a `break`/`exit` in its body, a second condition such as
    `it < max_iter && r > tol`): it is only a safeguard, so changing it by one changes nothing;
  * sites inside a branch taken only when a floating-point value is exactly zero (`if (bnorm == 0.0)`), a
    degenerate input that random validation data never produces;
  * arithmetic of addresses and index temporaries (`double *c = C + i*n`, `long c = (i*ny + j)*nz + k` used
    as a subscript) is left to the index operators (swapped index), not to the arithmetic ones;
  * mutants that can only over-provision a GPU launch. A kernel launched with a rounded-up (ceil-division) grid
    must bound-check its global index (`if (i < n)`), so extra blocks do nothing: a mutant of a grid dimension
    that is never smaller than the original's for any positive sizes (`(n + 255) / 256` -> `(n + 255) * 256`,
    `(m + b - 1) / b` -> `(m + b) / b`) is equivalent, and so is exchanging the grid and block of a launch
    (`k[blocks, threads]` -> `k[threads, blocks]`: grid*block stays the same in every dimension) unless the
    kernel depends on the block's shape (shared memory, barriers, warp shuffles). Grid dimensions are the grid
    argument of `k<<<grid, block>>>`, `hipLaunchKernelGGL(k, grid, block, ...)`, `cudaLaunchKernel`, numba
    `k[grid, block](...)`, pyCUDA `k(..., grid=...)` and CuPy RawKernel `k(grid, block, args)`, split into
    dim3/tuple components, followed into variables (`dim3 grid(...)`, `blocks = ...`) used only as such grids.
    Whether a mutant only enlarges is decided by evaluating both dimension expressions on many positive sizes,
    small ones included; mutants that can give fewer threads (`(n + 255) / 256` -> `n / 256`, `+` -> `-`) are
    real bugs that awkward sizes expose, and are kept.
Mutants whose text equals the original or an earlier mutant (whitespace ignored) are dropped.

CUDA C source held in Python string literals (pyCUDA `SourceModule("...")`, CuPy `RawKernel`/`RawModule` code and
`ElementwiseKernel` operations, directly or through a variable) is mutated with the C++ operators; the mutant is the
whole Python file with the string edited in place.

    mutants = generate_mutants(code, "cpp")            # deduplicated, capped, every operator kind represented
    every = generate_mutants(code, "cpp", cap=None)     # all of them
"""

from __future__ import annotations

import ast
import dataclasses
import difflib
import itertools
import random
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache

from tree_sitter import Language as TSLanguage
from tree_sitter import Node, Parser

from hpceval.cexpr import C_INT_CAST, strip_c_casts
from hpceval.cexpr import CALLS as _EXTENT_CALLS
from hpceval.cexpr import evaluate as _extent_value

KINDS: tuple[str, ...] = (
    "off-by-one", "swapped-index", "dropped-term", "arithmetic", "zeroed-output", "unwritten-output",
    "removed-parallel", "wrong-reduction", "wrong-init", "data-clause",
)
"""Operator kinds, in the order sampling visits them."""

DEFAULT_CAP = 16
SUPPORTED_LANGUAGES: tuple[str, ...] = ("cpp", "fortran", "python")


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


def generate_mutants(code: str, language: str, *, cap: int | None = DEFAULT_CAP) -> list[Mutant]:
    """All mutants of `code` (deduplicated, in a deterministic order), sampled down to `cap` if given."""
    analyzer = _ANALYZERS.get(language)
    if analyzer is None:
        raise UnsupportedLanguage(f"no mutation operators for language {language!r}; "
                                  f"supported: {', '.join(SUPPORTED_LANGUAGES)}")
    found = analyzer(code).mutants()
    return sample(found, cap) if cap is not None else found


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
class _Cand:
    kind: str
    label: str
    line: int
    edits: list[Edit]
    ctx: tuple[int, int] | None = None  # byte range shown before/after in the description
    note: str = ""
    expect: str | None = None
    variant: str = ""  # the sub-operator (e.g. loop start vs end), so sampling spreads over them


@dataclass
class _Assign:
    """A computational statement: `lhs op rhs`, or a return (lhs None)."""

    stmt: Node
    lhs: Node | None
    op: Node | None
    rhs: Node | None
    output: bool  # writes an output-like location (array element, dereference, declared output)


@cache
def _ts_language(name: str) -> TSLanguage:
    if name == "cpp":
        import tree_sitter_cpp as mod
    elif name == "fortran":
        import tree_sitter_fortran as mod
    else:
        import tree_sitter_python as mod
    return TSLanguage(mod.language())


def _walk(node: Node) -> Iterator[Node]:
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(n.children))


def _field(node: Node, child: Node) -> str | None:
    for i, c in enumerate(node.children):
        if c.id == child.id:
            return node.field_name_for_child(i)
    return None


def _short(text: str, limit: int = 70) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


_ZERO = re.compile(r"^[+]?(?:0+\.?0*|\.0+)(?:[eEdD][+-]?\d+)?(?:_\w+)?[fFlLuU]*$")
_ONE = re.compile(r"^[+]?(?:0*1\.?0*)(?:[eEdD][+-]?0+)?(?:_\w+)?[fFlLuU]*$")
_INT = re.compile(r"^-?\d+$")
_DIRECTIVE_KEYWORDS = ("omp", "acc")


def _one_like(zero: str) -> str:
    """The literal 1 written like the given zero literal: 0.0f -> 1.0f, 0._dp -> 1._dp, .0 -> 1.0."""
    if zero.startswith("."):
        return "1" + zero
    return re.sub(r"0", "1", zero, count=1)


class _Analyzer:
    """Finds mutation sites in one source text; subclasses know the syntax of one language."""

    ts_name = ""
    binary_type = ""
    literal_types: tuple[str, ...] = ()
    zero_text = "0"
    casefold = False

    def __init__(self, code: str) -> None:
        self.code = code
        self.src = code.encode()
        parser = Parser(_ts_language(self.ts_name))
        self.root = parser.parse(self.src).root_node
        self.all_nodes = list(_walk(self.root))
        self._index_ranges: list[tuple[int, int]] | None = None
        self._temporaries: list[tuple[Node, list[Node]]] | None = None
        self._grid_dims: list[tuple[int, int]] | None = None
        self._launch_spans: list[tuple[tuple[int, int], tuple[int, int] | None]] | None = None

    # ------------------------------------------------------------------ helpers

    def text(self, node: Node) -> str:
        return self.src[node.start_byte:node.end_byte].decode()

    def name(self, node: Node) -> str:
        t = self.text(node)
        return t.lower() if self.casefold else t

    def of_type(self, *types: str) -> list[Node]:
        return [n for n in self.all_nodes if n.type in types]

    def cand(self, kind: str, label: str, node: Node, edits: list[Edit], ctx: Node | tuple[int, int] | None = None,
             expect: str | None = None, note: str = "", variant: str = "") -> _Cand:
        if isinstance(ctx, Node):
            ctx = (ctx.start_byte, ctx.end_byte)
        return _Cand(kind, label, node.start_point[0] + 1, edits, ctx, note, expect, variant or label)

    def obo(self, variant: str, node: Node, edits: list[Edit], ctx: Node | None = None) -> _Cand:
        return self.cand("off-by-one", "off-by-one", node, edits, ctx, variant=variant)

    def in_index(self, node: Node) -> bool:
        if self._index_ranges is None:
            self._index_ranges = [(n.start_byte, n.end_byte) for n in self.index_nodes()]
        return any(s <= node.start_byte and node.end_byte <= e for s, e in self._index_ranges)

    def is_zero(self, node: Node | None) -> bool:
        return node is not None and node.type in self.literal_types and bool(_ZERO.match(self.text(node)))

    def is_one(self, node: Node | None) -> bool:
        return node is not None and node.type in self.literal_types and bool(_ONE.match(self.text(node)))

    def is_literal(self, node: Node | None) -> bool:
        while node is not None and node.type in ("unary_expression", "unary_operator") and node.named_child_count == 1:
            node = node.named_children[0]
        return node is not None and node.type in self.literal_types

    def binary_parts(self, node: Node) -> tuple[Node | None, Node | None, Node | None]:
        return node.child_by_field_name("left"), node.child_by_field_name("operator"), node.child_by_field_name("right")

    def binary_op(self, node: Node) -> str | None:
        if node.type != self.binary_type:
            return None
        _, op, _ = self.binary_parts(node)
        return self.text(op) if op is not None else None

    def shifted(self, node: Node, delta: int) -> str:
        """The expression `node + delta` as source text (literal integers are folded)."""
        text = self.text(node)
        stripped = text.replace(" ", "")
        if _INT.match(stripped):
            return str(int(stripped) + delta)
        if self.binary_op(node) in ("+", "-"):  # fold into a trailing constant: n + 1 - 1 -> n, n - 1 - 1 -> n - 2
            left, op, right = self.binary_parts(node)
            if right is not None and _INT.match(self.text(right)):
                value = int(self.text(right)) * (1 if self.text(op) == "+" else -1) + delta
                head = self.src[node.start_byte:op.start_byte].decode().rstrip()
                return head if value == 0 else f"{head} {'+' if value > 0 else '-'} {abs(value)}"
        if not self.simple_operand(node):
            text = f"({text})"
        return f"{text} {'+' if delta > 0 else '-'} {abs(delta)}"

    def simple_operand(self, node: Node) -> bool:
        """Whether `node - 1` parses as (node) - 1 without parentheses."""
        if node.type == self.binary_type:
            return self.binary_op(node) in ("+", "-", "*", "/", "%", "**")
        return "conditional" not in node.type and "assignment" not in node.type and "boolean" not in node.type

    loop_types: tuple[str, ...] = ()
    exit_types: tuple[str, ...] = ()

    def has_early_exit(self, body: Node | None) -> bool:
        """Whether a loop body leaves the loop early (break / exit), not counting nested loops' own exits."""
        if body is None:
            return False
        stack = list(body.children)
        while stack:
            n = stack.pop()
            if n.type in self.loop_types or n.type in ("switch_statement", "lambda_expression", "function_definition"):
                continue
            if n.type in self.exit_types and self.text(n).strip().rstrip(";").lower() in ("break", "exit"):
                return True
            stack.extend(n.children)
        return False

    # ------------------------------------------------------------------ language hooks

    def assignments(self) -> list[_Assign]:
        raise NotImplementedError

    def index_nodes(self) -> list[Node]:
        """Nodes that are array subscripts (their arithmetic is index arithmetic, not the computation)."""
        raise NotImplementedError

    def loop_vars(self) -> set[str]:
        raise NotImplementedError

    def bound_cands(self) -> list[_Cand]:
        raise NotImplementedError

    def subscript_sites(self) -> list[tuple[Node, list[Node]]]:
        """(whole subscripted reference, its index expressions) for each array reference."""
        raise NotImplementedError

    def directives(self) -> list[Node]:
        """Nodes of the parallel-model constructs: #pragma omp/acc, !$omp/!$acc lines, numba decorators."""
        raise NotImplementedError

    def deleted_statement(self, stmt: Node) -> str:
        raise NotImplementedError

    def extra_init_cands(self) -> list[_Cand]:
        return []

    def degenerate_ranges(self) -> list[tuple[int, int]]:
        """Byte ranges of branches taken only when a floating-point value is exactly zero (`if (bnorm == 0.0)`):
        degenerate inputs that random validation data does not produce, so mutants there cannot be killed."""
        return []

    def is_float_zero(self, node: Node) -> bool:
        text = self.text(node)
        return self.is_zero(node) and bool(re.search(r"[.eEdD]", text)) and not text.lower().startswith("0x")

    def zero_test(self, cond: Node | None) -> bool:
        """Whether a condition contains an exact equality test against a floating-point zero literal."""
        if cond is None:
            return False
        for n in _walk(cond):
            ops = [c for c in n.children if c.type in ("==", ".eq.", ".EQ.")]
            if ops and any(self.is_float_zero(c) for c in n.named_children):
                return True
        return False

    def directive_edits(self, node: Node) -> Iterable[tuple[str, str, str, str | None]]:
        """(kind, label, new directive text, expected verdict) for the clause operators of one directive."""
        return []

    # ------------------------------------------------------------------ generic operators

    def computational(self) -> list[_Assign]:
        """Statements that compute values: not those that compute an address or an index (`double *c = C + i*n`,
        `long c = (i*ny + j)*nz + k` used as a subscript), whose arithmetic is left to the index operators."""
        addressing = {(rhs.start_byte, rhs.end_byte) for rhs, _ in self.index_temporaries()}
        return [a for a in self.assignments() if a.rhs is not None
                and (a.rhs.start_byte, a.rhs.end_byte) not in addressing
                and not (a.lhs is not None and a.lhs.type == "pointer_declarator")]

    def binaries(self, root: Node) -> list[Node]:
        return [n for n in _walk(root) if n.type == self.binary_type and not self.in_index(n)]

    def op_swap_cands(self) -> list[_Cand]:
        swap = {"+": "-", "-": "+", "*": "/", "/": "*", "+=": "-=", "-=": "+=", "*=": "/=", "/=": "*="}
        out = []
        for a in self.computational():
            if a.op is not None and self.text(a.op) in ("+=", "-=", "*=", "/="):
                if not (self.text(a.op) in ("*=", "/=") and self.is_one(a.rhs)):
                    out.append(self.cand("arithmetic", "operator swap", a.op,
                                         [(a.op.start_byte, a.op.end_byte, swap[self.text(a.op)])], a.stmt))
            for b in self.binaries(a.rhs):
                left, op, right = self.binary_parts(b)
                sym = self.text(op) if op is not None else ""
                if sym not in swap:
                    continue
                if sym in ("*", "/") and (self.is_one(right) or (sym == "*" and self.is_one(left))):
                    continue
                if sym in ("+", "-") and (self.is_zero(right) or (sym == "+" and self.is_zero(left))):
                    continue
                out.append(self.cand("arithmetic", "operator swap", b, [(op.start_byte, op.end_byte, swap[sym])], b))
        return out

    def dropped_term_cands(self) -> list[_Cand]:
        out = []
        for a in self.computational():
            for b in self.binaries(a.rhs):
                if self.binary_op(b) not in ("+", "-"):
                    continue
                parent = b.parent
                if parent is not None and self.binary_op(parent) in ("+", "-") and _field(parent, b) == "left":
                    continue  # not the root of the chain
                terms: list[tuple[str, Node]] = []
                node = b
                while self.binary_op(node) in ("+", "-") and not self.in_index(node):
                    left, op, right = self.binary_parts(node)
                    terms.insert(0, (self.text(op), right))
                    node = left
                terms.insert(0, ("+", node))
                for k, (_, term) in enumerate(terms):
                    if self.is_zero(term):
                        continue
                    rest = terms[:k] + terms[k + 1:]
                    sign0, first = rest[0]
                    text = ("-" if sign0 == "-" else "") + self.text(first)
                    for sign, t in rest[1:]:
                        text += f" {sign} {self.text(t)}"
                    out.append(self.cand("dropped-term", "dropped term", b, [(b.start_byte, b.end_byte, text)], b,
                                         note=f"dropped `{_short(self.text(term), 40)}`"))
        return out

    def zeroed_cands(self) -> list[_Cand]:
        out = []
        for a in self.computational():
            if a.output and not self.is_literal(a.rhs):
                out.append(self.cand("zeroed-output", "zeroed output", a.rhs,
                                     [(a.rhs.start_byte, a.rhs.end_byte, self.zero_text)], a.stmt))
        return out

    def unwritten_cands(self) -> list[_Cand]:
        out = []
        for a in self.assignments():
            if a.output:
                out.append(self.cand("unwritten-output", "unwritten output", a.stmt,
                                     [(a.stmt.start_byte, a.stmt.end_byte, self.deleted_statement(a.stmt))],
                                     note=f"deleted `{_short(self.text(a.stmt), 60)}`"))
        return out

    def init_cands(self) -> list[_Cand]:
        out = []
        for a in self.computational():
            if self.is_zero(a.rhs) and a.lhs is not None:
                out.append(self.cand("wrong-init", "wrong initialization", a.rhs,
                                     [(a.rhs.start_byte, a.rhs.end_byte, _one_like(self.text(a.rhs)))], a.stmt))
        return out + self.extra_init_cands()

    def index_temporaries(self) -> list[tuple[Node, list[Node]]]:
        """`c = (i*ny + j)*nz + k` where c is then used as a subscript: the value is an index expression."""
        if self._temporaries is None:
            used = {self.name(n) for idx in self.index_nodes() for n in _walk(idx) if n.type == "identifier"}
            self._temporaries = [(a.rhs, [a.rhs]) for a in self.assignments() if a.rhs is not None and a.lhs is not None
                                 and a.lhs.type == "identifier" and self.name(a.lhs) in used]
        return self._temporaries

    def positional_swaps(self) -> list[_Cand]:
        """Array syntax: a multi-dimensional reference without loop variables gets two components exchanged."""
        return []

    def swap_cands(self) -> list[_Cand]:
        loop_vars = self.loop_vars()
        out = []
        for site, indices in self.subscript_sites() + self.index_temporaries():
            ids = [n for idx in indices for n in _walk(idx) if n.type == "identifier" and self.name(n) in loop_vars
                   and not self._is_attribute_name(n)]
            names = list(dict.fromkeys(self.name(n) for n in ids))
            for a, b in itertools.combinations(names[:3], 2):
                if self._symmetric([self.text(i) for i in indices], a, b):
                    continue
                spelled = {self.name(n): self.text(n) for n in ids}
                edits = [(n.start_byte, n.end_byte, spelled[b] if self.name(n) == a else spelled[a])
                         for n in ids if self.name(n) in (a, b)]
                out.append(self.cand("swapped-index", "swapped index", site, edits, site))
        return out + self.positional_swaps()

    def swap_components(self, site: Node, parts: list[Node]) -> list[_Cand]:
        texts = [self.text(p) for p in parts]
        for i, j in itertools.combinations(range(len(parts)), 2):
            if texts[i] != texts[j]:
                a, b = parts[i], parts[j]
                return [self.cand("swapped-index", "swapped index", site,
                                  [(a.start_byte, a.end_byte, texts[j]), (b.start_byte, b.end_byte, texts[i])], site)]
        return []

    def _is_attribute_name(self, node: Node) -> bool:
        parent = node.parent
        return parent is not None and parent.type in ("attribute", "field_expression") and _field(parent, node) in (
            "attribute", "field")

    def _symmetric(self, texts: list[str], a: str, b: str) -> bool:
        """Whether the index expressions give the same values with a and b exchanged (an equivalent mutant)."""
        exprs = []
        for t in texts:
            t = t.lower() if self.casefold else t
            t = C_INT_CAST.sub("", t)
            if re.search(r"[^\w\s+\-*/%()]|\w\s*\(", t):
                return False  # calls, nested subscripts: not analysed, assume it matters
            exprs.append(t.replace("//", "/").replace("/", "//"))
        names = set(re.findall(r"[A-Za-z_]\w*", " ".join(exprs)))
        rng = random.Random(1234)
        for _ in range(4):
            values = {n: rng.randint(2, 97) for n in names}
            swapped = {**values, a: values[b], b: values[a]}
            try:
                if [eval(e, {"__builtins__": {}}, values) for e in exprs] != [  # noqa: S307 - arithmetic only
                        eval(e, {"__builtins__": {}}, swapped) for e in exprs]:  # noqa: S307
                    return False
            except Exception:  # noqa: BLE001 - anything odd: assume not symmetric
                return False
        return True

    def removed_parallel_cands(self) -> list[_Cand]:
        nodes = self.directives()
        if not nodes:
            return []
        edits = [self._line_span(n) for n in nodes]
        first = _short(self.text(nodes[0]), 50)
        note = f"deleted {len(nodes)} construct{'s' if len(nodes) > 1 else ''} (`{first}`{', ...' if len(nodes) > 1 else ''})"
        # Without `@cuda.jit` the `kernel[grid, block](...)` launch itself fails: any rejection is right there.
        launched = any("cuda.jit" in self.text(n) for n in nodes)
        return [self.cand("removed-parallel", "removed parallel construct", nodes[0], edits, note=note,
                          expect=None if launched else "wrong_model")]

    def _line_span(self, node: Node) -> Edit:
        """The whole line(s) of a node when nothing else is on them, else the node itself."""
        start = self.src.rfind(b"\n", 0, node.start_byte) + 1
        end = self.src.find(b"\n", node.end_byte - 1 if self.src[node.end_byte - 1:node.end_byte] == b"\n"
                            else node.end_byte)
        end = len(self.src) if end < 0 else end + 1
        if self.src[start:node.start_byte].strip() or self.src[node.end_byte:end].strip():
            return (node.start_byte, node.end_byte, "")
        return (start, end, "")

    def directive_cands(self) -> list[_Cand]:
        out = []
        for node in self.directives():
            text = self.text(node)
            for kind, label, new, expect in self.directive_edits(node):
                if new != text:
                    out.append(self.cand(kind, label, node, [(node.start_byte, node.end_byte, new)], node,
                                         expect=expect))
        return out

    # ------------------------------------------------------------------ launch configuration

    def launches(self) -> list[tuple[tuple[int, int], tuple[int, int] | None]]:
        """(grid, block) byte spans of the configuration of each GPU kernel launch."""
        return []

    def dim_parts(self, node: Node) -> list[Node] | None:
        """The per-dimension parts of a composite grid value (dim3(a, b), a tuple), or None if not composite."""
        if node.type == "parenthesized_expression" and node.named_child_count == 1:
            return [node.named_children[0]]
        return None

    def definitions(self) -> list[tuple[Node, Node]]:
        """(name, value) of each plain `name = value` definition of a variable."""
        return []

    def occurrences(self, name: str) -> list[Node]:
        """Every reference to the variable `name` (definitions included)."""
        return []

    def launch_spans(self) -> list[tuple[tuple[int, int], tuple[int, int] | None]]:
        if self._launch_spans is None:
            self._launch_spans = self.launches()
        return self._launch_spans

    def _node_at(self, start: int, end: int) -> Node | None:
        node = self.root.descendant_for_byte_range(start, end)
        return node if node is not None and (node.start_byte, node.end_byte) == (start, end) else None

    def grid_dimensions(self) -> list[tuple[int, int]]:
        """Byte spans of the expressions that give one dimension of a launch's grid: the grid arguments split
        into their dim3/tuple components, followed into variables that are used only as (parts of) grids."""
        if self._grid_dims is not None:
            return self._grid_dims
        defs: dict[str, list[tuple[Node, Node]]] = {}
        for target, value in self.definitions():
            defs.setdefault(self.name(target), []).append((target, value))
        covered = [grid for grid, _ in self.launch_spans()]
        queue, dims, resolved = list(covered), [], set()
        while queue:
            while queue:
                start, end = queue.pop()
                node = self._node_at(start, end)
                parts = self.dim_parts(node) if node is not None else None
                if parts is not None:
                    queue += [(p.start_byte, p.end_byte) for p in parts]
                else:
                    dims.append((start, end))
            for start, end in list(dims):
                name = self.src[start:end].decode().strip()
                name = name.lower() if self.casefold else name
                if name in resolved or name not in defs or not self._used_only_within(name, defs[name], covered):
                    continue
                resolved.add(name)
                for _, value in defs[name]:
                    covered.append((value.start_byte, value.end_byte))
                    queue.append((value.start_byte, value.end_byte))
        self._grid_dims = dims
        return dims

    def _used_only_within(self, name: str, defs: list[tuple[Node, Node]], spans: list[tuple[int, int]]) -> bool:
        targets = {t.id for t, _ in defs}
        return all(n.id in targets or any(s <= n.start_byte and n.end_byte <= e for s, e in spans)
                   for n in self.occurrences(name))

    def launch_equivalent(self, c: _Cand) -> bool:
        """Whether a candidate can only over-provision a GPU launch (an equivalent mutant: the kernel bound-checks):
        every edit lies in a grid dimension whose value never decreases, or the edits exchange grid and block."""
        launches = self.launch_spans()
        if not launches or not c.edits:
            return False
        spans = sorted((s, e) for s, e, _ in c.edits)
        new = {(s, e): t.strip() for s, e, t in c.edits}
        for grid, block in launches:
            if block is not None and spans == sorted([grid, block]) and not _BLOCK_SHAPED.search(self.code) and \
                    new[grid] == self.src[block[0]:block[1]].decode().strip() and \
                    new[block] == self.src[grid[0]:grid[1]].decode().strip():
                return True
        dims = self.grid_dimensions()
        touched = set()
        for s, e, _ in c.edits:
            around = [d for d in dims if d[0] <= s and e <= d[1]]
            if not around:
                return False
            touched.add(max(around, key=lambda d: d[1] - d[0]))
        c_division = self.ts_name != "python"
        return all(_only_enlarges(self.src[lo:hi].decode(), self.apply(c.edits, lo, hi), c_division=c_division)
                   for lo, hi in touched)

    # ------------------------------------------------------------------ assembly

    def candidates(self) -> list[_Cand]:
        return (self.bound_cands() + self.swap_cands() + self.dropped_term_cands() + self.op_swap_cands()
                + self.zeroed_cands() + self.unwritten_cands() + self.removed_parallel_cands()
                + self.directive_cands() + self.init_cands())

    def apply(self, edits: list[Edit], lo: int = 0, hi: int | None = None) -> str:
        hi = len(self.src) if hi is None else hi
        out = self.src[lo:hi]
        for s, e, new in sorted(edits, key=lambda x: x[0], reverse=True):
            if lo <= s and e <= hi:
                out = out[: s - lo] + new.encode() + out[e - lo:]
        return out.decode()

    def sites(self) -> list[_Cand]:
        """The candidates less those known to be equivalent: in a degenerate branch, or only over-provisioning a
        GPU launch."""
        dead = self.degenerate_ranges()
        return [c for c in self.candidates()
                if not all(any(lo <= e[0] < hi for lo, hi in dead) for e in c.edits) and not self.launch_equivalent(c)]

    def mutants(self) -> list[Mutant]:
        seen = {_normalized(self.code)}
        result: list[Mutant] = []
        cands = self.sites()
        order = {k: i for i, k in enumerate(KINDS)}
        cands.sort(key=lambda c: (order.get(c.kind, len(KINDS)), c.line))
        for c in cands:
            if not c.edits or _overlapping(c.edits):
                continue
            code = self.apply(c.edits)
            key = _normalized(code)
            if key in seen:
                continue
            seen.add(key)
            if c.ctx is not None:
                before, after = _changed_window(self.src[c.ctx[0]:c.ctx[1]].decode(), self.apply(c.edits, *c.ctx))
                what = f"`{before}` -> `{after}`"
                if c.note:
                    what += f" ({c.note})"
            else:
                what = c.note
            result.append(Mutant(c.kind, f"{c.label}: {what} at line {c.line}", code, c.line, c.expect,
                                 f"{c.kind}/{c.variant}"))
        return result


def _changed_window(before: str, after: str, limit: int = 70, margin: int = 16) -> tuple[str, str]:
    """Both texts, whitespace collapsed; when long, only the changed part with a little context."""
    before, after = " ".join(before.split()), " ".join(after.split())
    if max(len(before), len(after)) <= limit:
        return before, after
    p = 0
    while p < min(len(before), len(after)) and before[p] == after[p]:
        p += 1
    s = 0
    while s < min(len(before), len(after)) - p and before[-1 - s] == after[-1 - s]:
        s += 1
    lo = max(0, p - margin)
    parts = []
    for text in (before, after):
        hi = min(len(text), len(text) - s + margin)
        parts.append(("..." if lo else "") + _short(text[lo:hi], limit) + ("..." if hi < len(text) else ""))
    return parts[0], parts[1]


def _normalized(code: str) -> str:
    return "\n".join(" ".join(line.split()) for line in code.splitlines() if line.strip())


def _overlapping(edits: list[Edit]) -> bool:
    spans = sorted((s, e) for s, e, _ in edits)
    return any(a[1] > b[0] for a, b in itertools.pairwise(spans))


# ---------------------------------------------------------------------------------------------- launch extents

_BLOCK_SHAPED = re.compile(r"syncthreads|__shared__|shared\.array|shfl|\bwarp_?size\b", re.IGNORECASE)
"""Kernel features whose result depends on the block's shape, so grid and block are not interchangeable."""
_EXTENT_ATOM = re.compile(r"(?<![\w.])[A-Za-z_]\w*(?:\s*(?:\.|::|->)\s*[A-Za-z_]\w*)*(?:\s*\[[^\[\]]*\])*")
_EXTENT_SAMPLES = (1, 2, 3, 4, 7, 8, 15, 16, 17, 31, 32, 33, 127, 128, 255, 256, 257, 1000, 1023, 4097)


def _extent_expression(text: str, atoms: dict[str, str], c_division: bool) -> ast.Expression | None:
    """A grid-extent expression as Python syntax whose variables stand for its operands (names, subscripts,
    members), or None if it holds anything but arithmetic and monotone functions."""
    if c_division:
        text = strip_c_casts(text)
    parts, pos = [], 0
    for m in _EXTENT_ATOM.finditer(text):
        parts.append(text[pos:m.start()])
        pos = m.end()
        if text[pos:].lstrip().startswith("("):  # a function: only the monotone ones are understood
            name = re.split(r"\.|::|->", m.group(0))[-1].strip()
            if name not in _EXTENT_CALLS:
                return None
            parts.append(name)
        else:
            key = re.sub(r"\s+", "", m.group(0))
            parts.append(atoms.setdefault(key, f"v{len(atoms)}"))
    parts.append(text[pos:])
    try:
        return ast.parse("".join(parts).strip(), mode="eval")
    except SyntaxError:
        return None


def _only_enlarges(before: str, after: str, *, c_division: bool) -> bool:
    """Whether the grid extent `after` is at least `before` for every positive value of their operands (sampled:
    small and awkward sizes included), i.e. the change can only launch more threads."""
    atoms: dict[str, str] = {}
    old, new = _extent_expression(before, atoms, c_division), _extent_expression(after, atoms, c_division)
    if old is None or new is None:
        return False
    rng = random.Random(4321)
    names = sorted(atoms.values())
    for trial in range(256):
        values = {n: rng.choice(_EXTENT_SAMPLES) if trial < 192 else rng.randint(1, 1 << 20) for n in names}
        try:
            if _extent_value(new, values, c_division) < _extent_value(old, values, c_division):
                return False
        except (ArithmeticError, ValueError, TypeError):
            return False
    return True


# ---------------------------------------------------------------------------------------------- directives

_CLAUSE = re.compile(r"\b(\w+)\s*\(")
_DATA_CLAUSES = {"map", "to", "from", "copy", "copyin", "copyout", "create", "pcopy", "pcopyin", "pcopyout",
                 "present_or_copy", "present_or_copyin", "present_or_copyout", "device", "host", "self"}
_MAP_TYPE = re.compile(r"^(\s*(?:always\s*,\s*)?)(tofrom|to|from)(\s*:)", re.IGNORECASE)
_MAP_SWAP = {"tofrom": "to", "to": "alloc", "from": "alloc"}
_ACC_SWAP = {"copy": "copyin", "copyin": "create", "copyout": "create", "pcopy": "pcopyin",
             "pcopyin": "pcreate", "pcopyout": "pcreate"}
_REDUCTION_SWAP = {"+": "*", "-": "*", "*": "+", "max": "min", "min": "max", ".and.": ".or.", ".or.": ".and.",
                   "&&": "||", "||": "&&", "iand": "ior", "ior": "iand"}
_UNSTRUCTURED_DATA = re.compile(r"\b(?:enter\s+data|exit\s+data|update)\b", re.IGNORECASE)


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


def _directive_edits(text: str, *, lang: str, private_exempt: set[str],
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
    if _INT.match(expr):
        return str(int(expr) - 1)
    m = re.fullmatch(r"(.*?\S)\s*([+-])\s*(\d+)", expr)
    if m and not re.search(r"[<>=&|?]", m.group(1)):
        value = int(m.group(3)) * (1 if m.group(2) == "+" else -1) - 1
        return m.group(1) if value == 0 else f"{m.group(1)} {'+' if value > 0 else '-'} {abs(value)}"
    return f"{expr} - 1"


def _drop_clause(text: str, start: int, close: int) -> str:
    before = text[:start].rstrip(" \t,")
    return before + text[close + 1:]


# ---------------------------------------------------------------------------------------------- C++

_LAUNCH_FUNCTIONS = {"hipLaunchKernelGGL", "hipLaunchKernel", "cudaLaunchKernel", "cudaLaunchCooperativeKernel",
                     "hipLaunchCooperativeKernel"}
"""Runtime calls whose 2nd and 3rd arguments are a kernel launch's grid and block."""


def _split_top_level(src: bytes, start: int, end: int) -> list[tuple[int, int]]:
    """Byte spans (whitespace trimmed) of the comma-separated parts of src[start:end], brackets balanced."""
    spans, depth, lo = [], 0, start
    for i in range(start, end + 1):
        ch = src[i:i + 1] if i < end else b","
        if ch in b"([{":
            depth += 1
        elif ch in b")]}":
            depth -= 1
        elif ch == b"," and depth == 0:
            piece = src[lo:i]
            left = len(piece) - len(piece.lstrip())
            right = len(piece.rstrip())
            if right > left:
                spans.append((lo + left, lo + right))
            lo = i + 1
    return spans


class _Cpp(_Analyzer):
    ts_name = "cpp"
    named_outputs: frozenset[str] = frozenset()
    """Variables that are outputs though assigned by name (the output parameters of an ElementwiseKernel)."""
    binary_type = "binary_expression"
    literal_types = ("number_literal",)
    loop_types = ("for_statement", "while_statement", "do_statement", "for_range_loop")
    exit_types = ("break_statement",)
    _section = re.compile(r"\w\s*\[[^\]:]*:(?P<len>[^\]]+)\]")

    def _headers(self) -> list[tuple[int, int]]:
        spans = []
        for f in self.of_type("for_statement"):
            body = f.child_by_field_name("body")
            spans.append((f.start_byte, body.start_byte if body is not None else f.end_byte))
        return spans

    def assignments(self) -> list[_Assign]:
        headers = self._headers()

        def in_header(n: Node) -> bool:
            return any(s <= n.start_byte < e for s, e in headers)

        out = []
        for stmt in self.of_type("expression_statement", "declaration", "return_statement"):
            if in_header(stmt):
                continue
            if stmt.type == "expression_statement":
                expr = stmt.named_children[0] if stmt.named_child_count else None
                if expr is not None and expr.type == "assignment_expression":
                    lhs = expr.child_by_field_name("left")
                    out.append(_Assign(stmt, lhs, expr.child_by_field_name("operator"),
                                       expr.child_by_field_name("right"),
                                       lhs is not None and (lhs.type in ("subscript_expression", "pointer_expression")
                                                            or self.text(lhs) in self.named_outputs)))
            elif stmt.type == "declaration":
                for d in stmt.named_children:
                    if d.type == "init_declarator" and d.child_by_field_name("value") is not None:
                        out.append(_Assign(stmt, d.child_by_field_name("declarator"), None,
                                           d.child_by_field_name("value"), False))
            elif stmt.named_child_count:
                out.append(_Assign(stmt, None, None, stmt.named_children[0], False))
        return out

    def index_nodes(self) -> list[Node]:
        out = []
        for s in self.of_type("subscript_expression"):
            out += [c for c in s.children if _field(s, c) in ("indices", "index")]
        return out

    def _loop_var(self, f: Node) -> str | None:
        init = f.child_by_field_name("initializer")
        if init is None:
            return None
        if init.type == "declaration":
            for d in init.named_children:
                if d.type == "init_declarator":
                    decl = d.child_by_field_name("declarator")
                    return self.text(decl) if decl is not None and decl.type == "identifier" else None
        if init.type == "assignment_expression":
            left = init.child_by_field_name("left")
            return self.text(left) if left is not None and left.type == "identifier" else None
        if init.type == "comma_expression":
            return None
        return None

    def loop_vars(self) -> set[str]:
        return {v for f in self.of_type("for_statement") if (v := self._loop_var(f))}

    def bound_cands(self) -> list[_Cand]:
        flip = {"<": "<=", "<=": "<", ">": ">=", ">=": ">"}
        out = []
        for f in self.of_type("for_statement"):
            var, cond = self._loop_var(f), f.child_by_field_name("condition")
            if var is None or cond is None:
                continue
            comparisons, stack = [], [cond]
            while stack:
                c = stack.pop()
                if self.binary_op(c) == "&&":
                    stack += [c.child_by_field_name("left"), c.child_by_field_name("right")]
                elif self.binary_op(c) in ("<", "<=", ">", ">=", "!="):
                    comparisons.append(c)
            own = [c for c in comparisons if self.text(c.child_by_field_name("left")) == var]
            if len(own) != len(comparisons) or self.has_early_exit(f.child_by_field_name("body")):
                continue  # the bound only guards a loop that ends otherwise (a convergence test, a break)
            for c in own:
                left, op, right = self.binary_parts(c)
                sym = self.text(op)
                if right is None:
                    continue
                if sym in flip:
                    out.append(self.obo("comparison", c, [(op.start_byte, op.end_byte, flip[sym])], c))
                delta = 1 if sym in (">", ">=") else -1
                out.append(self.obo("end", c,
                                     [(right.start_byte, right.end_byte, self.shifted(right, delta))], c))
                start = self._loop_start(f)
                if start is not None:
                    out.append(self.obo("start", start,
                                         [(start.start_byte, start.end_byte, self.shifted(start, -delta))], start.parent))
        return out

    def _loop_start(self, f: Node) -> Node | None:
        init = f.child_by_field_name("initializer")
        if init is not None and init.type == "declaration":
            d = next((c for c in init.named_children if c.type == "init_declarator"), None)
            return d.child_by_field_name("value") if d is not None else None
        if init is not None and init.type == "assignment_expression":
            return init.child_by_field_name("right")
        return None

    def subscript_sites(self) -> list[tuple[Node, list[Node]]]:
        out = []
        for s in self.of_type("subscript_expression"):
            parent = s.parent
            if parent is not None and parent.type == "subscript_expression" and _field(parent, s) == "argument":
                continue  # inner part of a[i][j]
            indices, node = [], s
            while node.type == "subscript_expression":
                level = [c for c in node.children if _field(node, c) in ("indices", "index")]
                level = [n for c in level for n in (c.named_children if c.type == "subscript_argument_list" else [c])]
                indices = level + indices
                node = node.child_by_field_name("argument")
                if node is None:
                    break
            out.append((s, indices))
        return out

    def directives(self) -> list[Node]:
        out = []
        for n in self.of_type("preproc_call"):
            d, arg = n.child_by_field_name("directive"), n.child_by_field_name("argument")
            if d is not None and self.text(d) == "#pragma" and arg is not None and \
                    re.match(r"\s*(omp|acc)\b", self.text(arg)):
                out.append(n)
        return out

    def deleted_statement(self, stmt: Node) -> str:
        return "" if stmt.parent is not None and stmt.parent.type == "compound_statement" else ";"

    def degenerate_ranges(self) -> list[tuple[int, int]]:
        out = []
        for n in self.of_type("if_statement"):
            body = n.child_by_field_name("consequence")
            if body is not None and self.zero_test(n.child_by_field_name("condition")):
                out.append((body.start_byte, body.end_byte))
        return out

    def _associated_loop_vars(self, directive: Node) -> set[str]:
        """Loop variables OpenMP makes private by itself: the loops a worksharing directive binds to."""
        m = re.search(r"\bcollapse\s*\(\s*(\d+)\s*\)", self.text(directive))
        depth = int(m.group(1)) if m else 1
        node = directive.next_named_sibling
        found: set[str] = set()
        while node is not None and node.type == "for_statement" and depth > 0:
            var = self._loop_var(node)
            if var:
                found.add(var)
            depth -= 1
            body = node.child_by_field_name("body")
            if body is not None and body.type == "compound_statement":
                inner = [c for c in body.named_children if c.type != "comment"]
                body = inner[0] if len(inner) == 1 else None
            node = body
        return found

    def launches(self) -> list[tuple[tuple[int, int], tuple[int, int] | None]]:
        out = []
        for m in re.finditer(rb"<<<(.*?)>>>", self.src, re.DOTALL):
            at = self.root.descendant_for_byte_range(m.start(), m.start() + 1)
            if at is not None and at.type in ("comment", "string_literal", "raw_string_literal", "string_content"):
                continue
            pieces = _split_top_level(self.src, m.start(1), m.end(1))
            if pieces:
                out.append((pieces[0], pieces[1] if len(pieces) > 1 else None))
        for call in self.of_type("call_expression"):
            fn, args = call.child_by_field_name("function"), call.child_by_field_name("arguments")
            if fn is None or args is None or self.text(fn).split("::")[-1] not in _LAUNCH_FUNCTIONS:
                continue
            parts = [a for a in args.named_children if a.type != "comment"]
            if len(parts) >= 3:
                out.append(((parts[1].start_byte, parts[1].end_byte), (parts[2].start_byte, parts[2].end_byte)))
        return out

    def dim_parts(self, node: Node) -> list[Node] | None:
        if node.type in ("argument_list", "initializer_list"):
            return [c for c in node.named_children if c.type != "comment"]
        if node.type == "call_expression":
            fn, args = node.child_by_field_name("function"), node.child_by_field_name("arguments")
            if fn is not None and args is not None and self.text(fn) == "dim3":
                return [c for c in args.named_children if c.type != "comment"]
        if node.type == "compound_literal_expression":
            value = node.child_by_field_name("value")
            return self.dim_parts(value) if value is not None else None
        return super().dim_parts(node)

    def definitions(self) -> list[tuple[Node, Node]]:
        out = []
        for d in self.of_type("init_declarator"):
            target, value = d.child_by_field_name("declarator"), d.child_by_field_name("value")
            if target is not None and target.type == "identifier" and value is not None:
                out.append((target, value))
        for a in self.of_type("assignment_expression"):
            left, op, right = a.child_by_field_name("left"), a.child_by_field_name("operator"), \
                a.child_by_field_name("right")
            if left is not None and left.type == "identifier" and op is not None and self.text(op) == "=" \
                    and right is not None:
                out.append((left, right))
        return out

    def occurrences(self, name: str) -> list[Node]:
        return [n for n in self.all_nodes if n.type in ("identifier", "type_identifier") and self.text(n) == name]

    def directive_edits(self, node: Node) -> Iterable[tuple[str, str, str, str | None]]:
        text = self.text(node)
        trailing = text[len(text.rstrip("\n")):]
        body = text.rstrip("\n")
        exempt = self._associated_loop_vars(node) if re.search(r"\b(for|loop)\b", body) else set()
        for kind, label, new, expect in _directive_edits(body, lang="cpp", private_exempt=exempt,
                                                         section=self._section):
            yield kind, label, new + trailing, expect
        if _UNSTRUCTURED_DATA.search(body):
            yield "data-clause", "data directive removed", "", None


# ---------------------------------------------------------------------------------------------- Fortran

_FORTRAN_INTRINSICS = {
    "abs", "sqrt", "exp", "log", "sin", "cos", "tan", "min", "max", "mod", "modulo", "sum", "product", "dot_product",
    "matmul", "transpose", "real", "dble", "int", "nint", "floor", "ceiling", "size", "shape", "reshape",
    "maxval", "minval", "huge", "tiny", "epsilon", "sign", "merge", "cmplx", "kind", "present", "allocated",
    "lbound", "ubound", "count", "any", "all", "spread", "pack", "float", "sngl", "conjg", "aimag",
}


class _Fortran(_Analyzer):
    ts_name = "fortran"
    binary_type = "math_expression"
    literal_types = ("number_literal",)
    loop_types = ("do_loop",)
    exit_types = ("keyword_statement",)
    casefold = True
    _section = re.compile(r"\w\s*\([^():]*:(?P<len>[^()]+)\)")

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.arrays: set[str] = set()
        self.outputs: set[str] = set()
        for decl in self.of_type("variable_declaration"):
            quals = [self.text(q).lower().replace(" ", "") for q in decl.children
                     if q.type == "type_qualifier"]
            has_dim = any(q.startswith("dimension") for q in quals)
            is_out = any(q in ("intent(out)", "intent(inout)") for q in quals)
            for d in decl.children:
                if _field(decl, d) != "declarator":
                    continue
                ident = d if d.type == "identifier" else next(
                    (c for c in d.named_children if c.type == "identifier"), None)
                if ident is None:
                    continue
                name = self.name(ident)
                if has_dim or d.type == "sized_declarator":
                    self.arrays.add(name)
                if is_out:
                    self.outputs.add(name)
        for a in self.of_type("assignment_statement"):
            lhs = a.child_by_field_name("left")
            if lhs is not None and lhs.type == "call_expression" and lhs.named_child_count:
                self.arrays.add(self.name(lhs.named_children[0]))

    def _array_ref(self, node: Node) -> bool:
        if node.type != "call_expression" or not node.named_child_count:
            return False
        head = node.named_children[0]
        return head.type == "identifier" and self.name(head) in self.arrays and self.name(head) not in _FORTRAN_INTRINSICS

    def assignments(self) -> list[_Assign]:
        out = []
        for stmt in self.of_type("assignment_statement"):
            lhs = stmt.child_by_field_name("left")
            eq = next((c for c in stmt.children if c.type == "="), None)
            output = lhs is not None and (
                self._array_ref(lhs) or (lhs.type == "identifier" and self.name(lhs) in self.arrays | self.outputs))
            out.append(_Assign(stmt, lhs, eq, stmt.child_by_field_name("right"), output))
        return out

    def index_nodes(self) -> list[Node]:
        out = [n for n in self.of_type("call_expression") if self._array_ref(n)]
        return [c for n in out for c in n.named_children if c.type == "argument_list"]

    def loop_vars(self) -> set[str]:
        names = set()
        for n in self.of_type("loop_control_expression", "concurrent_control"):
            if n.named_child_count and n.named_children[0].type == "identifier":
                names.add(self.name(n.named_children[0]))
        return names

    def bound_cands(self) -> list[_Cand]:
        out = []
        for n in self.of_type("loop_control_expression"):
            parts = n.named_children
            loop = n.parent.parent if n.parent is not None else None
            if len(parts) < 3 or (loop is not None and loop.type == "do_loop" and self.has_early_exit(loop)):
                continue
            start, end = parts[1], parts[2]
            step = self.text(parts[3]).replace(" ", "") if len(parts) > 3 else "1"
            sign = -1 if step.startswith("-") else 1
            out.append(self.obo("end", end,
                                 [(end.start_byte, end.end_byte, self.shifted(end, -sign))], n))
            out.append(self.obo("start", start,
                                 [(start.start_byte, start.end_byte, self.shifted(start, sign))], n))
        for n in self.of_type("concurrent_control"):
            start, end = n.child_by_field_name("initial"), n.child_by_field_name("final")
            if end is not None:
                out.append(self.obo("end", end,
                                     [(end.start_byte, end.end_byte, self.shifted(end, -1))], n))
            if start is not None:
                out.append(self.obo("start", start,
                                     [(start.start_byte, start.end_byte, self.shifted(start, 1))], n))
        for ext in self.of_type("extent_specifier"):
            if not self._executable(ext):
                continue
            colon = next((c for c in ext.children if c.type == ":"), None)
            if colon is None:
                continue
            before = [c for c in ext.named_children if c.end_byte <= colon.start_byte]
            after = [c for c in ext.named_children if c.start_byte >= colon.end_byte]
            if after:
                hi = after[0]
                out.append(self.obo("section", hi, [(hi.start_byte, hi.end_byte,
                                                                         self.shifted(hi, -1))], ext.parent or ext))
            elif before:
                lo = before[0]
                out.append(self.obo("section", lo, [(lo.start_byte, lo.end_byte,
                                                                         self.shifted(lo, 1))], ext.parent or ext))
        return out

    def _executable(self, node: Node) -> bool:
        p = node.parent
        while p is not None:
            if p.type in ("variable_declaration", "size"):
                return False
            if p.type in ("assignment_statement", "subroutine_call", "if_statement", "where_statement"):
                return True
            p = p.parent
        return False

    def subscript_sites(self) -> list[tuple[Node, list[Node]]]:
        out = []
        for n in self.of_type("call_expression"):
            if self._array_ref(n):
                args = [c for c in n.named_children if c.type == "argument_list"]
                if args:
                    out.append((n, args[0].named_children))
        return out

    def positional_swaps(self) -> list[_Cand]:
        loop_vars = self.loop_vars()
        out = []
        for site, indices in self.subscript_sites():
            if len(indices) < 2 or not any(i.type == "extent_specifier" for i in indices) or any(
                    n.type == "identifier" and self.name(n) in loop_vars for idx in indices for n in _walk(idx)):
                continue
            out += self.swap_components(site, indices)
        return out

    def directives(self) -> list[Node]:
        return [n for n in self.of_type("comment") if re.match(r"!\$(omp|acc)\b", self.text(n), re.IGNORECASE)]

    def deleted_statement(self, stmt: Node) -> str:
        return "continue"

    def degenerate_ranges(self) -> list[tuple[int, int]]:
        out = []
        for n in self.of_type("if_statement", "elseif_clause"):
            cond = next((c for c in n.children if c.type == "parenthesized_expression"), None)
            if cond is None or not self.zero_test(cond):
                continue
            end = next((c.start_byte for c in n.children if c.start_byte > cond.end_byte and c.type in (
                "elseif_clause", "else_clause", "end_if_statement")), n.end_byte)
            out.append((cond.end_byte, end))
        return out

    def directive_edits(self, node: Node) -> Iterable[tuple[str, str, str, str | None]]:
        text = self.text(node)
        yield from _directive_edits(text, lang="fortran", private_exempt=self.loop_vars(), section=self._section)
        if _UNSTRUCTURED_DATA.search(text) and not text.rstrip().endswith("&") and \
                not re.match(r"!\$(omp|acc)&", text, re.IGNORECASE):
            yield "data-clause", "data directive removed", "", None


# ---------------------------------------------------------------------------------------------- Python

_NUMBA_DECORATOR = re.compile(r"@\s*[\w.]*\b(njit|jit|vectorize|guvectorize|stencil|cfunc)\b")
_EMBEDDED_CUDA = {"SourceModule": (0, "source", "unit"), "RawKernel": (0, "code", "unit"),
                  "RawModule": (0, "code", "unit"), "ElementwiseKernel": (2, "operation", "body")}
"""Calls that compile CUDA C from a string: (position, keyword) of the source argument, and whether it is a whole
translation unit or a function body (an ElementwiseKernel operation)."""
_FRAGMENT_HEAD = "void __hpceval_fragment() { "  # no newline, so the body's lines keep their numbers


class _Python(_Analyzer):
    ts_name = "python"
    binary_type = "binary_operator"
    literal_types = ("integer", "float")
    loop_types = ("for_statement", "while_statement")
    exit_types = ("break_statement",)

    def assignments(self) -> list[_Assign]:
        out = []
        for n in self.of_type("assignment", "augmented_assignment", "return_statement"):
            if n.type == "return_statement":
                if n.named_child_count:
                    out.append(_Assign(n, None, None, n.named_children[0], True))
                continue
            stmt = n.parent if n.parent is not None and n.parent.type == "expression_statement" else n
            lhs = n.child_by_field_name("left")
            op = n.child_by_field_name("operator") or next((c for c in n.children if c.type == "="), None)
            out.append(_Assign(stmt, lhs, op, n.child_by_field_name("right"),
                               lhs is not None and lhs.type == "subscript"))
        return out

    def index_nodes(self) -> list[Node]:
        return [c for s in self.of_type("subscript") for c in s.children if _field(s, c) == "subscript"]

    def _range_calls(self) -> list[tuple[Node, list[Node]]]:
        out = []
        for call in self.of_type("call"):
            fn = call.child_by_field_name("function")
            args = call.child_by_field_name("arguments")
            if fn is None or args is None:
                continue
            name = self.text(fn).split(".")[-1]
            if name in ("range", "prange"):
                positional = [a for a in args.named_children if a.type not in ("keyword_argument", "comment")]
                out.append((call, positional))
        return out

    def loop_vars(self) -> set[str]:
        names = set()
        for f in self.of_type("for_statement"):
            left = f.child_by_field_name("left")
            if left is not None:
                names |= {self.text(n) for n in _walk(left) if n.type == "identifier"}
        return names

    def bound_cands(self) -> list[_Cand]:
        out = []
        for call, args in self._range_calls():
            if not args or len(args) > 3:
                continue
            loop = call.parent
            if loop is not None and loop.type == "for_statement" and self.has_early_exit(
                    loop.child_by_field_name("body")):
                continue  # the bound only guards a loop that ends otherwise
            step = self.text(args[2]).replace(" ", "") if len(args) == 3 else "1"
            sign = -1 if step.startswith("-") else 1
            stop = args[0] if len(args) == 1 else args[1]
            out.append(self.obo("end", stop,
                                 [(stop.start_byte, stop.end_byte, self.shifted(stop, -sign))], call))
            if len(args) > 1:
                start = args[0]
                out.append(self.obo("start", start,
                                     [(start.start_byte, start.end_byte, self.shifted(start, sign))], call))
        for sl in self.of_type("slice"):
            colons = [c for c in sl.children if c.type == ":"]
            if not colons:
                continue
            parts = [c for c in sl.named_children if c.type != "comment"]
            start = next((c for c in parts if c.end_byte <= colons[0].start_byte), None)
            stop_end = colons[1].start_byte if len(colons) > 1 else sl.end_byte
            stop = next((c for c in parts if c.start_byte >= colons[0].end_byte and c.end_byte <= stop_end), None)
            site = sl.parent or sl
            if stop is not None:
                out.append(self.obo("section", stop,
                                     [(stop.start_byte, stop.end_byte, self.shifted(stop, -1))], site))
            elif start is not None:
                out.append(self.obo("section", start,
                                     [(start.start_byte, start.end_byte, self.shifted(start, 1))], site))
        return out

    def simple_operand(self, node: Node) -> bool:
        if node.type == "unary_operator":
            return False
        return super().simple_operand(node) and node.type not in ("not_operator", "lambda")

    def subscript_sites(self) -> list[tuple[Node, list[Node]]]:
        out = []
        for s in self.of_type("subscript"):
            parent = s.parent
            if parent is not None and parent.type == "subscript" and _field(parent, s) == "value":
                continue
            indices, node = [], s
            while node is not None and node.type == "subscript":
                indices = [c for c in node.children if _field(node, c) == "subscript"] + indices
                node = node.child_by_field_name("value")
            out.append((s, indices))
        return out

    def positional_swaps(self) -> list[_Cand]:
        loop_vars = self.loop_vars()
        out = []
        for site, indices in self.subscript_sites():
            if len(indices) == 1 and indices[0].type in ("tuple", "expression_list"):
                indices = indices[0].named_children
            if len(indices) < 2 or any(n.type == "identifier" and self.text(n) in loop_vars
                                       for idx in indices for n in _walk(idx)):
                continue
            out += self.swap_components(site, indices)
        return out

    def unwritten_cands(self) -> list[_Cand]:
        """Also call statements that write an output through `out=` (np.dot(A, x, out=y))."""
        out = super().unwritten_cands()
        for stmt in self.of_type("expression_statement"):
            call = stmt.named_children[0] if stmt.named_child_count else None
            args = call.child_by_field_name("arguments") if call is not None and call.type == "call" else None
            if args is not None and any(a.type == "keyword_argument" and self.text(a).replace(" ", "").startswith(
                    "out=") for a in args.named_children):
                out.append(self.cand("unwritten-output", "unwritten output", stmt, [(stmt.start_byte, stmt.end_byte,
                                     "pass")], note=f"deleted `{_short(self.text(stmt), 60)}`"))
        return out

    def directives(self) -> list[Node]:
        return [n for n in self.of_type("decorator") if _NUMBA_DECORATOR.match(self.text(n))]

    # ------------------------------------------------------------------ GPU launches

    def _bound_calls(self) -> dict[str, list[Node]]:
        """name -> the call expressions assigned to it (`k = cp.RawKernel(...)`, `f = mod.get_function(...)`)."""
        out: dict[str, list[Node]] = {}
        for target, value in self.definitions():
            if value.type == "call":
                out.setdefault(self.text(target), []).append(value)
        return out

    def _is_raw_kernel(self, name: str, bound: dict[str, list[Node]]) -> bool:
        """Whether `name` holds a CuPy raw kernel, launched as `k(grid, block, args)`."""
        calls = bound.get(name, [])
        if len(calls) != 1:
            return False
        fn = calls[0].child_by_field_name("function")
        if fn is None:
            return False
        last = self.text(fn).split(".")[-1]
        if last == "RawKernel":
            return True
        obj = fn.child_by_field_name("object") if fn.type == "attribute" else None
        if last != "get_function" or obj is None:
            return False
        if obj.type == "identifier" and len(bound.get(self.text(obj), [])) == 1:
            obj = bound[self.text(obj)][0]  # mod = cp.RawModule(...); k = mod.get_function(...)
        inner = obj.child_by_field_name("function") if obj.type == "call" else None
        return inner is not None and self.text(inner).split(".")[-1] == "RawModule"

    def launches(self) -> list[tuple[tuple[int, int], tuple[int, int] | None]]:
        out: list[tuple[tuple[int, int], tuple[int, int] | None]] = []
        bound = self._bound_calls()

        def span(n: Node) -> tuple[int, int]:
            return n.start_byte, n.end_byte

        for call in self.of_type("call"):
            fn, args = call.child_by_field_name("function"), call.child_by_field_name("arguments")
            if fn is None or args is None or args.type != "argument_list":
                continue
            if fn.type == "subscript":  # numba.cuda: kernel[grid, block](...)
                config = [c for c in fn.children if _field(fn, c) == "subscript"]
                if len(config) == 1 and config[0].type in ("tuple", "expression_list"):
                    config = config[0].named_children
                if len(config) >= 2:
                    out.append((span(config[0]), span(config[1])))
                continue
            keywords = {self.text(a.child_by_field_name("name")): a.child_by_field_name("value")
                        for a in args.named_children if a.type == "keyword_argument"}
            if keywords.get("grid") is not None:  # pyCUDA: kernel(args..., block=(...), grid=(...))
                block = keywords.get("block")
                out.append((span(keywords["grid"]), span(block) if block is not None else None))
                continue
            positional = [a for a in args.named_children if a.type not in ("keyword_argument", "comment")]
            if fn.type == "identifier" and len(positional) == 3 and self._is_raw_kernel(self.text(fn), bound):
                out.append((span(positional[0]), span(positional[1])))  # CuPy: kernel(grid, block, args)
        return out

    def dim_parts(self, node: Node) -> list[Node] | None:
        if node.type in ("tuple", "list", "expression_list"):
            return [c for c in node.named_children if c.type != "comment"]
        return super().dim_parts(node)

    def definitions(self) -> list[tuple[Node, Node]]:
        out = []
        for a in self.of_type("assignment"):
            left, right = a.child_by_field_name("left"), a.child_by_field_name("right")
            if left is not None and left.type == "identifier" and right is not None and \
                    any(c.type == "=" for c in a.children):
                out.append((left, right))
        return out

    def occurrences(self, name: str) -> list[Node]:
        def keyword(n: Node) -> bool:
            return n.parent is not None and n.parent.type == "keyword_argument" and _field(n.parent, n) == "name"

        return [n for n in self.all_nodes if n.type == "identifier" and self.text(n) == name
                and not self._is_attribute_name(n) and not keyword(n)]

    # ------------------------------------------------------------------ CUDA C in string literals

    def _string_literal(self, node: Node | None, strings: dict[str, list[Node]], depth: int = 0) -> Node | None:
        """The plain string literal an argument holds: itself, `"..." % x`, `"...".format(...)`, a variable."""
        if node is None or depth > 3:
            return None
        if node.type == "string":
            start = node.children[0] if node.children else None
            if start is None or start.type != "string_start" or re.search(r"[fFbB]", self.text(start)) or \
                    any(c.type == "interpolation" for c in node.children):
                return None
            return node
        if node.type == "parenthesized_expression" and node.named_child_count == 1:
            return self._string_literal(node.named_children[0], strings, depth + 1)
        if node.type == "binary_operator" and self.binary_op(node) == "%":
            return self._string_literal(node.child_by_field_name("left"), strings, depth + 1)
        if node.type == "call":
            fn = node.child_by_field_name("function")
            if fn is not None and fn.type == "attribute" and self.text(fn.child_by_field_name("attribute")) == "format":
                return self._string_literal(fn.child_by_field_name("object"), strings, depth + 1)
        if node.type == "identifier" and len(strings.get(self.text(node), [])) == 1:
            return self._string_literal(strings[self.text(node)][0], strings, depth + 1)
        return None

    def embedded_sources(self) -> list[tuple[Node, str, set[str]]]:
        """(string literal, "unit" or "body", output names) of the CUDA C sources the file compiles at run time."""
        strings: dict[str, list[Node]] = {}
        for target, value in self.definitions():
            strings.setdefault(self.text(target), []).append(value)
        out, seen = [], set()
        for call in self.of_type("call"):
            fn, args = call.child_by_field_name("function"), call.child_by_field_name("arguments")
            if fn is None or args is None or args.type != "argument_list":
                continue
            spec = _EMBEDDED_CUDA.get(self.text(fn).split(".")[-1])
            if spec is None:
                continue
            index, keyword, mode = spec
            positional = [a for a in args.named_children if a.type not in ("keyword_argument", "comment")]
            keywords = {self.text(a.child_by_field_name("name")): a.child_by_field_name("value")
                        for a in args.named_children if a.type == "keyword_argument"}
            literal = self._string_literal(
                keywords.get(keyword) or (positional[index] if len(positional) > index else None), strings)
            if literal is None or literal.id in seen:
                continue
            seen.add(literal.id)
            outputs: set[str] = set()
            if mode == "body":  # ElementwiseKernel(in_params, out_params, operation, ...): outputs by name
                params = self._string_literal(
                    keywords.get("out_params") or (positional[1] if len(positional) > 1 else None), strings)
                for param in (self._string_text(params) if params is not None else "").split(","):
                    words = param.split()
                    if words and "raw" not in words:
                        outputs.add(words[-1])
            out.append((literal, mode, outputs))
        return out

    def _string_text(self, literal: Node) -> str:
        return self.src[literal.children[0].end_byte:literal.children[-1].start_byte].decode()

    def embedded_sites(self) -> list[_Cand]:
        """The C++ operators' candidates inside the CUDA C string literals, as edits of this file."""
        out = []
        for literal, mode, outputs in self.embedded_sources():
            start, end = literal.children[0].end_byte, literal.children[-1].start_byte
            head, tail = (_FRAGMENT_HEAD, "\n}\n") if mode == "body" else ("", "")
            inner = _Cpp(head + self.src[start:end].decode() + tail)
            inner.named_outputs = frozenset(outputs)
            shift = start - len(head.encode())
            row = self.src.count(b"\n", 0, start)  # the string's first line is line 1 of the C source
            for c in inner.sites():
                edits = [(s + shift, e + shift, t) for s, e, t in c.edits]
                if not all(start <= s and e <= end for s, e, _ in edits):
                    continue
                ctx = None if c.ctx is None else (max(c.ctx[0] + shift, start), min(c.ctx[1] + shift, end))
                out.append(dataclasses.replace(c, line=row + c.line, edits=edits, ctx=ctx))
        return out

    def sites(self) -> list[_Cand]:
        return super().sites() + self.embedded_sites()

    def deleted_statement(self, stmt: Node) -> str:
        return "pass"

    def degenerate_ranges(self) -> list[tuple[int, int]]:
        out = []
        for n in self.of_type("if_statement", "elif_clause"):
            body = n.child_by_field_name("consequence")
            if body is not None and self.zero_test(n.child_by_field_name("condition")):
                out.append((body.start_byte, body.end_byte))
        return out

    def extra_init_cands(self) -> list[_Cand]:
        out = []
        for a in self.computational():
            for call in (n for n in _walk(a.rhs) if n.type == "call"):
                fn = call.child_by_field_name("function")
                if fn is None:
                    continue
                last = fn.named_children[-1] if fn.type == "attribute" and fn.named_children else fn
                name = self.text(last)
                if last.type == "identifier" and name in ("zeros", "zeros_like"):
                    new = name.replace("zeros", "ones")
                    out.append(self.cand("wrong-init", "wrong initialization", call,
                                         [(last.start_byte, last.end_byte, new)], call))
        return out


_ANALYZERS: dict[str, type[_Analyzer]] = {"cpp": _Cpp, "fortran": _Fortran, "python": _Python}
