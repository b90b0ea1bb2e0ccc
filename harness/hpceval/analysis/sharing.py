"""Static data-sharing check for directive models (OpenMP, OpenACC), C/C++ and Fortran.

A data race or a mismatched reduction is a bug on every parallel machine, but the CPU routes often cannot show
it: gcc's OpenACC host fallback runs one thread, and gfortran -O2 keeps a shared scalar such as the row sum `s`
of a GEMV in a register, so the numbers come out right. These rules read the directives and the loop they
govern and report, as the evidence of a `wrong_result`:

* a scalar declared outside a parallel loop (OpenMP `for`/`do`/`simd`/`distribute`, OpenACC `loop` in a
  `parallel` region, not in `kernels`) that the loop body assigns without being private, firstprivate, lastprivate, linear or a
  reduction variable, and not under `atomic`/`critical` (OpenMP worksharing loops: any assignment; OpenACC and
  `omp simd` loops, whose compilers privatise plain temporaries, only accumulations such as `s += ...`);
* a `reduction(op: v)` whose loop updates `v` only with another operator (`reduction(*: s)` over `s += ...`);
* a reduction variable of an offload construct mapped only `to`/`alloc` (`copyin`/`create`): the combined
  value stays on the device.

Sequential-loop indices inside a region are treated as private (Fortran's rule; C compilers and OpenACC
compilers privatise them too), `default(private|firstprivate)` switches the race rule off, and code the rules
cannot read (no directive, unknown statement shapes) is left alone: the check only ever adds a verdict when
the race is plain in the text.
"""

from __future__ import annotations

import re

from hpceval.analysis.datamap import Directive, clause_items, directives
from hpceval.spec import Language

PRIVATE_CLAUSES = ("private", "firstprivate", "lastprivate", "linear", "reduction", "in_reduction", "copyprivate")
# A reduction operator and the update operators that belong to it.
_OP_FAMILY = {"+": "+", "-": "+", "*": "*", "max": "max", "min": "min", "&": "&", "|": "|", "^": "^",
              "&&": "&&", "||": "||", "iand": "&", "ior": "|", "ieor": "^", ".and.": "&&", ".or.": "||"}
_C_DECL = re.compile(r"\b(?:const\s+|static\s+|register\s+|unsigned\s+|signed\s+)*(?:double|float|int|long|short|"
                     r"char|bool|auto|size_t|ptrdiff_t|u?int(?:8|16|32|64)_t|std::size_t|real_t|T)\b[\s*&]*"
                     r"((?:[A-Za-z_]\w*(?:\s*=\s*[^,;{}]+)?\s*,\s*[\s*&]*)*[A-Za-z_]\w*)\s*(?:=|;|\[|,|\))")


def sharing_problem(code: str, lang: Language) -> str | None:
    """None when no race or reduction mismatch is plain in the directives; else the evidence of the bug."""
    fortran = lang.id == "fortran"
    found = directives(code, fortran)
    if not found:
        return None
    for d in found:
        problem = _reduction_mapping(d) or _reduction_operator(code, d, fortran)
        if problem:
            return problem
    for d in found:
        if not _is_parallel_loop(d, found):
            continue
        problem = _race(code, d, found, fortran)
        if problem:
            return problem
    return None


def _words(d: Directive) -> set[str]:
    """The construct and clause names of a directive, without what the parentheses hold."""
    text, depth, kept = d.text.lower(), 0, []
    for ch in text:
        depth += ch == "("
        if depth == 0:
            kept.append(ch)
        depth -= ch == ")" and depth > 0
    return set(re.findall(r"[a-z_]+", "".join(kept)))


def _enclosing(d: Directive, found: list[Directive]) -> list[Directive]:
    return [e for e in found if e is not d and e.start <= d.start and d.end <= e.end and e.end > e.start]


def _is_parallel_loop(d: Directive, found: list[Directive]) -> bool:
    words = _words(d)
    if d.family == "omp":
        return bool(words & {"for", "do", "simd", "distribute", "loop"}) and not words & {"ordered", "taskloop"}
    if "loop" not in words or words & {"seq", "auto"}:
        return False
    context = words | {w for e in _enclosing(d, found) for w in _words(e)}
    return "kernels" not in context  # in kernels regions the compiler analyses dependences and finds reductions


def _reduction_vars(d: Directive) -> dict[str, str]:
    """variable -> reduction operator family of the directive's reduction clauses."""
    out = {}
    for clause, body in clause_items(d.text):
        if clause not in ("reduction", "in_reduction"):
            continue
        op, sep, names = body.partition(":")
        family = _OP_FAMILY.get(op.strip().lower())
        if sep and family:
            for name in re.findall(r"[A-Za-z_]\w*", names):
                out[name.lower()] = family
    return out


def _reduction_mapping(d: Directive) -> str | None:
    words = _words(d)
    offload = "target" in words if d.family == "omp" else bool(words & {"parallel", "kernels", "serial"})
    if not offload:
        return None
    for var in _reduction_vars(d):
        kinds = d.mentions.get(var, set())
        if kinds and kinds <= {"to", "alloc", "copyin", "pcopyin", "present_or_copyin", "create", "pcreate"}:
            return (f"reduction variable {var} is mapped only {'/'.join(sorted(kinds))}: the combined value stays on "
                    f"the device and the host never sees it")
    return None


def _updates(region: str, var: str, fortran: bool) -> set[str]:
    """The operator families with which `var` is updated in the region (compound or `v = v op ...` forms)."""
    v = re.escape(var)
    flags = re.IGNORECASE | re.MULTILINE
    ops = set()
    if not fortran:
        for m in re.finditer(rf"(?<![\w.>\]])\b{v}\s*(\+|-|\*|&&|\|\||&|\||\^)=(?!=)", region, flags):
            ops.add(_OP_FAMILY[m.group(1)])
        ops |= {"+" for _ in re.finditer(rf"(?<![\w.>\]])\b{v}\s*(\+\+|--)|(\+\+|--)\s*{v}\b", region, flags)}
    for m in re.finditer(rf"(?<![\w.>\]%])\b{v}\s*=(?!=)\s*([^;\n]+)", region, flags):
        rhs = m.group(1).strip().lower()
        call = re.match(r"(?:std::)?f?(max|min)\s*\((.*)\)$", rhs)
        if call and re.search(rf"\b{v}\b", call.group(2), re.IGNORECASE):
            ops.add(call.group(1))
            continue
        head = re.match(rf"{v}\s*(\+|-|\*|&&|\|\||&|\||\^|\.and\.|\.or\.)(?!=)", rhs, re.IGNORECASE)
        tail = re.search(rf"(\+|\*)\s*{v}\s*$", rhs, re.IGNORECASE)
        if head:
            ops.add(_OP_FAMILY[head.group(1).lower()])
        elif tail:
            ops.add(_OP_FAMILY[tail.group(1)])
        elif re.search(rf"\b{v}\b", rhs, re.IGNORECASE):
            ops.add("?")  # an update the rules cannot classify (a ternary, a call): say nothing
    return ops


def _reduction_operator(code: str, d: Directive, fortran: bool) -> str | None:
    region = code[d.start:d.end]
    for var, family in _reduction_vars(d).items():
        ops = _updates(region, var, fortran)
        if len(ops) == 1 and "?" not in ops and family not in ops:
            (used,) = ops
            return (f"reduction({family}: {var}) but the loop updates {var} with `{used}`: each thread's partial "
                    f"result starts from the identity of `{family}` and is combined with it, so the sum is wrong")
    return None


def _protected(code: str, found: list[Directive], fortran: bool) -> list[tuple[int, int]]:
    """Spans of statements under `atomic` or inside `critical`, where a shared update is not a race."""
    spans = []
    for d in found:
        words = _words(d)
        if "critical" in words and "end" not in words:
            spans.append((d.start, d.end))
        elif "atomic" in words and "end" not in words:
            stop = code.find("\n", d.start + 1)
            spans.append((d.start, len(code) if stop < 0 else stop + 1))
    return spans


def _private_names(d: Directive, found: list[Directive], code: str, fortran: bool) -> set[str] | None:
    """Names private in the loop of `d`; None when a default clause makes everything private."""
    names: set[str] = set()
    # What an enclosing OpenMP parallel region privatises is per thread, so private in its worksharing loops;
    # an OpenACC gang's private copy is shared by the gang's vector lanes, and a SIMD loop's lanes share the
    # thread's copy: there only the loop's own clauses count.
    per_thread = d.family == "omp" and not _words(d) & {"simd"}
    scopes = [d, *(e for e in _enclosing(d, found) if per_thread and _words(e) & {"parallel", "teams"})]
    for e in scopes:
        for clause, body in clause_items(e.text):
            if clause == "default" and body.strip().lower() in ("private", "firstprivate"):
                return None
            if clause in PRIVATE_CLAUSES:
                body = body.split(":", 1)[-1] if clause in ("reduction", "in_reduction", "linear") else body
                names |= {n.lower() for n in re.findall(r"[A-Za-z_]\w*", body)}
    for e in found:  # threadprivate variables have a copy per thread wherever they are used
        if "threadprivate" in _words(e):
            names |= {n.lower() for _, body in clause_items(e.text) for n in re.findall(r"[A-Za-z_]\w*", body)}
    region = code[d.start:d.end]
    if fortran:
        names |= {n.lower() for n in re.findall(r"^\s*(?:\w+\s*:\s*)?do\s+(\w+)\s*=", region, re.IGNORECASE | re.MULTILINE)}
        return names
    names |= {n.lower() for n in re.findall(r"\bfor\s*\(\s*(?:[\w:<>]+\s+)*?\**([A-Za-z_]\w*)\s*[=:]", region)}
    declared_in = [region]
    if per_thread:
        # a worksharing loop inside `omp parallel { ... }`: what the parallel block declares is per thread
        declared_in += [code[e.start:e.end] for e in _enclosing(d, found)
                        if "parallel" in _words(e) and not _words(e) & {"for", "do", "loop"}]
    for text in declared_in:
        for m in _C_DECL.finditer(text):
            names |= {n.lower() for n in re.findall(r"(?:^|,)\s*[\s*&]*([A-Za-z_]\w*)", m.group(1))}
    return names


def _written_scalars(region: str, fortran: bool, reduction_only: bool) -> dict[str, int]:
    """name -> offset in the region of each scalar assignment (first one)."""
    out: dict[str, int] = {}
    if fortran:
        pattern = r"^[ \t]*([A-Za-z_]\w*)\s*=(?!=)\s*([^\n]*)"
        flags = re.IGNORECASE | re.MULTILINE
    else:
        pattern = r"(?<![\w.>\]\)*])([A-Za-z_]\w*)\s*((?:[-+*/%&|^]|<<|>>)?=(?!=)[^;]*)"
        flags = re.MULTILINE
    for m in re.finditer(pattern, region, flags):
        name, rest = m.group(1).lower(), ("=" if fortran else "") + m.group(2)
        if name in ("if", "while", "for", "return", "else", "do"):
            continue
        if reduction_only and not (re.match(r"\s*[-+*&|^]=", rest) or
                                   re.match(rf"\s*=\s*{re.escape(name)}\s*[-+*]|\s*=.*[+*]\s*{re.escape(name)}\s*$",
                                            rest, re.IGNORECASE)):
            continue
        if reduction_only and _reset_first(region, name, fortran):
            continue  # a temporary set afresh in each iteration: OpenACC compilers privatise it
        out.setdefault(name, m.start())
    if not fortran:
        for m in re.finditer(r"(?<![\w.>\]])([A-Za-z_]\w*)\s*(?:\+\+|--)|(?:\+\+|--)\s*([A-Za-z_]\w*)", region):
            out.setdefault((m.group(1) or m.group(2)).lower(), m.start())
    return out


def _reset_first(region: str, name: str, fortran: bool) -> bool:
    """Whether the first mention of `name` in the region is a plain assignment that does not read it."""
    first = re.search(rf"(?<![\w.>%])\b{re.escape(name)}\b", region, re.IGNORECASE)
    if first is None:
        return False
    assign = re.match(rf"{re.escape(name)}\s*=(?!=)\s*([^;\n]*)", region[first.start():], re.IGNORECASE)
    return bool(assign) and not re.search(rf"\b{re.escape(name)}\b", assign.group(1), re.IGNORECASE)


def _fortran_arrays(code: str) -> set[str]:
    """Names a Fortran declaration gives dimensions (or `dimension(...)`/`allocatable`): not scalars."""
    arrays = set()
    for line in code.splitlines():
        if "::" not in line:
            continue
        attrs, _, names = line.partition("::")
        if re.search(r"\bdimension\s*\(|\ballocatable\b|\bpointer\b", attrs, re.IGNORECASE):
            arrays |= {n.lower() for n in re.findall(r"([A-Za-z_]\w*)(?:\s*\([^)]*\))?", names)}
        arrays |= {n.lower() for n in re.findall(r"([A-Za-z_]\w*)\s*\(", names)}
    return arrays


def _race(code: str, d: Directive, found: list[Directive], fortran: bool) -> str | None:
    private = _private_names(d, found, code, fortran)
    if private is None:
        return None
    region = code[d.start:d.end]
    before = code[:d.start]
    protected = _protected(code, found, fortran)
    arrays = _fortran_arrays(code) if fortran else set()
    # OpenACC compilers and SIMD vectorisers privatise a temporary set afresh in each iteration; what they cannot
    # make right is an accumulation without a reduction clause
    words = _words(d)
    lanes_only = d.family == "acc" or ("simd" in words and not words & {"for", "do", "distribute"})
    written = _written_scalars(region, fortran, reduction_only=lanes_only)
    for name, offset in written.items():
        if name in private or name in arrays or name in _reduction_vars(d):
            continue
        if not re.search(rf"\b{re.escape(name)}\b", before, re.IGNORECASE):
            continue  # not a variable of the enclosing scope (a macro, a name the rules misread)
        at = d.start + offset
        if any(lo <= at < hi for lo, hi in protected):
            continue
        kind = "reduction update of" if lanes_only else "assignment to"
        return (f"data race: {kind} {name} inside a parallel loop (`{d.family} {d.text.strip()[:60]}`), where "
                f"{name} is shared: declare it inside the loop or list it in private(...) / reduction(...)")
    return None
