"""The suggestion's Python module as the where-the-work-ran analysis reads it (analysis.where_python): its import
aliases, the functions the model compiles (njit/jit/vectorize/stencil/cuda.jit/triton.jit) and the module-level
objects that launch device work, and per jitted function the parameters it writes and those it only copies
(`y[i] = tmp[i]`: a call that computes nothing, whose output holds what the copied argument held).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from hpceval.analysis.source import python_imports

ACCEL_ROOTS = {"cupy", "cupyx", "pycuda", "numba", "triton"}
JIT_DECORATORS = {"njit", "jit", "vectorize", "guvectorize", "stencil", "cfunc", "rawkernel", "generated_jit"}


@dataclass
class Module:
    tree: ast.Module
    alias: dict[str, str]  # local name -> imported module path ("cp" -> "cupy")
    jitted: set[str]  # functions compiled by the model (their bodies are the model's work)
    kernels: set[str]  # module-level objects that launch device work (RawKernel, get_function, njit(lambda))
    functions: dict[str, ast.FunctionDef] = field(default_factory=dict)
    writes: dict[str, set[str]] = field(default_factory=dict)  # jitted function -> the parameters it writes
    # jitted function -> {written parameter: the parameter it only copies} (`y[i] = tmp[i]`: no work of its own)
    copies: dict[str, dict[str, str]] = field(default_factory=dict)


def read_module(tree: ast.Module) -> Module:
    alias = python_imports(tree)
    mod = Module(tree, alias, set(), set())
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            mod.functions.setdefault(node.name, node)
            if any(is_jit(mod, d) for d in node.decorator_list):
                mod.jitted.add(node.name)
                mod.writes[node.name] = written_params(node)
                mod.copies[node.name] = copied_params(node, mod.writes[node.name])
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            func = node.value.func
            base = func.value if isinstance(func, ast.Attribute) else func
            if module_root(mod, func) in ACCEL_ROOTS or (isinstance(base, ast.Name) and base.id in mod.kernels | mod.jitted):
                mod.kernels |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return mod


def written_params(fn: ast.FunctionDef) -> set[str]:
    """The parameters a jitted function or kernel stores into (`y[i] = ...`, `y[i] += ...`, `tl.store(y_ptr +
    offs, ...)`, `cuda.atomic.add(out, ...)`, `out=y`): a call reads the others."""
    params = {a.arg for a in fn.args.args}
    found = set()
    for node in ast.walk(fn):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, (ast.AugAssign, ast.AnnAssign)) else []
        for t in targets:
            if not isinstance(t, (ast.Subscript, ast.Attribute)):
                continue  # a bare name rebound: the caller's array is not written
            while isinstance(t, (ast.Subscript, ast.Attribute)):
                t = t.value
            if isinstance(t, ast.Name) and t.id in params:
                found.add(t.id)
        if isinstance(node, ast.Call):
            last = dotted(node.func).split(".")[-1]
            dests = node.args[:1] if last in ("store", "atomic_add", "add", "atomic_max", "atomic_min", "max",
                                               "min", "atomic_xchg", "atomic_cas", "exch", "compare_and_swap",
                                               "store_shared") else []
            dests += [k.value for k in node.keywords if k.arg == "out"]
            found |= {n.id for d in dests for n in ast.walk(d) if isinstance(n, ast.Name) and n.id in params}
    return found


def copied_params(fn: ast.FunctionDef, written: set[str]) -> dict[str, str]:
    """The written parameters of a jitted function whose every store is a plain copy of one other parameter
    (`y[i] = tmp[i]`, `y[:] = tmp`): such a call computes nothing, and the output holds what the copied argument
    held (a host product copied by a `prange` loop is host work)."""
    params = {a.arg for a in fn.args.args}
    sources: dict[str, set[str]] = {p: set() for p in written}
    for node in ast.walk(fn):
        if isinstance(node, ast.AugAssign) or (isinstance(node, ast.Call) and node.keywords):
            for t in ([node.target] if isinstance(node, ast.AugAssign) else [k.value for k in node.keywords]):
                for n in ast.walk(t):
                    if isinstance(n, ast.Name) and n.id in sources:
                        sources[n.id].add("")  # computed in place
        if not isinstance(node, ast.Assign):
            continue
        for t in node.targets:
            base = t
            while isinstance(base, ast.Subscript):
                base = base.value
            if not (isinstance(base, ast.Name) and base.id in sources):
                continue
            value = node.value
            while isinstance(value, ast.Subscript):
                value = value.value
            copied = isinstance(value, ast.Name) and value.id in params and value.id != base.id and (
                value is node.value or isinstance(node.value, ast.Subscript))
            sources[base.id].add(value.id if copied else "")
    return {p: next(iter(src)) for p, src in sources.items() if len(src) == 1 and "" not in src}


def dotted(node: ast.AST) -> str:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    return ".".join(reversed(parts))


def module_root(mod: Module, node: ast.AST) -> str:
    """The imported module a dotted name comes from ("cp.asarray" -> "cupy"); "" for local names."""
    name = dotted(node)
    head = name.split(".")[0]
    return mod.alias.get(head, "").split(".")[0] if head else ""


def is_jit(mod: Module, dec: ast.expr) -> bool:
    target = dec.func if isinstance(dec, ast.Call) else dec
    name = dotted(target)
    head = name.split(".")[0]
    full = mod.alias.get(head, "")
    # the name as imported: `fast` of `from numba import njit as fast` is numba.njit, `lru_cache as njit` is not
    resolved = full + name[len(head):] if full else name
    last = resolved.split(".")[-1]
    return last in JIT_DECORATORS and (module_root(mod, target) in ACCEL_ROOTS or full.split(".")[0] in ACCEL_ROOTS
                                       or "." in name)
