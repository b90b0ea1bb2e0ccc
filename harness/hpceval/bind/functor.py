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

A functor template (`template <class ViewType> struct SAXPY`) is launched as the instantiation `main` names
(`SAXPY<Kokkos::View<double *>>`), else with each type parameter read from its use: a View of the precision
`main` declares its Views in where a member of that type is subscripted, else that precision (the constructor
then deduces nothing). Member types spelled through the template's own aliases (`typedef typename
ViewType::value_type value_type`) are resolved through them. A functor over two or three indices
(`operator()(int i, int j)`, dispatched by an MDRangePolicy in `main`) is launched over an MDRangePolicy of the
same rank: its bounds are those of `main`'s policy with `main`'s sizes read as the extents of the View the
indices subscript first (`{1, 1, 1}, {N - 1, N - 1, N - 1}` over `unew(i, j, k)`: up to `unew.extent(d) - 1`),
or that View's full extents where `main` shows none.

A team functor (`operator()(const member_type &team)`, one team per row: the rank from `team.league_rank()`) is
launched over a TeamPolicy of as many teams as the extent of the View the rank subscripts first, `Kokkos::AUTO`
threads each.

Limits, said by staying as before (no launcher): functors with reductions (`operator()(int i, double &sum)`),
non-type template parameters, and a range the members do not show.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

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
    index: str  # operator()'s first index parameter
    body: str  # operator()'s body
    ctor_order: list[str] | None  # members in the order the constructor takes them, None: aggregate
    range_expr: str  # the end of the first index's range
    type_name: str = ""  # the type to build: the name, or a template's instantiation (`SAXPY<Kokkos::View<...>>`)
    indices: list[str] = field(default_factory=list)  # every index of operator() (two or three: an MDRange)
    lower: list[str] = field(default_factory=list)  # per index: its range's begin and end
    upper: list[str] = field(default_factory=list)
    team: bool = False  # operator()(const member_type &team): a TeamPolicy of range_expr teams


def find_functors(code: str) -> list[Functor]:
    """Functors with an operator() of one to three indices whose launch range the members (or `main`'s
    MDRangePolicy) show (see the module docstring)."""
    clean = c_sanitize(code)
    tree = parser("cpp").parse(clean.encode())
    found = []
    for node in walk(tree.root_node):
        if node.type not in ("struct_specifier", "class_specifier") or node.has_error:
            continue
        name, body = node.child_by_field_name("name"), node.child_by_field_name("body")
        if name is None or body is None:
            continue
        template = node.parent if node.parent is not None and node.parent.type == "template_declaration" else None
        params = _template_params(template) if template is not None else []
        if params is None:
            continue  # a non-type template parameter: nothing to instantiate it with
        outside = clean[:node.start_byte] + clean[node.end_byte:]
        functor = _functor(text_of(name), body, params, outside)
        if functor is not None:
            found.append(functor)
    return found


def _template_params(template) -> list[str] | None:
    """The type parameters of a template declaration (None when one is not a type)."""
    plist = template.child_by_field_name("parameters")
    names = []
    for p in plist.named_children if plist is not None else []:
        if p.type not in ("type_parameter_declaration", "optional_type_parameter_declaration"):
            return None
        ident = [c for c in p.named_children if c.type == "type_identifier"]
        if not ident:
            return None
        names.append(text_of(ident[0]))
    return names


def _balanced_args(text: str, at: int) -> str | None:
    """The text between the `<` at `at` and its matching `>`."""
    depth = 0
    for k in range(at, len(text)):
        depth += {"<": 1, ">": -1}.get(text[k], 0)
        if depth == 0:
            return text[at + 1:k]
    return None


def _split_top(args: str) -> list[str]:
    out, depth, cur = [], 0, ""
    for ch in args:
        depth += {"<": 1, "(": 1, ">": -1, ")": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    return out + [cur.strip()] if cur.strip() else out


def _instantiation(name: str, params: list[str], members: list[tuple[str, str]], body: str, outside: str) -> \
        list[str]:
    """The template's arguments: those `main` (or anything outside the template) names it with, else read from
    the parameters' use (see the module docstring)."""
    for m in re.finditer(rf"\b{re.escape(name)}\s*<", outside):
        args = _balanced_args(outside, m.end() - 1)
        if args is not None and len(_split_top(args)) == len(params):
            return [" ".join(a.split()) for a in _split_top(args)]
    prec = re.search(r"View\s*<\s*(?:const\s+)?(float|double)\b", outside)
    scalar = prec.group(1) if prec else "double"
    out = []
    for param in params:
        typed = [n for t, n in members if re.fullmatch(rf"(?:const\s+)?{re.escape(param)}\s*&?", t)]
        sub = next((m for n in typed if (m := re.search(rf"\b{re.escape(n)}\s*\(([^()]*)\)", body))), None)
        out.append(f"Kokkos::View<{scalar}{'*' * (sub.group(1).count(',') + 1)}>" if sub else scalar)
    return out


def _resolve(type_text: str, aliases: dict[str, str], type_name: str) -> str:
    """A member type through the template's aliases: `value_type` of a View is its element type, `size_type`
    is size_t, anything else the alias qualified by the instantiation."""
    for alias, target in aliases.items():
        if not re.search(rf"\b{re.escape(alias)}\b", type_text):
            continue
        view = re.search(r"View\s*<\s*(?:const\s+)?([\w:]+)", target)
        if view and re.search(r"::\s*(?:non_const_)?value_type\s*$", target):
            real = view.group(1)
        elif re.search(r"::\s*size_type\s*$", target):
            real = "size_t"
        elif "typename" not in target and "::" not in target:
            real = target
        else:
            real = f"typename {type_name}::{alias}"
        type_text = re.sub(rf"\b{re.escape(alias)}\b", real, type_text)
    return type_text


def _functor(name: str, body, params: list[str] | None = None, outside: str = "") -> Functor | None:
    members: list[tuple[str, str]] = []
    op: tuple[list[str], str] | None = None
    ctor: list[str] | None = None
    aliases: dict[str, str] = {}
    for item in body.named_children:
        text = text_of(item)
        alias = re.match(r"\s*typedef\s+(.+?)\s+(\w+)\s*;\s*$|\s*using\s+(\w+)\s*=\s*(.+?)\s*;\s*$", text, re.S)
        if alias:
            aliases[alias.group(2) or alias.group(3)] = " ".join((alias.group(1) or alias.group(4)).split())
            continue
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
            one = _INDEX_TYPES + r"\s*([A-Za-z_]\w*)\s*"
            op_match = re.search(rf"operator\s*\(\s*\)\s*\(\s*{one}(?:,\s*{one})?(?:,\s*{one})?\)\s*const\s*\{{",
                                 text)
            if op_match and item.type == "function_definition":
                inner = text[op_match.end():text.rfind("}")]
                op = ([g for g in op_match.groups() if g], inner)
            elif re.match(rf"\s*(?:KOKKOS_\w+\s+)?(?:explicit\s+)?{re.escape(name)}\s*\(", text):
                ctor = _ctor_order(text)
    if op is None or not members:
        return None
    names = [n for _, n in members]
    if ctor is not None and sorted(ctor) != sorted(names):
        return None  # a constructor that does not take every member: the functor cannot be built from them
    type_name = name
    if params:
        args = _instantiation(name, params, members, op[1], outside)
        type_name = f"{name}<{', '.join(args)}>"
        subst = dict(zip(params, args, strict=True))
        members = [(re.sub(r"\b\w+\b", lambda w: subst.get(w.group(0), w.group(0)), t), n) for t, n in members]
        aliases = {a: re.sub(r"\b\w+\b", lambda w: subst.get(w.group(0), w.group(0)), v) for a, v in aliases.items()}
    members = [(_resolve(t, aliases, type_name), n) for t, n in members]
    indices, body_text = op
    if len(indices) == 1 and re.search(rf"\b{re.escape(indices[0])}\s*\.\s*league_rank\s*\(", body_text):
        league = _league(indices[0], body_text, members)
        if league is None:
            return None
        return Functor(name, members, indices[0], body_text, ctor, league, type_name, indices, ["0"], [league],
                       team=True)
    if len(indices) == 1:
        range_expr = _range(indices[0], body_text, members)
        if range_expr is None:
            return None
        return Functor(name, members, indices[0], body_text, ctor, range_expr, type_name, indices, ["0"], [range_expr])
    bounds = _md_bounds(indices, body_text, members, name, outside)
    if bounds is None:
        return None
    lower, upper = bounds
    return Functor(name, members, indices[0], body_text, ctor, upper[0], type_name, indices, lower, upper)


def _first_view(members: list[tuple[str, str]], body: str, subscript: str) -> str | None:
    """The View member that the body first subscripts as `subscript` (a regex of what follows its `(`)."""
    views = {n for t, n in members if "View" in t}
    first = re.search(rf"\b({'|'.join(map(re.escape, views))})\s*\(\s*{subscript}", body) if views else None
    return first.group(1) if first else None


def _league(team: str, body: str, members: list[tuple[str, str]]) -> str | None:
    """A team functor's league size: the extent of the View that the team's rank (`team.league_rank()`, or the
    variable assigned from it) subscripts first."""
    rank = re.search(rf"\b([A-Za-z_]\w*)\s*=\s*{re.escape(team)}\s*\.\s*league_rank\s*\(\s*\)", body)
    index = re.escape(rank.group(1)) if rank else rf"{re.escape(team)}\s*\.\s*league_rank\s*\(\s*\)"
    first = _first_view(members, body, rf"{index}\s*[,)]")
    return f"{first}.extent(0)" if first else None


def _md_bounds(indices: list[str], body: str, members: list[tuple[str, str]], name: str, outside: str) -> \
        tuple[list[str], list[str]] | None:
    """An MDRange functor's bounds: `main`'s MDRangePolicy for it with `main`'s sizes read as the extents of the
    View the indices subscript first, else that View's full extents (module docstring)."""
    view = _first_view(members, body, r"\s*,\s*".join(re.escape(i) for i in indices) + r"\s*\)")
    if view is None:
        return None
    lower = ["0"] * len(indices)
    upper = [f"(int64_t){view}.extent({d})" for d in range(len(indices))]
    # a policy built from two brace lists (`MDRangePolicy<Rank<3>>({1, 1, 1}, {N - 1, ...})`, or through an alias)
    # in the statement that dispatches this functor, or shortly before it
    policy = next((m for m in re.finditer(r"[\w>]\s*[({]\s*\{([^{}]*)\}\s*,\s*\{([^{}]*)\}", outside)
                   if re.search(rf"\b{re.escape(name)}\b", outside[m.end():m.end() + 400])), None)
    if policy:
        lo, hi = _split_top(policy.group(1)), _split_top(policy.group(2))
        if len(lo) == len(hi) == len(indices):
            lower = [b if re.fullmatch(r"\d+", b) else "0" for b in lo]
            upper = [re.sub(r"\b[A-Za-z_]\w*\b", f"(int64_t){view}.extent({d})", b) for d, b in enumerate(hi)]
    return lower, upper


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
    first = _first_view(members, body, rf"{re.escape(index)}\s*[,)]")
    if first:
        return f"{first}.extent(0)"
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


def policy(f: Functor) -> str:
    """The execution policy the launcher dispatches over (as the evidence says it)."""
    if f.team:
        return f"Kokkos::TeamPolicy<>((int)({f.range_expr}), Kokkos::AUTO)"
    if len(f.indices) <= 1:
        return f"Kokkos::RangePolicy<>(0, {f.range_expr})"
    return (f"Kokkos::MDRangePolicy<Kokkos::Rank<{len(f.indices)}>>({{{', '.join(f'(int64_t)({b})' for b in f.lower)}}}, "
            f"{{{', '.join(f.upper)}}})")


def launcher_source(f: Functor) -> str:
    """The host function that builds and dispatches the functor (appended to the suggestion)."""
    params = _params(f)
    kind = f.type_name or f.name
    built = f"{kind}({', '.join(f.ctor_order)})" if f.ctor_order else f"{kind}{{{', '.join(n for _, n in f.members)}}}"
    # an empty MDRange (a grid without interior) is not dispatched: Kokkos' CUDA backend would launch an empty grid
    guard = " && ".join(f"({hi}) > (int64_t)({lo})" for lo, hi in zip(f.lower, f.upper, strict=True)) \
        if len(f.indices) > 1 else ""
    dispatch = f"Kokkos::parallel_for(\"{f.name}\", {policy(f)}, {built});"
    return (f"\nvoid {f.name}{LAUNCHER_SUFFIX}({params}) {{\n"
            f"  {f'if ({guard}) ' if guard else ''}{dispatch}\n"
            f"  Kokkos::fence();\n}}\n")


def operator_facts(f: Functor) -> Facts:
    """The operator's body read as the body of loops over its indices in a function of the members: what the
    binder learns from a function's body (subscripts, writes, bounds) it learns from the functor's."""
    params = _params(f)
    indices = f.indices or [f.index]
    lower = f.lower or ["0"]
    upper = f.upper or [f.range_expr]
    body = f.body
    if f.team:  # one team per value of its rank: the rank read as a loop over the league
        body = re.sub(rf"\b{re.escape(f.index)}\s*\.\s*league_rank\s*\(\s*\)", "hp_league", body)
        indices = ["hp_league"]
    loops = "".join(f"for (int {i} = {lo}; {i} < {hi}; ++{i}) " for i, lo, hi in zip(indices, lower, upper, strict=True))
    text = f"void hpceval_facts({params}) {{ {loops}{{ {body} }} }}"
    unit = parse_cpp(text)
    return unit.functions[0].facts if unit.functions else Facts()
