"""Functor launch: a Kokkos functor that the suggestion launches only from its own `main`.

The study's Kokkos prompts made Copilot write a functor (a struct with data members and `operator()(int i)`) and
a test program whose `main` builds Views and calls `Kokkos::parallel_for(n, Functor(...))`. There is no host
function the driver could call and `main` is never part of the build unit; graded by eye, such a functor is a
correct Kokkos kernel. So when a suggestion has no function besides `main`, a functor with a one-index
`operator()` is launched by a host function the harness writes beside it: its parameters are the functor's data
members (names and types as the suggestion declared them, so the binder maps them like any signature), it builds
the functor (through the constructor that initialises every member, else by aggregate initialisation) and
dispatches it over a RangePolicy whose end is the extent of the View that the index subscripts first (`y(i)`:
`y.extent(0)`), or the functor's one integer member (`int n`) when its arrays are raw pointers and its loops do
not run to it, else a size parameter `n` of the launcher's own (the range came from `main`), then fences. The
binder reads the operator's body for its facts (subscripts, writes), so roles are decided as for a function.

Limits, said by staying as before (no launcher): operators of two or three indices (an MDRangePolicy's bounds
live in `main`), team policies, functors with reductions (`operator()(int i, double &sum)`), and a range the
members do not show.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from hpceval.bind.parse.common import Facts, parser, text_of, walk
from hpceval.bind.parse.cpp import c_sanitize, parse_cpp

LAUNCHER_SUFFIX = "_hpceval_launch"
SIZE_PARAM = "n"  # the launcher's own range parameter where the members show none
_INDEX_TYPES = r"(?:const\s+)?(?:int|long|long\s+long|unsigned|size_t|std::size_t|int64_t|std::int64_t|" \
               r"Kokkos::Int|ordinal_type|index_type|member_type)?\s*&?"


@dataclass
class Functor:
    name: str
    members: list[tuple[str, str]]  # (type, name) in declaration order
    index: str  # operator()'s index parameter
    body: str  # operator()'s body
    ctor_order: list[str] | None  # members in the order the constructor takes them, None: aggregate
    range_expr: str


def find_functors(code: str) -> list[Functor]:
    """Functors with a one-index operator() whose launch range the members show (see the module docstring)."""
    tree = parser("cpp").parse(c_sanitize(code).encode())
    found = []
    for node in walk(tree.root_node):
        if node.type not in ("struct_specifier", "class_specifier") or node.has_error:
            continue
        name, body = node.child_by_field_name("name"), node.child_by_field_name("body")
        if name is None or body is None:
            continue
        functor = _functor(text_of(name), body)
        if functor is not None:
            found.append(functor)
    return found


def _functor(name: str, body) -> Functor | None:
    members: list[tuple[str, str]] = []
    op: tuple[str, str] | None = None
    ctor: list[str] | None = None
    for item in body.named_children:
        text = text_of(item)
        if item.type == "field_declaration" and "(" not in text.split("=")[0]:
            if re.match(r"\s*(static|using|typedef|friend)\b", text):
                continue
            m = re.match(r"\s*(?P<type>.+?)\s*(?P<names>\b[A-Za-z_]\w*(?:\s*,\s*\**\s*[A-Za-z_]\w*)*)\s*;\s*$",
                         text, re.DOTALL)
            if m is None:
                continue
            base = m.group("type").rstrip()
            lead = len(base) - len(base.rstrip("*& "))  # `const double *A, *x`: the first name's stars
            first_stars = base[len(base) - lead:].count("*")
            base = base[:len(base) - lead].strip() if lead else base
            for k, raw in enumerate(m.group("names").split(",")):
                stars = raw.count("*") + (first_stars if k == 0 else 0)
                members.append(((base + " " + "*" * stars).strip(), raw.replace("*", "").strip()))
        elif item.type in ("function_definition", "declaration", "field_declaration"):
            op_match = re.search(r"operator\s*\(\s*\)\s*\(\s*" + _INDEX_TYPES + r"\s*([A-Za-z_]\w*)\s*\)\s*const\s*\{",
                                 text)
            if op_match and item.type == "function_definition":
                inner = text[op_match.end():text.rfind("}")]
                op = (op_match.group(1), inner)
            elif re.match(rf"\s*(?:KOKKOS_\w+\s+)?(?:explicit\s+)?{re.escape(name)}\s*\(", text):
                ctor = _ctor_order(text)
    if op is None or not members:
        return None
    names = [n for _, n in members]
    if ctor is not None and sorted(ctor) != sorted(names):
        return None  # a constructor that does not take every member: the functor cannot be built from them
    range_expr = _range(op[0], op[1], members)
    if range_expr is None:
        return None
    return Functor(name, members, op[0], op[1], ctor, range_expr)


def _ctor_order(text: str) -> list[str] | None:
    """The members a constructor initialises, in the order of its parameters (`: a(a_), x(x_)`)."""
    params = re.search(r"\(([^)]*)\)", text)
    inits = dict((src, dst) for dst, src in re.findall(r"([A-Za-z_]\w*)\s*[({]\s*([A-Za-z_]\w*)\s*[)}]", text[
        params.end():] if params else ""))
    order = []
    for p in (params.group(1).split(",") if params and params.group(1).strip() else []):
        pname = re.findall(r"[A-Za-z_]\w*", p)[-1]
        if pname not in inits:
            return None
        order.append(inits[pname])
    return order or None


def _range(index: str, body: str, members: list[tuple[str, str]]) -> str | None:
    views = {n for t, n in members if "View" in t}
    first = re.search(rf"\b({'|'.join(map(re.escape, views))})\s*\(\s*{re.escape(index)}\s*[,)]", body) if views else None
    if first:
        return f"{first.group(1)}.extent(0)"
    ints = [n for t, n in members if re.fullmatch(r"(?:const\s+)?(?:int|long|size_t|std::size_t|int64_t)", t)]
    # the one integer member is the range unless the body's own loops run to it (MatVec's ncols: the inner loop)
    inner = set(re.findall(r"\bfor\s*\([^;]*;[^;]*<=?\s*\(?\s*(?:\(\w+\)\s*)?([A-Za-z_]\w*)", body))
    if len(ints) == 1 and ints[0] not in inner:
        return ints[0]
    if SIZE_PARAM not in {n for _, n in members}:
        return SIZE_PARAM  # raw pointers and no size: the launcher takes one (the binder's loop evidence maps it)
    return None


def _params(f: Functor) -> str:
    extra = [f"int {SIZE_PARAM}"] if f.range_expr == SIZE_PARAM and SIZE_PARAM not in {n for _, n in f.members} \
        else []
    return ", ".join([f"{t} {n}" for t, n in f.members] + extra)


def launcher_source(f: Functor) -> str:
    """The host function that builds and dispatches the functor (appended to the suggestion)."""
    params = _params(f)
    built = f"{f.name}({', '.join(f.ctor_order)})" if f.ctor_order else f"{f.name}{{{', '.join(n for _, n in f.members)}}}"
    return (f"\nvoid {f.name}{LAUNCHER_SUFFIX}({params}) {{\n"
            f"  Kokkos::parallel_for(\"{f.name}\", Kokkos::RangePolicy<>(0, {f.range_expr}), {built});\n"
            f"  Kokkos::fence();\n}}\n")


def operator_facts(f: Functor) -> Facts:
    """The operator's body read as the body of a loop over its index in a function of the members: what the binder
    learns from a function's body (subscripts, writes, bounds) it learns from the functor's."""
    params = _params(f)
    text = f"void hpceval_facts({params}) {{ for (int {f.index} = 0; {f.index} < {f.range_expr}; ++{f.index}) {{ " \
           f"{f.body} }} }}"
    unit = parse_cpp(text)
    return unit.functions[0].facts if unit.functions else Facts()
