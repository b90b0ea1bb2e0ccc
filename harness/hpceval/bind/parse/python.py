"""Python suggestions (NumPy, Numba, CuPy, pyCUDA, ...) parsed into the records of parse.common.

Python suggestions are mostly untyped, so their parameters say little and the body has to say the rest: loops over
range(len(x)) or A.shape[0], whole-array rebinding (y = A @ x, which writes nothing the caller sees), out= keywords,
and returned tuples in which timing values (time.perf_counter() differences) must not pass for results. Those
Python-only readings, and the top-level imports and constants that pruning keeps, live here.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

import tree_sitter as ts

from hpceval.analysis.pyparse import parse_python as parse_ast
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

_PY_TIMING = re.compile(r"^(start|end|stop|t\d*|tic|toc|elapsed|time\w*|duration|dt|t_start|t_end|start_time|end_time)$")


# ---------------------------------------------------------------------------------------------------- declarations


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
            # the element type only where the annotation says it (`NDArray[np.float64]`, `list[int]`): a bare
            # `np.ndarray` is as often a CSR row pointer as a vector of reals
            p.kind = "int" if re.search(r"\bu?int", low) else "real" if re.search(r"float|double|real", low) \
                else "unknown"
            p.dtype = "float32" if "float32" in low else None
    return p


# ---------------------------------------------------------------------------------------------------- body facts


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
                    ids = idents(bound)
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
                f.subscripts.append(subscript(text_of(m), dims))
            del value
        elif t in ("assignment", "augmented_assignment"):
            left = n.child_by_field_name("left")
            right = n.child_by_field_name("right")
            targets = [left] if left is None or left.type not in ("pattern_list", "tuple_pattern") else left.named_children
            for tgt in targets:
                name = root_name(tgt)
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
            launched = fn
            while launched is not None and launched.type in ("subscript", "call", "attribute") and fn.type != "attribute":
                launched = launched.child_by_field_name("function" if launched.type == "call" else
                                                        "value" if launched.type == "subscript" else "object")
            if launched is not None and launched is not fn and launched.type == "identifier":
                f.calls.add(text_of(launched))  # a kernel launched: k[grid, block](...), k.forall(n)(...)
            if fn is not None and fn.type == "attribute":
                obj = root_name(fn.child_by_field_name("object"))
                meth = text_of(fn.child_by_field_name("attribute"))
                if obj in params and meth in ("fill", "sort", "resize", "put", "itemset", "__setitem__"):
                    f.writes.add(obj)
            args = n.child_by_field_name("arguments")
            if args is not None:
                for a in args.named_children:
                    if a.type == "keyword_argument" and text_of(a.child_by_field_name("name")) == "out":
                        name = root_name(a.child_by_field_name("value"))
                        if name:
                            f.writes.add(name)
                    elif a.type == "identifier" and text_of(a) in params and re.search(
                            r"copyto|fill|put|memcpy|gemv|axpy|dot|matmul|memcpy_dtoh|get", ftext):
                        if re.search(r"copyto|memcpy_dtoh", ftext) and a == args.named_children[0]:
                            f.writes.add(text_of(a))
        elif t == "attribute":
            if text_of(n.child_by_field_name("attribute")) in ("shape", "size") :
                name = root_name(n.child_by_field_name("object"))
                if name:
                    f.shape_refs.add(name)
        elif t == "call" and text_of(n.child_by_field_name("function")) == "len":
            pass
        elif t == "return_statement":
            expr = next(iter(n.named_children), None)
            if expr is not None:
                elems = expr.named_children if expr.type in ("expression_list", "tuple") else [expr]
                add_return(f, expr, elems, lambda e: idents(e) - derived_time if not _is_timing(e, derived_time)
                           else {"<time>"})
        elif t == "identifier":
            f.idents.add(text_of(n))
    for n in walk(body):
        if n.type == "call" and text_of(n.child_by_field_name("function")) == "len":
            args = n.child_by_field_name("arguments")
            for a in (args.named_children if args is not None else []):
                name = root_name(a)
                if name:
                    f.shape_refs.add(name)
    f.reads_first = touch_order(body, params, {"assignment": "assign", "augmented_assignment": "compound"},
                                ("call",), ("return_statement",))
    return f


def _is_timing(node: ts.Node, derived_time: set[str]) -> bool:
    ids = idents(node)
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


# ---------------------------------------------------------------------------------------------------- unit


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
                           text=span(raw, child.start_byte, child.end_byte), lang="python",
                           index=len(functions), error=child.has_error)
            fn.facts = _py_facts(body, {p.name for p in params}) if body is not None else Facts()
            fn.returns_value = bool(fn.facts.returns)
            fn.result = " ".join(decorators)
            functions.append(fn)
        elif child.type == "comment":
            continue
        else:
            items.append(_py_item(child, raw))
    _inherit_helper_facts(code, functions)
    return Unit("python", code, functions, items)


def _inherit_helper_facts(code: str, functions: list[SFunction]) -> None:
    """Each function's facts gain those of the module's functions it calls with its parameters (a wrapper that
    hands `A.data, B.data, C.data, A.rows, B.cols, A.cols` to a jitted `_gemm_kernel(a, b, c, m, n, k)`): the
    callee's loops, subscripts, writes and size uses, its parameter names replaced by the caller's arguments and
    its own locals kept apart (`_gemm_kernel.i`). The mapping then reads what the function's data goes through,
    as if the helper were written inline; a call whose argument is an expression passes nothing for that one."""
    try:
        tree = parse_ast(code)
    except (SyntaxError, ValueError):
        return
    by_name = {f.name: f for f in functions}
    defs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    for fn in functions:
        node = defs.get(fn.name)
        if node is None:
            continue
        own = {p.name for p in fn.params}
        for call in ast.walk(node):
            if not isinstance(call, ast.Call):
                continue
            target = call.func.value if isinstance(call.func, ast.Subscript) else call.func  # k[grid](...)
            helper = by_name.get(target.id) if isinstance(target, ast.Name) else None
            if helper is None or helper is fn or helper.name not in defs:
                continue
            names = [a.arg for a in defs[helper.name].args.args]
            passed = {names[i]: a.id for i, a in enumerate(call.args)
                      if i < len(names) and isinstance(a, ast.Name) and a.id in own}
            passed.update({k.arg: k.value.id for k in call.keywords
                           if k.arg in names and isinstance(k.value, ast.Name) and k.value.id in own})
            if passed:
                _merge_facts(fn.facts, helper.facts, passed, helper.name)


def _merge_facts(into: Facts, helper: Facts, passed: dict[str, str], prefix: str) -> None:
    def rename(name: str) -> str:
        return passed.get(name, f"{prefix}.{name}")

    for var, bounds in helper.loops.items():
        into.loops.setdefault(rename(var), set()).update(rename(b) for b in bounds)
    for arr, dims, prods in helper.subscripts:
        into.subscripts.append((rename(arr), [{rename(i) for i in d} for d in dims],
                                [(rename(a), rename(b)) for a, b in prods]))
    into.writes |= {passed[w] for w in helper.writes if w in passed}
    into.shape_refs |= {passed[w] for w in helper.shape_refs if w in passed}
    into.idents |= {passed[w] for w in helper.idents if w in passed}


def _py_item(node: ts.Node, raw: bytes) -> Item:
    text = span(raw, node.start_byte, node.end_byte)
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
    uses = idents(node) - defines
    return Item(text=text, start=node.start_byte, end=node.end_byte, kind=kind, defines=defines, uses=uses,
                error=node.has_error)


# ---------------------------------------------------------------------------------------------------- scopes


@dataclass
class PyNames:
    """What a top-level definition or statement does with names: binds (in its own scope, nested scopes included
    as an approximation), reads, and mutates (X[i] = ..., X.append(...), X += ... on a name it does not bind)."""

    binds: set[str]
    reads: set[str]
    mutates: set[str]
    # read by a function's header where it is defined (decorators, defaults, annotations): module names whatever
    # the function binds (`def f(x, np=np)` reads the module's np and binds its own parameter np)
    header: set[str] = field(default_factory=set)

    @property
    def free(self) -> set[str]:
        return (self.reads - self.binds) | self.header


def _py_targets(node: ts.Node | None) -> set[str]:
    if node is None:
        return set()
    if node.type == "identifier":
        return {text_of(node)}
    if node.type in ("pattern_list", "tuple_pattern", "list_pattern", "list_splat_pattern", "parenthesized_expression",
                     "expression_list", "tuple", "list"):
        return set().union(*(_py_targets(c) for c in node.named_children)) if node.named_children else set()
    return set()


def py_names(code: str) -> dict[int, PyNames]:
    """PyNames of each top-level item and function of a Python unit, by start byte (that of its decorators)."""
    root = parser("python").parse(code.encode()).root_node
    return {child.start_byte: _names_of(child) for child in root.named_children}


def _names_of(top: ts.Node) -> PyNames:
    binds: set[str] = set()
    reads: set[str] = set()
    mutates: set[str] = set()
    declared_global: set[str] = set()
    for n in walk(top):
        t = n.type
        if t == "identifier":
            if _is_read(n):
                reads.add(text_of(n))
        elif t in ("function_definition", "class_definition"):
            binds.add(text_of(n.child_by_field_name("name")))
        elif t in ("parameters", "lambda_parameters"):
            for c in n.named_children:
                target = c if c.type == "identifier" else c.child_by_field_name("name") or next(
                    (g for g in c.named_children if g.type == "identifier"), None)
                binds |= _py_targets(target)
        elif t in ("assignment", "augmented_assignment", "for_statement", "for_in_clause"):
            left = n.child_by_field_name("left")
            got = _py_targets(left)
            binds |= got if t != "augmented_assignment" else set()
            if t == "augmented_assignment" or (left is not None and not got):
                name = root_name(left) if left is not None else None
                if name:
                    mutates.add(name)
        elif t == "named_expression":
            binds |= _py_targets(n.child_by_field_name("name"))
        elif t == "as_pattern":
            binds |= _py_targets(n.child_by_field_name("alias"))
            binds |= {text_of(a) for a in n.named_children if a.type == "as_pattern_target"}
        elif t in ("import_statement", "import_from_statement"):
            for c in n.named_children:
                if c.type == "aliased_import":
                    binds.add(text_of(c.child_by_field_name("alias")))
                elif c.type == "dotted_name" and (t == "import_statement" or c != n.child_by_field_name("module_name")):
                    binds.add(text_of(c).split(".")[0])
        elif t in ("global_statement", "nonlocal_statement"):
            declared_global |= {text_of(c) for c in n.named_children if c.type == "identifier"}
        elif t == "call":
            fn = n.child_by_field_name("function")
            if fn is not None and fn.type == "attribute":
                name = root_name(fn.child_by_field_name("object"))
                if name:
                    mutates.add(name)
    header = header_reads(top)
    if top.type in ("function_definition", "decorated_definition", "class_definition"):
        mutates = (mutates - binds) | (declared_global & binds)  # a global statement makes a local a module name
        binds -= declared_global
    return PyNames(binds=binds, reads=reads, mutates=mutates, header=header)


def header_reads(top: ts.Node) -> set[str]:
    """The names a top-level definition's header evaluates in the module's scope when it is defined: decorators,
    parameter defaults and annotations, the return annotation, a class's bases."""
    definition = top.child_by_field_name("definition") if top.type == "decorated_definition" else top
    parts = [c for c in top.named_children if c.type == "decorator"] if top.type == "decorated_definition" else []
    if definition is None:
        return set()
    if definition.type == "class_definition":
        parts += [c for c in [definition.child_by_field_name("superclasses")] if c is not None]
    elif definition.type == "function_definition":
        parts += [c for c in [definition.child_by_field_name("return_type")] if c is not None]
        params = definition.child_by_field_name("parameters")
        for p in params.named_children if params is not None else []:
            parts += [c for c in (p.child_by_field_name("value"), p.child_by_field_name("type")) if c is not None]
    return {text_of(n) for part in parts for n in walk(part) if n.type == "identifier" and _is_read(n)}


def _is_read(n: ts.Node) -> bool:
    """An identifier that reads a name: not an attribute's member (`np.dot`'s dot) nor a keyword's name."""
    parent = n.parent
    if parent is None:
        return True
    return not ((parent.type == "attribute" and parent.child_by_field_name("attribute") == n)
                or (parent.type == "keyword_argument" and parent.child_by_field_name("name") == n))
