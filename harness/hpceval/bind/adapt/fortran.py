"""Fortran type adapters: derived types as dummy arguments (`type(csr_matrix), intent(in) :: A`).

A derived type the suggestion defines (in its module, or before its procedures) is flattened to its components
(adapt.common): each component becomes a dummy of the component's type and the dummy's intent, allocatable and
pointer components become assumed-shape, `A%row_ptr` becomes `row_ptr`. The driver declares a variable of the
type (imported from the kernel's module), assigns each component from its role's glue (allocatable components
are allocated by the assignment) and copies output components back after the call.
"""

from __future__ import annotations

import re

from hpceval.bind.adapt.common import Field, Group, Record, split_top
from hpceval.bind.parse import SFunction, SParam, parse_fortran

_TYPE_BLOCK = re.compile(r"^\s*type\s*(?:,\s*[\w()]+\s*)*(?:::)?\s*(\w+)\s*$(.*?)^\s*end\s*type\b",
                         re.IGNORECASE | re.MULTILINE | re.DOTALL)
_DROPPED_ATTRS = re.compile(r"^\s*(allocatable|pointer|target|contiguous|public|private)\s*$", re.IGNORECASE)


class FortranRecords:
    lang = "fortran"
    sep = "%"
    first = True

    def records(self, code: str) -> dict[str, Record]:
        out: dict[str, Record] = {}
        for m in _TYPE_BLOCK.finditer(code):
            fields = [f for line in m.group(2).split("\n") for f in _components(line)]
            if fields:
                out[m.group(1).lower()] = Record(m.group(1), fields)
        return out

    def record_of(self, p: SParam, records: dict[str, Record]) -> Record | None:
        t = re.match(r"\s*type\s*\(\s*(\w+)\s*\)", p.type_text, re.IGNORECASE)
        return records.get(t.group(1).lower()) if t and not p.dims else None

    def member(self, param: str, f: Field) -> re.Pattern[str]:
        return re.compile(rf"\b{re.escape(param)}\s*%\s*{re.escape(f.name)}\b", re.IGNORECASE)

    def flat_source(self, fn: SFunction, groups: list[Group], rewrite) -> str:
        text = fn.text
        open_at = text.find("(")
        close_at = text.find(")", open_at)
        by_name = {g.param.name.lower(): g for g in groups}
        dummies = []
        for d in text[open_at + 1:close_at].split(","):
            g = by_name.get(d.strip().lower())
            dummies += [g.flat[f.name] for f in g.record.fields] if g else [d.strip()]
        body = text[close_at + 1:]
        lines = []
        for line in body.split("\n"):
            decl = re.match(r"\s*type\s*\(\s*\w+\s*\)(.*?)::(.*)$", line, re.IGNORECASE)
            names = [n.strip() for n in decl.group(2).split(",")] if decl else []
            hit = [by_name[n.lower()] for n in names if n.lower() in by_name]
            if not hit:
                lines.append(line)
                continue
            rest = [n for n in names if n.lower() not in by_name]
            if rest:
                lines.append(line[:line.index("::") + 2] + " " + ", ".join(rest))
            intent = re.search(r"intent\s*\(\s*\w+\s*\)", decl.group(1), re.IGNORECASE)
            for g in hit:
                for f in g.record.fields:
                    lines.append(f.decl.format(name=g.flat[f.name], intent=(", " + intent.group(0)) if intent else ""))
        return text[:open_at] + "(" + ", ".join(dummies) + ")" + rewrite("\n".join(lines))

    def parse_flat(self, code: str, flat_source: str, name: str) -> SFunction | None:
        found = [f for f in parse_fortran(code + "\n" + flat_source).functions if f.name.lower() == name.lower()]
        return found[-1] if found else None

    def build(self, glue, group: Group, args: dict[str, str], outputs: set[str], pointer: bool) -> str:
        var = f"hp_r_{group.param.name.lower()}"
        glue.decls.append(f"type({group.record.name}) :: {var}")
        args = {f: re.sub(r"^\w+=", "", a) for f, a in args.items()}  # a field after an optional left out
        glue.setup.extend(f"{var}%{f} = {a}" for f, a in args.items())
        for f in outputs & set(args):
            glue.teardown.insert(0, f"{args[f]} = {var}%{f}")
        return var


def _components(line: str) -> list[Field]:
    """The components one line of a type block declares (`integer, allocatable :: row_ptr(:), col_ind(:)`)."""
    line = line.split("!")[0]
    if "::" not in line:
        m = re.match(r"\s*(integer|real|double\s+precision|logical)(\*\d+|\s*\([^)]*\))?\s+(.*)$", line, re.IGNORECASE)
        if not m:
            return []
        spec, entities = (m.group(1) + (m.group(2) or "")), m.group(3)
    else:
        spec, entities = line.split("::", 1)
    parts = split_top(spec)
    if not parts or re.match(r"\s*(procedure|final|generic|contains)\b", parts[0], re.IGNORECASE):
        return []
    dims = next((re.search(r"\((.*)\)", a).group(1) for a in parts[1:] if re.match(r"\s*dimension", a, re.I)), None)
    attrs = [a.strip() for a in parts[1:] if not _DROPPED_ATTRS.match(a) and not re.match(r"\s*dimension", a, re.I)]
    deferred = any(re.match(r"\s*(allocatable|pointer)\s*$", a, re.I) for a in parts[1:])
    head = ", ".join([parts[0].strip(), *attrs])
    fields = []
    for e in split_top(entities):
        m = re.match(r"\s*(\w+)\s*(\(.*\))?\s*(=.*)?$", e)
        if not m:
            continue
        shape = m.group(2) or (f"({dims})" if dims else "")
        if deferred and shape:
            shape = "(" + ",".join(":" for _ in split_top(shape[1:-1])) + ")"
        fields.append(Field(m.group(1), head + "{intent} :: {name}" + shape, container=bool(shape)))
    return fields


RECORDS = FortranRecords()
