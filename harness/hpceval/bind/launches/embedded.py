"""CUDA kernels held in Python strings that only the suggestion's script launches: a CuPy `RawKernel` (or a
`RawModule`'s `get_function`) launched as `k(grid, block, (args...))`, a pyCUDA `SourceModule` function launched as
`k(args..., block=(...), grid=(...))`.

The kernel's parameters are its CUDA signature (parsed with the C++ parser and mapped to the kernel's roles as a
`__global__` kernel of cpp-cuda is). A launcher is appended to the unit, as for numba.cuda and Triton
(launches.python):

    def _hpceval_launch_<object>(<the kernel's mapped parameters>):
        <the driver's arrays copied to the device in the kernel's element types; sizes as Python ints>
        <the script's statements that compute the configuration, renamed _hp_*; its size names are the kernel's>
        <object>(<grid>, <block>, (<device arrays, scalars in the kernel's C types>))     # or pyCUDA's keywords
        <synchronise; every array the kernel may write copied back>

The copies lie outside the timed region of a GPU model (its kernel-only time is what timing reports). Only a
module-level kernel object launched at module level or from a `main`-like function qualifies: a function of the
suggestion that launches it is itself the candidate (its parameters are the suggestion's choice). Where the script's
configuration reads something the harness cannot evaluate (a device query), the documented default (256 threads,
16x16 in 2-D, over the largest size) is used and the evidence says so.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from hpceval.analysis.pyparse import parse_python
from hpceval.bind.launches import default_note, no_site, taken_note
from hpceval.bind.launches.python import PREFIX, _aliases, _renamed, _targets, _Unresolved, carried
from hpceval.bind.mapping import Mapping, NoMapping, find_mapping
from hpceval.bind.parse import SFunction, parse_cpp
from hpceval.bind.roles import KernelRoles

_MAIN_LIKE = re.compile(r"^(?:main|run|demo|test\w*|bench\w*|example)$")


@dataclass
class Embedded:
    obj: str  # the module-level name of the kernel object
    library: str  # cupy | pycuda
    kernel: SFunction  # its CUDA signature
    mapping: Mapping
    source: str = ""  # the launcher
    note: str = ""


def _strings(tree: ast.Module) -> dict[str, str]:
    return {t.id: n.value.value for n in tree.body if isinstance(n, ast.Assign) and isinstance(n.value, ast.Constant)
            and isinstance(n.value.value, str) for t in n.targets if isinstance(t, ast.Name)}


def _text(node: ast.AST | None, strings: dict[str, str]) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return strings.get(node.id) if isinstance(node, ast.Name) else None


def _arg(call: ast.Call, pos: int, kw: str) -> ast.AST | None:
    return call.args[pos] if len(call.args) > pos else next((k.value for k in call.keywords if k.arg == kw), None)


def _objects(tree: ast.Module) -> dict[str, tuple[str, str, str]]:
    """Module-level kernel objects: name -> (library, kernel name, CUDA source)."""
    strings, modules, out = _strings(tree), {}, {}
    for n in tree.body:
        if not (isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)
                and isinstance(n.value, ast.Call)):
            continue
        name, call, func = n.targets[0].id, n.value, ast.unparse(n.value.func).split(".")[-1]
        if func == "RawKernel" and (src := _text(_arg(call, 0, "code"), strings)) is not None:
            kname = _text(_arg(call, 1, "name"), strings)
            if kname:
                out[name] = ("cupy", kname, src)
        elif func in ("RawModule", "SourceModule") and (src := _text(_arg(call, 0, "code" if func == "RawModule"
                                                                             else "source"), strings)) is not None:
            modules[name] = ("cupy" if func == "RawModule" else "pycuda", src)
        elif (func == "get_function" and isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name)
              and call.func.value.id in modules and (kname := _text(_arg(call, 0, "name"), strings))):
            lib, src = modules[call.func.value.id]
            out[name] = (lib, kname, src)
    return out


def _site(tree: ast.Module, obj: str) -> tuple[ast.Call, list[ast.AST]] | None | str:
    """The first call of `obj` and the assignments before it in its scope; a string (the launching function's
    name) where a function other than a main-like one launches it."""
    for scope in [tree, *(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef))]:
        body = scope.body
        calls = [c for st in body for c in ast.walk(st) if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)
                 and c.func.id == obj and not _inside_def(st, c, scope)]
        if not calls:
            continue
        if isinstance(scope, ast.FunctionDef) and not _MAIN_LIKE.match(scope.name):
            return scope.name
        call = min(calls, key=lambda c: (c.lineno, c.col_offset))
        stmts = [s for s in ast.walk(scope) if isinstance(s, (ast.Assign, ast.AnnAssign)) and s.lineno < call.lineno
                 and not _inside_def(scope, s, scope)]
        if isinstance(scope, ast.FunctionDef):
            stmts = [s for s in tree.body if isinstance(s, (ast.Assign, ast.AnnAssign))] + stmts
        return call, sorted(stmts, key=lambda s: (s.lineno, s.col_offset))
    return None


def _inside_def(root: ast.AST, node: ast.AST, scope: ast.AST) -> bool:
    """node lies in a function nested in root (other than scope itself)."""
    for d in ast.walk(root):
        if isinstance(d, (ast.FunctionDef, ast.Lambda)) and d is not scope and any(
                x is node for x in ast.walk(d)):
            return True
    return False


def _unwrap(node: ast.AST) -> ast.AST:
    """`drv.In(A)`, `np.int32(n)`, `x.gpudata`, `int(n)` -> what they wrap."""
    while True:
        if isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords:
            node = node.args[0]
        elif isinstance(node, ast.Attribute) and node.attr in ("gpudata", "data", "ptr"):
            node = node.value
        else:
            return node


def _numpy_type(p) -> str:
    if p.kind == "real":
        return "float32" if p.dtype == "float32" else "float64"
    t = p.spelled  # `#define IDX long` is a long
    if re.search(r"\b(?:long|size_t|int64_t|ptrdiff_t)\b", t):
        return "uint64" if re.search(r"\b(?:unsigned|size_t|uint64_t)\b", t) else "int64"
    return "uint32" if "unsigned" in t else "int32"


def embedded_launch(code: str, kr: KernelRoles) -> Embedded | str | None:
    """The launcher of the string-held CUDA kernel that only the script launches (Embedded), why there is none
    where one was found but not taken (a string), or None where the code holds no such kernel."""
    try:
        tree = parse_python(code)
    except SyntaxError:
        return None
    why = None
    for obj, (library, kname, src) in _objects(tree).items():
        kernel = next((f for f in parse_cpp(src).functions if f.name == kname and f.params), None)
        if kernel is None:
            continue
        site = _site(tree, obj)
        if isinstance(site, str):
            continue  # a function of the suggestion launches it: that function is the candidate
        try:
            m = find_mapping(kernel, kr, "cpp")
        except NoMapping as exc:
            why = f"{kname}: {exc}"
            continue
        if any(m.assign.get(p.position) is None for p in kernel.params):
            why = f"{kname}: a parameter the kernel's roles do not give a value"
            continue
        e = Embedded(obj, library, kernel, m)
        e.source, e.note = _launcher(tree, e, site)
        return e
    return why


def _launcher(tree: ast.Module, e: Embedded, site) -> tuple[str, str]:
    mapped = [p for p in e.kernel.params if e.mapping.assign.get(p.position) is not None]
    arrays = {p.name for p in mapped if e.mapping.assign[p.position].is_array}
    dev = {a: f"_hp_d_{a}" for a in arrays}
    cupy = e.library == "cupy"
    lines = ["import numpy as _hp_np"]
    lines += ["import cupy as _hp_cp"] if cupy else ["import pycuda.autoinit", "import pycuda.gpuarray as _hp_ga",
                                                     "import pycuda.driver as _hp_drv"]
    for p in mapped:
        if p.name in arrays:
            host = f"_hp_np.ascontiguousarray({p.name}, dtype=_hp_np.{_numpy_type(p)})"
            lines.append(f"{dev[p.name]} = " + (f"_hp_cp.asarray({host})" if cupy else f"_hp_ga.to_gpu({host})"))
        elif p.kind != "real":
            lines.append(f"{p.name} = int({p.name})")
    spelled = [(f"{dev[p.name]}" + ("" if cupy else ".gpudata")) if p.name in arrays
               else f"_hp_np.{_numpy_type(p)}({p.name})" for p in e.kernel.params if p in mapped]
    try:
        if site is None:
            raise _Unresolved(no_site(e.obj))
        body, config = _configuration(tree, e, site, mapped, dev)
        note = taken_note("script", ast.unparse(site[0].func) + "(...)")
    except _Unresolved as exc:
        body, config, note = [], _default(e, mapped, arrays), default_note(str(exc))
    lines += body
    if cupy:
        shared = f", shared_mem={config[2]}" if len(config) > 2 else ""
        lines.append(f"{e.obj}({config[0]}, {config[1]}, ({', '.join(spelled)},){shared})")
        lines.append("_hp_cp.cuda.get_current_stream().synchronize()")
    else:
        shared = f", shared={config[2]}" if len(config) > 2 else ""
        lines.append(f"{e.obj}({', '.join(spelled)}, block={config[1]}, grid={config[0]}{shared})")
        lines.append("_hp_drv.Context.synchronize()")
    lines += [f"{p.name}[...] = {dev[p.name]}.get().reshape({p.name}.shape)" for p in mapped
              if p.name in arrays and p.intent != "in"]
    head = f"def {PREFIX}{e.obj}({', '.join(p.name for p in mapped)}):"
    what = "CuPy" if cupy else "pyCUDA"
    return ("\n\n" + head + "\n" + "\n".join(f"    {x}" for x in lines) + "\n",
            f"a {what} kernel ({e.kernel.name}, CUDA source in a string) the harness launches through a launcher; "
            f"{note}")


def _configuration(tree: ast.Module, e: Embedded, site, mapped, dev) -> tuple[list[str], list[str]]:
    """The script's configuration (grid, block[, shared memory]) renamed into the launcher, with the statements
    it needs; the script's names passed as the kernel's arguments are the launcher's parameters."""
    call, stmts = site
    if e.library == "cupy":
        if len(call.args) < 3 or not isinstance(call.args[2], (ast.Tuple, ast.List)):
            raise _Unresolved(f"the script calls {e.obj} without (grid, block, args)")
        args, nodes = call.args[2].elts, [call.args[0], call.args[1]]
        shared = next((k.value for k in call.keywords if k.arg == "shared_mem"), None)
    else:
        args = call.args
        kws = {k.arg: k.value for k in call.keywords}
        if "block" not in kws:
            raise _Unresolved(f"the script calls {e.obj} without block=")
        nodes = [kws.get("grid", ast.Tuple(elts=[ast.Constant(1), ast.Constant(1)])), kws["block"]]
        shared = kws.get("shared")
    if shared is not None:
        nodes.append(shared)
    names = {p.position: p.name for p in mapped}
    rename: dict[str, str] = {}
    for i, a in enumerate(args):
        inner = _unwrap(a)
        if i in names and isinstance(inner, ast.Name):
            target = names[i]
            rename[inner.id] = target
            for alias in _aliases(stmts, inner.id):
                rename.setdefault(alias, target)
    # the script's own arrays stand for the parameters they were made from (`A = cp.random.rand(M, K)`)
    stmts = [s for s in stmts if not set(_targets(s)) & set(rename)]
    body, names_map = carried(tree, e.obj, stmts, rename, nodes)
    return body, [_renamed(n, names_map) for n in nodes]


def _default(e: Embedded, mapped, arrays: set[str]) -> list[str]:
    sizes = [p.name for p in mapped if p.name not in arrays and p.kind != "real"]
    sizes += [f"*{a}.shape" for a in sorted(arrays)]
    ext = f"max([1, {', '.join(sizes)}])"
    if re.search(r"\.\s*y\b", e.kernel.text):
        return [f"(({ext} + 15) // 16, ({ext} + 15) // 16)", "(16, 16)" if e.library == "cupy" else "(16, 16, 1)"]
    return [f"(({ext} + 255) // 256,)" if e.library == "cupy" else f"(({ext} + 255) // 256, 1)",
            "(256,)" if e.library == "cupy" else "(256, 1, 1)"]
