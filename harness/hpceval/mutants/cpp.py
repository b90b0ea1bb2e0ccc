"""The C/C++ analyzer (CUDA, HIP, OpenMP, OpenACC, SYCL, Kokkos, ...): where the mutation operators' sites are in
tree-sitter-cpp's syntax tree, and the syntax of GPU kernel launches (`<<<grid, block>>>`, hipLaunchKernelGGL).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from tree_sitter import Node

from hpceval.mutants.analyzer import Analyzer
from hpceval.mutants.core import Assign, Cand, field_name
from hpceval.mutants.directives import UNSTRUCTURED_DATA, clause_edits

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


class CppAnalyzer(Analyzer):
    ts_name = "cpp"
    named_outputs: frozenset[str] = frozenset()
    """Variables that are outputs though assigned by name (the output parameters of an ElementwiseKernel)."""
    binary_type = "binary_expression"
    literal_types = ("number_literal",)
    loop_types = ("for_statement", "while_statement", "do_statement", "for_range_loop")
    exit_types = ("break_statement",)
    if_types = ("if_statement",)
    _section = re.compile(r"\w\s*\[[^\]:]*:(?P<len>[^\]]+)\]")

    def _headers(self) -> list[tuple[int, int]]:
        spans = []
        for f in self.of_type("for_statement"):
            body = f.child_by_field_name("body")
            spans.append((f.start_byte, body.start_byte if body is not None else f.end_byte))
        return spans

    def assignments(self) -> list[Assign]:
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
                    out.append(Assign(stmt, lhs, expr.child_by_field_name("operator"),
                                       expr.child_by_field_name("right"),
                                       lhs is not None and (lhs.type in ("subscript_expression", "pointer_expression")
                                                            or self.text(lhs) in self.named_outputs)))
            elif stmt.type == "declaration":
                for d in stmt.named_children:
                    if d.type == "init_declarator" and d.child_by_field_name("value") is not None:
                        out.append(Assign(stmt, d.child_by_field_name("declarator"), None,
                                           d.child_by_field_name("value"), False))
            elif stmt.named_child_count:
                out.append(Assign(stmt, None, None, stmt.named_children[0], False))
        return out

    def index_nodes(self) -> list[Node]:
        out = []
        for s in self.of_type("subscript_expression"):
            out += [c for c in s.children if field_name(s, c) in ("indices", "index")]
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

    def bound_cands(self) -> list[Cand]:
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
                    out.append(self.obo_shift("start", start, -delta, start.parent))
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
            if parent is not None and parent.type == "subscript_expression" and field_name(parent, s) == "argument":
                continue  # inner part of a[i][j]
            indices, node = [], s
            while node.type == "subscript_expression":
                level = [c for c in node.children if field_name(node, c) in ("indices", "index")]
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
        for kind, label, new, expect in clause_edits(body, lang="cpp", private_exempt=exempt,
                                                         section=self._section):
            yield kind, label, new + trailing, expect
        if UNSTRUCTURED_DATA.search(body):
            yield "data-clause", "data directive removed", "", None
