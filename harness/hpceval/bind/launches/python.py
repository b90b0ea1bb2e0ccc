"""Python launch sites: a `@cuda.jit` (numba.cuda) or `@triton.jit` kernel that only the suggestion's script
launches (`kernel[blocks, threads](...)`, `kernel.forall(n)(...)`, `kernel[grid](..., BLOCK_SIZE=1024)` with a
grid lambda) gets a launcher function appended to the unit, whose body is that launch:

    def _hpceval_launch_<kernel>(<the kernel's mapped parameters>):
        <the script's statements that compute the configuration, their names prefixed _hp_>
        <kernel>[<configuration>](<the parameters; what the script passes for the rest>)

The script's variables passed as the kernel's arguments become the launcher's parameters (`d_A =
cuda.to_device(A)` passed as the kernel's A also makes the script's A that parameter: `A.shape[0]`), so the
configuration is a function of the driver's sizes. The launcher hands its arrays to the kernel as they are, so
the type adapters (bind.adapt.python) read them as the kernel's own device arrays: the driver makes them (numba
device arrays, torch tensors on "cuda" or, under Triton's interpreter, the CPU) as views of guarded buffers before
the clock starts and copies the outputs back after it, so an unmasked store past n is caught in the guard zone. A
numba.cuda kernel that the script never launches gets the documented default (256 threads per block, 16x16 in
2-D, over the largest size); a Triton kernel without a launch is left as it is (its block sizes are its own).
The evidence says which launch was used.
"""

from __future__ import annotations

import ast
import builtins
import re

from hpceval.analysis.pyparse import parse_python
from hpceval.bind.launches import default_note, no_site, taken_note
from hpceval.bind.mapping import Mapping
from hpceval.bind.parse import SFunction, Unit

PREFIX = "_hpceval_launch_"
_DECORATOR = {"numba": re.compile(r"^\s*@\s*(?:numba\.)?cuda\.jit\b", re.M),
              "triton": re.compile(r"^\s*@\s*triton\.jit\b", re.M)}
_BUILTINS = set(dir(builtins))


def flavour(fn: SFunction) -> str | None:
    """'numba' for a numba.cuda kernel, 'triton' for a Triton kernel, else None."""
    head = fn.text[:fn.text.find("def ")] if "def " in fn.text else ""
    return next((k for k, rx in _DECORATOR.items() if rx.search(head)), None)


class _Unresolved(Exception):
    pass


def _site(tree: ast.Module, name: str, kernel_line: int) -> tuple[ast.Call, ast.AST, list[ast.AST]] | None:
    """The first launch of `name` outside the kernel: (the call, its configuration node, the statements of the
    scope it lies in that come before it, module level and enclosing function)."""
    parents: dict[int, ast.AST] = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[id(child)] = node
    calls = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or getattr(node, "lineno", 0) == kernel_line:
            continue
        f = node.func
        if isinstance(f, ast.Subscript) and isinstance(f.value, ast.Name) and f.value.id == name:
            calls.append((node.lineno, node.col_offset, node, f))
        elif (isinstance(f, ast.Call) and isinstance(f.func, ast.Attribute) and f.func.attr == "forall"
              and isinstance(f.func.value, ast.Name) and f.func.value.id == name):
            calls.append((node.lineno, node.col_offset, node, f))
    for _, _, call, config in sorted(calls, key=lambda c: (c[0], c[1])):
        scope, node = None, call
        while id(node) in parents:
            node = parents[id(node)]
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if node.name == name:
                    break  # a launch inside the kernel itself (dynamic parallelism): not the script's
                scope = scope or node
        else:
            stmts = [s for s in ast.walk(tree) if isinstance(s, (ast.Assign, ast.AnnAssign))
                     and s.lineno < call.lineno and _scope_of(s, parents) in (None, scope)]
            return call, config, sorted(stmts, key=lambda s: (s.lineno, s.col_offset))
    return None


def _scope_of(node: ast.AST, parents: dict[int, ast.AST]) -> ast.AST | None:
    while id(node) in parents:
        node = parents[id(node)]
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            return node
    return None


def _targets(stmt: ast.AST) -> list[str]:
    tgts = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
    return [n.id for t in tgts for n in ast.walk(t) if isinstance(n, ast.Name)]


def _free(node: ast.AST) -> list[str]:
    """Names a expression reads, less those its own lambdas and comprehensions bind."""
    bound = {a.arg for n in ast.walk(node) if isinstance(n, ast.Lambda) for a in n.args.args}
    bound |= {t.id for n in ast.walk(node) if isinstance(n, ast.comprehension) for t in ast.walk(n.target)
              if isinstance(t, ast.Name)}
    return [n.id for n in ast.walk(node) if isinstance(n, ast.Name) and n.id not in bound]


_TRANSFERS = {"to_device", "asarray", "array", "from_numpy", "tensor", "as_tensor", "cuda", "to", "contiguous",
              "ascontiguousarray", "astype", "copy", "device_array_like", "float", "double"}


def _aliases(stmts: list[ast.AST], arg: str) -> list[str]:
    """The script's names that stand for the same data as launch argument `arg`: `d_A = cuda.to_device(A)` or
    `x_t = torch.from_numpy(x).cuda()` makes A (x) one, through a chain of transfer calls only."""
    out = []
    for s in stmts:
        if arg not in _targets(s):
            continue
        node = s.value
        while isinstance(node, ast.Call) and isinstance(node.func, (ast.Attribute, ast.Name)):
            fname = node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id
            if fname not in _TRANSFERS:
                break
            if isinstance(node.func, ast.Attribute) and not node.args or fname in ("cuda", "to", "astype",
                                                                                  "contiguous", "float", "double"):
                node = node.func.value if isinstance(node.func, ast.Attribute) else None
            else:
                node = node.args[0] if node.args else None
        if isinstance(node, ast.Name) and node.id != arg and node is not s.value:
            out.append(node.id)
    return out


def script_launcher(unit: Unit, fn: SFunction, m: Mapping) -> tuple[str, str] | None:
    """(launcher source to append, evidence) for a numba.cuda or Triton kernel bound by the mapping m; None when
    fn is no such kernel (or a Triton kernel the script never launches)."""
    kind = flavour(fn)
    if kind is None:
        return None
    try:
        tree = parse_python(unit.code)
    except SyntaxError:
        return None
    kdef = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == fn.name), None)
    if kdef is None:
        return None
    mapped = [p for p in fn.params if m.assign.get(p.position) is not None]
    params = [p.name for p in mapped]
    arrays = [p.name for p in mapped if m.assign[p.position].is_array]
    site = _site(tree, fn.name, kdef.lineno)
    try:
        if site is None:
            raise _Unresolved(no_site(fn.name))
        # a block-size parameter the mapping fills with a harmless value takes the script's own (a constexpr)
        body, written = _from_site(tree, kdef, site, [p for p in mapped if not m.assign[p.position].tuning])
        note = taken_note("script", written)
    except _Unresolved as exc:
        if kind == "triton":
            return None
        body, note = _default(fn, mapped, m), default_note(str(exc))
    lines = [f"def {PREFIX}{fn.name}({', '.join(params)}):"]
    if kind == "triton":  # Triton takes Python scalars (a NumPy scalar is no valid kernel argument)
        lines += [f"    {p} = {p}.item() if hasattr({p}, 'item') else {p}" for p in params if p not in arrays]
    lines += [f"    {line}" for line in body]
    what = "numba.cuda" if kind == "numba" else "Triton"
    return "\n\n" + "\n".join(lines) + "\n", f"a {what} kernel the harness launches through a launcher; {note}"


def _from_site(tree: ast.Module, kdef: ast.FunctionDef, site, mapped) -> tuple[list[str], str]:
    call, config, stmts = site
    params = {p.position: p.name for p in mapped}
    rename: dict[str, str] = {}
    for i, a in enumerate(call.args):
        if i in params and isinstance(a, ast.Name):
            target = params[i]
            rename[a.id] = target
            for alias in _aliases(stmts, a.id):
                rename.setdefault(alias, target)
    for kw in call.keywords:
        pos = next((p.position for p in mapped if p.name == kw.arg), None)
        if pos is not None and isinstance(kw.value, ast.Name):
            rename[kw.value.id] = kw.arg
    # what the launch passes for parameters the mapping leaves out (a constexpr BLOCK_SIZE), and the config
    args: list[tuple[str, ast.AST | str]] = []  # (keyword or "", what is passed)
    for i, a in enumerate(call.args):
        args.append(("", params[i] if i in params else a))
    for kw in call.keywords:
        mine = kw.arg in {p.name for p in mapped}
        args.append((kw.arg or "", kw.arg if mine else kw.value))
    body, names = carried(tree, kdef.name, stmts, rename, [config, *(a for _, a in args if not isinstance(a, str))])
    spelled = [(f"{k}=" if k else "") + (a if isinstance(a, str) else _renamed(a, names)) for k, a in args]
    body.append(f"{_renamed(call.func, names)}({', '.join(spelled)})")
    return body, ast.unparse(call.func) + "(...)"


def carried(tree: ast.Module, kernel: str, stmts: list[ast.AST], rename: dict[str, str], nodes: list[ast.AST]
            ) -> tuple[list[str], dict[str, str]]:
    """The script's statements the launch expressions `nodes` need (renamed `_hp_<name>`, the names in `rename`
    replaced by the launcher's parameters), in order, and the renaming. Raises _Unresolved for a name that is
    neither the script's own computation nor the module's (an import, a function) nor a builtin."""
    module_names = {n for node in tree.body for n in _defined_by(node)}
    needed: dict[int, ast.AST] = {}
    local: set[str] = set()

    def visit(node: ast.AST, before: int) -> None:
        for nm in _free(node):
            if nm in rename or nm in local:
                continue
            mine = [i for i, s in enumerate(stmts[:before]) if nm in _targets(s)]
            if mine:
                local.add(nm)
                for i in mine:
                    needed[i] = stmts[i]
                    visit(stmts[i].value, i)
            elif nm not in module_names and nm not in _BUILTINS:
                raise _Unresolved(f"the script's launch of {kernel} uses {nm}, which the harness cannot evaluate")

    for node in nodes:
        visit(node, len(stmts))
    names = {nm: f"_hp_{nm}" for nm in local}
    names.update(rename)
    return [_renamed(stmts[i], names) for i in sorted(needed)], names


def _defined_by(node: ast.AST) -> list[str]:
    """Names a module-level import, function or class binds (what the launcher may read from the module)."""
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return [(a.asname or a.name).split(".")[0] for a in node.names]
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    return []


class _Rename(ast.NodeTransformer):
    def __init__(self, names: dict[str, str]):
        self.names = names

    def visit_Name(self, node: ast.Name) -> ast.Name:  # noqa: N802 - ast.NodeTransformer's protocol
        return ast.copy_location(ast.Name(id=self.names.get(node.id, node.id), ctx=node.ctx), node)


def _renamed(node: ast.AST, names: dict[str, str]) -> str:
    import copy

    return ast.unparse(_Rename(names).visit(copy.deepcopy(node)))


def _default(fn: SFunction, mapped: list, m: Mapping) -> list[str]:
    """The documented default launch of a numba.cuda kernel: 256 threads (1-D) or 16x16 (2-D) per block over the
    largest size of the case (its size arguments and its arrays' extents)."""
    sizes = [p.name for p in mapped if not m.assign[p.position].is_array and m.assign[p.position].kind in ("int", "index")]
    sizes += [f"*{p.name}.shape" for p in mapped if m.assign[p.position].is_array]
    dims = 2 if re.search(r"cuda\.grid\s*\(\s*2|\.y\b", fn.text) else 1
    call = f"({', '.join(p.name for p in mapped)})"
    body = [f"_hp_extent = max([1, {', '.join(sizes)}])"]
    if dims == 2:
        body.append("_hp_b = (_hp_extent + 15) // 16")
        body.append(f"{fn.name}[(_hp_b, _hp_b), (16, 16)]{call}")
    else:
        body.append(f"{fn.name}[(_hp_extent + 255) // 256, 256]{call}")
    return body
