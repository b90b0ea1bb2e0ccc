"""Records (structs, classes, derived types) as parameters: flattened to their fields for the mapping, rebuilt for
the call. The steps are the same in every language; what differs (how a record is declared, how a member is
named, how a record value is built) is a `RecordLanguage` of adapt.cpp or adapt.fortran.

Why flatten rather than teach the mapping about records: a field named `row_ptr` read as `A.row_ptr[i]` inside a
loop over `A.n` is exactly the evidence a parameter `row_ptr` read as `row_ptr[i]` gives; rewriting the member
accesses to plain names lets names, types, subscripts and loop bounds decide the fields' roles with the machinery
that decides parameters', and subtly wrong uses of a field are graded like those of a parameter.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Protocol

from hpceval.bind.parse import SFunction, SParam


@dataclass
class Field:
    """One field of a record: its name and its declaration as a flat parameter (the language's spelling, with
    `{name}` where the flat parameter's name goes)."""

    name: str
    decl: str
    settable: bool = True  # a public data member (C++), a component (Fortran)
    container: bool = False  # holds its elements by value (std::vector): an output field is copied back
    accessors: list[str] = field(default_factory=list)  # member functions that return it (`ptr()` for `ptr_`)
    elements: list[str] = field(default_factory=list)  # of those, the ones that return its elements (`data()`)


@dataclass
class Record:
    name: str
    fields: list[Field]
    ctor: list[str] | None = None  # fields in the order a constructor takes them, where one sets them all


@dataclass
class Group:
    """A record parameter and the flat parameter name of each of its fields."""

    param: SParam
    record: Record
    flat: dict[str, str] = field(default_factory=dict)


@dataclass
class Flat:
    """A function with its record parameters replaced by their fields: what the mapping and the glue see."""

    fn: SFunction
    origin: SFunction
    groups: list[Group]

    def key(self, flat_name: str, sep: str) -> str:
        """How the evidence names a flat parameter: `A.row_ptr` for a field, the parameter's own name otherwise."""
        for g in self.groups:
            for f, n in g.flat.items():
                if n == flat_name:
                    return f"{g.param.name}{sep}{f}"
        return flat_name


class RecordLanguage(Protocol):
    lang: str
    sep: str  # how the evidence joins a record parameter and its field (`.`, `%`)
    # flattened before the mapping (C++, Fortran: a record is only ever its fields), or only where the function as
    # written does not map (Python: adapt.python hands some records whole, with their own evidence)
    first: bool

    def records(self, code: str) -> dict[str, Record]: ...

    def record_of(self, p: SParam, records: dict[str, Record]) -> Record | None: ...

    def member(self, param: str, f: Field) -> re.Pattern[str]: ...

    def flat_source(self, fn: SFunction, groups: list[Group], rewrite) -> str: ...

    def parse_flat(self, code: str, flat_source: str, name: str) -> SFunction | None: ...

    def build(self, glue, group: Group, args: dict[str, str], outputs: set[str], pointer: bool) -> str: ...


@dataclass
class Built:
    """What the driver runs to hand a parameter its value: setup before the clock starts, the argument expression,
    teardown after the clock stops (outputs, and inputs a call may have clobbered, copied back)."""

    setup: list[str] = field(default_factory=list)
    arg: str = ""
    teardown: list[str] = field(default_factory=list)
    note: str = ""


class TypeAdapter(Protocol):
    """One parameter type of one language."""

    kind: str

    def build(self, var: str, host: str) -> Built:
        """Statements that make `var`, of this type, from the driver's host array expression `host`, and copy it
        back into `host` after the call."""
        ...

    def read_back(self, value: str) -> str:
        """An expression that turns `value`, of this type, into the driver's host form."""
        ...


def flatten(fn: SFunction, code: str, rl: RecordLanguage) -> Flat | None:
    """fn with every record parameter (a struct the suggestion defines) replaced by its fields, or None."""
    records = rl.records(code)
    tuples = getattr(rl, "size_tuple", None)  # sizes held by position (`std::array<int, 3> dims`): C++
    groups = [Group(p, r) for p in fn.params
              if (r := rl.record_of(p, records) if records else None) is not None
              or (tuples is not None and (r := tuples(p, fn, code)) is not None)]
    if not groups:
        return None
    bare = fn.text  # the names the function uses other than through its records: a field may not take one
    for g in groups:
        for f in g.record.fields:
            bare = rl.member(g.param.name, f).sub(" ", bare)
    taken = set(re.findall(r"\w+", bare.lower() if rl.lang == "fortran" else bare))
    # A record type that several parameters share (a GEMM's three Matrix objects) names its fields for the record,
    # not for the kernel: `cols` is A's k and B's n, so the flat names carry the parameter (`A_cols`) and the
    # fields' roles come from what the function does with them, never from a name that fits one record only.
    shared = {n for n in (g.record.name for g in groups) if sum(h.record.name == n for h in groups) > 1}
    for g in groups:
        for f in g.record.fields:
            name = f.name
            key = name.lower() if rl.lang == "fortran" else name
            if key in taken or g.record.name in shared or name.isdigit():  # prefixed by the record parameter
                name = f"{g.param.name}_{f.name}"
            taken.add(name.lower() if rl.lang == "fortran" else name)
            g.flat[f.name] = name

    def rewrite(text: str) -> str:
        for g in groups:
            for f in g.record.fields:
                text = rl.member(g.param.name, f).sub(g.flat[f.name], text)
        return text

    flat = rl.parse_flat(code, rl.flat_source(fn, groups, rewrite), fn.name)
    if flat is None:
        return None
    flat.container, flat.index, flat.kind = fn.container, fn.index, fn.kind
    owner = {n: g.param.name for g in groups for n in g.flat.values()}
    renamed = {n: f for g in groups if g.record.name not in shared for f, n in g.flat.items() if n != f}
    for p in flat.params:
        p.record_field = owner.get(p.name)
        p.field = renamed.get(p.name)
    return Flat(flat, fn, groups)


def collapse(glue, flat: Flat, assign: dict, rl: RecordLanguage) -> None:
    """Rewrite glue (made for flat.fn) into the call of the original function: each record built from its fields'
    arguments, the other parameters' arguments kept, in the original order."""
    by_param = glue.by_param
    flat_pos = {p.name: p.position for p in flat.fn.params}
    groups = {g.param.position: g for g in flat.groups}
    args: list[str] = []
    for p in flat.origin.params:
        g = groups.get(p.position)
        if g is None:
            if flat_pos.get(p.name) in by_param:
                args.append(by_param[flat_pos[p.name]])
            continue
        fields = {f: by_param[flat_pos[n]] for f, n in g.flat.items() if flat_pos.get(n) in by_param}
        outputs = {f for f, n in g.flat.items() if (r := assign.get(flat_pos.get(n))) is not None and r.is_output}
        args.append(rl.build(glue, g, fields, outputs, p.container == "pointer"))
        mapped = [f"{f}->{r.name}" for f, n in g.flat.items() if (r := assign.get(flat_pos.get(n))) is not None]
        glue.notes.append(f"{p.name}: a {g.record.name} built from its fields ({', '.join(mapped)})")
    if glue.call:  # a call statement made for the flat function (one that returns its output) takes the records too
        glue.call = glue.call.replace(f"({', '.join(glue.args)})", f"({', '.join(args)})", 1)
    glue.args = args


def split_top(text: str, brackets: str = "()") -> list[str]:
    """`text` split at the commas outside brackets (`brackets`: the opening ones then the closing ones)."""
    half = len(brackets) // 2
    depth_of = {**{c: 1 for c in brackets[:half]}, **{c: -1 for c in brackets[half:]}}
    out, depth, cur = [], 0, ""
    for ch in text:
        depth += depth_of.get(ch, 0)
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    return [*out, cur] if cur.strip() else out
