"""Compile first: the suggestion's own unit is built alone, and the compiler decides what no analysis may guess.

Why: binding used to decide before anything was compiled. Code that does not compile (an undeclared array, a
Fortran `result` clause on a subroutine, an invalid OpenMP clause) became `unbindable` (outside the score) whenever
the binder could not map its signature, and `build_error` when it could: the same answer with one extra parameter
flipped between the two. And the completeness analysis, which reads a recovered parse, called complete code
`incomplete` ("uses types it never defines: `i`" for a Kokkos `y(i) = 0;`).

What "the unit alone" is (bind.prune.unit_alone): every function of the suggestion that is not a test driver,
with what those need, as the harness builds any function it binds; in the context a bound build gives it (C/C++:
the driver's text before its inclusion, i.e. the standard headers and the model's headers; Fortran: the module
wrapper; Python: the completion file's conventional imports). The commands are the toolchain's own build steps,
stopped before code generation and linking (`-fsyntax-only`; nvcc: `-c` of the one file); Python is imported in
the sandbox as the driver imports it (module-level code runs, a `__main__` block does not).

When it runs (the overhead): only where the verdict would otherwise be decided without a compiler, i.e. when
binding failed (before `incomplete`, not-the-kernel `wrong_result` or `unbindable` is said) and when the
completeness analysis claims names the code never defines. A bound suggestion without such a claim pays nothing:
its bound build compiles it anyway. Results are cached per (normalized unit, model, toolchain version), so the
probe's near-tied bindings and repeated evaluations compile a unit once.

Precedence (README "Verdicts"): no_code > incomplete > build_error > (binding) wrong_result / unbindable. A missing
name is `incomplete` only when the compiler confirms it (reports that very name undeclared, or for Fortran called
without an interface); code that fails for another reason is `build_error` with the compiler's own words, and code
that builds alone is never called incomplete for a name the compiler accepted.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from hpceval.contracts import ProcResult

# What compilers say of a name nobody declared (g++, clang, nvcc/EDG, gfortran, Python).
_Q, _E = "[‘'\"`]", "[’'\"`]"
UNDECLARED = [re.compile(p) for p in (
    rf"{_Q}(\w+){_E} was not declared in this scope", rf"{_Q}(\w+){_E} does not name a type",
    rf"{_Q}(\w+){_E} has not been declared", rf"use of undeclared identifier {_Q}(\w+){_E}",
    rf"unknown type name {_Q}(\w+){_E}", r'identifier "(\w+)" is undefined', rf"{_Q}(\w+){_E} is not a type",
    rf"Derived type {_Q}(\w+){_E} at \(1\) is being used before it is defined",
    rf"Cannot open module file {_Q}(\w+)\.mod{_E}", rf"Function {_Q}(\w+){_E} at \(1\) has no IMPLICIT type",
    rf"Procedure {_Q}(\w+){_E} called with an implicit interface", rf"NameError: name {_Q}(\w+){_E} is not defined",
)]
# Languages whose compiler rejects every name it cannot resolve (C/C++, Fortran with the implicit-interface
# warning): a unit that builds alone there defines (or includes) every name it uses. Python resolves names when
# a function runs, so its import confirms nothing about the helpers a function calls.
CONFIRMS_NAMES = frozenset({"cpp", "fortran"})
_SOURCE = re.compile(r"\.(c|cc|cpp|cxx|cu|f|f90|f95|f03|F90)$")
# The import, then each call `M.attr(...)` of the unit where the module's global M is a module lacking `attr`
# (`numba.axpy`): a helper nobody defines, said by the interpreter (ABSENT), since no import calls the function.
PY_IMPORT = ("import importlib.util as u, ast, sys, types\n"
             "s = u.spec_from_file_location('suggestion', 'kernel.py'); m = u.module_from_spec(s)\n"
             "s.loader.exec_module(m)\n"
             "for n in ast.walk(ast.parse(open('kernel.py').read())):\n"
             "    f = getattr(n, 'func', None)\n"
             "    if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name):\n"
             "        g = getattr(m, f.value.id, None)\n"
             "        if isinstance(g, types.ModuleType) and not hasattr(g, f.attr):\n"
             "            print(f'hpceval: module {g.__name__} has no attribute {f.value.id}.{f.attr}', file=sys.stderr)")
ABSENT = re.compile(r"hpceval: module ([\w.]+) has no attribute (\w+\.\w+)")


@dataclass(frozen=True)
class Alone:
    """How the unit alone built: `built` None when there is nothing to compile it with (no toolchain step)."""

    built: bool | None
    evidence: str = ""
    undeclared: frozenset[str] = field(default_factory=frozenset)
    timed_out: bool = False
    absent: tuple[str, ...] = ()  # Python: module attributes the code calls and the module lacks (`numba.axpy`)


def names_reported(output: str) -> frozenset[str]:
    """Names the compiler (or the import) reports undeclared, unknown, or called without any interface."""
    return frozenset(m.group(1) for p in UNDECLARED for m in p.finditer(output))


def alone_argv(step: list[str], source: str, lang: str) -> list[str]:
    """A toolchain build step turned into a compile of `source` alone: the step's compiler and flags, its sources,
    output and link arguments dropped; `-fsyntax-only` (nvcc and wrappers over it: `-c` to an object)."""
    out: list[str] = []
    skip = False
    for arg in step[1:]:
        if skip:
            skip = False
            continue
        if arg == "-o":
            skip = True
            continue
        if _SOURCE.search(arg) or arg.startswith(("-l", "-L")) or (lang == "fortran" and arg == "-w"):
            continue
        out.append(arg)
    if lang == "fortran":
        out.append("-Wimplicit-interface")  # an external call nobody defines: the compiler names it
    tail = ["-c", source, "-o", "alone.o"] if "nvcc" in Path(step[0]).name else ["-fsyntax-only", source]
    return [step[0], *out, *tail]


def alone_steps(build_steps: list[list[str]], lang: str, source: str) -> list[list[str]]:
    """The commands that build the unit alone, from the toolchain's own build steps (reused, not restated)."""
    if not build_steps:
        return []
    if lang == "python":
        return [[build_steps[0][0], "-c", PY_IMPORT]]
    if lang == "julia":
        return build_steps  # the toolchain's build is a parse of kernel.jl already
    return [alone_argv(step, source, lang) for step in build_steps
            if any(_SOURCE.search(arg) for arg in step)][:1]


def from_result(result: ProcResult | None, first_errors: Callable[[ProcResult], str], lang: str) -> Alone:
    if result is None:
        return Alone(built=None)
    output = (result.stderr or "") + "\n" + (result.stdout or "")
    names = names_reported(output)
    if result.timed_out:
        return Alone(built=False, evidence="building the suggestion alone timed out", timed_out=True)
    if result.returncode != 0:
        evidence = first_errors(result) if lang != "python" else _python_failure(output)
        return Alone(built=False, evidence=evidence, undeclared=names)
    absent = tuple(sorted({m.group(2) for m in ABSENT.finditer(output)}))
    return Alone(built=True, undeclared=names, absent=absent)  # Fortran's implicit-interface warnings: names, yet it builds


def _python_failure(output: str) -> str:
    lines = [line for line in output.strip().splitlines() if line.strip()]
    last = next((i for i in range(len(lines) - 1, -1, -1) if re.match(r"\w+(Error|Exception|Exit)\b", lines[i])), None)
    where = [line.strip() for line in lines if line.strip().startswith('File "kernel.py"')][-1:]
    head = "the suggestion fails when imported: "
    return head + " | ".join([*where, *(lines[last:last + 1] if last is not None else lines[-3:])])[:1200]


@dataclass
class Decision:
    """What compile-first concludes: `incomplete` (confirmed missing names), `build_error`, or nothing (None)."""

    verdict: str | None
    evidence: str = ""


def decide(reason: str | None, missing: list[str], alone: Alone, lang: str, recovered: bool = False) -> Decision:
    """Precedence of the analysis' reason and the compiler's answer.

    reason: the completeness analysis' reason (None: complete); missing: the names it says nobody defines;
    recovered: the parser the analysis read had to recover from syntax it did not understand.
    """
    if alone.built and alone.absent and not (reason and not missing):
        return Decision("incomplete", "incomplete: calls helpers it never defines: "
                        + ", ".join(f"`{a}`" for a in alone.absent) + " (confirmed by importing it: the module has "
                        "no such attribute)")
    if reason and not missing:  # structural: cut off, signature or declarations only
        if alone.built and recovered:
            return Decision(None)  # the parser, not the code, lost the function: the compiler accepted it
        return Decision("incomplete", reason)
    if missing:
        if alone.built is None:
            return Decision("incomplete", reason or "")  # nothing to ask: the analysis stands, as before
        confirmed = [n for n in missing if n in alone.undeclared]
        if confirmed:
            return Decision("incomplete", _confirmed(reason or "", missing, confirmed, alone))
        if lang not in CONFIRMS_NAMES and alone.built:
            return Decision("incomplete", reason or "")  # Python: an import never resolves a function's calls
        if not alone.built:
            return Decision("build_error", alone.evidence)
        return Decision(None)
    if alone.built is False:
        return Decision("build_error", alone.evidence)
    return Decision(None)


def _confirmed(reason: str, missing: list[str], confirmed: list[str], alone: Alone) -> str:
    """The analysis' reason with only the names the compiler confirmed."""
    for name in missing:
        if name not in confirmed:
            reason = re.sub(rf",?\s*`{re.escape(name)}`", "", reason)
    reason = re.sub(r"(never defines|helpers):\s*,\s*", r"\1: ", reason)
    return reason + " (confirmed by the compiler: " + ", ".join(f"`{n}`" for n in confirmed) + ")"


class AloneCache:
    """Results of units built alone, per content key, for the evaluator's lifetime (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._done: dict[str, Alone] = {}

    @staticmethod
    def key(unit: str, model_id: str, toolchain: str, version: str, flags: list[str]) -> str:
        return hashlib.sha256("\0".join([unit, model_id, toolchain, version, *flags]).encode()).hexdigest()

    def get(self, key: str) -> Alone | None:
        with self._lock:
            return self._done.get(key)

    def put(self, key: str, alone: Alone) -> Alone:
        with self._lock:
            if len(self._done) > 4096:
                self._done.clear()
            self._done[key] = alone
        return alone


def missing_names(reason: str | None) -> list[str]:
    """The names a completeness reason says the code never defines (helpers, types, modules, subroutines)."""
    if not reason or "never defines" not in reason:
        return []
    return re.findall(r"`(\w+)`", reason.split("(after dropping")[0])


DRIVER_INCLUSION_END = "#undef main\n"  # bind.render_unit: the line after the driver's `#include` of the suggestion


def alone_files(unit: str, spec, lang, hooks, driver_ext: str | None) -> tuple[dict[str, str], str]:
    """(files, the file to compile) of the unit alone. C/C++: the bound unit's driver cut right after it includes
    the suggestion, so the suggestion sees exactly the headers and declarations a bound build gives it."""
    from hpceval.bind import canonical_binding, render_unit

    files = render_unit(unit, spec, lang, canonical_binding(spec, lang), hooks, driver_ext)
    if lang.id == "cpp":
        name = next(n for n in files if n.startswith("driver."))
        driver = files[name]
        cut = driver.index(DRIVER_INCLUSION_END, driver.index("#define main hpceval_suggestion_main"))
        files[f"alone.{name.split('.', 1)[1]}"] = driver[:cut + len(DRIVER_INCLUSION_END)]
        del files[name]
        return files, f"alone.{name.split('.', 1)[1]}"
    files = {n: t for n, t in files.items() if not n.startswith("driver.")}
    return files, next(iter(files))


# A compiler message placed in a file: `driver.cpp:120:5: error: ...` (gfortran's place joined to its line by
# checks.base.first_errors).
# A name the suggestion defines that the driver defines too: placed in the driver's text, caused by the suggestion.
_CLASH = re.compile(r"redefinition of|conflicting declaration|previous declaration|redeclared as different kind")
_PLACED = re.compile(r"^\s*(?:\S*/)?([\w.+-]+\.\w+):\d+")


def glue_fault_lines(evidence: str) -> list[str]:
    """The build's error lines when every one of them lies in the harness's driver (the glue around the call), else
    []. A linker complaint (a helper declared and never defined), a clash with a name the suggestion defines, or an
    error in the suggestion's file is not the glue's; neither is an error the compiler places nowhere."""
    from hpceval.checks.base import LINKER

    lines = [line for line in evidence.splitlines() if line.strip()]
    if not lines or any(LINKER.search(line) or "ld returned" in line or _CLASH.search(line) for line in lines):
        return []
    places = [_PLACED.match(line) for line in lines if "error" in line.lower()]
    if not places or not all(p and p.group(1).startswith("driver.") for p in places):
        return []
    return lines


_UNDEFINED_REFERENCE = re.compile(r"undefined reference to [`'‘\"]([A-Za-z_][\w:]*)")


def declared_never_defined(code: str, lang: str, build_output: str) -> list[str]:
    """C/C++: the functions the linker reports undefined that the suggestion itself declares (a prototype) and
    never defines: a helper that is missing, so the answer is `incomplete`, not a build failure of what it wrote.
    A name the suggestion does not declare (a library the link lacks) is not one."""
    if lang != "cpp":
        return []
    from hpceval.bind.parse import parse_cpp

    defined = {f.name.split("::")[-1] for f in parse_cpp(code).functions}
    found = []
    for name in dict.fromkeys(m.group(1).split("::")[-1] for m in _UNDEFINED_REFERENCE.finditer(build_output)):
        if name not in defined and re.search(rf"\b{re.escape(name)}\s*\([^;{{}}]*\)\s*(?:const\s*)?;", code):
            found.append(name)
    return found

