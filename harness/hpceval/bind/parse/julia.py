"""Julia suggestions (Threads, CUDA.jl, AMDGPU.jl, KernelAbstractions, ...) parsed into the records of parse.common.

Julia has its own shapes of function (long form, one-line `f(x) = ...`, definitions wrapped in macros such as
@kernel or @inline), optional type annotations with parametric array types (CuArray{Float32,2}), keyword
parameters after `;`, mutating calls by convention (fill!(y, 0)) and device kernels that must not be called from
the host. This module reads those Julia-only forms; shared fact logic comes from parse.common.
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
    size_tokens,
    span,
    subscript,
    text_of,
    touch_order,
    walk,
)

# ---------------------------------------------------------------------------------------------------- declarations


def _jl_type(type_text: str) -> tuple[str, str | None, bool | None, int | None]:
    t = type_text.replace(" ", "")
    m = re.match(r"^(?:Abstract|Cu|Roc|Strided|Dense|oneAPI\.)?(Array|Vector|Matrix|VecOrMat|CuArray|CuVector|"
                 r"CuMatrix|ROCArray|ROCVector|ROCMatrix|oneArray|AbstractArray|AbstractVector|AbstractMatrix)"
                 r"(?:\{([^,}]+)(?:,(\d+))?\})?$", t)
    if m:
        elem = m.group(2) or ""
        rank = int(m.group(3)) if m.group(3) else (2 if "Matrix" in m.group(1) else 1 if "Vector" in m.group(1) else None)
        dtype = "float32" if elem == "Float32" else "float64" if elem == "Float64" else None
        kind = "int" if elem.startswith("Int") else "complex" if elem.startswith("Complex") else "real"
        return kind, dtype, True, rank
    if t in ("Float32", "Float64", "Real", "AbstractFloat", "Number"):
        return "real", {"Float32": "float32", "Float64": "float64"}.get(t), False, 0
    if t in ("Int", "Int32", "Int64", "Integer", "UInt", "UInt32", "UInt64"):
        return "int", None, False, 0
    if t.startswith("Complex"):
        return "complex", None, False, 0
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


# ---------------------------------------------------------------------------------------------------- body facts


def _jl_facts(body_nodes: list[ts.Node], params: set[str]) -> Facts:
    f = Facts()
    for root in body_nodes:
        for n in walk(root):
            t = n.type
            if t == "for_binding":
                kids = n.named_children
                if len(kids) >= 2 and kids[0].type == "identifier":
                    rng = kids[-1]
                    f.loops.setdefault(text_of(kids[0]), set()).update(idents(rng) | _jl_size_tokens(rng))
            elif t == "index_expression":
                kids = n.named_children
                if kids and kids[0].type == "identifier" and len(kids) >= 2:
                    idx = kids[1]
                    dims = idx.named_children if idx.type in ("vector_expression", "tuple_expression") else [idx]
                    f.subscripts.append(subscript(text_of(kids[0]), dims))
            elif t in ("assignment", "compound_assignment_expression"):
                target = root_name(n.named_children[0]) if n.named_children else None
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
                    add_return(f, expr, expr.named_children if expr.type == "tuple_expression" else [expr])
            elif t == "identifier":
                f.idents.add(text_of(n))
    for root in body_nodes:
        f.reads_first |= touch_order(root, params, {"assignment": "assign", "compound_assignment_expression": "compound"},
                                     ("call_expression", "broadcast_call_expression"), ("return_statement",))
    return f


def _jl_args(call: ts.Node) -> ts.Node | None:
    return call.named_children[1] if len(call.named_children) > 1 else None


def _jl_size_tokens(node: ts.Node) -> set[str]:
    return size_tokens(node, ("size", "length", "axes"), _jl_args)


# ---------------------------------------------------------------------------------------------------- unit


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
        args = _jl_args(call)
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
                       text=span(raw, outer.start_byte, outer.end_byte), lang="julia",
                       index=len(functions), error=outer.has_error)
        fn.facts = _jl_facts(body_nodes, {p.name for p in params})
        fn.returns_value = bool(fn.facts.returns) or node.type == "assignment"
        if node.type == "assignment":
            add_return(fn.facts, node.named_children[-1], [node.named_children[-1]])
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
        text = span(raw, child.start_byte, child.end_byte)
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
                          uses=idents(child) - defines, error=child.has_error))
    return Unit("julia", code, functions, items)
