"""C/C++ suggestions (OpenMP, OpenACC, CUDA, HIP, Kokkos, SYCL, ...) parsed into the records of parse.common.

C++ is the hardest language to read parameters from: the element type hides behind typedefs, #defines and
templates, arrays come as pointers, pointer-to-pointers, std::vector (nested), fixed extents or Kokkos Views, and
vendor qualifiers (__global__, __restrict__, KOKKOS_INLINE_FUNCTION) confuse the grammar. This module owns all of
that, plus the C-specific body facts (pointer aliasing, subscript chains A[i][j], View calls A(i, j)) and the
top-level items (includes, macros, typedefs, structs) that pruning keeps or drops.
"""

from __future__ import annotations

import re

import tree_sitter as ts

from hpceval.bind.parse.common import (
    Facts,
    Item,
    SFunction,
    SParam,
    Unit,
    add_return,
    idents,
    parser,
    root_name,
    span,
    subscript,
    text_of,
    touch_order,
    walk,
)

_C_NOISE = re.compile(r"\b(__global__|__device__|__host__|__forceinline__|__inline__|__restrict__|__restrict|"
                      r"restrict|KOKKOS_INLINE_FUNCTION|KOKKOS_FUNCTION|KOKKOS_FORCEINLINE_FUNCTION|"
                      r"__attribute__\s*\(\([^)]*\)\)|__declspec\s*\([^)]*\)|HOST_DEVICE|__kernel|__local)\b")


_LEADING_QUALIFIERS = re.compile(rb"(?:(?:__global__|__device__|__host__|__forceinline__|__inline__|"
                                 rb"KOKKOS_INLINE_FUNCTION|KOKKOS_FUNCTION|KOKKOS_FORCEINLINE_FUNCTION|HOST_DEVICE|"
                                 rb"__kernel|static|inline)\s+)+$")


def _with_leading_qualifiers(source: bytes, start: int) -> int:
    """The start of a definition including the qualifiers before its type. The grammar never sees them (c_sanitize
    blanks them), so a definition written `__global__\nvoid saxpy(...)` starts at `void`; cut there, the unit
    would lose `__global__` and turn a device kernel into a host function."""
    m = _LEADING_QUALIFIERS.search(source[max(0, start - 200):start])
    return start - len(m.group(0)) if m else start


def _blank(match: re.Match) -> str:
    return " " * len(match.group(0))


def c_sanitize(code: str) -> str:
    """Same-length replacement of qualifiers the C++ grammar does not know (offsets stay valid)."""
    return _C_NOISE.sub(_blank, code)


# ---------------------------------------------------------------------------------------------------- declarations


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
    type_text = _container_alias(text_of(type_node), aliases)
    p = SParam(name=name, position=position, type_text=" ".join(quals + [type_text]).strip(),
               const="const" in quals, reference=reference, default=text_of(default) or None)
    resolved = resolve_scalar_names(p.type_text, aliases)
    p.type_resolved = resolved if resolved != p.type_text else ""
    inner = type_text
    vec_depth = 0
    m = _CONTAINER.match(inner.strip())
    while m:
        vec_depth += 1
        inner = _element(m.group(2)) if m.group(1) in ("array", "span") else m.group(2).strip()
        if m.group(1) not in ("vector",):  # std::valarray/array/span, thrust's vectors (bind.adapt.cpp)
            p.container = m.group(1)
        if m.group(1) == "span" and inner != m.group(2).strip() and "dynamic_extent" not in m.group(2):
            p.container = "span_fixed"  # std::span<T, N>: a compile-time extent
        m = _CONTAINER.match(inner)
    kind, dtype = _c_type_info(inner, aliases)
    view = re.search(r"\bView\s*<\s*(?:const\s+)?([\w:]+(?:\s+\w+)?)\s*(\*+)", type_text)
    if view:
        vkind, vdtype = _c_type_info(view.group(1), aliases)
        p.container, p.kind, p.dtype, p.array, p.rank = "view", vkind, vdtype, True, len(view.group(2))
        p.const = p.const or bool(re.search(r"View\s*<\s*const\b", type_text))
        return p
    if inner in templates and not pointers and not array_dims:
        # a template type: a View, a container or a scalar, decided by the role it takes
        p.kind, p.dtype, p.array, p.rank = "real_generic", None, None, None
        if p.container != "span":  # std::span<T>: a span of the graded precision is built (glue.cpp._span_of)
            p.container = "template"
        else:
            p.array, p.rank = True, 1
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
        elif p.container in THRUST_VECTORS and p.rank != 1:
            p.container = "thrust2"  # a thrust vector of vectors: no device layout the glue can build
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


# standard and Thrust containers a parameter may hold its elements in (rank 1 each; nested for rank 2)
THRUST_VECTORS = ("device_vector", "host_vector", "universal_vector")
_CONTAINER = re.compile(r"^(?:std::|thrust::)?(vector|valarray|array|span|device_vector|host_vector|universal_vector)"
                        r"\s*<(.*)>$", re.DOTALL)


def _element(targs: str) -> str:
    """The element type of `std::array<T, N>`'s template arguments: all before the last comma outside `<>`."""
    depth, cut = 0, len(targs)
    for i, ch in enumerate(targs):
        depth += {"<": 1, ">": -1, "(": 1, ")": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            cut = i
    return targs[:cut].strip()


def _container_alias(type_text: str, aliases: dict[str, str]) -> str:
    """The container a `using`/`typedef` name stands for (`using Vec = Kokkos::View<double*>`), so that the
    parameter is read as that View or vector; any other type text as written."""
    t = type_text.strip()
    for _ in range(4):
        if t not in aliases:
            break
        t = aliases[t]
    return t if re.search(r"\b(?:View|vector|valarray|array|span|device_vector|host_vector|universal_vector)\s*<", t) \
        else type_text


def resolve_scalar_names(type_text: str, aliases: dict[str, str]) -> str:
    """`type_text` with every name the suggestion defines as a scalar type (a #define, typedef or `using` chain
    ending in float, double, int, ...) replaced by that type; names of anything else (structs, Views) are kept."""
    def scalar(m: re.Match) -> str:
        name, t = m.group(0), m.group(0)
        for _ in range(4):
            if t not in aliases:
                break
            t = " ".join(re.sub(r"\b(const|volatile)\b", " ", aliases[t]).split())
        if t == name or _c_type_info(t, {})[0] not in ("real", "int", "bool", "char"):
            return name
        return t
    return re.sub(r"(?<![\w:])[A-Za-z_]\w*(?![\w:])", scalar, type_text)


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
    start = _with_leading_qualifiers(source.encode(), start)
    raw = span(source.encode(), start, end)
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


# ---------------------------------------------------------------------------------------------------- body facts


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


# The destination of copy-like calls by position: (pattern of the callee, index of the destination argument).
# std::copy(first, last, d_first) and friends write their last iterator argument, std::transform the one before
# its operation, memcpy/memset/fill their first; cudaMemcpy(dst, src, ...) too.
_DESTINATION = [(re.compile(r"(?:^|::)(?:copy|copy_n|copy_if|move|copy_backward|uninitialized_copy\w*)$"), -1),
                (re.compile(r"(?:^|::)transform$"), -2),
                (re.compile(r"(?:^|::|\.)(?:memcpy|memmove|memset|fill|fill_n|iota|generate|\w*Memcpy\w*|"
                            r"\w*Memset\w*)$", re.IGNORECASE), 0)]
_WRITES_ANY = re.compile(r"(memset|fill|copy|memcpy|gemv|axpy|transform|Memcpy|blas)", re.IGNORECASE)


def _written_arguments(callee: str, args: list[ts.Node]) -> list[ts.Node]:
    """The arguments a call may write: a copy-like call's destination, every argument of another call whose name
    says it writes (BLAS, a copy of unknown argument order), none otherwise."""
    name = callee.split("<")[0].strip()
    if not args or not _WRITES_ANY.search(name):
        return []
    for pattern, at in _DESTINATION:
        if pattern.search(name):
            return [args[at]] if -len(args) <= at < len(args) else []
    return args


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
                    f.loops.setdefault(var, set()).update(idents(cond.child_by_field_name("right")))
            if var is None and init is not None:
                ids = idents(init)
                if ids:
                    var = sorted(ids)[0]
        elif t == "subscript_expression" and (n.parent is None or n.parent.type != "subscript_expression"
                                              or n.parent.child_by_field_name("argument") != n):
            chain = _c_subscript_chain(n)
            if chain:
                f.subscripts.append(subscript(*chain))
        elif t == "assignment_expression":
            target = root_name(n.child_by_field_name("left"))
            if target:
                f.writes.add(target)
        elif t == "update_expression":
            target = root_name(n.child_by_field_name("argument"))
            if target:
                f.writes.add(target)
        elif t == "call_expression":
            fn = n.child_by_field_name("function")
            if fn is not None and fn.type == "identifier" and text_of(fn) in params:
                # A(i, j) on a Kokkos::View (or any array-like object): a subscript
                args = n.child_by_field_name("arguments")
                dims = list(args.named_children) if args is not None else []
                if dims:
                    f.subscripts.append(subscript(text_of(fn), dims))
                continue
            if fn is not None:
                f.calls.add(text_of(fn).split("<")[0])
            # memset/std::fill/copy-like calls write their destination (a library call of unknown argument
            # order, BLAS, every array argument)
            args = n.child_by_field_name("arguments")
            if args is not None:
                written = _written_arguments(text_of(fn), [a for a in args.named_children if a.type != "comment"])
                for a in written:
                    if a.type == "identifier" and text_of(a) in params:
                        f.writes.add(text_of(a))
        elif t == "return_statement":
            expr = next((c for c in n.named_children), None)
            if expr is not None:
                add_return(f, expr, [expr])
        elif t == "identifier":
            f.idents.add(text_of(n))
    f.reads_first = touch_order(body, params, {"assignment_expression": "assign"}, ("call_expression",),
                                ("return_statement",), pointers=True)
    # y[i] += ... / y[i]++ are reads
    for n in walk(body):
        if n.type == "update_expression":
            target = root_name(n.child_by_field_name("argument"))
            if target in params and target not in f.reads_first:
                pass
    return f


# ---------------------------------------------------------------------------------------------------- unit


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
    end = node.end_byte
    after = node.next_sibling
    if node.type in ("struct_specifier", "class_specifier", "enum_specifier", "union_specifier") and \
            after is not None and after.type == ";":
        end = after.end_byte  # `struct F {...};`: the parser leaves the `;` outside the specifier
    text = span(code.encode(), node.start_byte, end)
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
    uses = idents(node, ("identifier", "type_identifier", "namespace_identifier", "field_identifier")) - defines
    return Item(text=text, start=node.start_byte, end=end, kind=kind, defines=defines, uses=uses,
                error=node.has_error or node.type == "ERROR")


def _root_decl_name(d: ts.Node) -> str | None:
    for _ in range(6):
        if d is None:
            return None
        if d.type in ("identifier", "field_identifier"):
            return text_of(d)
        d = d.child_by_field_name("declarator") or (d.named_children[0] if d.named_children else None)
    return None
