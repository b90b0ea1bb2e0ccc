"""Fortran suggestions parsed into the records of parse.common.

Fortran declares what C and Python leave implicit (intent, extents, kinds), but spreads it out: a dummy argument's
type sits in a separate declaration, its precision may be a named kind constant (dp = kind(1.0d0)) defined in a
module, undeclared names follow implicit typing, names are case-insensitive, and procedures nest inside modules
and programs. This module gathers those pieces per procedure, and keeps modules and programs as items so that
pruning can keep the module a procedure lives in (fortran_uses: which modules a text `use`s).
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


# ---------------------------------------------------------------------------------------------------- body facts


def _f_facts(proc: ts.Node, params: set[str], arrays: set[str]) -> Facts:
    f = Facts()
    for n in walk(proc):
        t = n.type
        if t == "loop_control_expression":
            kids = n.named_children
            if len(kids) >= 3 and kids[0].type == "identifier":
                f.loops.setdefault(text_of(kids[0]).lower(), set()).update(
                    i.lower() for i in idents(kids[2]))
                f.loops[text_of(kids[0]).lower()] |= _f_size_tokens(kids[2])
        elif t == "call_expression":
            head = n.named_children[0] if n.named_children else None
            if head is not None and head.type == "identifier":
                name = text_of(head).lower()
                args = _f_args(n)
                if name in arrays and args is not None:
                    f.subscripts.append(subscript(name, args.named_children, str.lower))
                else:
                    f.calls.add(name)
                    if name in ("size", "ubound", "shape") and args is not None and args.named_children:
                        f.shape_refs.add(text_of(args.named_children[0]).lower())
        elif t == "assignment_statement":
            target = root_name(n.child_by_field_name("left"))
            if target:
                f.writes.add(target.lower())
        elif t == "subroutine_call":
            f.calls.add(text_of(n.child_by_field_name("subroutine")).lower())
        elif t == "identifier":
            f.idents.add(text_of(n).lower())
    f.reads_first = {x.lower() for x in touch_order(proc, params, {"assignment_statement": "assign"},
                                                    ("subroutine_call",), ())}
    return f


def _f_args(call: ts.Node) -> ts.Node | None:
    return next((c for c in call.named_children if c.type == "argument_list"), None)


def _f_size_tokens(node: ts.Node) -> set[str]:
    return size_tokens(node, ("size", "ubound"), _f_args, str.lower)


# ---------------------------------------------------------------------------------------------------- unit


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
                if "optional" in d["attrs"]:  # may be left out of the call (then later ones go by keyword)
                    p.default = "optional"
            params.append(p)
        result = ""
        if stmt.type == "function_statement":
            res = next((c for c in stmt.named_children if c.type == "function_result"), None)
            result = text_of(res.named_children[0]).lower() if res is not None and res.named_children else name
        arrays = {p.name for p in params if p.array} | {n for n, d in decls.items() if d["dims"]}
        fn = SFunction(name=name, params=params, start=proc.start_byte, end=proc.end_byte,
                       text=span(raw, proc.start_byte, proc.end_byte), lang="fortran",
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
