"""Parse suggestions with tree-sitter (C/C++, Fortran, Python, Julia): functions, parameters, body facts, pruning.

For signature inference the binder needs, per function of a suggestion: its parameters (name, position, element
type and precision, scalar or array, rank, container, const/intent, declared extents, default value) and a few
facts about its body (which loop bounds index which arrays, which parameters are written, whether an output is
read before it is first written, what is returned, which other functions it calls). It also needs the
suggestion's other top-level items (includes, imports, typedefs, constants, helper functions) so that a build
unit can be *pruned* to the chosen function and what it depends on: LLM completions often repeat the function,
trail off mid-definition or add a test main that does not compile.

tree-sitter is error tolerant, so truncated or partly garbled code still yields the functions that are complete.
"""

from __future__ import annotations

import re
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

_C_NOISE = re.compile(r"\b(__global__|__device__|__host__|__forceinline__|__inline__|__restrict__|__restrict|"
                      r"restrict|KOKKOS_INLINE_FUNCTION|KOKKOS_FUNCTION|KOKKOS_FORCEINLINE_FUNCTION|"
                      r"__attribute__\s*\(\([^)]*\)\)|__declspec\s*\([^)]*\)|HOST_DEVICE|__kernel|__local)\b")


def _blank(match: re.Match) -> str:
    return " " * len(match.group(0))


def c_sanitize(code: str) -> str:
    """Same-length replacement of qualifiers the C++ grammar does not know (offsets stay valid)."""
    return _C_NOISE.sub(_blank, code)


def _idents(node: ts.Node, kinds=("identifier",)) -> set[str]:
    return {text_of(n) for n in walk(node) if n.type in kinds}


REAL_WORDS_32 = {"float", "float32", "real32", "sp", "single", "real4", "float32_t", "gpufloat"}
REAL_WORDS_64 = {"double", "float64", "real64", "dp", "wp", "real8", "float64_t", "long double"}


# ---------------------------------------------------------------------------------------------------- C / C++


def _c_type_info(type_text: str, aliases: dict[str, str]) -> tuple[str, str | None]:
    """(kind, dtype) of a C/C++ element type text such as 'const float', 'std::complex<double>', 'REAL'."""
    t = re.sub(r"\b(const|volatile|static|register|unsigned|signed|struct|typename)\b", " ", type_text)
    t = " ".join(t.split())
    for _ in range(4):
        if t in aliases:
            t = aliases[t]
        else:
            break
    low = t.lower()
    if "complex" in low:
        return "complex", None
    if low in ("float", "float32_t", "std::float32_t", "half", "__half") or low.endswith("::float"):
        return "real", "float32"
    if low in ("double", "long double", "float64_t", "std::float64_t"):
        return "real", "float64"
    if low in ("int", "long", "long int", "long long", "short", "size_t", "std::size_t", "int32_t", "int64_t",
               "uint32_t", "uint64_t", "ptrdiff_t", "std::ptrdiff_t", "index_t", "ssize_t", "unsigned int",
               "long long int", "int64", "int32", "std::int64_t", "std::int32_t", "idx_t", "intptr_t"):
        return "int", None
    if low == "bool":
        return "bool", None
    if low in ("char", "char*", "const char*"):
        return "char", None
    if re.search(r"(::|\b)(value_type|scalar_type|non_const_value_type|const_value_type)$", t):
        return "real_generic", None  # typename ViewType::value_type
    if low in ("auto",) or len(t) <= 2 and t[:1].isupper():  # template parameter T, U, ...
        return "real_generic", None
    if re.fullmatch(r"[A-Za-z_]\w*", t) and not low.endswith(("stream_t", "context", "queue", "event_t", "handle_t")):
        return "unknown", None  # a macro or typedef the suggestion does not define here (REAL, DATA_TYPE, real_t)
    return "other", None


def _c_param(node: ts.Node, position: int, aliases: dict[str, str], templates: set[str]) -> SParam | None:
    """One C/C++ parameter_declaration (or optional_parameter_declaration)."""
    type_node = node.child_by_field_name("type")
    decl = node.child_by_field_name("declarator")
    default = node.child_by_field_name("default_value")
    quals = [text_of(c) for c in node.children if c.type == "type_qualifier"]
    pointers = 0
    reference = False
    array_dims: list[str] = []
    d = decl
    name = ""
    while d is not None:
        if d.type == "identifier":
            name = text_of(d)
            break
        if d.type == "pointer_declarator":
            pointers += 1
            if any(c.type == "type_qualifier" and text_of(c) == "const" for c in d.children):
                pass
        elif d.type in ("reference_declarator", "rvalue_reference_declarator"):
            reference = True
        elif d.type == "array_declarator":
            size = d.child_by_field_name("size")
            array_dims.append(text_of(size))
        elif d.type in ("abstract_pointer_declarator",):
            pointers += 1
        nxt = d.child_by_field_name("declarator")
        if nxt is None:
            nxt = next((c for c in d.named_children if c.type.endswith("declarator") or c.type == "identifier"), None)
        d = nxt
    if not name:
        return None
    type_text = text_of(type_node)
    p = SParam(name=name, position=position, type_text=" ".join(quals + [type_text]).strip(),
               const="const" in quals, reference=reference, default=text_of(default) or None)
    inner = type_text
    vec_depth = 0
    m = re.match(r"^(?:std::)?(vector|valarray|array|span)\s*<(.*)>$", inner.replace(" ", "") if False else inner.strip(),
                 re.DOTALL)
    while m:
        vec_depth += 1
        inner = m.group(2).split(",")[0].strip() if m.group(1) in ("array", "span") else m.group(2).strip()
        if m.group(1) in ("valarray", "array", "span"):
            p.container = m.group(1)
        m = re.match(r"^(?:std::)?(vector|valarray|array|span)\s*<(.*)>$", inner, re.DOTALL)
    kind, dtype = _c_type_info(inner, aliases)
    view = re.search(r"\bView\s*<\s*(?:const\s+)?([\w:]+(?:\s+\w+)?)\s*(\*+)", type_text)
    if view:
        vkind, vdtype = _c_type_info(view.group(1), aliases)
        p.container, p.kind, p.dtype, p.array, p.rank = "view", vkind, vdtype, True, len(view.group(2))
        p.const = p.const or bool(re.search(r"View\s*<\s*const\b", type_text))
        return p
    if inner in templates and not pointers and not array_dims:
        # a template type: a View, a container or a scalar, decided by the role it takes
        p.kind, p.dtype, p.array, p.rank, p.container = "real_generic", None, None, None, "template"
        return p
    if kind == "real_generic" or inner in templates:
        kind, dtype = "real_generic", None
    p.kind, p.dtype = kind, dtype
    levels = pointers + len(array_dims)
    if vec_depth:
        p.array = True
        p.rank = vec_depth + levels
        if p.container == "value":
            p.container = "vector" if p.rank == 1 else "vector2"
        p.intent = "in" if p.const else None
    elif levels >= 1:
        p.array = True
        p.rank = levels
        p.container = "pointer" if levels == 1 else "pointer2"
        if array_dims and all(re.fullmatch(r"\d+", x.strip()) for x in array_dims if x.strip()):
            p.fixed_extent = any(x.strip() for x in array_dims)
        if len(array_dims) >= 1 and pointers == 0 and len(array_dims) == 2:
            p.container = "array2d"
        p.intent = "in" if p.const and pointers <= 1 else None
    else:
        p.array = False
        p.rank = 0
        p.container = "ref" if reference else "value"
    return p


def _c_aliases(root: ts.Node) -> dict[str, str]:
    aliases: dict[str, str] = {}
    for n in walk(root):
        if n.type == "preproc_def":
            name, value = text_of(n.child_by_field_name("name")), text_of(n.child_by_field_name("value")).strip()
            if value and re.fullmatch(r"[\w:<> ]+", value):
                aliases[name] = value
        elif n.type == "type_definition":
            decl = n.child_by_field_name("declarator")
            if decl is not None and decl.type == "type_identifier":
                aliases[text_of(decl)] = text_of(n.child_by_field_name("type"))
        elif n.type == "alias_declaration":
            name = text_of(n.child_by_field_name("name"))
            aliases[name] = text_of(n.child_by_field_name("type")).strip()
    return aliases


def _c_function(node: ts.Node, code: bytes, index: int, aliases, templates: set[str], container, template: bool,
                source: str) -> SFunction | None:
    decl = node.child_by_field_name("declarator")
    while decl is not None and decl.type in ("pointer_declarator", "reference_declarator"):
        decl = decl.child_by_field_name("declarator") or next(
            (c for c in decl.named_children if c.type == "function_declarator"), None)
    if decl is None or decl.type != "function_declarator":
        return None
    name_node = decl.child_by_field_name("declarator")
    name = text_of(name_node)
    if not name or name_node.type not in ("identifier", "qualified_identifier", "field_identifier"):
        return None
    params = []
    plist = decl.child_by_field_name("parameters")
    pos = 0
    for c in (plist.named_children if plist is not None else []):
        if c.type in ("parameter_declaration", "optional_parameter_declaration"):
            p = _c_param(c, pos, aliases, templates)
            if p is None:
                if text_of(c).strip() == "void":
                    continue
                p = SParam(name=f"_{pos}", position=pos, type_text=text_of(c), kind="other")
            params.append(p)
            pos += 1
        elif c.type == "variadic_parameter":
            params.append(SParam(name="...", position=pos, kind="other"))
            pos += 1
    start, end = node.start_byte, node.end_byte
    if template and node.parent is not None and node.parent.type == "template_declaration":
        start = node.parent.start_byte
    # linkage specification: extern "C" void f(...)
    if node.parent is not None and node.parent.type == "linkage_specification" and node.parent.child_by_field_name("body") == node:
        start = node.parent.start_byte
    raw = source.encode()[start:end].decode("utf-8", "replace")
    kind = "device_kernel" if re.search(r"\b__global__\b", raw) else "function"
    if node.parent is not None and node.parent.type == "field_declaration_list":
        kind = "method"
    result = text_of(node.child_by_field_name("type"))
    body = node.child_by_field_name("body")
    fn = SFunction(name=name, params=params, start=start, end=end, text=raw, lang="cpp", index=index,
                   error=node.has_error, kind=kind, container=container, result=result,
                   returns_value=result not in ("void", "") , template=template)
    fn.facts = _c_facts(body, {p.name for p in params}) if body is not None else Facts()
    return fn


def _flat_products(node: ts.Node) -> tuple[set[str], list[tuple[str, str]]]:
    """Identifiers of a flat subscript and its products (i*n -> ('i','n'), both orders kept)."""
    idents = _idents(node)
    prods = []
    for n in walk(node):
        if n.type in ("binary_expression", "binary_operator", "math_expression") and n.child_count >= 3:
            op = text_of(n.child_by_field_name("operator")) or text_of(n.children[1])
            if op == "*":
                left, right = _idents(n.children[0]), _idents(n.children[-1])
                for a in left:
                    for b in right:
                        prods.append((a, b))
                        prods.append((b, a))
    return idents, prods


def _c_subscript_chain(node: ts.Node) -> tuple[str, list[ts.Node]] | None:
    """A[i][j] -> ('A', [i, j]); A[i*n+j] -> ('A', [i*n+j])."""
    dims = []
    n = node
    while n is not None and n.type == "subscript_expression":
        idx = n.child_by_field_name("indices") or n.child_by_field_name("index")
        if idx is not None:
            dims.append(idx)
        n = n.child_by_field_name("argument")
    if n is None or n.type != "identifier":
        return None
    return text_of(n), list(reversed(dims))


def _root_name(node: ts.Node) -> str | None:
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


def _touch_order(root: ts.Node, params: set[str], assign_types: dict[str, str], call_types: tuple[str, ...],
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
            target = _root_name(left) if left is not None else None
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
            for name in _idents(node) & params:
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
                if pointers and not (parent is not None and (
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


def _c_facts(body: ts.Node, params: set[str]) -> Facts:
    f = Facts()
    for n in walk(body):
        t = n.type
        if t == "for_statement":
            cond = n.child_by_field_name("condition")
            init = n.child_by_field_name("initializer")
            var = None
            if cond is not None and cond.type == "binary_expression":
                left = cond.child_by_field_name("left")
                if left is not None and left.type == "identifier":
                    var = text_of(left)
                    f.loops.setdefault(var, set()).update(_idents(cond.child_by_field_name("right")))
            if var is None and init is not None:
                ids = _idents(init)
                if ids:
                    var = sorted(ids)[0]
        elif t == "subscript_expression" and (n.parent is None or n.parent.type != "subscript_expression"
                                              or n.parent.child_by_field_name("argument") != n):
            chain = _c_subscript_chain(n)
            if chain:
                name, dims = chain
                per_dim = [_idents(d) for d in dims]
                prods = _flat_products(dims[0])[1] if len(dims) == 1 else []
                f.subscripts.append((name, per_dim, prods))
        elif t == "assignment_expression":
            target = _root_name(n.child_by_field_name("left"))
            if target:
                f.writes.add(target)
        elif t == "update_expression":
            target = _root_name(n.child_by_field_name("argument"))
            if target:
                f.writes.add(target)
        elif t == "call_expression":
            fn = n.child_by_field_name("function")
            if fn is not None and fn.type == "identifier" and text_of(fn) in params:
                # A(i, j) on a Kokkos::View (or any array-like object): a subscript
                args = n.child_by_field_name("arguments")
                dims = list(args.named_children) if args is not None else []
                if dims:
                    prods = _flat_products(dims[0])[1] if len(dims) == 1 else []
                    f.subscripts.append((text_of(fn), [_idents(d) for d in dims], prods))
                continue
            if fn is not None:
                f.calls.add(text_of(fn).split("<")[0])
            # memset/std::fill/copy-like calls write their array arguments
            args = n.child_by_field_name("arguments")
            if args is not None:
                for a in args.named_children:
                    if a.type == "identifier" and text_of(a) in params:
                        f.writes.add(text_of(a)) if re.search(r"(memset|fill|copy|memcpy|gemv|axpy|transform|Memcpy|blas)",
                                                              text_of(fn), re.IGNORECASE) else None
        elif t == "return_statement":
            expr = next((c for c in n.named_children), None)
            if expr is not None:
                f.returns.append(text_of(expr))
                f.return_names.append([_idents(expr)])
        elif t == "identifier":
            f.idents.add(text_of(n))
    f.reads_first = _touch_order(body, params, {"assignment_expression": "assign"}, ("call_expression",),
                                 ("return_statement",), pointers=True)
    # y[i] += ... / y[i]++ are reads
    for n in walk(body):
        if n.type == "update_expression":
            target = _root_name(n.child_by_field_name("argument"))
            if target in params and target not in f.reads_first:
                pass
    return f


def parse_cpp(code: str) -> Unit:
    clean = c_sanitize(code)
    raw = clean.encode()
    tree = parser("cpp").parse(raw)
    root = tree.root_node
    aliases = _c_aliases(root)
    functions: list[SFunction] = []
    items: list[Item] = []

    def visit(node: ts.Node, container, template_names: set[str], template: bool = False) -> None:
        for child in node.named_children:
            t = child.type
            if t == "function_definition":
                fn = _c_function(child, raw, len(functions), aliases, template_names, container, template, code)
                if fn is not None:
                    functions.append(fn)
            elif t == "template_declaration":
                names = {text_of(p.child_by_field_name("name")) or text_of(p.named_children[0]) if p.named_children else ""
                         for p in (child.child_by_field_name("parameters").named_children
                                   if child.child_by_field_name("parameters") else [])}
                inner = [c for c in child.named_children if c.type != "template_parameter_list"]
                for c in inner:
                    if c.type == "function_definition":
                        fn = _c_function(c, raw, len(functions), aliases, template_names | names, container, True, code)
                        if fn is not None:
                            functions.append(fn)
                    else:
                        items.append(_c_item(child, code))
                        break
            elif t == "linkage_specification":
                body = child.child_by_field_name("body")
                if body is not None and body.type == "function_definition":
                    fn = _c_function(body, raw, len(functions), aliases, template_names, container, template, code)
                    if fn is not None:
                        functions.append(fn)
                elif body is not None:
                    visit(body, container, template_names)
            elif t == "namespace_definition":
                body = child.child_by_field_name("body")
                name = text_of(child.child_by_field_name("name"))
                if body is not None:
                    visit(body, ("namespace", name), template_names)
            elif t in ("comment",):
                continue
            elif t in ("preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif", "preproc_elifdef"):
                if any(n.type == "function_definition" for n in walk(child)):
                    visit(child, container, template_names)  # flattened: the branches' items and functions
                else:
                    items.append(_c_item(child, code))  # kept whole: #ifdef USE_BLAS / #include <cblas.h> / #endif
            elif t in ("identifier", "preproc_arg", "preproc_defined", "binary_expression", "unary_expression",
                       "parenthesized_expression", "number_literal", "call_expression") and node.type.startswith("preproc"):
                continue  # the condition of an #if
            else:
                items.append(_c_item(child, code))

    visit(root, None, set())
    return Unit("cpp", code, functions, items)


def _c_item(node: ts.Node, code: str) -> Item:
    text = code.encode()[node.start_byte:node.end_byte].decode("utf-8", "replace")
    kind = node.type
    defines: set[str] = set()
    if kind == "preproc_def":
        defines.add(text_of(node.child_by_field_name("name")))
    elif kind == "preproc_function_def":
        defines.add(text_of(node.child_by_field_name("name")))
    elif kind == "type_definition":
        decl = node.child_by_field_name("declarator")
        defines |= {text_of(decl)} if decl is not None else set()
    elif kind in ("struct_specifier", "class_specifier", "enum_specifier", "union_specifier"):
        defines.add(text_of(node.child_by_field_name("name")))
    elif kind == "template_declaration":
        for c in node.named_children:
            if c.type in ("struct_specifier", "class_specifier", "alias_declaration"):
                defines.add(text_of(c.child_by_field_name("name")))
            elif c.type == "declaration":
                t = c.child_by_field_name("type")
                if t is not None and t.type in ("struct_specifier", "class_specifier"):
                    defines.add(text_of(t.child_by_field_name("name")))
                for d in c.children_by_field_name("declarator"):
                    name = _root_decl_name(d)
                    if name:
                        defines.add(name)
    elif kind == "alias_declaration":
        defines.add(text_of(node.child_by_field_name("name")))
    elif kind == "declaration":
        for d in node.children_by_field_name("declarator"):
            name = _root_decl_name(d)
            if name:
                defines.add(name)
        if node.child_by_field_name("type") is not None:
            t = node.child_by_field_name("type")
            if t.type in ("struct_specifier", "class_specifier"):
                defines.add(text_of(t.child_by_field_name("name")))
    uses = _idents(node, ("identifier", "type_identifier", "namespace_identifier", "field_identifier")) - defines
    return Item(text=text, start=node.start_byte, end=node.end_byte, kind=kind, defines=defines, uses=uses,
                error=node.has_error or node.type == "ERROR")


def _root_decl_name(d: ts.Node) -> str | None:
    for _ in range(6):
        if d is None:
            return None
        if d.type in ("identifier", "field_identifier"):
            return text_of(d)
        d = d.child_by_field_name("declarator") or (d.named_children[0] if d.named_children else None)
    return None


# ---------------------------------------------------------------------------------------------------- Python

_PY_TIMING = re.compile(r"^(start|end|stop|t\d*|tic|toc|elapsed|time\w*|duration|dt|t_start|t_end|start_time|end_time)$")


def _py_param(node: ts.Node, position: int, keyword_only: bool) -> SParam | None:
    t = node.type
    default = None
    type_text = ""
    if t == "identifier":
        name = text_of(node)
    elif t in ("typed_parameter", "typed_default_parameter", "default_parameter"):
        name_node = node.child_by_field_name("name") or next((c for c in node.named_children if c.type == "identifier"), None)
        name = text_of(name_node)
        type_text = text_of(node.child_by_field_name("type"))
        value = node.child_by_field_name("value")
        default = text_of(value) if value is not None else None
    elif t in ("list_splat_pattern", "dictionary_splat_pattern"):
        return SParam(name=text_of(node), position=position, kind="other", default="*")
    else:
        return None
    p = SParam(name=name, position=position, type_text=type_text, default=default, keyword_only=keyword_only,
               container="unknown")
    low = type_text.lower()
    if low:
        if low in ("int", "np.int32", "np.int64", "numpy.int64"):
            p.kind, p.array, p.rank = "int", False, 0
        elif low in ("float", "np.float32", "np.float64", "numpy.float64", "numpy.float32"):
            p.kind, p.array, p.rank = "real", False, 0
            p.dtype = "float32" if "32" in low else None
        elif "ndarray" in low or "array" in low or "list" in low or "sequence" in low:
            p.array = True
            p.container = "ndarray"
            p.kind = "real"
    return p


def _py_facts(body: ts.Node, params: set[str]) -> Facts:
    f = Facts()
    derived_time: set[str] = set()
    for n in walk(body):
        t = n.type
        if t == "for_statement":
            left = n.child_by_field_name("left")
            right = n.child_by_field_name("right")
            if left is not None and left.type == "identifier" and right is not None and right.type == "call":
                fname = text_of(right.child_by_field_name("function")).split(".")[-1]
                args = right.child_by_field_name("arguments")
                if fname in ("range", "prange", "arange", "xrange", "trange") and args is not None and args.named_children:
                    bound = args.named_children[1] if len(args.named_children) >= 2 else args.named_children[0]
                    ids = _idents(bound)
                    f.loops.setdefault(text_of(left), set()).update(ids | _py_shape_tokens(bound))
        elif t == "subscript":
            value = n.child_by_field_name("value")
            if n.parent is not None and n.parent.type == "subscript" and n.parent.child_by_field_name("value") == n:
                continue
            chain = []
            m = n
            while m is not None and m.type == "subscript":
                subs = m.children_by_field_name("subscript")
                chain = [list(subs)] + chain
                m = m.child_by_field_name("value")
            if m is not None and m.type == "identifier":
                dims = [d for group in chain for d in group]
                per_dim = [_idents(d) for d in dims]
                prods = _flat_products(dims[0])[1] if len(dims) == 1 else []
                f.subscripts.append((text_of(m), per_dim, prods))
            del value
        elif t in ("assignment", "augmented_assignment"):
            left = n.child_by_field_name("left")
            right = n.child_by_field_name("right")
            targets = [left] if left is None or left.type not in ("pattern_list", "tuple_pattern") else left.named_children
            for tgt in targets:
                name = _root_name(tgt)
                if name:
                    f.writes.add(name)
                    if tgt.type == "identifier" and t == "assignment":
                        f.rebinds.add(name)
                        if right is not None and re.search(r"\btime\b|perf_counter|\bclock\b|timer", text_of(right)):
                            derived_time.add(name)
        elif t == "call":
            fn = n.child_by_field_name("function")
            ftext = text_of(fn)
            f.calls.add(ftext.split(".")[-1] if fn is not None and fn.type == "attribute" else ftext)
            if fn is not None and fn.type == "attribute":
                obj = _root_name(fn.child_by_field_name("object"))
                meth = text_of(fn.child_by_field_name("attribute"))
                if obj in params and meth in ("fill", "sort", "resize", "put", "itemset", "__setitem__"):
                    f.writes.add(obj)
            args = n.child_by_field_name("arguments")
            if args is not None:
                for a in args.named_children:
                    if a.type == "keyword_argument" and text_of(a.child_by_field_name("name")) == "out":
                        name = _root_name(a.child_by_field_name("value"))
                        if name:
                            f.writes.add(name)
                    elif a.type == "identifier" and text_of(a) in params and re.search(
                            r"copyto|fill|put|memcpy|gemv|axpy|dot|matmul|memcpy_dtoh|get", ftext):
                        if re.search(r"copyto|memcpy_dtoh", ftext) and a == args.named_children[0]:
                            f.writes.add(text_of(a))
        elif t == "attribute":
            if text_of(n.child_by_field_name("attribute")) in ("shape", "size") :
                name = _root_name(n.child_by_field_name("object"))
                if name:
                    f.shape_refs.add(name)
        elif t == "call" and text_of(n.child_by_field_name("function")) == "len":
            pass
        elif t == "return_statement":
            expr = next(iter(n.named_children), None)
            if expr is not None:
                f.returns.append(text_of(expr))
                elems = expr.named_children if expr.type in ("expression_list", "tuple") else [expr]
                f.return_names.append([_idents(e) - derived_time if not _is_timing(e, derived_time) else {"<time>"}
                                       for e in elems])
        elif t == "identifier":
            f.idents.add(text_of(n))
    for n in walk(body):
        if n.type == "call" and text_of(n.child_by_field_name("function")) == "len":
            args = n.child_by_field_name("arguments")
            for a in (args.named_children if args is not None else []):
                name = _root_name(a)
                if name:
                    f.shape_refs.add(name)
    f.reads_first = _touch_order(body, params, {"assignment": "assign", "augmented_assignment": "compound"},
                                 ("call",), ("return_statement",))
    return f


def _is_timing(node: ts.Node, derived_time: set[str]) -> bool:
    ids = _idents(node)
    return bool(ids) and (ids <= derived_time or all(_PY_TIMING.match(i) for i in ids))


def _py_shape_tokens(node: ts.Node) -> set[str]:
    """'A.shape[0]' -> {'A.shape[0]'}, 'len(x)' -> {'len(x)'} as bound tokens."""
    out = set()
    for n in walk(node):
        if n.type == "subscript":
            v = n.child_by_field_name("value")
            if v is not None and v.type == "attribute" and text_of(v.child_by_field_name("attribute")) == "shape":
                obj = text_of(v.child_by_field_name("object"))
                sub = n.child_by_field_name("subscript")
                out.add(f"{obj}.shape[{text_of(sub)}]")
        elif n.type == "call" and text_of(n.child_by_field_name("function")) == "len":
            args = n.child_by_field_name("arguments")
            if args is not None and args.named_children:
                out.add(f"{text_of(args.named_children[0])}.shape[0]")
    return out


def parse_python(code: str) -> Unit:
    raw = code.encode()
    tree = parser("python").parse(raw)
    root = tree.root_node
    functions: list[SFunction] = []
    items: list[Item] = []
    for child in root.named_children:
        node = child
        decorators: list[str] = []
        if child.type == "decorated_definition":
            node = child.child_by_field_name("definition")
            decorators = [text_of(d) for d in child.named_children if d.type == "decorator"]
        if node is not None and node.type == "function_definition":
            name = text_of(node.child_by_field_name("name"))
            plist = node.child_by_field_name("parameters")
            params: list[SParam] = []
            keyword_only = False
            for c in (plist.named_children if plist is not None else []):
                if c.type == "keyword_separator" or text_of(c) == "*":
                    keyword_only = True
                    continue
                p = _py_param(c, len(params), keyword_only)
                if p is not None:
                    if p.default == "*":
                        keyword_only = True
                    params.append(p)
            body = node.child_by_field_name("body")
            fn = SFunction(name=name, params=params, start=child.start_byte, end=child.end_byte,
                           text=raw[child.start_byte:child.end_byte].decode("utf-8", "replace"), lang="python",
                           index=len(functions), error=child.has_error)
            fn.facts = _py_facts(body, {p.name for p in params}) if body is not None else Facts()
            fn.returns_value = bool(fn.facts.returns)
            fn.result = " ".join(decorators)
            functions.append(fn)
        elif child.type == "comment":
            continue
        else:
            items.append(_py_item(child, raw))
    return Unit("python", code, functions, items)


def _py_item(node: ts.Node, raw: bytes) -> Item:
    text = raw[node.start_byte:node.end_byte].decode("utf-8", "replace")
    defines: set[str] = set()
    kind = node.type
    if kind in ("import_statement", "import_from_statement", "future_import_statement"):
        for n in node.named_children:
            if n.type == "aliased_import":
                defines.add(text_of(n.child_by_field_name("alias")))
            elif n.type == "dotted_name" and (kind == "import_statement" or n != node.child_by_field_name("module_name")):
                defines.add(text_of(n).split(".")[0])
            elif n.type == "wildcard_import":
                defines.add("*")
    elif kind == "expression_statement":
        expr = node.named_children[0] if node.named_children else None
        if expr is not None and expr.type == "assignment":
            left = expr.child_by_field_name("left")
            for tgt in ([left] if left is not None and left.type == "identifier" else
                        (left.named_children if left is not None else [])):
                if tgt.type == "identifier":
                    defines.add(text_of(tgt))
            kind = "assignment" if defines else "statement"
        else:
            kind = "statement"
    elif kind == "class_definition":
        defines.add(text_of(node.child_by_field_name("name")))
    uses = _idents(node) - defines
    return Item(text=text, start=node.start_byte, end=node.end_byte, kind=kind, defines=defines, uses=uses,
                error=node.has_error)


# ---------------------------------------------------------------------------------------------------- Fortran


def _f_kind_params(root: ts.Node) -> dict[str, str]:
    """Named kind constants: integer, parameter :: dp = kind(1.0d0) / selected_real_kind(15) / real64 / 8."""
    out: dict[str, str] = {}
    for n in walk(root):
        if n.type == "variable_declaration" and "parameter" in text_of(n).lower():
            for d in n.children_by_field_name("declarator"):
                if d.type == "init_declarator":
                    name = text_of(d.child_by_field_name("left")).lower()
                    value = text_of(d.child_by_field_name("right")).lower().replace(" ", "")
                    if re.search(r"real64|kind\(1\.?0?d0\)|kind\(0\.?0?d0\)|selected_real_kind\((1[3-9]|[2-9]\d)|^8$|c_double|double", value):
                        out[name] = "float64"
                    elif re.search(r"real32|kind\(1\.0?e?0?\)|kind\(0\.0\)|selected_real_kind\(([1-6])\b|^4$|c_float", value):
                        out[name] = "float32"
    return out


def _f_dtype(type_text: str, kinds: dict[str, str]) -> tuple[str, str | None]:
    t = type_text.lower().replace(" ", "")
    if t.startswith("integer"):
        return "int", None
    if t.startswith("logical"):
        return "bool", None
    if t.startswith("character"):
        return "char", None
    if t.startswith("complex") or t.startswith("doublecomplex"):
        return "complex", None
    if t.startswith("doubleprecision"):
        return "real", "float64"
    if t.startswith("real"):
        m = re.match(r"real(\*(\d+)|\((kind=)?([\w.()]+)\))?", t)
        if not m or not m.group(1):
            return "real", "float32"
        size = m.group(2) or m.group(4) or ""
        size = size.strip("()")
        if size in ("8", "real64", "c_double", "dp", "kind(1.0d0)", "kind(1.d0)", "kind(0.d0)", "kind(0.0d0)", "double"):
            return "real", "float64"
        if size in ("4", "real32", "c_float", "sp", "kind(1.0)", "kind(1.0e0)", "kind(0.0)", "single"):
            return "real", "float32"
        if size in kinds:
            return "real", kinds[size]
        return "real", None
    if t.startswith("type(") or t.startswith("class("):
        return "other", None
    return "unknown", None


def _f_declarations(proc: ts.Node, kinds: dict[str, str]) -> dict[str, dict]:
    """name -> {type, dims, intent, attrs} for every variable declared in a procedure's specification part."""
    decls: dict[str, dict] = {}
    for n in proc.named_children:
        if n.type != "variable_declaration":
            continue
        type_node = n.child_by_field_name("type")
        type_text = text_of(type_node)
        attrs = [text_of(a).lower() for a in n.children_by_field_name("attribute")]
        intent = None
        dims_attr: list[str] = []
        for a in n.children_by_field_name("attribute"):
            at = text_of(a).lower().replace(" ", "")
            if at.startswith("intent("):
                intent = at[7:-1].replace("inout", "inout")
                intent = "inout" if intent in ("inout", "in out") else intent
            elif at.startswith("dimension"):
                args = next((c for c in a.named_children if c.type in ("argument_list", "size")), None)
                if args is not None:
                    dims_attr = [text_of(c) for c in args.named_children]
                else:
                    inner = text_of(a)[text_of(a).find("(") + 1:text_of(a).rfind(")")]
                    dims_attr = [x.strip() for x in inner.split(",")]
        for d in n.children_by_field_name("declarator"):
            dims = list(dims_attr)
            name_node = d
            if d.type == "sized_declarator":
                name_node = d.named_children[0]
                size = next((c for c in d.named_children if c.type == "size"), None)
                if size is not None:
                    dims = [text_of(c) for c in size.named_children] or [":"] * max(1, text_of(size).count(",") + 1)
                    if not size.named_children:
                        inner = text_of(size).strip("()")
                        dims = [x.strip() for x in inner.split(",")]
            elif d.type == "init_declarator":
                name_node = d.child_by_field_name("left")
                if name_node is not None and name_node.type == "sized_declarator":
                    size = next((c for c in name_node.named_children if c.type == "size"), None)
                    dims = [text_of(c) for c in size.named_children] if size is not None else dims
                    name_node = name_node.named_children[0]
            name = text_of(name_node).lower()
            if not name:
                continue
            kind, dtype = _f_dtype(type_text, kinds)
            decls[name] = {"type": type_text, "kind": kind, "dtype": dtype, "dims": [x.replace(" ", "") for x in dims],
                           "intent": intent, "attrs": attrs}
    return decls


def _f_facts(proc: ts.Node, params: set[str], arrays: set[str]) -> Facts:
    f = Facts()
    for n in walk(proc):
        t = n.type
        if t == "loop_control_expression":
            kids = n.named_children
            if len(kids) >= 3 and kids[0].type == "identifier":
                f.loops.setdefault(text_of(kids[0]).lower(), set()).update(
                    i.lower() for i in _idents(kids[2]))
                f.loops[text_of(kids[0]).lower()] |= _f_size_tokens(kids[2])
        elif t == "call_expression":
            head = n.named_children[0] if n.named_children else None
            if head is not None and head.type == "identifier":
                name = text_of(head).lower()
                args = next((c for c in n.named_children if c.type == "argument_list"), None)
                if name in arrays and args is not None:
                    dims = args.named_children
                    per_dim = [{i.lower() for i in _idents(d)} for d in dims]
                    prods = [(a.lower(), b.lower()) for a, b in _flat_products(dims[0])[1]] if len(dims) == 1 else []
                    f.subscripts.append((name, per_dim, prods))
                else:
                    f.calls.add(name)
                    if name in ("size", "ubound", "shape") and args is not None and args.named_children:
                        f.shape_refs.add(text_of(args.named_children[0]).lower())
        elif t == "assignment_statement":
            target = _root_name(n.child_by_field_name("left"))
            if target:
                f.writes.add(target.lower())
        elif t == "subroutine_call":
            f.calls.add(text_of(n.child_by_field_name("subroutine")).lower())
        elif t == "identifier":
            f.idents.add(text_of(n).lower())
    f.reads_first = {x.lower() for x in _touch_order(proc, params, {"assignment_statement": "assign"},
                                                     ("subroutine_call",), ())}
    return f


def _f_size_tokens(node: ts.Node) -> set[str]:
    out = set()
    for n in walk(node):
        if n.type == "call_expression" and n.named_children and text_of(n.named_children[0]).lower() in ("size", "ubound"):
            args = next((c for c in n.named_children if c.type == "argument_list"), None)
            if args is not None and args.named_children:
                arr = text_of(args.named_children[0]).lower()
                dim = text_of(args.named_children[1]) if len(args.named_children) > 1 else "1"
                out.add(f"{arr}.shape[{int(dim) - 1 if dim.isdigit() else 0}]")
    return out


def _f_procedures(node: ts.Node, container) -> list[tuple[ts.Node, tuple | None]]:
    out = []
    for c in node.named_children:
        if c.type in ("subroutine", "function"):
            out.append((c, container))
        elif c.type == "module":
            name = text_of(next((x for x in c.named_children if x.type == "module_statement"), c).named_children[0]
                           if c.named_children else c)
            for ip in c.named_children:
                if ip.type == "internal_procedures":
                    out.extend(_f_procedures(ip, ("module", name.lower())))
        elif c.type == "program":
            for ip in c.named_children:
                if ip.type == "internal_procedures":
                    out.extend(_f_procedures(ip, ("program", "")))
        elif c.type == "internal_procedures":
            out.extend(_f_procedures(c, container))
    return out


def parse_fortran(code: str) -> Unit:
    raw = code.encode()
    tree = parser("fortran").parse(raw)
    root = tree.root_node
    kinds = _f_kind_params(root)
    functions: list[SFunction] = []
    for proc, container in _f_procedures(root, None):
        stmt = proc.named_children[0] if proc.named_children else None
        if stmt is None or stmt.type not in ("subroutine_statement", "function_statement"):
            continue
        name = text_of(stmt.child_by_field_name("name")).lower()
        plist = stmt.child_by_field_name("parameters")
        pnames = [text_of(c).lower() for c in (plist.named_children if plist is not None else []) if c.type == "identifier"]
        decls = _f_declarations(proc, kinds)
        params = []
        for i, pn in enumerate(pnames):
            d = decls.get(pn)
            p = SParam(name=pn, position=i, container="fortran")
            if d is None:
                # implicit typing: i-n integer, else default real
                p.kind, p.dtype = ("int", None) if pn[:1] in "ijklmn" else ("real", "float32")
                p.array, p.rank, p.type_text = False, 0, "implicit"
            else:
                p.type_text, p.kind, p.dtype, p.intent, p.dims = d["type"], d["kind"], d["dtype"], d["intent"], d["dims"]
                p.array = bool(d["dims"])
                p.rank = len(d["dims"]) if d["dims"] else 0
                if "value" in d["attrs"]:
                    p.reference = False
            params.append(p)
        result = ""
        if stmt.type == "function_statement":
            res = next((c for c in stmt.named_children if c.type == "function_result"), None)
            result = text_of(res.named_children[0]).lower() if res is not None and res.named_children else name
        arrays = {p.name for p in params if p.array} | {n for n, d in decls.items() if d["dims"]}
        fn = SFunction(name=name, params=params, start=proc.start_byte, end=proc.end_byte,
                       text=raw[proc.start_byte:proc.end_byte].decode("utf-8", "replace"), lang="fortran",
                       index=len(functions), error=proc.has_error,
                       kind="subroutine" if proc.type == "subroutine" else "function", container=container,
                       result=result, returns_value=proc.type == "function")
        fn.facts = _f_facts(proc, set(pnames), arrays)
        functions.append(fn)
    items = []
    for c in root.named_children:
        if c.type == "module":
            name_node = next((x for x in c.named_children if x.type == "module_statement"), None)
            name = text_of(name_node.named_children[0]).lower() if name_node is not None and name_node.named_children else ""
            ip = next((x for x in c.named_children if x.type == "internal_procedures"), None)
            items.append(Item(text=text_of(c), start=c.start_byte, end=c.end_byte, kind="module", defines={name},
                              uses=fortran_uses(text_of(c)) - {name}, error=c.has_error,
                              contains_at=ip.start_byte if ip is not None else None))
        elif c.type == "program":
            items.append(Item(text=text_of(c), start=c.start_byte, end=c.end_byte, kind="program", error=c.has_error))
    return Unit("fortran", code, functions, items)


def fortran_uses(text: str) -> set[str]:
    return {m.group(1).lower() for m in re.finditer(r"^\s*use\s*(?:,\s*\w+\s*::)?\s*(\w+)", text, re.IGNORECASE | re.MULTILINE)}


# ---------------------------------------------------------------------------------------------------- Julia


def _jl_type(type_text: str) -> tuple[str, str | None, bool | None, int | None]:
    t = type_text.replace(" ", "")
    m = re.match(r"^(?:Abstract|Cu|Roc|Strided|Dense|oneAPI\.)?(Array|Vector|Matrix|VecOrMat|CuArray|CuVector|"
                 r"CuMatrix|ROCArray|ROCVector|ROCMatrix|oneArray|AbstractArray|AbstractVector|AbstractMatrix)"
                 r"(?:\{([^,}]+)(?:,(\d+))?\})?$", t)
    if m:
        elem = m.group(2) or ""
        rank = int(m.group(3)) if m.group(3) else (2 if "Matrix" in m.group(1) else 1 if "Vector" in m.group(1) else None)
        dtype = "float32" if elem == "Float32" else "float64" if elem == "Float64" else None
        kind = "int" if elem.startswith("Int") else "real"
        return kind, dtype, True, rank
    if t in ("Float32", "Float64", "Real", "AbstractFloat", "Number"):
        return "real", {"Float32": "float32", "Float64": "float64"}.get(t), False, 0
    if t in ("Int", "Int32", "Int64", "Integer", "UInt", "UInt32", "UInt64"):
        return "int", None, False, 0
    if re.fullmatch(r"[A-Z]\w{0,2}", t):
        return "real_generic", None, None, None
    return "other", None, None, None


def _jl_param(node: ts.Node, position: int, keyword_only: bool) -> SParam | None:
    t = node.type
    default = None
    type_text = ""
    if t == "identifier":
        name = text_of(node)
    elif t == "typed_expression":
        name = text_of(node.named_children[0])
        type_text = text_of(node.named_children[-1]) if len(node.named_children) > 1 else ""
    elif t in ("named_argument", "assignment", "optional_parameter"):
        first = node.named_children[0] if node.named_children else None
        if first is not None and first.type == "typed_expression":
            name = text_of(first.named_children[0])
            type_text = text_of(first.named_children[-1])
        else:
            name = text_of(first)
        default = text_of(node.named_children[-1])
    elif t == "splat_expression":
        return SParam(name=text_of(node), position=position, kind="other", default="...")
    else:
        return None
    p = SParam(name=name, position=position, type_text=type_text, default=default, keyword_only=keyword_only,
               container="unknown")
    if type_text:
        kind, dtype, array, rank = _jl_type(type_text)
        p.kind, p.dtype, p.array, p.rank = kind, dtype, array, rank
        if array:
            p.container = "jlarray"
    return p


def _jl_facts(body_nodes: list[ts.Node], params: set[str]) -> Facts:
    f = Facts()
    for root in body_nodes:
        for n in walk(root):
            t = n.type
            if t == "for_binding":
                kids = n.named_children
                if len(kids) >= 2 and kids[0].type == "identifier":
                    rng = kids[-1]
                    f.loops.setdefault(text_of(kids[0]), set()).update(_idents(rng) | _jl_size_tokens(rng))
            elif t == "index_expression":
                kids = n.named_children
                if kids and kids[0].type == "identifier" and len(kids) >= 2:
                    idx = kids[1]
                    dims = idx.named_children if idx.type in ("vector_expression", "tuple_expression") else [idx]
                    per_dim = [_idents(d) for d in dims]
                    prods = _flat_products(dims[0])[1] if len(dims) == 1 else []
                    f.subscripts.append((text_of(kids[0]), per_dim, prods))
            elif t in ("assignment", "compound_assignment_expression"):
                target = _root_name(n.named_children[0]) if n.named_children else None
                if target:
                    f.writes.add(target)
                    if t == "assignment" and n.named_children[0].type == "identifier":
                        f.rebinds.add(target)
            elif t == "broadcast_call_expression" or t == "call_expression":
                head = n.named_children[0] if n.named_children else None
                name = text_of(head)
                f.calls.add(name)
                if name in ("size", "length", "axes", "eachindex") and len(n.named_children) > 1:
                    args = n.named_children[1]
                    if args.named_children:
                        f.shape_refs.add(text_of(args.named_children[0]))
                if name.endswith("!") and len(n.named_children) > 1 and n.named_children[1].named_children:
                    tgt = text_of(n.named_children[1].named_children[0])
                    if tgt in params:
                        f.writes.add(tgt)
            elif t == "return_statement":
                expr = next(iter(n.named_children), None)
                if expr is not None:
                    f.returns.append(text_of(expr))
                    elems = expr.named_children if expr.type == "tuple_expression" else [expr]
                    f.return_names.append([_idents(e) for e in elems])
            elif t == "identifier":
                f.idents.add(text_of(n))
    for root in body_nodes:
        f.reads_first |= _touch_order(root, params, {"assignment": "assign", "compound_assignment_expression": "compound"},
                                      ("call_expression", "broadcast_call_expression"), ("return_statement",))
    return f


def _jl_size_tokens(node: ts.Node) -> set[str]:
    out = set()
    for n in walk(node):
        if n.type == "call_expression" and n.named_children and text_of(n.named_children[0]) in ("size", "length", "axes"):
            args = n.named_children[1] if len(n.named_children) > 1 else None
            if args is not None and args.named_children:
                arr = text_of(args.named_children[0])
                dim = text_of(args.named_children[1]) if len(args.named_children) > 1 else "1"
                out.add(f"{arr}.shape[{int(dim) - 1 if dim.isdigit() else 0}]")
    return out


def parse_julia(code: str) -> Unit:
    raw = code.encode()
    tree = parser("julia").parse(raw)
    root = tree.root_node
    functions: list[SFunction] = []
    items: list[Item] = []

    def add_function(node: ts.Node, outer: ts.Node) -> bool:
        sig = next((c for c in node.named_children if c.type == "signature"), None)
        call = None
        body_nodes = []
        if node.type == "function_definition" and sig is not None:
            call = sig.named_children[0] if sig.named_children else None
            while call is not None and call.type in ("where_expression", "typed_expression"):
                call = call.named_children[0] if call.named_children else None
            body_nodes = [c for c in node.named_children if c.type != "signature"]
        elif node.type == "assignment" and node.named_children and node.named_children[0].type == "call_expression":
            call = node.named_children[0]
            body_nodes = node.named_children[1:]
        if call is None or call.type != "call_expression" or not call.named_children:
            return False
        name = text_of(call.named_children[0])
        args = call.named_children[1] if len(call.named_children) > 1 else None
        params: list[SParam] = []
        keyword_only = False
        for c in (args.children if args is not None else []):
            if text_of(c) == ";":
                keyword_only = True
                continue
            if not c.is_named:
                continue
            if c.type == "keyword_parameters" or c.type == "keyword_arguments":
                for k in c.named_children:
                    p = _jl_param(k, len(params), True)
                    if p is not None:
                        params.append(p)
                continue
            p = _jl_param(c, len(params), keyword_only)
            if p is not None:
                params.append(p)
        fn = SFunction(name=name, params=params, start=outer.start_byte, end=outer.end_byte,
                       text=raw[outer.start_byte:outer.end_byte].decode("utf-8", "replace"), lang="julia",
                       index=len(functions), error=outer.has_error)
        fn.facts = _jl_facts(body_nodes, {p.name for p in params})
        fn.returns_value = bool(fn.facts.returns) or node.type == "assignment"
        if node.type == "assignment":
            fn.facts.returns.append(text_of(node.named_children[-1]))
            fn.facts.return_names.append([_idents(node.named_children[-1])])
        launches = re.search(r"@cuda\b|@roc\b|@oneapi\b|ndrange\s*=|\bwait\(|KernelAbstractions\.synchronize", fn.text)
        if re.search(r"@kernel\b", text_of(outer)[:200]) or (
                re.search(r"@index\b|threadIdx\(|blockIdx\(|workitemIdx\(", fn.text) and not launches):
            fn.kind = "device_kernel"
        functions.append(fn)
        return True

    for child in root.named_children:
        node = child
        if child.type == "macrocall_expression":
            inner = [c for c in walk(child) if c.type == "function_definition"]
            if inner and add_function(inner[0], child):
                continue
        if node.type in ("function_definition", "assignment") and add_function(node, child):
            continue
        if child.type == "comment" or child.type == "line_comment" or child.type == "block_comment":
            continue
        text = raw[child.start_byte:child.end_byte].decode("utf-8", "replace")
        kind = "import" if child.type in ("using_statement", "import_statement") else child.type
        defines = set()
        if kind == "import":
            defines = {text_of(c) for c in child.named_children}
        elif child.type in ("assignment", "const_statement"):
            first = next(iter(child.named_children), None)
            if first is not None and first.type == "assignment":
                first = first.named_children[0] if first.named_children else None
            if first is not None and first.type == "identifier":
                defines.add(text_of(first))
        items.append(Item(text=text, start=child.start_byte, end=child.end_byte, kind=kind, defines=defines,
                          uses=_idents(child) - defines, error=child.has_error))
    return Unit("julia", code, functions, items)


# ---------------------------------------------------------------------------------------------------- entry


def parse(code: str, lang: str) -> Unit:
    if lang == "cpp":
        return parse_cpp(code)
    if lang == "python":
        return parse_python(code)
    if lang == "fortran":
        return parse_fortran(code)
    if lang == "julia":
        return parse_julia(code)
    raise ValueError(f"signature inference does not know language {lang}")
