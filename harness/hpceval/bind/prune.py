"""Pruning: the build unit of a bound suggestion is the chosen function and what it needs, nothing else.

LLM completions repeat the function, trail off mid-definition, add a test main that does not compile or a script
that runs the kernel on random data at import. None of that may break the build of a function that is fine on its
own, and nothing the function needs may be left behind (a dropped helper is a NameError or link error charged to
the LLM). So, per language, the unit keeps the function, the helpers it calls (transitively), and the includes,
imports, types, constants and module-level statements those depend on; Python computes the full transitive closure
over names (functions, classes, constants, imports, statements that modify a kept value), since a module-level
constant may itself be computed by a helper.
"""

from __future__ import annotations

import re

from hpceval.bind.fortran_module import fortran_kernel_source, with_omp_lib
from hpceval.bind.parse import SFunction, Unit, fortran_uses, parse
from hpceval.bind.parse.python import PyNames, py_names

# The imports a completion prompt's file already had: the study's Python prompts were a comment and `def` in a
# file that imported the programming model's package, so a suggestion that uses `np.` or `cp.` without importing
# it is as the LLM saw it, and the harness adds the conventional import (noted in the evidence) instead of
# charging a NameError. Only names the kept code reads as globals and never defines or takes as parameters.
PY_IMPORTS = {"np": "import numpy as np", "numpy": "import numpy", "numba": "import numba", "nb": "import numba as nb",
              "math": "import math", "time": "import time", "prange": "from numba import prange",
              "njit": "from numba import njit", "jit": "from numba import jit", "os": "import os",
              "vectorize": "from numba import vectorize", "float32": "from numba import float32",
              "float64": "from numba import float64", "int32": "from numba import int32",
              "cp": "import cupy as cp", "cupy": "import cupy", "torch": "import torch", "triton": "import triton",
              "tl": "import triton.language as tl"}
# The same short name means another package per programming model (`cuda` is pycuda.driver in pyCUDA code,
# numba.cuda in Numba code); a pyCUDA import also needs the context that `import pycuda.autoinit` creates.
PY_MODEL_IMPORTS = {
    "python-pycuda": {"cuda": "import pycuda.autoinit\nimport pycuda.driver as cuda",
                      "drv": "import pycuda.autoinit\nimport pycuda.driver as drv",
                      "SourceModule": "import pycuda.autoinit\nfrom pycuda.compiler import SourceModule",
                      "gpuarray": "import pycuda.autoinit\nimport pycuda.gpuarray as gpuarray",
                      "pycuda": "import pycuda.autoinit\nimport pycuda.driver"},
    "python-numba": {"cuda": "from numba import cuda"},
    "python-cupy": {"cuda": "from cupy import cuda"},
}


def called_helpers(unit: Unit, fn: SFunction) -> list[SFunction]:
    """Functions of the unit that fn calls, transitively (first complete definition of each name)."""
    names: dict[str, SFunction] = {}
    for f in unit.functions:
        key = f.name.lower() if unit.lang == "fortran" else f.name
        if f is fn or f.name == fn.name or f.is_main:
            continue
        if key not in names or (names[key].error and not f.error):
            names[key] = f
    out: list[SFunction] = []
    todo = [fn]
    seen = {fn.name}
    while todo:
        cur = todo.pop()
        calls = {c.lower() if unit.lang == "fortran" else c for c in cur.facts.calls}
        if unit.lang == "cpp":  # a function passed by name is used too: hipLaunchKernelGGL(kernel, ...), std::thread(f)
            calls |= set(re.findall(r"[A-Za-z_]\w*", cur.text)) & set(names)
        for c in sorted(calls):
            h = names.get(c)
            if h is not None and h.name not in seen:
                seen.add(h.name)
                out.append(h)
                todo.append(h)
    return out


# --------------------------------------------------------------------------------------------------- pruning


# Thrust has no umbrella header: the ones its algorithms and containers usually come from. A suggestion that
# uses thrust:: without including any (the study's prompt files had none: "// gemv Thrust function") gets them,
# as a Python suggestion gets its model's conventional import; noted in the evidence.
THRUST_HEADERS = ("device_vector", "host_vector", "transform", "functional", "reduce", "inner_product", "copy",
                  "fill", "sequence", "for_each", "transform_reduce", "execution_policy",
                  "iterator/counting_iterator", "iterator/zip_iterator", "tuple")


def _c_prelude(text: str, extra: list[str]) -> str:
    lines = ["#include <cmath>", "#include <cstring>", "#include <algorithm>", "#include <vector>"]
    if re.search(r"\bomp_\w+\s*\(", text) and "omp.h" not in text:
        lines.append("#include <omp.h>")
    return "\n".join(lines + extra) + "\n"


def _model_headers(text: str) -> list[str]:
    """The Thrust headers, where the code uses thrust:: and includes none of them."""
    if re.search(r"\bthrust::", text) and not re.search(r"#\s*include\s*[<\"]thrust/", text):
        return [f"#include <thrust/{name}.h>" for name in THRUST_HEADERS]
    return []


def _same(text: str) -> str:
    return " ".join(text.split())


def without_repeats(code: str, unit: Unit) -> str:
    """The C/C++ code without the top-level definitions (functions, structs, classes, functor templates, typedefs)
    that repeat an earlier one's text, whitespace aside: a completion that writes the same functor three times
    said it once, while two different definitions of one name stay for the compiler to reject."""
    spans = sorted([(f.start, f.end, "function", f.text) for f in unit.functions]
                   + [(it.start, it.end, it.kind, it.text) for it in unit.items if not it.error])
    seen: set[tuple[str, str]] = set()
    cut: list[tuple[int, int]] = []
    reach = -1
    for start, end, kind, text in spans:
        if start < reach:  # inside a definition already taken or cut (a namespace's member)
            continue
        reach = end
        key = (kind, _same(text))
        if key in seen and kind not in ("preproc_include", "preproc_call", "using_declaration"):
            cut.append((start, end))
        seen.add(key)
    if not cut:
        return code
    raw = code.encode()
    for start, end in reversed(cut):
        raw = raw[:start] + raw[end:]
    return raw.decode(errors="replace")


def prune_cpp(unit: Unit, fn: SFunction, *more: SFunction,
              uses: set[str] | frozenset[str] = frozenset()) -> tuple[str, list[str]]:
    """fn (and `more` roots: the unit alone keeps every function) with the helpers they call and the file-level
    items they (or the glue: `uses`, e.g. a macro the suggestion's own launch reads) need."""
    kept_fns: list[SFunction] = []
    for root in (fn, *more):  # a function repeated with the same text is kept once
        kept_fns += [f for f in (root, *called_helpers(unit, root))
                     if all(f is not k and _same(f.text) != _same(k.text) for k in kept_fns)]
    used = set(uses)
    for f in kept_fns:
        used |= set(re.findall(r"[A-Za-z_]\w*", f.text))
    kept_items = []
    changed = True
    chosen: set[int] = set()
    while changed:
        changed = False
        for i, it in enumerate(unit.items):
            if i in chosen or it.error or any(_same(it.text) == _same(k.text) for k in kept_items):
                continue  # an identical repeat of a kept definition is that definition
            keep = False
            if it.kind in ("preproc_include", "using_declaration", "preproc_if", "preproc_ifdef"):
                keep = True
            elif it.kind == "preproc_call":
                keep = bool(re.match(r"#\s*pragma\s+(omp\s+(end\s+)?declare|acc\s+routine|once)", it.text))
            elif it.kind in ("preproc_def", "preproc_function_def", "type_definition", "alias_declaration",
                             "struct_specifier", "class_specifier", "enum_specifier", "union_specifier",
                             "declaration", "template_declaration", "namespace_alias_definition"):
                keep = bool(it.defines & used)
            if keep:
                chosen.add(i)
                kept_items.append(it)
                used |= it.uses
                changed = True
    pieces = [(it.start, it.text) for it in kept_items]
    for f in kept_fns:
        text = f.text
        if f.container and f.container[0] == "namespace" and f.container[1]:
            text = f"namespace {f.container[1]} {{\n{text}\n}}"
        pieces.append((f.start, text))
    pieces.sort(key=lambda p: p[0])
    body = "\n\n".join(t for _, t in pieces)
    dropped = _dropped(unit, kept_fns)
    headers = _model_headers(body)
    if headers:
        dropped.append("added `#include <thrust/*.h>` (the Thrust headers: the suggestion uses thrust:: and includes none)")
    return _c_prelude(body, headers) + body + "\n", dropped


def _dropped(unit: Unit, kept: list[SFunction]) -> list[str]:
    ids = {id(f) for f in kept}
    out = []
    for f in unit.functions:
        if id(f) not in ids:
            out.append(f"{f.name}{' (incomplete)' if f.error else ''}")
    return out


def prune_python(unit: Unit, fn: SFunction, model_id: str | None = None,
                 more: tuple[SFunction, ...] = ()) -> tuple[str, list[str]]:
    """The bound function and the transitive closure of what it needs, in source order.

    A worklist over names: a needed name pulls the function, class, import or assignment that defines it, and that
    definition's own free names in turn (a constant computed by a helper, `X = helper()`, or a function passed as a
    value, `np.vectorize(f)`), plus the module-level statements that modify a kept value (`T[0] = ...`,
    `T.update(...)`). What a test script does (`if __name__ == "__main__":`, calls of the bound function, names the
    kernel only takes as parameters) is not needed and stays out, so import-time code runs as written only where the
    kernel depends on it, inside the sandbox like the kernel itself. `more`: further roots (the unit alone keeps
    every function and what they need)."""
    roots = (fn, *more)
    names_at = py_names(unit.code)
    empty = PyNames(set(), set(), set())
    info = {id(x): names_at.get(x.start, empty) for x in [*unit.functions, *unit.items]}
    by_name: dict[str, SFunction] = {}
    for f in unit.functions:  # the last complete definition of a name is the one Python calls
        if all(f is not r and f.name != r.name for r in roots) and not f.is_main and (
                f.name not in by_name or not f.error):
            by_name[f.name] = f
    kept_fns = list(roots)
    chosen: set[int] = set()
    needed = set().union(*(info[id(r)].free for r in roots))
    values: set[str] = set()  # names bound by kept assignments and classes (mutable module-level values)
    own = {f.name for f in unit.functions} | {n for it in unit.items if it.kind == "class_definition" for n in it.defines}
    changed = True
    while changed:
        changed = False
        for name in sorted(needed):
            f = by_name.get(name)
            if f is not None and f not in kept_fns:
                kept_fns.append(f)
                needed |= info[id(f)].free
                changed = True
        for i, it in enumerate(unit.items):
            # a definition the parser could not read is kept where the kernel needs what it defines: the import
            # then fails on it as the file as written does (build_error), not the call on a name it lacks
            if i in chosen or (it.error and not (it.defines & needed and it.kind in ("assignment", "class_definition"))):
                continue
            nm = info[id(it)]
            if it.kind in ("import_statement", "import_from_statement", "future_import_statement"):
                # every import, as C/C++ keeps every #include: the file as written imports them, and one that
                # fails is the suggestion's build failing (checks.python_import); not one of a name the unit
                # defines itself (a second "file" importing the first: `from axpy import axpy`)
                keep = bool(it.defines & needed) or "*" in it.defines or not it.defines <= own
            elif it.kind in ("assignment", "class_definition"):
                keep = bool(it.defines & needed)
            else:  # another statement: kept when it binds or modifies what the kernel needs, unless it runs the kernel
                keep = bool((nm.binds & needed) or (nm.mutates & values)) and not any(
                    _py_script(it.text, nm, r) for r in roots)
            if keep:
                chosen.add(i)
                needed |= nm.free | nm.mutates
                if it.kind in ("assignment", "class_definition"):
                    values |= it.defines
                changed = True
    items = [unit.items[i] for i in sorted(chosen)]
    defined = set().union(*(it.defines for it in items)) if items else set()
    defined |= {f.name for f in unit.functions}
    # a parameter's own name is no module name, unless a header reads it (`def f(x, np=np)`: the module's np)
    params = {p.name for f in kept_fns for p in f.params} - set().union(*(info[id(f)].header for f in kept_fns))
    used = needed | set(re.findall(r"[A-Za-z_]\w*", " ".join(f.result for f in kept_fns)))
    known = {**PY_IMPORTS, **PY_MODEL_IMPORTS.get(model_id or "", {})}
    prelude = [line for name, line in known.items() if name in used and name not in defined and name not in params
               and _py_global_use([*kept_fns, *items], name)]
    lines = [one for line in prelude for one in line.split("\n")]
    prelude = [line for i, line in enumerate(lines) if line not in lines[:i]]  # one `import pycuda.autoinit`
    kept_fns.sort(key=lambda f: f.start)
    pieces = sorted([(it.start, it.text) for it in items] + [(f.start, f.text) for f in kept_fns])
    body = "\n\n".join(t for _, t in pieces)
    head = "\n".join(prelude) + ("\n\n" if prelude else "")
    return head + body + "\n", _dropped(unit, kept_fns) + [f"added `{p}`" for p in prelude]


def _py_script(text: str, names: PyNames, fn: SFunction) -> bool:
    """A module-level statement of a test script: the `__main__` guard, or one that calls the kernel itself."""
    return "__name__" in names.reads or fn.name in names.reads


def _py_global_use(fns: list, name: str) -> bool:
    """name is used as a module-level name (np.dot, numba.njit, prange(...)) in one of the kept pieces."""
    return any(re.search(rf"(?<![\w.]){re.escape(name)}\s*[.(]|@\s*{re.escape(name)}\b|=\s*{re.escape(name)}\b",
                         f.text) for f in fns)


def prune_fortran(unit: Unit, fn: SFunction) -> tuple[str, str, list[str]]:
    """(source, module holding fn, notes)."""
    helpers = [h for h in called_helpers(unit, fn) if h.container == fn.container or h.container is None
               or h.container[0] == "program"]
    modules = {next(iter(it.defines)): it for it in unit.items if it.kind == "module" and it.defines}
    needed: list[str] = []
    todo = list(fortran_uses(fn.text + "".join(h.text for h in helpers)))
    if fn.container and fn.container[0] == "module":
        todo += list(modules.get(fn.container[1]).uses if fn.container[1] in modules else [])
    while todo:
        name = todo.pop()
        if name in modules and name not in needed and not (fn.container and fn.container[1] == name):
            needed.append(name)
            todo.extend(modules[name].uses)
    used_modules = [modules[n].text for n in sorted(needed, key=lambda n: modules[n].start)]
    helpers = [h for h in helpers if not (h.container and h.container[0] == "module" and h.container[1] in needed)]
    procs = "\n\n".join(f.text for f in sorted([fn, *helpers], key=lambda f: f.start))
    if fn.container and fn.container[0] == "module" and fn.container[1] in modules:
        mod = modules[fn.container[1]]
        head = unit.code.encode()[mod.start:mod.contains_at].decode("utf-8", "replace") if mod.contains_at else ""
        name = fn.container[1]
        head = re.sub(r"\bcontains\s*$", "", head.rstrip(), flags=re.IGNORECASE)
        module_src = f"{head}\ncontains\n{procs}\nend module {name}\n"
    else:
        name = "hpceval_kernel"
        module_src = f"module {name}\ncontains\n{procs}\nend module {name}\n"
    source = "\n\n".join([*used_modules, module_src])
    return source, name, _dropped(unit, [fn, *helpers])


def prune_julia(unit: Unit, fn: SFunction) -> tuple[str, list[str]]:
    helpers = called_helpers(unit, fn)
    kept = [fn, *helpers]
    used = set().union(*(f.facts.idents | f.facts.calls for f in kept))
    items = [it for it in unit.items if not it.error and (it.kind == "import" or it.defines & used)]
    pieces = sorted([(it.start, it.text) for it in items] + [(f.start, f.text) for f in kept])
    return "\n\n".join(t for _, t in pieces) + "\n", _dropped(unit, kept)


def unit_alone(code: str, lang: str, model_id: str | None = None) -> str:
    """The suggestion's own unit, as the harness builds any function of it: every complete function that is not a
    test driver (`main`, a Fortran `program`, a Python script's statements) with the includes, imports, types,
    constants and helpers they need (as for a bound function, the conventional imports of a completion's file
    added). Compiled alone before binding decides anything (checks.builds_alone), so a test driver that does not
    compile is no more charged than it is for a bound function, and a kernel that does not compile always is."""
    if lang == "fortran":
        return with_omp_lib(fortran_kernel_source(code)[0])
    if lang not in ("cpp", "python"):
        return code
    unit = parse(code, lang)
    if lang == "cpp" and (once := without_repeats(code, unit)) != code:
        code, unit = once, parse(once, lang)
    roots = [f for f in unit.functions if not f.is_main]
    if not roots:
        return code
    if lang == "cpp":
        return prune_cpp(unit, *roots)[0]
    return prune_python(unit, roots[0], model_id, tuple(roots[1:]))[0]
