"""The Python analyzer (NumPy, Numba, numba.cuda, CuPy, pyCUDA): where the mutation operators' sites are in
tree-sitter-python's syntax tree, the syntax of GPU kernel launches, and CUDA C compiled at run time.

CUDA C source held in Python string literals (pyCUDA `SourceModule("...")`, CuPy `RawKernel`/`RawModule` code and
`ElementwiseKernel` operations, directly or through a variable) is mutated with the C++ analyzer; the mutant is the
whole Python file with the string edited in place.
"""

from __future__ import annotations

import dataclasses
import re

from tree_sitter import Node

from hpceval.mutants.analyzer import Analyzer
from hpceval.mutants.core import Assign, Cand, field_name, short, walk
from hpceval.mutants.cpp import CppAnalyzer

_NUMBA_DECORATOR = re.compile(r"@\s*[\w.]*\b(njit|jit|vectorize|guvectorize|stencil|cfunc)\b")
_EMBEDDED_CUDA = {"SourceModule": (0, "source", "unit"), "RawKernel": (0, "code", "unit"),
                  "RawModule": (0, "code", "unit"), "ElementwiseKernel": (2, "operation", "body")}
"""Calls that compile CUDA C from a string: (position, keyword) of the source argument, and whether it is a whole
translation unit or a function body (an ElementwiseKernel operation)."""
_FRAGMENT_HEAD = "void __hpceval_fragment() { "  # no newline, so the body's lines keep their numbers


class PythonAnalyzer(Analyzer):
    ts_name = "python"
    binary_type = "binary_operator"
    literal_types = ("integer", "float")
    loop_types = ("for_statement", "while_statement")
    exit_types = ("break_statement",)
    if_types = ("if_statement", "elif_clause")

    def assignments(self) -> list[Assign]:
        out = []
        for n in self.of_type("assignment", "augmented_assignment", "return_statement"):
            if n.type == "return_statement":
                if n.named_child_count:
                    out.append(Assign(n, None, None, n.named_children[0], True))
                continue
            stmt = n.parent if n.parent is not None and n.parent.type == "expression_statement" else n
            lhs = n.child_by_field_name("left")
            op = n.child_by_field_name("operator") or next((c for c in n.children if c.type == "="), None)
            out.append(Assign(stmt, lhs, op, n.child_by_field_name("right"),
                               lhs is not None and lhs.type == "subscript"))
        return out

    def index_nodes(self) -> list[Node]:
        return [c for s in self.of_type("subscript") for c in s.children if field_name(s, c) == "subscript"]

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
                names |= {self.text(n) for n in walk(left) if n.type == "identifier"}
        return names

    def bound_cands(self) -> list[Cand]:
        out = []
        for call, args in self._range_calls():
            if not args or len(args) > 3:
                continue
            loop = call.parent
            if loop is not None and loop.type == "for_statement" and self.has_early_exit(
                    loop.child_by_field_name("body")):
                continue  # the bound only guards a loop that ends otherwise
            sign = self.step_sign(args[2] if len(args) == 3 else None)
            start, stop = (None, args[0]) if len(args) == 1 else (args[0], args[1])
            out += self.counted_loop_cands(start, stop, sign, call)
        for sl in self.of_type("slice"):
            colons = [c for c in sl.children if c.type == ":"]
            if not colons:
                continue
            parts = [c for c in sl.named_children if c.type != "comment"]
            start = next((c for c in parts if c.end_byte <= colons[0].start_byte), None)
            stop_end = colons[1].start_byte if len(colons) > 1 else sl.end_byte
            stop = next((c for c in parts if c.start_byte >= colons[0].end_byte and c.end_byte <= stop_end), None)
            out += self.section_cands(start, stop, sl.parent or sl)
        return out

    def simple_operand(self, node: Node) -> bool:
        if node.type == "unary_operator":
            return False
        return super().simple_operand(node) and node.type not in ("not_operator", "lambda")

    def subscript_sites(self) -> list[tuple[Node, list[Node]]]:
        out = []
        for s in self.of_type("subscript"):
            parent = s.parent
            if parent is not None and parent.type == "subscript" and field_name(parent, s) == "value":
                continue
            indices, node = [], s
            while node is not None and node.type == "subscript":
                indices = [c for c in node.children if field_name(node, c) == "subscript"] + indices
                node = node.child_by_field_name("value")
            out.append((s, indices))
        return out

    def array_components(self, indices: list[Node]) -> list[Node] | None:
        if len(indices) == 1 and indices[0].type in ("tuple", "expression_list"):
            return indices[0].named_children
        return indices

    def unwritten_cands(self) -> list[Cand]:
        """Also call statements that write an output through `out=` (np.dot(A, x, out=y))."""
        out = super().unwritten_cands()
        for stmt in self.of_type("expression_statement"):
            call = stmt.named_children[0] if stmt.named_child_count else None
            args = call.child_by_field_name("arguments") if call is not None and call.type == "call" else None
            if args is not None and any(a.type == "keyword_argument" and self.text(a).replace(" ", "").startswith(
                    "out=") for a in args.named_children):
                out.append(self.cand("unwritten-output", "unwritten output", stmt, [(stmt.start_byte, stmt.end_byte,
                                     "pass")], note=f"deleted `{short(self.text(stmt), 60)}`"))
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
                config = [c for c in fn.children if field_name(fn, c) == "subscript"]
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
            return n.parent is not None and n.parent.type == "keyword_argument" and field_name(n.parent, n) == "name"

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

    def embedded_sites(self) -> list[Cand]:
        """The C++ operators' candidates inside the CUDA C string literals, as edits of this file."""
        out = []
        for literal, mode, outputs in self.embedded_sources():
            start, end = literal.children[0].end_byte, literal.children[-1].start_byte
            head, tail = (_FRAGMENT_HEAD, "\n}\n") if mode == "body" else ("", "")
            inner = CppAnalyzer(head + self.src[start:end].decode() + tail)
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

    def sites(self) -> list[Cand]:
        return super().sites() + self.embedded_sites()

    def deleted_statement(self, stmt: Node) -> str:
        return "pass"

    def extra_init_cands(self) -> list[Cand]:
        out = []
        for a in self.computational():
            for call in (n for n in walk(a.rhs) if n.type == "call"):
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

