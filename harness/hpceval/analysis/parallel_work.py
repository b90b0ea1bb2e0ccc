"""Directive and dispatch models (OpenMP, OpenMP offload, OpenACC in C/C++ and Fortran; Kokkos, SYCL): does a
parallel construct do the work?

The usage check only asks whether a directive is there, and the thread check whether threads ran at all; a
suggestion that zeroes C in a `parallel for` and then computes the product in a plain serial loop nest passes
both. This analysis finds, in the bound function, the loops that write the kernel's outputs (`C[...] op= ...`,
`C(...) = ...`) and asks whether the deepest of those writing loop nests lies inside a construct of the model:

* OpenMP: a `parallel`, worksharing (`for`/`do`/`sections`/`workshare`/`distribute`/`loop`), `taskloop`/`task`,
  `teams` or `target` region, where the innermost such region is not a `single`/`master`/`masked` one (one
  thread); `simd` alone is vectorisation by one thread and does not count (consistent with the thread check);
* OpenMP offload: an `omp target` compute region;
* OpenACC: an `acc parallel`/`kernels`/`serial` compute region (a `data` region is not one);
* Kokkos: the argument list of a `parallel_for`/`parallel_reduce`/`parallel_scan` (its lambda; it also counts as
  a loop, since it iterates); SYCL: that of a `parallel_for` or `single_task`.

A write outside every construct still counts as the model's work when the value it stores is computed by a
construct nested in the loop that makes the write (`for i { sum = 0; <parallel reduction over j into sum>; y[i] =
sum; }`: slow, but parallel): every deepest working assignment of a scalar the write reads, in that loop before the
write, must lie in a construct, so a token reduction beside a serial loop that computes the same scalar does not.

Only writes that do work count: a literal fill (`C[i] = 0.0`) or a copy out of a local temporary is not the
kernel's work (an output that is only copied is judged by the loops that compute the temporary: a Kokkos GEMM
that zeroes a View in a `parallel_for`, computes it in a serial triple loop and copies it into C is caught there;
accessors and mirrors are views the runtime fills, not temporaries computed on the host), so a serial zeroing
loop, an early-exit clear or a serial remainder loop next to a parallel main loop of the same depth pass. The
analysis says nothing when it cannot tell: the bound function is not found,
directives come from macros (`_Pragma`, a `#define` naming omp/acc), or no output is written in a loop (writes
through aliases, helpers, library calls).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from hpceval.analysis.datamap import Directive, _balanced, _c_region_end, directives
from hpceval.analysis.sharing import _words

OMP_PARALLEL = {"parallel", "for", "do", "sections", "section", "workshare", "distribute", "loop", "taskloop", "task",
                "teams", "target"}
OMP_ONE_THREAD = {"single", "master", "masked"}
_LITERAL = re.compile(r"\(?\s*(?:\(\s*[\w:]+\s*\)\s*)?[-+]?(?:\d+\.?\d*|\.\d+)(?:[eEdD][-+]?\d+)?(?:_\w+)?[fFlLuU]*"
                      r"\s*\)?")


@dataclass(frozen=True)
class Write:
    name: str
    pos: int
    work: bool
    text: str
    copy_of: str | None = None  # the local temporary whose element a write that is no work copies

def family(usage: list[str]) -> str | None:
    """The construct family a model's usage patterns require ('omp', 'omp-target', 'acc', or the dispatching
    models 'kokkos' and 'sycl'), None for other models."""
    text = " ".join(usage)
    if re.search(r"\bomp\b|\$omp", text):
        return "omp-target" if "target" in text else "omp"
    if re.search(r"\bacc\b|\$acc", text):
        return "acc"
    if "Kokkos::parallel_" in text:
        return "kokkos"
    if "parallel_for" in text and "queue" in text:
        return "sycl"
    return None


# The dispatches whose function object runs in parallel: its argument list is the construct (a lambda defined there
# runs in it; a functor's operator() lies outside the function and says nothing). SYCL's single_task runs on the
# device like a serial `omp target` region, which the offload rule also accepts.
DISPATCH = {"kokkos": re.compile(r"(?<![\w.>])(?:Kokkos::)?parallel_(?:for|reduce|scan)\s*(?:<[^;(]*?>)?\s*\("),
            "sycl": re.compile(r"\b(?:parallel_for(?:_work_group)?|single_task)\s*(?:<[^;(]*?>)?\s*\(")}
WHERE = {"omp": "parallel construct", "omp-target": "offload (omp target) construct",
         "acc": "OpenACC compute construct (parallel/kernels/serial)", "kokkos": "Kokkos parallel dispatch",
         "sycl": "SYCL kernel (parallel_for/single_task)"}


def _dispatches(text: str, span: tuple[int, int], kind: str) -> list[tuple[int, int]]:
    """[start, end) of the argument list of each dispatch of `kind` in the span (none for the directive models)."""
    pattern = DISPATCH.get(kind)
    if pattern is None:
        return []
    return [(span[0] + m.start(), _balanced(text, span[0] + m.end() - 1))
            for m in pattern.finditer(text[span[0]:span[1]])]


def serial_work_problem(code: str, fortran: bool, function: str, outputs: set[str], kind: str) -> str | None:
    """None when the deepest loop nest writing each output lies in a construct of `kind` (or nothing is plain);
    else the evidence of `wrong_model`."""
    if not fortran and re.search(r"\b_Pragma\b|^[ \t]*#[ \t]*define\b[^\n]*\b(omp|acc|pragma)\b", code, re.MULTILINE):
        return None
    text = code.lower() if fortran else code
    span = _function_span(text, function.split("::")[-1].lower() if fortran else function.split("::")[-1], fortran)
    if span is None:
        return None
    dispatches = _dispatches(text, span, kind)
    loops = (_fortran_loops(text, span) if fortran else _c_loops(text, span)) + dispatches  # a dispatch iterates
    found = [d for d in directives(text, fortran) if span[0] <= d.start < span[1]]
    locals_ = _local_arrays(text[span[0]:span[1]], fortran, text[:span[0]])

    def covered(pos: int) -> tuple[bool, str]:
        if kind in DISPATCH:
            return any(lo <= pos < hi for lo, hi in dispatches), ""
        return _covered(pos, found, kind)

    for name in sorted(outputs):
        writes = _writes(text, span, name.lower() if fortran else name, fortran, locals_)
        problem = _serial_writer(text, writes, name, "", loops, fortran, locals_, kind, covered)
        for view in ([] if fortran or problem else _output_views(text[span[0]:span[1]], name)):
            # the output written through a view of its own storage (a SYCL host accessor of its buffer, an
            # unmanaged Kokkos View of its pointer) is the output written
            problem = _serial_writer(text, _writes(text, span, view, fortran, locals_), view,
                                     f"a view of {name}; ", loops, fortran, locals_, kind, covered)
            if problem:
                break
        if problem is None:  # only copies: the work is in the temporaries they copy (followed one step)
            for temp in sorted({w.copy_of for w in writes if w.copy_of}):
                problem = _serial_writer(text, _writes(text, span, temp, fortran, locals_), temp,
                                         f"copied into {name}; ", loops, fortran, locals_, kind, covered)
                if problem:
                    break
        if problem:
            return problem
    return None


def _serial_writer(text: str, writes: list[Write], shown: str, via: str, loops: list[tuple[int, int]], fortran: bool,
                   locals_: set[str], kind: str, covered) -> str | None:
    """The evidence (naming the array `shown`, and `via` how it reaches the output) that the deepest loop nest
    doing work among `writes` lies outside every construct, else None (also when no loop does work)."""
    writes = [w for w in writes if w.work]
    depth = {w.pos: sum(lo <= w.pos < hi for lo, hi in loops) for w in writes}
    writes = [w for w in writes if depth[w.pos] > 0]
    if not writes:
        return None
    deepest = max(depth[w.pos] for w in writes)
    nest = [w for w in writes if depth[w.pos] == deepest]
    verdicts = [covered(w.pos) for w in nest]
    if any(ok for ok, _ in verdicts):
        return None
    if any(_value_from_construct(text, w, loops, fortran, locals_, covered) for w in nest):
        return None
    why = next((why for _, why in verdicts if why), "")
    return (f"the loop nest writing {shown} ({via}`{nest[0].text.strip()[:60]}`, {deepest} loop"
            f"{'s' if deepest > 1 else ''} deep) is outside any {WHERE[kind]}{why}: the model did not do the kernel's "
            f"work")


def _value_from_construct(text: str, write: Write, loops: list[tuple[int, int]], fortran: bool, locals_: set[str],
                          covered) -> bool:
    """Whether the value `write` stores is computed in a construct of `kind` nested in the innermost loop around the
    write: each deepest working assignment, in that loop before the write, of a scalar the write reads is covered."""
    enclosing = [lp for lp in loops if lp[0] <= write.pos < lp[1]]
    if not enclosing:
        return False
    start = max(lo for lo, _ in enclosing)
    for name in _rhs_scalars(write.text, fortran):
        sets = [w for w in _writes(text, (start, write.pos), name, fortran, locals_, scalar=True) if w.work]
        depth = {w.pos: sum(lo <= w.pos < hi for lo, hi in loops) for w in sets}
        inner = [w for w in sets if depth[w.pos] > len(enclosing)]
        if not inner:
            continue
        deepest = max(depth[w.pos] for w in inner)
        if all(covered(w.pos)[0] for w in inner if depth[w.pos] == deepest):
            return True
    return False


def _rhs_scalars(statement: str, fortran: bool) -> set[str]:
    """The plain names (no subscript, call or member access) on the right of an assignment statement."""
    op = re.search(r"(?:[-+*/%&|^]=|(?<![=!<>])=(?!=))", statement)
    if not op:
        return set()
    rhs = statement[op.end():].split("!")[0] if fortran else statement[op.end():]
    return {m.group(1) for m in re.finditer(r"(?<![\w.>%])([A-Za-z_]\w*)\b(?!\s*[\[(.])(?!\s*->)", rhs)}


def _covered(pos: int, found: list[Directive], kind: str) -> tuple[bool, str]:
    """Whether a write at `pos` runs in a construct of `kind`; the reason when it does not."""
    enclosing = sorted((d for d in found if d.start <= pos < d.end and d.end > d.start), key=lambda d: d.start)
    for d in reversed(enclosing):  # innermost first
        words = _words(d)
        if kind == "acc":
            if d.family == "acc" and d.is_compute:
                return True, ""
            continue
        if d.family != "omp":
            continue
        if kind == "omp-target":
            if d.is_compute:
                return True, ""
            continue
        if words & OMP_ONE_THREAD and not words & {"taskloop"}:
            return False, f" (it runs in `omp {' '.join(sorted(words & OMP_ONE_THREAD))}`, on one thread)"
        if words & OMP_PARALLEL and not (words & {"target"} and not d.is_compute):
            return True, ""
    return False, ""


def _function_span(text: str, name: str, fortran: bool) -> tuple[int, int] | None:
    """[start, end) of the body of function `name` (C/C++: inside its braces; Fortran: header to `end`)."""
    if fortran:
        head = re.search(rf"^[ \t]*(?:[\w(),*=\s]*\s)?(?:subroutine|function)\s+{re.escape(name)}\b[^\n]*\n", text,
                         re.MULTILINE)
        if not head:
            return None
        end = re.compile(r"^[ \t]*(?:end[ \t]*$|end[ \t]*(?:subroutine|function)\b|contains\b)", re.MULTILINE)
        stop = end.search(text, head.end())
        return head.end(), stop.start() if stop else len(text)
    for m in re.finditer(rf"(?<![\w.>])(?:\w+::)*{re.escape(name)}\s*\(", text):
        close = _balanced(text, m.end() - 1)
        after = re.match(r"\s*(?:const\b|noexcept\b|override\b|->\s*[\w:<>,\s*&]+?)*\s*\{", text[close:])
        if after:
            brace = close + after.end() - 1
            return brace + 1, _balanced(text, brace, "{", "}") - 1
    return None


def _c_loops(text: str, span: tuple[int, int]) -> list[tuple[int, int]]:
    loops = []
    for m in re.finditer(r"\b(for|while)\s*\(|\bdo\s*\{", text[span[0]:span[1]]):
        start = span[0] + m.start()
        if m.group(1):
            loops.append((start, _c_region_end(text, start + len(m.group(1)))))
        else:
            brace = span[0] + m.end() - 1
            loops.append((start, _balanced(text, brace, "{", "}")))
    return loops


def _fortran_loops(text: str, span: tuple[int, int]) -> list[tuple[int, int]]:
    """do / do while / do concurrent ... end do (by nesting); labelled `do 10 i = ...` loops are not read."""
    loops, stack, pos = [], [], span[0]
    for line in text[span[0]:span[1]].splitlines(keepends=True):
        stripped = re.sub(r"^\s*\d+\s+", "", line).strip()
        if re.match(r"(\w+\s*:\s*)?do\b(?!\s+\d)", stripped):
            stack.append(pos)
        elif re.match(r"end\s*do\b", stripped) and stack:
            loops.append((stack.pop(), pos + len(line)))
        pos += len(line)
    return loops


def _local_arrays(body: str, fortran: bool, before: str = "") -> set[str]:
    """Arrays the function declares itself (temporaries): a copy out of one is not the kernel's work, the loops that
    compute it are. `before`: the code above the function, where a `using` alias of a Kokkos View may be."""
    if fortran:
        names = set()
        for line in body.splitlines():
            if "::" in line and not re.search(r"\bintent\s*\(", line):
                _, _, decl = line.partition("::")
                names |= set(re.findall(r"([a-z_]\w*)\s*\(", decl))
                if re.search(r"\b(dimension|allocatable)\b", line.partition("::")[0]):
                    names |= set(re.findall(r"([a-z_]\w*)", decl))
        return names
    names = set(re.findall(r"\b(?:double|float|int|long|auto)\s*\*?\s*([A-Za-z_]\w*)\s*(?:\[|=\s*(?:new|\(|static_cast|"
                           r"malloc|calloc|aligned_alloc|(?:sycl::)?malloc_\w+))", body))
    names |= set(re.findall(r"\bstd::(?:vector|array|unique_ptr)\s*<[^;{]*?>\s*([A-Za-z_]\w*)", body))
    # views of device data on the host: a SYCL accessor, a Kokkos mirror (copied back by the runtime, not computed)
    names |= set(re.findall(r"\b(?:auto|(?:sycl::)?(?:host_)?accessor\s*<[^;]*?>)\s*&?\s*([A-Za-z_]\w*)\s*(?:=|\{|\()"
                            r"[^;]*?\b(?:get_access|get_host_access|host_accessor|create_mirror(?:_view)?)\b", body))
    declared = before + body
    views = {"Kokkos::View", "View"} | set(re.findall(r"\busing\s+(\w+)\s*=\s*(?:Kokkos::)?View\s*<", declared))
    views |= set(re.findall(r"\btypedef\s+(?:Kokkos::)?View\s*<[^;]*>\s*(\w+)\s*;", declared))
    for v in views:  # a View the function makes itself: `Kokkos::View<double*> t("t", n)`, `Matrix Cv("C", m, n)`
        names |= set(re.findall(rf"(?<![\w:]){re.escape(v)}\s*(?:<[^;{{]*?>)?\s+([A-Za-z_]\w*)\s*[({{]\s*\"", body))
    return names


def _writes(text: str, span: tuple[int, int], name: str, fortran: bool, locals_: set[str],
            scalar: bool = False) -> list[Write]:
    """Element (or, in Fortran, whole-array) assignments to `name` inside the span, each marked work or not; with
    `scalar`, assignments to the plain name instead (`sum += ...`; a literal reset is not work)."""
    out = []
    body = text[span[0]:span[1]]
    if fortran:
        pos = span[0]
        for line in body.splitlines(keepends=True):
            stmt = re.sub(r"^\s*\d*\s*", "", line)
            if_head = re.match(r"if\s*\(", stmt)
            if if_head:
                stmt = stmt[_balanced(stmt, if_head.end() - 1):].lstrip()
            m = re.match(rf"{re.escape(name)}\s*(\(.*?\))?\s*=(?!=)(.*)", stmt)
            if m and not line.lstrip().startswith("!") and not (scalar and m.group(1)):
                rhs = m.group(2).split("!")[0].strip()
                work = bool(re.search(rf"\b{re.escape(name)}\b", rhs)) or _is_work(rhs, locals_)
                out.append(Write(name, pos + len(line) - len(line.lstrip()), work, stmt,
                                 None if work else _copy_source(rhs, locals_)))
            pos += len(line)
        return out
    # an element: `y[i]`, `C[i][j]`, or a View's / an accessor's call operator `C(i, j)`
    head = rf"(?<![\w.>:\]])\b{re.escape(name)}(?=\s*[-+*/%&|^=])" if scalar else rf"(?<![\w.>:])\b{re.escape(name)}\s*[\[(]"
    for m in re.finditer(head, body):
        end = m.end() if scalar else m.end() - 1
        while end < len(body) and body[end] in "[(":
            end = _balanced(body, end, body[end], "]" if body[end] == "[" else ")")
            while end < len(body) and body[end] in " \t":
                end += 1
        op = re.match(r"\s*(\+\+|--|[-+*/%&|^]=|=(?!=))", body[end:])
        if not op:
            continue
        stop = body.find(";", end)
        rhs = body[end + op.end():stop if stop >= 0 else len(body)].strip()
        work = op.group(1) != "=" or _is_work(rhs, locals_)
        out.append(Write(name, span[0] + m.start(), work, body[m.start():stop if stop >= 0 else None],
                         None if work else _copy_source(rhs, locals_)))
    return out


def _output_views(body: str, name: str) -> list[str]:
    """Names through which the function writes the output `name`'s own storage: a SYCL buffer made over it
    (`sycl::buffer<double, 1> ybuf(y, range)`) and the accessors of that buffer (`sycl::host_accessor h(ybuf)`,
    `ybuf.get_host_access()`), an unmanaged Kokkos View of its pointer (`View<double*> yv(y, n)`)."""
    own = rf"(?:\(\s*[\w:\s*]+\)\s*)?&?\s*{re.escape(name)}\b(?:\s*\.\s*data\s*\(\s*\))?"
    buffers = re.findall(rf"\bbuffer\s*(?:<[^;{{]*?>)?\s*([A-Za-z_]\w*)\s*[({{]\s*{own}", body)
    views = re.findall(rf"\bView\s*<[^;{{]*?>\s*([A-Za-z_]\w*)\s*[({{]\s*{own}\s*,", body)
    for b in buffers:
        views += re.findall(rf"(?:\b|host_)accessor\s*(?:<[^;{{]*?>)?\s*([A-Za-z_]\w*)\s*[({{]\s*{re.escape(b)}\b", body)
        views += re.findall(rf"\b([A-Za-z_]\w*)\s*=\s*{re.escape(b)}\s*\.\s*get_(?:host_)?access\b", body)
    return list(dict.fromkeys(v for v in [*buffers, *views] if v != name))


def _is_work(rhs: str, locals_: set[str]) -> bool:
    """Whether a plain assignment's right-hand side computes something (not a literal fill, not a copy of a
    temporary's element)."""
    return not _LITERAL.fullmatch(rhs) and _copy_source(rhs, locals_) is None


def _copy_source(rhs: str, locals_: set[str]) -> str | None:
    """The local temporary a right-hand side only copies an element of (`Cv(i, j)`, `tmp[i]`), else None."""
    copy = re.fullmatch(r"([A-Za-z_]\w*)\s*[\[(][^\])]*[\])]", rhs)
    return copy.group(1) if copy and copy.group(1) in locals_ else None
