"""The Fortran analyzer (OpenMP, OpenACC, do concurrent, array syntax): where the mutation operators' sites are in
tree-sitter-fortran's syntax tree, which arrays and outputs the declarations name, and the directive sentinels.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from tree_sitter import Node

from hpceval.mutants.analyzer import Analyzer
from hpceval.mutants.core import Assign, Cand, field_name
from hpceval.mutants.directives import UNSTRUCTURED_DATA, clause_edits

_FORTRAN_INTRINSICS = {
    "abs", "sqrt", "exp", "log", "sin", "cos", "tan", "min", "max", "mod", "modulo", "sum", "product", "dot_product",
    "matmul", "transpose", "real", "dble", "int", "nint", "floor", "ceiling", "size", "shape", "reshape",
    "maxval", "minval", "huge", "tiny", "epsilon", "sign", "merge", "cmplx", "kind", "present", "allocated",
    "lbound", "ubound", "count", "any", "all", "spread", "pack", "float", "sngl", "conjg", "aimag",
}


class FortranAnalyzer(Analyzer):
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
                if field_name(decl, d) != "declarator":
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

    def assignments(self) -> list[Assign]:
        out = []
        for stmt in self.of_type("assignment_statement"):
            lhs = stmt.child_by_field_name("left")
            eq = next((c for c in stmt.children if c.type == "="), None)
            output = lhs is not None and (
                self._array_ref(lhs) or (lhs.type == "identifier" and self.name(lhs) in self.arrays | self.outputs))
            out.append(Assign(stmt, lhs, eq, stmt.child_by_field_name("right"), output))
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

    def bound_cands(self) -> list[Cand]:
        out = []
        for n in self.of_type("loop_control_expression"):
            parts = n.named_children
            loop = n.parent.parent if n.parent is not None else None
            if len(parts) < 3 or (loop is not None and loop.type == "do_loop" and self.has_early_exit(loop)):
                continue
            sign = self.step_sign(parts[3] if len(parts) > 3 else None)
            out += self.counted_loop_cands(parts[1], parts[2], sign, n)
        for n in self.of_type("concurrent_control"):
            out += self.counted_loop_cands(n.child_by_field_name("initial"), n.child_by_field_name("final"), 1, n)
        for ext in self.of_type("extent_specifier"):
            if not self._executable(ext):
                continue
            colon = next((c for c in ext.children if c.type == ":"), None)
            if colon is None:
                continue
            before = [c for c in ext.named_children if c.end_byte <= colon.start_byte]
            after = [c for c in ext.named_children if c.start_byte >= colon.end_byte]
            out += self.section_cands(before[0] if before else None, after[0] if after else None, ext.parent or ext)
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

    def array_components(self, indices: list[Node]) -> list[Node] | None:
        return indices if any(i.type == "extent_specifier" for i in indices) else None

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
        yield from clause_edits(text, lang="fortran", private_exempt=self.loop_vars(), section=self._section)
        if UNSTRUCTURED_DATA.search(text) and not text.rstrip().endswith("&") and \
                not re.match(r"!\$(omp|acc)&", text, re.IGNORECASE):
            yield "data-clause", "data directive removed", "", None
