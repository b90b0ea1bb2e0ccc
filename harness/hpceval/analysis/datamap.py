"""Static data-mapping check for offload models (OpenMP target, OpenACC), C/C++ and Fortran.

The CPU toolchains used for offload share memory with the host (gcc's OpenACC and gfortran's target host
fallback) or keep host addresses in unmapped pointers (clang's x86-64 offload device), so two classic bugs
still produce the right numbers here, though they fail on a discrete GPU:

* a pointer dereferenced inside a compute region that no data clause ever maps (C/C++: the device gets a
  host address; Fortran maps arrays implicitly, so this rule is for C/C++ only);
* an argument array written inside a compute region whose data clauses only ever copy it *to* the device
  (`map(to:)`, `copyin`, `create`, `present`, ...), with no `from`/`tofrom`/`copy`/`copyout`/`update from`:
  the result never comes back to the host;
* an argument array read inside a compute region whose data clauses only ever allocate it on the device
  (`create`, `map(alloc:)`): the input never reaches the device.

Both are reported as the evidence of a `wrong_result`. Code that declares `requires unified_shared_memory`
is exempt. The rules look only at directive clauses and at array accesses inside the regions, so they do not
depend on the kernel.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from hpceval.analysis.cexpr import evaluate, strip_c_casts
from hpceval.analysis.pyparse import parse_python
from hpceval.spec import Language, eval_expr

NO_TRANSFER_TYPES = {"create", "alloc", "pcreate", "present_or_create", "release", "delete", "no_create"}
FROM_TYPES = {"from", "tofrom", "copy", "copyout", "pcopy", "pcopyout", "present_or_copy", "present_or_copyout",
              "self", "host"}
MAPPING_CLAUSES = {"map", "copy", "copyin", "copyout", "create", "present", "pcopy", "pcopyin", "pcopyout",
                   "pcreate", "present_or_copy", "present_or_copyin", "present_or_copyout", "present_or_create",
                   "deviceptr", "is_device_ptr", "use_device_ptr", "use_device_addr", "has_device_addr",
                   "to", "from", "self", "host", "device", "attach", "no_create"}
DEVICE_POINTER_CLAUSES = {"deviceptr", "is_device_ptr", "has_device_addr", "use_device_ptr", "use_device_addr"}
_CLAUSE = re.compile(r"\b(\w+)\s*\(")


@dataclass
class Directive:
    """One `#pragma omp|acc` / `!$omp|!$acc` line (continuations joined); [start, end) is the code it governs."""

    text: str
    start: int
    end: int
    is_compute: bool
    mentions: dict[str, set[str]] = field(default_factory=dict)
    family: str = "omp"


# Directives that govern no following statement.
STANDALONE = {"update", "enter", "exit", "barrier", "flush", "declare", "wait", "cache", "routine", "taskwait",
              "taskyield", "init", "shutdown", "set", "requires", "threadprivate", "end", "atomic", "section"}


def _balanced(text: str, start: int, open_ch: str = "(", close_ch: str = ")") -> int:
    """Index just after the bracket that closes the one at text[start]."""
    depth = 0
    for i in range(start, len(text)):
        if text[i] == open_ch:
            depth += 1
        elif text[i] == close_ch:
            depth -= 1
            if depth == 0:
                return i + 1
    return len(text)


def clause_items(directive: str) -> list[tuple[str, str]]:
    """(clause name, text inside its parentheses) for every clause with an argument list, in order."""
    return [(m.group(1).lower(), directive[m.end():_balanced(directive, m.end() - 1) - 1])
            for m in _CLAUSE.finditer(directive)]


def _clauses(directive: str) -> dict[str, set[str]]:
    """variable -> set of mapping kinds ('to', 'from', 'tofrom', 'copyin', 'is_device_ptr', ...) in one directive."""
    mentions: dict[str, set[str]] = {}
    for name, body in clause_items(directive):
        if name not in MAPPING_CLAUSES:
            continue
        kind, body = _map_kind(body) if name == "map" else (name, body)
        body = re.sub(r"\[[^\]]*\]|\([^)]*\)", "", body)
        for var in re.findall(r"[A-Za-z_]\w*", body):
            mentions.setdefault(var.lower(), set()).add(kind)
    return mentions


def _c_directives(code: str) -> list[Directive]:
    out = []
    for match in re.finditer(r"^[ \t]*#[ \t]*pragma[ \t]+(omp|acc)\b((?:[^\n]*\\\n)*[^\n]*)", code, re.MULTILINE):
        text = match.group(2).replace("\\\n", " ")
        words = text.split()
        family = match.group(1)
        if family == "omp":
            compute = "target" in words[:1] and not any(w in ("data", "update") or w.startswith(("enter", "exit"))
                                                         for w in words[1:2])
        else:
            compute = bool(words) and words[0] in ("parallel", "kernels", "serial")
        end = match.end()
        if words and words[0] not in STANDALONE and not (len(words) > 1 and words[0] == "target" and
                                                         words[1].startswith(("update", "enter", "exit"))):
            end = _c_region_end(code, match.end())
        out.append(Directive(text, match.end(), end, compute, _clauses(text), family))
    return out


def _c_region_end(code: str, pos: int) -> int:
    """End of the statement or block that follows a directive (a for loop with its body, a braced block)."""
    depth = 0
    i = pos
    while i < len(code):
        ch = code[i]
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "{" and depth == 0:
            return _balanced(code, i, "{", "}")
        elif ch == ";" and depth == 0:
            return i + 1
        i += 1
    return len(code)


def _fortran_directives(code: str) -> list[Directive]:
    lines = code.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    out = []
    i = 0
    while i < len(lines):
        m = re.match(r"\s*!\$(omp|acc)\s+(.*)", lines[i], re.IGNORECASE)
        if not m:
            i += 1
            continue
        family, text, j = m.group(1).lower(), m.group(2), i
        while text.rstrip().endswith("&") and j + 1 < len(lines):
            j += 1
            text = text.rstrip()[:-1] + " " + re.sub(r"^\s*!\$(omp|acc)\s*&?", "", lines[j], flags=re.IGNORECASE)
        words = text.lower().split()
        if family == "omp":
            compute = words[:1] == ["target"] and not (len(words) > 1 and words[1] in ("data", "update", "enter", "exit"))
        else:
            compute = bool(words) and words[0] in ("parallel", "kernels", "serial")
        end = offsets[j + 1]
        standalone = (words[0] if words else "end") in STANDALONE or (
            len(words) > 1 and words[0] == "target" and words[1].startswith(("update", "enter", "exit")))
        if not standalone:
            end = _fortran_region_end(lines, offsets, j + 1, family, words)
        out.append(Directive(text, offsets[j + 1], end, compute, _clauses(text), family))
        i = j + 1
    return out


def directives(code: str, fortran: bool) -> list[Directive]:
    """Every OpenMP/OpenACC directive of the code with the region it governs."""
    return _fortran_directives(code) if fortran else _c_directives(code)


def _fortran_region_end(lines: list[str], offsets: list[int], first: int, family: str, words: list[str]) -> int:
    """A loop construct: the do loop that follows; a block construct: up to its `!$... end <construct>`."""
    closing = re.compile(rf"\s*!\${family}\s+end\s*{words[0]}\b", re.IGNORECASE)
    body = [k for k in range(first, len(lines)) if lines[k].strip() and not re.match(r"\s*!(?!\$)", lines[k])]
    loop = {re.sub(r"\W.*", "", w) for w in words} & {"do", "loop", "simd", "distribute"}
    if loop and body and re.match(r"\s*(\w+\s*:\s*)?do\b", lines[body[0]], re.IGNORECASE):
        depth = 0
        for k in range(body[0], len(lines)):
            stripped = lines[k].strip().lower()
            if re.match(r"(\w+\s*:\s*)?do\b", stripped):
                depth += 1
            elif re.match(r"end\s*do\b", stripped):
                depth -= 1
                if depth <= 0:
                    return offsets[k + 1]
        return offsets[-1]
    for k in range(first, len(lines)):
        if closing.match(lines[k]):
            return offsets[k]
    return offsets[-1]


def _c_pointers(code: str) -> set[str]:
    names = set(re.findall(r"\*\s*(?:const\s+|restrict\s+|__restrict__\s+)*([A-Za-z_]\w*)\s*(?=[,)=;\[])", code))
    names |= set(re.findall(r"([A-Za-z_]\w*)\s*\[\s*\]\s*[,)]", code))
    return {n.lower() for n in names}


def _parameters(code: str, fortran: bool) -> set[str]:
    """Names of the dummy arguments of every function defined in the code: the data the caller gets back."""
    if fortran:
        lists = re.findall(r"^\s*(?:[\w()*=,\s]*\s)?(?:subroutine|function)\s+\w+\s*\(([^)]*)\)", code,
                           re.IGNORECASE | re.MULTILINE)
        return {n.lower() for params in lists for n in re.findall(r"\w+", params)}
    names = set()
    for params in re.findall(r"\b\w+\s*\(([^()]*)\)\s*(?:const\s*)?\{", code):
        for param in params.split(","):
            found = re.findall(r"[A-Za-z_]\w*", param)
            if found:
                names.add(found[-1].lower())
    return names


def _assignments(region: str, name: str, fortran: bool) -> int:
    """How many element assignments `name[...] = ...` (or `name(...) = ...`) the region has."""
    if fortran:
        pattern = rf"^\s*{name}\s*\([^=\n]*\)\s*=(?!=)"
        return len(re.findall(pattern, region, re.IGNORECASE | re.MULTILINE))
    return len(re.findall(rf"\b{name}\s*\[[^;]*?\]\s*=(?!=)", region, re.IGNORECASE))


def _as_written(text: str, name: str) -> str:
    """A name the analysis compares in lower case, spelled as the code spells it (evidence quotes the code)."""
    m = re.search(rf"\b{re.escape(name)}\b", text, re.IGNORECASE)
    return m.group(0) if m else name


def data_mapping_problem(code: str, lang: Language) -> str | None:
    """None when the offload data clauses are sound by these rules; else the evidence of the bug."""
    if re.search(r"requires\s+[^\n]*unified_shared_memory", code, re.IGNORECASE):
        return None
    fortran = lang.id == "fortran"
    found = directives(code, fortran)
    mentions = _mentions(found)
    pointers = set() if fortran else _c_pointers(code)
    parameters = _parameters(code, fortran)
    # functions called inside a data region of the suggestion's own that moves data: their `present` arrays are
    # the region's arrays under other names; elsewhere `present` asserts a mapping nothing in the suggestion makes
    mapped_callees = _called_in_data_regions(code, found)
    for d in (d for d in found if d.is_compute):
        region = code[d.start:d.end]
        if fortran:
            accessed = {n.lower() for n in re.findall(r"\b([A-Za-z_]\w*)\s*\(", region)}
            written = {n.lower() for n in re.findall(r"^\s*([A-Za-z_]\w*)\s*(?:\([^=\n]*\))?\s*=(?!=)", region, re.MULTILINE)}
        else:
            accessed = {n.lower() for n in re.findall(r"\b([A-Za-z_]\w*)\s*\[", region)}
            written = {n.lower() for n in re.findall(r"\b([A-Za-z_]\w*)\s*\[[^;]*?\]\s*(?:[-+*/]?=(?!=)|\+\+|--)", region)}
            local = {n.lower() for n in re.findall(r"\b(?:double|float|int|long|auto|size_t)\s+([A-Za-z_]\w*)\s*\[", region)}
            accessed -= local
            written -= local
            unmapped = sorted(name for name in accessed & pointers if name not in mentions)
            if unmapped:
                spelled = [_as_written(region, name) for name in unmapped]
                what = f"pointers {', '.join(spelled)} are" if len(spelled) > 1 else f"pointer {spelled[0]} is"
                return (f"{what} used inside an offload region but never mapped: on a discrete GPU the device would "
                        f"dereference a host address")
        reads = {name for name in accessed & parameters
                 if len(re.findall(rf"\b{name}\s*[\[(]", region, re.IGNORECASE)) > _assignments(region, name, fortran)}
        for name in sorted(reads):
            kinds = mentions.get(name, set())
            if kinds and kinds <= NO_TRANSFER_TYPES:
                return (f"{_as_written(region, name)} is read inside an offload region but only mapped "
                        f"{'/'.join(sorted(kinds))}: "
                        f"on a GPU its values would never be copied to the device")
        for name in sorted(written & parameters):
            kinds = mentions.get(name)
            if kinds is None or kinds & DEVICE_POINTER_CLAUSES or (
                    kinds == {"present"} and _enclosing_function(code, d.start, fortran) in mapped_callees):
                continue  # `present` alone in a helper its caller calls inside a data region that moves data
            if not kinds & (FROM_TYPES | {"tofrom"}):
                return (f"{_as_written(region, name)} is written inside an offload region but only mapped "
                        f"{'/'.join(sorted(kinds))}: "
                        f"on a GPU the result would never be copied back to the host")
    return None


def _called_in_data_regions(code: str, found: list[Directive]) -> set[str]:
    """The names called inside the regions of data directives (not compute ones) that move data to or from the
    device (`acc data copy(u) copyout(unew)`, `omp target data map(tofrom: y)`)."""
    names: set[str] = set()
    for d in found:
        moves = any(kinds & (FROM_TYPES | TO_TRANSFERS) for kinds in d.mentions.values())
        if not d.is_compute and moves and d.end > d.start:
            names |= {n.lower() for n in re.findall(r"\b(?:call\s+)?([A-Za-z_]\w*)\s*\(", code[d.start:d.end])}
    return names


def _enclosing_function(code: str, pos: int, fortran: bool) -> str:
    """The name of the function or subroutine whose definition precedes position pos (lowercase), "" if none."""
    pattern = (r"\b(?:subroutine|function)\s+(\w+)" if fortran
               else r"\b([A-Za-z_]\w*)\s*\([^;{}()]*(?:\([^;{}()]*\)[^;{}()]*)*\)\s*(?:const\s*)?\{")
    head = code[:pos] if fortran else re.sub(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", " ", code[:pos], flags=re.MULTILINE)
    found = [m.group(1) for m in re.finditer(pattern, head, re.IGNORECASE)]
    found = [f for f in found if f.lower() not in ("if", "for", "while", "switch", "catch")]
    return found[-1].lower() if found else ""


def _mentions(found: list[Directive]) -> dict[str, set[str]]:
    """Per variable, every data-clause kind any directive gives it; `update from(y)`/`self(y)` count as from,
    `update to(y)`/`device(y)` as copyin."""
    mentions: dict[str, set[str]] = {}
    for d in found:
        for var, kinds in d.mentions.items():
            mentions.setdefault(var, set()).update(kinds)
        if re.match(r"\s*update\b", d.text, re.IGNORECASE):  # `update from(y)` / `update self(y)` bring data back
            for var, kinds in d.mentions.items():
                if kinds & {"from", "self", "host"}:
                    mentions[var].add("from")
                if kinds & {"to", "device"}:
                    mentions[var].add("copyin")
    return mentions


# clauses that give the device an array's values from the host (an `update to` counts as copyin)
GIVES_VALUES = {"to", "tofrom", "copy", "copyin", "pcopy", "pcopyin", "present_or_copy", "present_or_copyin", "device",
                "deviceptr", "is_device_ptr", "has_device_addr", "use_device_ptr", "use_device_addr"}
OUT_ONLY = {"from", "copyout", "pcopyout", "present_or_copyout", "create", "alloc", "pcreate", "present_or_create",
            "release", "delete", "present", "no_create"}


def out_only_arrays(code: str, lang: Language) -> set[str]:
    """The arrays (lowercase) whose data clauses never give the device their values (`copyout(unew)`,
    `map(from: y)`, `create`), though at least one clause moves them back or allocates them: on a GPU their
    elements start undefined there. An output the kernel writes only in part (Jacobi's interior) comes back with
    the rest undefined; the CPU routes share memory with the host and cannot show it. Code that declares unified
    shared memory has none."""
    if re.search(r"requires\s+[^\n]*unified_shared_memory", code, re.IGNORECASE):
        return set()
    mentions = _mentions(directives(code, lang.id == "fortran"))
    return {var.lower() for var, kinds in mentions.items()
            if kinds and kinds <= OUT_ONLY and kinds & {"from", "copyout", "pcopyout", "present_or_copyout"}}


# ------------------------------------------------------------------------------------------------ array sections
TO_TRANSFERS = {"to", "tofrom", "copy", "copyin", "pcopy", "pcopyin", "present_or_copy", "present_or_copyin", "device"}
_C_LOCAL = re.compile(r"\b(?:const\s+)?(?:unsigned\s+|signed\s+)?(?:long\s+long|long|int|size_t|std::size_t|auto|"
                      r"ptrdiff_t|u?int(?:32|64)_t|unsigned)\s+([A-Za-z_]\w*)\s*=\s*([^;,{}]+);")


@dataclass
class Section:
    """One array item of a data clause: `x[lo:len]` (C) with the clause's transfer kind."""

    var: str
    kind: str
    lo: str
    length: str
    text: str
    pos: int = 0  # where its directive is: the host loops around it give the values of loop variables it names


def _map_kind(body: str) -> tuple[str, str]:
    """(map type, list) of a `map(...)` clause body: `always, to: x[0:n]` -> ("to", " x[0:n]"); none -> tofrom."""
    head, sep, rest = body.partition(":")
    if sep and re.fullmatch(r"[\w\s,]*", head):
        words = [w for w in re.split(r"[\s,]+", head.strip().lower()) if w and w not in ("always", "close", "present")]
        return (words[-1] if words else "tofrom"), rest
    return "tofrom", body


def _split_items(body: str) -> list[str]:
    items, depth, start = [], 0, 0
    for i, ch in enumerate(body):
        depth += ch in "(["
        depth -= ch in ")]"
        if ch == "," and depth == 0:
            items.append(body[start:i])
            start = i + 1
    return [*items, body[start:]]


def _c_sections(found: list[Directive]) -> tuple[list[Section], set[tuple[str, str]]]:
    """Every sectioned array item of the data clauses, and (var, kind) of items without a section."""
    sections, whole = [], set()
    for d in found:
        for clause, body in clause_items(d.text):
            if clause not in MAPPING_CLAUSES:
                continue
            kind, body = _map_kind(body) if clause == "map" else (clause, body)
            for item in _split_items(body):
                m = re.fullmatch(r"\s*([A-Za-z_]\w*)\s*((?:\[[^\]]*\]\s*)*)", item)
                if not m:
                    continue
                var, brackets = m.group(1).lower(), re.findall(r"\[([^\]]*)\]", m.group(2))
                if len(brackets) == 1 and ":" in brackets[0]:
                    lo, _, length = brackets[0].partition(":")
                    sections.append(Section(var, kind, lo.strip() or "0", length.strip(), item.strip(), d.start))
                else:
                    whole.add((var, kind))
    return sections, whole


def _c_value(expr: str, values: dict[str, int]) -> int | None:
    """An integer C expression of known names (casts dropped, `/` as C's integer division), or None."""
    try:
        value = evaluate(parse_python(strip_c_casts(expr).strip().lower(), mode="eval"), values, c_division=True)
    except (SyntaxError, ValueError, ArithmeticError, TypeError):
        return None
    return value if isinstance(value, int) else None


def _c_locals(code: str, values: dict[str, int]) -> dict[str, int]:
    """Integer locals defined once from known values (`const long n = (long)nx * ny * nz;`)."""
    out = dict(values)
    for m in _C_LOCAL.finditer(code):
        name = m.group(1).lower()
        changes = len(re.findall(rf"\b{name}\s*(?:[-+*/]?=(?!=)|\+\+|--)", code, re.IGNORECASE))
        changes += len(re.findall(rf"(?:\+\+|--)\s*{name}\b", code, re.IGNORECASE))
        if name in out or changes != 1 or re.search(rf"\bfor\s*\(\s*(?:[\w:]+\s+)*{name}\s*=", code, re.IGNORECASE):
            continue
        v = _c_value(m.group(2), out)
        if v is not None:
            out[name] = v
    return out


_C_FOR = re.compile(r"\bfor\s*\(\s*(?:[\w:]+\s+)*([A-Za-z_]\w*)\s*=\s*([^;]+);\s*(\w+)\s*(<=|<)\s*([^;]+);\s*"
                    r"(?:\+\+\s*(\w+)|(\w+)\s*\+\+|(\w+)\s*\+=\s*1)\s*\)")
_MAX_LOOP_VALUES = 50_000


@dataclass(frozen=True)
class HostLoop:
    """A counted C loop `for (T v = lo; v < hi; ++v)` (or `<=`, `v++`, `v += 1`) and the text it spans."""

    var: str
    lo: str
    hi: str
    inclusive: bool
    start: int
    end: int


def _host_loops(code: str) -> list[HostLoop]:
    loops = []
    for m in _C_FOR.finditer(code):
        var = m.group(1)
        if m.group(3) != var or (m.group(6) or m.group(7) or m.group(8)) != var:
            continue
        loops.append(HostLoop(var.lower(), m.group(2), m.group(5), m.group(4) == "<=", m.start(),
                              _c_region_end(code, m.start() + 3)))
    return loops


def _loop_values(section: Section, loops: list[HostLoop], values: dict[str, int]) -> list[dict[str, int]] | None:
    """The values of the host-loop variables a section names, one dict per iteration of the loops around its
    directive ([{}] when it names none); None when a named loop's bounds cannot be evaluated or are too many."""
    names = set(re.findall(r"[A-Za-z_]\w*", f"{section.lo} {section.length}".lower()))
    around = [lp for lp in loops if lp.start < section.pos < lp.end and lp.var in names and lp.var not in values]
    combos: list[dict[str, int]] = [{}]
    for lp in sorted(around, key=lambda lp: lp.start):  # outer first: an inner loop's bounds may name outer variables
        grown = []
        for combo in combos:
            lo, hi = _c_value(lp.lo, values | combo), _c_value(lp.hi, values | combo)
            if lo is None or hi is None:
                return None
            grown += [combo | {lp.var: v} for v in range(lo, hi + 1 if lp.inclusive else hi)]
            if len(grown) > _MAX_LOOP_VALUES:
                return None
        combos = grown
    return combos


def _cover(section: Section, loops: list[HostLoop], values: dict[str, int], covered: np.ndarray) -> bool:
    """Mark the elements `section` moves (over every iteration of the host loops it names); False when the rules
    cannot evaluate it."""
    combos = _loop_values(section, loops, values)
    if combos is None:
        return False
    for combo in combos:
        lo, length = _c_value(section.lo, values | combo), _c_value(section.length, values | combo)
        if lo is None or length is None:
            return False
        covered[max(lo, 0):max(min(lo + length, covered.size), 0)] = True
    return True


def section_problem(code: str, lang: Language, spec, cases, mapping: dict[str, str] | None = None) -> str | None:
    """C/C++ array sections that miss elements the kernel reads (to-transfers) or writes (from-transfers).

    On a shared-memory CPU route `copyin(x[0:n-1])` goes unnoticed; on a GPU the last element is never copied
    to the device. Each case's scalars give the sections' extents; the spec's footprints (Param.reads/writes)
    say which elements must travel. A section that names the variable of a counted host loop around its directive
    (`copyin(A[i*k:k])` inside `for (int i = 0; i < m; ++i)`) moves the union of its values over the loop. Only
    suggestion parameters bound to a canonical array are checked, and an array that any clause names without a
    section, or whose section the rules cannot evaluate, is skipped.
    (Fortran clauses name whole arrays in the references and are not checked.)
    """
    if lang.id == "fortran" or re.search(r"requires\s+[^\n]*unified_shared_memory", code, re.IGNORECASE):
        return None
    sections, whole = _c_sections(_c_directives(code))
    if not sections:
        return None
    loops = _host_loops(code)
    names = {k.lower(): v.lower() for k, v in (mapping or {}).items()}
    arrays = {p.name.lower(): p for p in spec.params if p.is_array}
    for case in cases:
        scalars = {p.name.lower(): int(case.inputs[p.name]) for p in spec.params if not p.is_array}
        scalars |= {k: scalars[v] for k, v in names.items() if v in scalars}
        values = _c_locals(code, scalars)
        for var in sorted({s.var for s in sections}):
            param = arrays.get(names.get(var, var))
            if param is None or (mapping and var not in names):
                continue
            shape = tuple(int(eval_expr(e, case.inputs)) for e in param.shape)
            for access, kinds, where in (("reads", TO_TRANSFERS, "copied to the device"),
                                         ("writes", FROM_TYPES, "copied back to the host")):
                moved = [s for s in sections if s.var == var and s.kind in kinds]
                if not moved or any((var, k) in whole for k in kinds):
                    continue
                need = param.footprint(access, shape).ravel()
                covered = np.zeros(need.size, dtype=bool)
                for s in moved:
                    if not _cover(s, loops, values, covered):
                        break
                else:
                    missing = np.flatnonzero(need & ~covered)
                    if missing.size:
                        verb = "reads" if access == "reads" else "writes"
                        return (f"{', '.join(s.text for s in moved)}: {missing.size} of the {need.sum()} elements of "
                                f"{var} that the kernel {verb} lie outside (first: index {missing[0]}, case "
                                f"{case.label}); on a GPU they are never {where}")
    return None
