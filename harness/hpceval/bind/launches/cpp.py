"""C++ launch sites: `kernel<<<grid, block, shmem, stream>>>(args)` and `hipLaunchKernelGGL(kernel, grid, block,
shmem, stream, args)` in the suggestion's own host code (its `main`, a test routine), read as functions of the
kernel's arguments.

The statements before the launch in the same function that compute its configuration (`dim3 block(32, 32);`,
`int threads = 512; int blocks = (n + threads - 1) / threads;`, `block.x = ...;`) are carried into the driver
renamed `hp_l_<name>`; a variable the launch passes as one of the kernel's scalar arguments is replaced by the
driver's value for that parameter; file-level macros and constants are read where they are (the driver includes
the suggestion's unit, and the pruning keeps them: Found.uses). A stream argument is dropped (the harness's call
runs on the default stream and synchronises).
"""

from __future__ import annotations

import re

from hpceval.bind.launches import Found, matching, no_site, split_top
from hpceval.bind.parse import SFunction, Unit

_COMMENTS = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)
_IDENT = re.compile(r"(?<![\w.>])(?<!->)(?<!::)([A-Za-z_]\w*)\b")
_TYPE = (r"(?:(?:const|constexpr|static|register|unsigned|signed)\s+)*"
         r"(?:dim3|auto|size_t|std::size_t|long\s+long|long|int|short|unsigned|float|double|u?int(?:8|16|32|64)_t)"
         r"(?:\s+(?:int|long))*")
_DECL = re.compile(rf"^(?P<type>{_TYPE})\s+(?P<rest>[A-Za-z_].*)$", re.DOTALL)
_DECLARATOR = re.compile(r"^(?P<name>[A-Za-z_]\w*)\s*(?:=\s*(?P<init>.+)|(?P<paren>\(.*\))|(?P<brace>\{.*\}))?$",
                         re.DOTALL)
_ASSIGN = re.compile(r"^(?P<name>[A-Za-z_]\w*)(?P<member>\s*\.\s*[xyz])?\s*(?P<op>[-+*/]?=)(?!=)\s*(?P<expr>.+)$",
                     re.DOTALL)
# names a launch expression may use as they are: types, casts, arithmetic helpers of the CUDA/C++ headers
_KNOWN = {"dim3", "sizeof", "int", "unsigned", "long", "size_t", "std", "float", "double", "char", "short", "signed",
          "const", "min", "max", "ceil", "floor", "ceilf", "static_cast", "uint32_t", "uint64_t", "int64_t",
          "int32_t", "true", "false", "nullptr", "NULL", "__half", "half"}


def _statements(text: str) -> list[str]:
    """Simple statements of a function body prefix, in order (control-flow headers come out as fragments that
    match no declaration or assignment)."""
    return [s.strip() for s in re.split(r"[;{}]", text) if s.strip()]


def _sites(text: str, name: str) -> list[tuple[int, str, list[str], list[str]]]:
    """(offset, template arguments, configuration parts, kernel arguments) of every launch of `name` in text."""
    out = []
    chevron = re.compile(rf"\b{re.escape(name)}\s*(?:<(?P<targs>[^;<>]*)>)?\s*<<<(?P<cfg>.*?)>>>\s*\(", re.DOTALL)
    for mm in chevron.finditer(text):
        end = matching(text, mm.end() - 1)
        out.append((mm.start(), mm.group("targs") or "", split_top(mm.group("cfg")),
                    split_top(text[mm.end():end - 1])))
    for mm in re.finditer(r"\bhipLaunchKernelGGL\s*\(", text):
        end = matching(text, mm.end() - 1)
        parts = split_top(text[mm.end():end - 1])
        head = re.sub(r"^\(?\s*(?:HIP_KERNEL_NAME\s*\()?\s*|\s*\)?\s*\)?$", "", parts[0])
        hm = re.fullmatch(rf"{re.escape(name)}\s*(?:<(?P<targs>.*)>)?", head, re.DOTALL)
        if hm and len(parts) >= 5:
            out.append((mm.start(), hm.group("targs") or "", parts[1:5], parts[5:]))
    return sorted(out)


class _Unresolved(Exception):
    pass


def _definitions(prefix: str) -> list[tuple[str, str, str, str]]:
    """(name, kind, statement, value) for the declarations and assignments of prefix, in order; kind 'decl',
    'assign' or 'other' (a declaration of a type the harness does not evaluate, `cudaDeviceProp prop`). A
    declaration's statement is `TYPE name<init>` (one per declarator); value is what the name is computed from."""
    out = []
    for st in _statements(prefix):
        dm = _DECL.match(st)
        if dm:
            for part in split_top(dm.group("rest")):
                pm = _DECLARATOR.match(part)
                if pm:
                    value = pm.group("init") or pm.group("paren") or pm.group("brace") or ""
                    out.append((pm.group("name"), "decl", f"{' '.join(dm.group('type').split())} {part}", value))
            continue
        am = _ASSIGN.match(st)
        if am:
            out.append((am.group("name"), "assign", st, am.group("expr")))
            continue
        other = re.match(r"^[\w:<>]+\s+[*&]?\s*([A-Za-z_]\w*)\s*(?:[(={\[]|$)", st)
        if other and other.group(1) not in ("return", "else"):
            out.append((other.group(1), "other", st, ""))
    return out


def _resolve(exprs: list[str], prefix: str, subst: dict[str, str], file_names: set[str], macros: dict[str, str | None],
             sizes: set[str]) -> tuple[list[str], list[str], set[str]]:
    """The configuration expressions rewritten into the driver's namespace, the statements they need (in order),
    and the file-level names they read. Raises _Unresolved(name) for a name the harness cannot evaluate.

    Every identifier must be accounted for: a kernel argument (replaced by the driver's value), a variable the
    launching function computes before the launch (its statements carried, renamed hp_l_*), a file-level
    constant, an object-like macro (expanded: the driver's code after the suggestion's file is shielded from its
    macros), or a type or arithmetic helper of the headers (_KNOWN). Nothing else reaches the driver's code, so the
    carried text cannot name the driver's own functions or variables."""
    defs = _definitions(prefix)
    needed: dict[int, str] = {}
    uses: set[str] = set()
    seen: set[str] = set()

    def visit(expr: str, before: int) -> None:
        for mm in _IDENT.finditer(expr):
            nm = mm.group(1)
            if nm in subst or nm in seen or nm in _KNOWN:
                continue
            mine = [i for i, d in enumerate(defs[:before]) if d[0] == nm]
            if mine:
                if nm in sizes:
                    raise _Unresolved(f"{nm} (its own problem size, which the launch does not pass to the kernel)")
                if any(defs[i][1] == "other" for i in mine):
                    raise _Unresolved(f"{nm} (computed by code the harness does not evaluate)")
                seen.add(nm)
                for i in mine:
                    visit(defs[i][3], i)
                    needed[i] = defs[i][2]
            elif nm in macros:
                if macros[nm] is None:
                    raise _Unresolved(f"{nm} (a function-like macro)")
                visit(macros[nm] or "", 0)
            elif nm in file_names:
                uses.add(nm)
            else:
                raise _Unresolved(nm)

    for e in exprs:
        visit(e, len(defs))
    names = {d[0] for d in defs}

    def rename(text: str, depth: int = 0) -> str:
        def one(mm: re.Match) -> str:
            nm = mm.group(1)
            if nm in subst:
                return f"({subst[nm]})" if not re.fullmatch(r"[\w.]+", subst[nm]) else subst[nm]
            if nm in names and nm in seen:
                return f"hp_l_{nm}"
            if macros.get(nm) is not None and depth < 16:
                return f"({rename(macros[nm] or '', depth + 1)})"
            return nm
        return _IDENT.sub(one, text)

    setup = []
    for i in sorted(needed):
        st = rename(needed[i])
        setup.append(st if st.endswith(";") else st + ";")
    return [rename(e) for e in exprs], setup, uses


def _macros(unit: Unit) -> dict[str, str | None]:
    """The suggestion's macros: an object-like one's replacement text, None for a function-like one."""
    out: dict[str, str | None] = {}
    for it in unit.items:
        mm = re.match(r"\s*#\s*define\s+([A-Za-z_]\w*)(\()?[ \t]*(.*)", it.text, re.DOTALL)
        if mm and it.kind in ("preproc_def", "preproc_function_def"):
            out[mm.group(1)] = None if mm.group(2) else " ".join(mm.group(3).replace("\\\n", " ").split())
    return out


def _problem_sizes(prefix: str, kernel_args: list[str], positions: dict[int, str]) -> set[str]:
    """Variables of the launching function that the kernel's size arguments are computed from (`int n = total;`
    passes total through n): the launch's own problem size, never to be read as a constant."""
    defs = _definitions(prefix)
    sizes: set[str] = set()
    todo = [a for i, a in enumerate(kernel_args) if i in positions and re.fullmatch(r"[A-Za-z_]\w*", a)]
    while todo:
        nm = todo.pop()
        for d in defs:
            if d[0] == nm:
                for ref in _IDENT.findall(d[3]):
                    if ref not in sizes:
                        sizes.add(ref)
                        todo.append(ref)
    return sizes


def main_launch(unit: Unit, kernel: SFunction, scalars: dict[int, str]) -> Found | str:
    """The launch of `kernel` that the suggestion's host code makes, or why the harness cannot take it.

    scalars: the driver's expression for each of the kernel's scalar parameters, by position."""
    macros = _macros(unit)
    file_names = {n for it in unit.items for n in it.defines} - set(macros)
    found: list[tuple[SFunction, str, tuple]] = []
    for f in sorted(unit.functions, key=lambda f: (not f.is_main, f.index)):
        if f is kernel or f.name == kernel.name:
            continue
        text = _COMMENTS.sub(" ", f.text)
        found += [(f, text, s) for s in _sites(text, kernel.name)]
    if not found:
        return no_site(kernel.name)
    f, text, (at, targs, cfg, args) = found[0]
    where = "main" if f.is_main else f.name
    prefix = text[text.find("{") + 1:at] if "{" in text[:at] else text[:at]
    subst = {a: scalars[i] for i, a in enumerate(args) if i in scalars and re.fullmatch(r"[A-Za-z_]\w*", a)}
    sizes = _problem_sizes(prefix, args, scalars) - set(subst)
    grid, block = cfg[0], cfg[1] if len(cfg) > 1 else "1"
    shmem = cfg[2] if len(cfg) > 2 and cfg[2] not in ("0", "0u", "") else None
    exprs = [grid, block, *([shmem] if shmem else []), *([targs] if targs else [])]
    try:
        rewritten, setup, uses = _resolve(exprs, prefix, subst, file_names, macros, sizes)
    except _Unresolved as exc:
        return f"{where}'s launch of {kernel.name} uses {exc}"
    written = f"{kernel.name}{f'<{targs}>' if targs else ''}<<<{', '.join(cfg[:3])}>>>"
    if len({(s[1], tuple(s[2][:3])) for _, _, s in found}) > 1:
        written += f" (the first of {len(found)} launches, which differ)"
    return Found(grid=rewritten[0], block=rewritten[1], shmem=rewritten[2] if shmem else None,
                 targs=rewritten[-1] if targs else "", setup=setup, uses=uses, written=written, where=where)
