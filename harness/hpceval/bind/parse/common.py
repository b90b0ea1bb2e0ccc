"""Shared ground of the per-language suggestion parsers: the records they produce and the tree helpers they share.

Signature inference (bind.signature, bind.mapping, bind.glue) must not care which language a suggestion is in, so
every parser (parse.cpp, parse.python, parse.fortran, parse.julia) returns the same records (Unit, SFunction, SParam,
Facts, Item) defined once here. The syntactic approximations of body facts that do not depend on a grammar's node
names (products in flat subscripts, the variable an lvalue designates, whether a parameter is first read or written,
the record of a subscript, a size query or a return) live here too, so the language modules only say where their
grammar keeps those things and never repeat the logic.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cache

import tree_sitter as ts

# ---------------------------------------------------------------------------------------------------- grammars


@cache
def parser(lang: str) -> ts.Parser:
    if lang == "cpp":
        import tree_sitter_cpp as grammar
    elif lang == "c":
        import tree_sitter_c as grammar
    elif lang == "fortran":
        import tree_sitter_fortran as grammar
    elif lang == "python":
        import tree_sitter_python as grammar
    elif lang == "julia":
        import tree_sitter_julia as grammar
    else:
        raise ValueError(f"no tree-sitter grammar for {lang}")
    return ts.Parser(ts.Language(grammar.language()))


def text_of(node: ts.Node | None) -> str:
    return node.text.decode("utf-8", "replace") if node is not None and node.text is not None else ""


def walk(node: ts.Node):
    """Pre-order traversal (source order)."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(n.children))


def has_error(node: ts.Node) -> bool:
    return node.has_error


# ---------------------------------------------------------------------------------------------------- records


@dataclass
class SParam:
    """One parameter of a suggested function, as declared."""

    name: str
    position: int
    type_text: str = ""
    kind: str = "unknown"  # int | real | complex | bool | char | other | unknown
    dtype: str | None = None  # float32 | float64 | None (generic, unknown)
    array: bool | None = None  # None: not declared (untyped Python/Julia)
    rank: int | None = None  # declared rank of an array (1: vector or flat, 2: matrix), None: unknown
    container: str = "value"  # value | pointer | pointer2 | vector | vector2 | ref | fortran | ndarray | unknown
    const: bool = False
    intent: str | None = None  # in | out | inout (Fortran intent, C++ const pointer -> in)
    dims: list[str] = field(default_factory=list)  # Fortran declared extents ("n", "0:n-1", "*", ":")
    default: str | None = None
    pointer_scalar: bool = False  # C/C++ scalar passed by pointer (int *n)
    reference: bool = False  # C++ reference (int &n)
    keyword_only: bool = False
    fixed_extent: bool = False  # C array with a constant extent (float x[100])
    # C/C++: type_text with the suggestion's own type names (#define REAL float, typedef, using) replaced by the
    # scalar type they stand for ("const float" for "const REAL"); "" when nothing was replaced. The driver's glue
    # spells types this way: the macro shield pops the suggestion's macros before it, and a namespace's typedef is
    # not in its scope (bind.glue.cpp)
    type_resolved: str = ""
    # a field of a record parameter, flattened (bind.adapt.common): the record parameter's name. Two records of one
    # type (a Grid u and a Grid unew) each carry the grid's sizes: a size role may be taken by a field of each
    record_field: str | None = None
    # that field's own name where the flat parameter was renamed apart from a local of its name (`A_ncols`), and
    # the record type is one parameter's only: then the name still says what the field holds
    field: str | None = None

    @property
    def spelled(self) -> str:
        """The type as the driver's glue can name it: type_resolved where the suggestion's names were replaced."""
        return self.type_resolved or self.type_text


@dataclass
class Facts:
    """What the body does with the parameters (a syntactic approximation, enough to disambiguate roles)."""

    loops: dict[str, set[str]] = field(default_factory=dict)  # loop variable -> identifiers of its bound
    subscripts: list[tuple[str, list[set[str]], list[tuple[str, str]]]] = field(default_factory=list)
    # (array, identifiers per subscript dimension, products var*identifier inside a flat subscript)
    writes: set[str] = field(default_factory=set)  # parameters assigned (elements or whole)
    reads_first: set[str] = field(default_factory=set)  # parameters whose first touch reads them
    calls: set[str] = field(default_factory=set)
    idents: set[str] = field(default_factory=set)
    returns: list[str] = field(default_factory=list)  # text of returned expressions
    return_names: list[list[set[str]]] = field(default_factory=list)  # per return, identifiers per tuple element
    shape_refs: set[str] = field(default_factory=set)  # arrays whose sizes the body asks for (A.shape, size(A,1))
    rebinds: set[str] = field(default_factory=set)  # Python/Julia: parameters re-assigned as a whole (y = ...)


@dataclass
class SFunction:
    name: str
    params: list[SParam]
    start: int
    end: int
    text: str
    lang: str
    index: int  # order of appearance
    error: bool = False
    kind: str = "function"  # function | subroutine | device_kernel | method | lambda
    container: tuple[str, str] | None = None  # ("module"|"namespace"|"program", name)
    result: str = ""  # declared result type (C++), result variable (Fortran)
    returns_value: bool = False
    facts: Facts = field(default_factory=Facts)
    template: bool = False
    synthesized: str = ""  # how the header was made up (body-only completion), else ""
    types: dict = field(default_factory=dict)  # parameter name -> the type its adapter builds (bind.adapt)

    @property
    def is_main(self) -> bool:
        return self.name in ("main", "hpceval_suggestion_main") or self.kind == "program"


@dataclass
class Item:
    """A top-level item of a suggestion that is not a function: include, import, typedef, constant, module..."""

    text: str
    start: int
    end: int
    kind: str
    defines: set[str] = field(default_factory=set)
    uses: set[str] = field(default_factory=set)
    error: bool = False
    contains_at: int | None = None  # Fortran module: offset of its `contains` section


@dataclass
class Unit:
    lang: str
    code: str
    functions: list[SFunction]
    items: list[Item]
    notes: list[str] = field(default_factory=list)

    def by_name(self, name: str) -> list[SFunction]:
        return [f for f in self.functions if f.name == name]


# ---------------------------------------------------------------------------------------------------- helpers


def span(raw: bytes, start: int, end: int) -> str:
    """The source text between two byte offsets (tree-sitter offsets are bytes, not characters)."""
    return raw[start:end].decode("utf-8", "replace")


def idents(node: ts.Node, kinds=("identifier",)) -> set[str]:
    return {text_of(n) for n in walk(node) if n.type in kinds}


REAL_WORDS_32 = {"float", "float32", "real32", "sp", "single", "real4", "float32_t", "gpufloat"}
REAL_WORDS_64 = {"double", "float64", "real64", "dp", "wp", "real8", "float64_t", "long double"}


# ---------------------------------------------------------------------------------------------------- body facts


def flat_products(node: ts.Node) -> tuple[set[str], list[tuple[str, str]]]:
    """Identifiers of a flat subscript and its products (i*n -> ('i','n'), both orders kept)."""
    names = idents(node)
    prods = []
    for n in walk(node):
        if n.type in ("binary_expression", "binary_operator", "math_expression") and n.child_count >= 3:
            op = text_of(n.child_by_field_name("operator")) or text_of(n.children[1])
            if op == "*":
                left, right = idents(n.children[0]), idents(n.children[-1])
                for a in left:
                    for b in right:
                        prods.append((a, b))
                        prods.append((b, a))
    return names, prods


def root_name(node: ts.Node) -> str | None:
    """The variable an lvalue expression designates: y[i] -> y, *y -> y, y -> y, A[i][j] -> A, y(i) -> y."""
    n = node
    for _ in range(8):
        if n is None:
            return None
        if n.type == "identifier":
            return text_of(n)
        if n.type in ("subscript_expression", "subscript", "index_expression", "call_expression", "pointer_expression",
                      "parenthesized_expression", "field_expression", "attribute", "derived_type_member_expression"):
            nxt = (n.child_by_field_name("argument") or n.child_by_field_name("value") or n.child_by_field_name("object")
                   or (n.named_children[0] if n.named_children else None))
            n = nxt
            continue
        return None
    return None


_NOT_CODE = {"variable_declaration", "subroutine_statement", "function_statement", "parameters", "comment",
             "implicit_statement", "use_statement", "end_subroutine_statement", "end_function_statement",
             "parameter_list", "line_comment", "block_comment"}


_METADATA = frozenset({"shape", "size", "ndim", "dtype", "strides"})  # Python array attributes that are no element
# member calls that query or change an array's size and touch none of its elements: `y.size()` in a loop bound,
# `C.resize(n, 0)` (keeps the elements it has), a Kokkos View's `y.extent(0)`; the first element access decides
_SIZE_METHODS = frozenset({"size", "resize", "reserve", "capacity", "empty", "shrink_to_fit", "extent", "extent_int",
                           "span", "stride", "rank", "label", "use_count", "is_allocated"})


def _size_query(call: ts.Node, params: set[str]) -> bool:
    """`p.size()`, `p.resize(n, 0)`, `p.extent(0)` on a parameter p: a call that touches no element of p."""
    fn = call.child_by_field_name("function")
    if fn is None:
        return False
    obj = fn.child_by_field_name("argument") or fn.child_by_field_name("object")
    name = fn.child_by_field_name("field") or fn.child_by_field_name("attribute")
    return (obj is not None and obj.type == "identifier" and text_of(obj) in params and name is not None
            and text_of(name) in _SIZE_METHODS)


def touch_order(root: ts.Node, params: set[str], assign_types: dict[str, str], call_types: tuple[str, ...],
                return_types: tuple[str, ...], pointers: bool = False) -> set[str]:
    """Parameters whose first touch in source order reads them (accumulate into an output, y += A*x).

    With `pointers` (C/C++), a bare name is the pointer, not the data: only y[i] and *y read values.
    """
    first: dict[str, str] = {}

    def visit(node: ts.Node) -> None:
        if node.type in _NOT_CODE:
            return
        kind = assign_types.get(node.type)
        if kind:
            left = node.child_by_field_name("left") or (node.named_children[0] if node.named_children else None)
            right = node.child_by_field_name("right") or (node.named_children[-1] if node.named_children else None)
            op = text_of(node.child_by_field_name("operator"))
            if not op:
                ops = [text_of(c) for c in node.children if not c.is_named]
                op = ops[0] if ops else "="
            target = root_name(left) if left is not None else None
            if right is not None:
                visit(right)
            if left is not None:
                # indices of the target are reads of other names
                for c in left.children:
                    if c.is_named and c != left.children[0]:
                        visit(c)
            if target in params and target not in first:
                compound = op not in ("=", ":=") or kind == "compound"
                first[target] = "read" if compound else "write"
            return
        if node.type in call_types:
            if _size_query(node, params):  # its arguments may still touch other parameters
                args = node.child_by_field_name("arguments")
                if args is not None:
                    visit(args)
                return
            for name in idents(node) & params:
                first.setdefault(name, "write")
            return
        if node.type in return_types:
            kids = [c for c in node.named_children]
            if len(kids) == 1 and kids[0].type == "identifier":
                return
        if node.type == "identifier":
            name = text_of(node)
            if name in params:
                parent = node.parent
                if parent is not None and parent.type == "attribute" and text_of(
                        parent.child_by_field_name("attribute")) in _METADATA:
                    first.setdefault(name, "alias")  # C.shape[0] reads no element of C
                elif pointers and not (parent is not None and (
                        (parent.type == "subscript_expression" and parent.child_by_field_name("argument") == node)
                        or parent.type == "pointer_expression")):
                    first.setdefault(name, "alias")
                else:
                    first.setdefault(name, "read")
            return
        for c in node.children:
            visit(c)

    if root is not None:
        visit(root)
    return {name for name, how in first.items() if how == "read"}


# ---------------------------------------------------------------------------------------------------- fact records


def _same(name: str) -> str:
    return name


def subscript(name: str, dims: list[ts.Node], fold: Callable[[str], str] = _same
              ) -> tuple[str, list[set[str]], list[tuple[str, str]]]:
    """A Facts.subscripts record: the identifiers of each index and, for a single (flat) index, its products.

    `fold` normalises identifiers (Fortran is case-insensitive: str.lower)."""
    per_dim = [{fold(i) for i in idents(d)} for d in dims]
    prods = [(fold(a), fold(b)) for a, b in flat_products(dims[0])[1]] if len(dims) == 1 else []
    return name, per_dim, prods


def size_tokens(node: ts.Node, funcs: tuple[str, ...], args_of: Callable[[ts.Node], ts.Node | None],
                fold: Callable[[str], str] = _same) -> set[str]:
    """Size queries in a loop bound as language-neutral tokens: size(A, 2) -> 'A.shape[1]', length(x) -> 'x.shape[0]'.

    For grammars whose size queries are calls (`call_expression`) of one of `funcs`; `args_of` finds a call's
    argument list, `fold` normalises the function and array names."""
    out = set()
    for n in walk(node):
        if n.type == "call_expression" and n.named_children and fold(text_of(n.named_children[0])) in funcs:
            args = args_of(n)
            if args is not None and args.named_children:
                arr = fold(text_of(args.named_children[0]))
                dim = text_of(args.named_children[1]) if len(args.named_children) > 1 else "1"
                out.add(f"{arr}.shape[{int(dim) - 1 if dim.isdigit() else 0}]")
    return out


def add_return(facts: Facts, expr: ts.Node, elems: Iterable[ts.Node],
               names: Callable[[ts.Node], set[str]] = idents) -> None:
    """Record a returned expression and the identifiers of each of its (tuple) elements."""
    facts.returns.append(text_of(expr))
    facts.return_names.append([names(e) for e in elems])
