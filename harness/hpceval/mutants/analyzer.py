"""The operator framework: the mutation operators, written once over a language-neutral view of the syntax tree,
and the assembly of their candidates into deduplicated, described mutants (Analyzer.mutants).

Analyzer asks its questions (which statements compute, which arithmetic is index arithmetic, which loops end
otherwise, which branches are degenerate) through hooks that each language module (cpp.py, fortran.py, python.py)
implements for its own tree-sitter grammar, so that the operators and the rules that leave out mutants known to be
equivalent exist only here.
"""

from __future__ import annotations

import itertools
import random
import re
from collections.abc import Iterable

from tree_sitter import Node

from hpceval.analysis.cexpr import C_INT_CAST
from hpceval.mutants.core import INT_LITERAL, KINDS, Assign, Cand, Edit, Mutant, field_name, short, walk
from hpceval.mutants.gpu_launch import LaunchGeometry

_ZERO = re.compile(r"^[+]?(?:0+\.?0*|\.0+)(?:[eEdD][+-]?\d+)?(?:_\w+)?[fFlLuU]*$")
_ONE = re.compile(r"^[+]?(?:0*1\.?0*)(?:[eEdD][+-]?0+)?(?:_\w+)?[fFlLuU]*$")


def _one_like(zero: str) -> str:
    """The literal 1 written like the given zero literal: 0.0f -> 1.0f, 0._dp -> 1._dp, .0 -> 1.0."""
    if zero.startswith("."):
        return "1" + zero
    return re.sub(r"0", "1", zero, count=1)


class Analyzer(LaunchGeometry):
    """Finds mutation sites in one source text; subclasses know the syntax of one language."""

    binary_type = ""
    literal_types: tuple[str, ...] = ()
    zero_text = "0"
    if_types: tuple[str, ...] = ()
    """Branches with `condition` and `consequence` fields (C++ if, Python if/elif), for degenerate_ranges."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self._index_ranges: list[tuple[int, int]] | None = None
        self._temporaries: list[tuple[Node, list[Node]]] | None = None

    # ------------------------------------------------------------------ helpers

    def cand(self, kind: str, label: str, node: Node, edits: list[Edit], ctx: Node | tuple[int, int] | None = None,
             expect: str | None = None, note: str = "", variant: str = "") -> Cand:
        if isinstance(ctx, Node):
            ctx = (ctx.start_byte, ctx.end_byte)
        return Cand(kind, label, node.start_point[0] + 1, edits, ctx, note, expect, variant or label)

    def obo(self, variant: str, node: Node, edits: list[Edit], ctx: Node | None = None) -> Cand:
        return self.cand("off-by-one", "off-by-one", node, edits, ctx, variant=variant)

    def obo_shift(self, variant: str, node: Node, delta: int, ctx: Node | None = None) -> Cand:
        """Off-by-one: the bound `node` replaced by `node + delta`."""
        return self.obo(variant, node, [(node.start_byte, node.end_byte, self.shifted(node, delta))], ctx)

    def step_sign(self, step: Node | None) -> int:
        """-1 for a counted loop whose step is written negative, else 1 (also when it has no step)."""
        return -1 if step is not None and self.text(step).replace(" ", "").startswith("-") else 1

    def counted_loop_cands(self, start: Node | None, end: Node | None, sign: int, ctx: Node) -> list[Cand]:
        """Off-by-one of a counted loop (Fortran do, Python range): the end one step short, the start one step late."""
        out = []
        if end is not None:
            out.append(self.obo_shift("end", end, -sign, ctx))
        if start is not None:
            out.append(self.obo_shift("start", start, sign, ctx))
        return out

    def section_cands(self, lower: Node | None, upper: Node | None, ctx: Node) -> list[Cand]:
        """Off-by-one of an array section: its upper bound one less, or if it has none its lower bound one more."""
        if upper is not None:
            return [self.obo_shift("section", upper, -1, ctx)]
        if lower is not None:
            return [self.obo_shift("section", lower, 1, ctx)]
        return []

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
        if INT_LITERAL.match(stripped):
            return str(int(stripped) + delta)
        if self.binary_op(node) in ("+", "-"):  # fold into a trailing constant: n + 1 - 1 -> n, n - 1 - 1 -> n - 2
            left, op, right = self.binary_parts(node)
            if right is not None and INT_LITERAL.match(self.text(right)):
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

    def assignments(self) -> list[Assign]:
        raise NotImplementedError

    def index_nodes(self) -> list[Node]:
        """Nodes that are array subscripts (their arithmetic is index arithmetic, not the computation)."""
        raise NotImplementedError

    def loop_vars(self) -> set[str]:
        raise NotImplementedError

    def bound_cands(self) -> list[Cand]:
        raise NotImplementedError

    def subscript_sites(self) -> list[tuple[Node, list[Node]]]:
        """(whole subscripted reference, its index expressions) for each array reference."""
        raise NotImplementedError

    def directives(self) -> list[Node]:
        """Nodes of the parallel-model constructs: #pragma omp/acc, !$omp/!$acc lines, numba decorators."""
        raise NotImplementedError

    def deleted_statement(self, stmt: Node) -> str:
        raise NotImplementedError

    def extra_init_cands(self) -> list[Cand]:
        return []

    def degenerate_ranges(self) -> list[tuple[int, int]]:
        """Byte ranges of branches taken only when a floating-point value is exactly zero (`if (bnorm == 0.0)`):
        degenerate inputs that random validation data does not produce, so mutants there cannot be killed."""
        out = []
        for n in self.of_type(*self.if_types):
            body = n.child_by_field_name("consequence")
            if body is not None and self.zero_test(n.child_by_field_name("condition")):
                out.append((body.start_byte, body.end_byte))
        return out

    def is_float_zero(self, node: Node) -> bool:
        text = self.text(node)
        return self.is_zero(node) and bool(re.search(r"[.eEdD]", text)) and not text.lower().startswith("0x")

    def zero_test(self, cond: Node | None) -> bool:
        """Whether a condition contains an exact equality test against a floating-point zero literal."""
        if cond is None:
            return False
        for n in walk(cond):
            ops = [c for c in n.children if c.type in ("==", ".eq.", ".EQ.")]
            if ops and any(self.is_float_zero(c) for c in n.named_children):
                return True
        return False

    def directive_edits(self, node: Node) -> Iterable[tuple[str, str, str, str | None]]:
        """(kind, label, new directive text, expected verdict) for the clause operators of one directive."""
        return []

    # ------------------------------------------------------------------ generic operators

    def computational(self) -> list[Assign]:
        """Statements that compute values: not those that compute an address or an index (`double *c = C + i*n`,
        `long c = (i*ny + j)*nz + k` used as a subscript), whose arithmetic is left to the index operators."""
        addressing = {(rhs.start_byte, rhs.end_byte) for rhs, _ in self.index_temporaries()}
        return [a for a in self.assignments() if a.rhs is not None
                and (a.rhs.start_byte, a.rhs.end_byte) not in addressing
                and not (a.lhs is not None and a.lhs.type == "pointer_declarator")]

    def binaries(self, root: Node) -> list[Node]:
        return [n for n in walk(root) if n.type == self.binary_type and not self.in_index(n)]

    def op_swap_cands(self) -> list[Cand]:
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

    def dropped_term_cands(self) -> list[Cand]:
        out = []
        for a in self.computational():
            for b in self.binaries(a.rhs):
                if self.binary_op(b) not in ("+", "-"):
                    continue
                parent = b.parent
                if parent is not None and self.binary_op(parent) in ("+", "-") and field_name(parent, b) == "left":
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
                                         note=f"dropped `{short(self.text(term), 40)}`"))
        return out

    def zeroed_cands(self) -> list[Cand]:
        out = []
        for a in self.computational():
            if a.output and not self.is_literal(a.rhs):
                out.append(self.cand("zeroed-output", "zeroed output", a.rhs,
                                     [(a.rhs.start_byte, a.rhs.end_byte, self.zero_text)], a.stmt))
        return out

    def unwritten_cands(self) -> list[Cand]:
        out = []
        for a in self.assignments():
            if a.output:
                out.append(self.cand("unwritten-output", "unwritten output", a.stmt,
                                     [(a.stmt.start_byte, a.stmt.end_byte, self.deleted_statement(a.stmt))],
                                     note=f"deleted `{short(self.text(a.stmt), 60)}`"))
        return out

    def init_cands(self) -> list[Cand]:
        out = []
        for a in self.computational():
            if self.is_zero(a.rhs) and a.lhs is not None:
                out.append(self.cand("wrong-init", "wrong initialization", a.rhs,
                                     [(a.rhs.start_byte, a.rhs.end_byte, _one_like(self.text(a.rhs)))], a.stmt))
        return out + self.extra_init_cands()

    def index_temporaries(self) -> list[tuple[Node, list[Node]]]:
        """`c = (i*ny + j)*nz + k` where c is then used as a subscript: the value is an index expression."""
        if self._temporaries is None:
            used = {self.name(n) for idx in self.index_nodes() for n in walk(idx) if n.type == "identifier"}
            self._temporaries = [(a.rhs, [a.rhs]) for a in self.assignments() if a.rhs is not None and a.lhs is not None
                                 and a.lhs.type == "identifier" and self.name(a.lhs) in used]
        return self._temporaries

    def array_components(self, indices: list[Node]) -> list[Node] | None:
        """The components of a subscript that may be array syntax (a section), or None where the language's
        references without loop variables are not positional_swaps sites."""
        return None

    def positional_swaps(self) -> list[Cand]:
        """Array syntax: a multi-dimensional reference without loop variables gets two components exchanged."""
        loop_vars = self.loop_vars()
        out = []
        for site, indices in self.subscript_sites():
            parts = self.array_components(indices)
            if parts is None or len(parts) < 2 or any(n.type == "identifier" and self.name(n) in loop_vars
                                                      for idx in parts for n in walk(idx)):
                continue
            out += self.swap_components(site, parts)
        return out

    def swap_cands(self) -> list[Cand]:
        loop_vars = self.loop_vars()
        out = []
        for site, indices in self.subscript_sites() + self.index_temporaries():
            ids = [n for idx in indices for n in walk(idx) if n.type == "identifier" and self.name(n) in loop_vars
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

    def swap_components(self, site: Node, parts: list[Node]) -> list[Cand]:
        texts = [self.text(p) for p in parts]
        for i, j in itertools.combinations(range(len(parts)), 2):
            if texts[i] != texts[j]:
                a, b = parts[i], parts[j]
                return [self.cand("swapped-index", "swapped index", site,
                                  [(a.start_byte, a.end_byte, texts[j]), (b.start_byte, b.end_byte, texts[i])], site)]
        return []

    def _is_attribute_name(self, node: Node) -> bool:
        parent = node.parent
        return parent is not None and parent.type in ("attribute", "field_expression") and field_name(parent, node) in (
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

    def removed_parallel_cands(self) -> list[Cand]:
        nodes = self.directives()
        if not nodes:
            return []
        edits = [self._line_span(n) for n in nodes]
        first = short(self.text(nodes[0]), 50)
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

    def directive_cands(self) -> list[Cand]:
        out = []
        for node in self.directives():
            text = self.text(node)
            for kind, label, new, expect in self.directive_edits(node):
                if new != text:
                    out.append(self.cand(kind, label, node, [(node.start_byte, node.end_byte, new)], node,
                                         expect=expect))
        return out

    # ------------------------------------------------------------------ assembly

    def candidates(self) -> list[Cand]:
        return (self.bound_cands() + self.swap_cands() + self.dropped_term_cands() + self.op_swap_cands()
                + self.zeroed_cands() + self.unwritten_cands() + self.removed_parallel_cands()
                + self.directive_cands() + self.init_cands())

    def sites(self) -> list[Cand]:
        """The candidates less those known to be equivalent: in a degenerate branch, or only over-provisioning a
        GPU launch."""
        dead = self.degenerate_ranges()
        return [c for c in self.candidates()
                if not all(any(lo <= e[0] < hi for lo, hi in dead) for e in c.edits) and not self.launch_equivalent(c)]

    def mutants(self) -> list[Mutant]:
        """Every mutant of the source, in operator-kind order then by line: the candidates applied, those that give
        overlapping edits, the original text or an earlier mutant's (whitespace ignored) dropped, each described."""
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
        parts.append(("..." if lo else "") + short(text[lo:hi], limit) + ("..." if hi < len(text) else ""))
    return parts[0], parts[1]


def _normalized(code: str) -> str:
    return "\n".join(" ".join(line.split()) for line in code.splitlines() if line.strip())


def _overlapping(edits: list[Edit]) -> bool:
    spans = sorted((s, e) for s, e, _ in edits)
    return any(a[1] > b[0] for a, b in itertools.pairwise(spans))
