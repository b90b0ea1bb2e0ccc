"""Python (Numba, CuPy, pyCUDA, numba.cuda, Triton): which code writes the outputs' values, read with `ast`.

The usage patterns only show that a construct is present: a `prange` over one element beside `np.dot` in plain
Python, or a CuPy allocation beside a NumPy product, passed as the model. Here every value in the bound host
function (and the plain functions it calls) carries where its data was computed:

* `input`: the kernel's data as given (a parameter, a copy or conversion of one, on the host or the device);
* `host`: computed by plain Python/NumPy/CPU-torch element-wise (linear work); `bulk`: by a host product,
  reduction or a Python loop over the elements (the kernel's sweep);
* `accel`: computed by the model: a jitted function (njit/jit/vectorize/guvectorize/stencil/cuda.jit/triton.jit)
  or a kernel object called or launched, or an operation on device-resident data (CuPy, gpuarray, CUDA tensors).

Transfers (`cp.asarray`, `.get()`, `.cpu().numpy()`, `cuda.to_device`) and conversions move a value without
changing what computed it, so a host product round-tripped through the device stays `bulk`. A host step on a
device result (`alpha * d_y.get() + beta * y`) is a finishing step (`accel`), unless it is itself bulk work
(`A @ d.get()`). Scalar casts (`float(r @ r)`) carry no array work.

An output is written by the host when one of its writes is `bulk` (a host product, or element work in a Python
loop over the elements); or `host` work covering the output (a whole-array expression) that no model write
follows. A loop starting at a computed index (`range(n4, n)`: a remainder) beside a model write is allowed.
Code the parser cannot read, or a bound function it does not find, is left alone (None).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from hpceval.analysis.jitted import ACCEL_ROOTS, Module, dotted, module_root, read_module
from hpceval.analysis.pyparse import parse_python
from hpceval.analysis.source import python_fields_as_names

RANK = {"none": 0, "input": 1, "host": 2, "bulk": 3, "accel": 4}
TO_DEVICE = {"asarray", "array", "to_device", "to_gpu", "to_gpu_async", "cuda", "to", "from_dlpack", "copy_to_device",
             "device_put"}
TO_HOST = {"asnumpy", "get", "copy_to_host", "cpu", "numpy", "tolist"}
CONVERT = {"ascontiguousarray", "asfortranarray", "copy", "astype", "reshape", "ravel", "flatten", "transpose",
           "contiguous", "clone", "view", "from_numpy", "squeeze", "expand_dims", "float32", "float64", "int32",
           "int64", "double", "detach", "T", "require", "asanyarray", "atleast_1d", "atleast_2d", "flip"}
ALLOC = {"empty", "zeros", "ones", "full", "empty_like", "zeros_like", "ones_like", "full_like", "device_array",
         "device_array_like", "mem_alloc", "pinned_array", "arange", "eye", "identity", "mapped_array"}
SCALAR = {"float", "int", "complex", "item", "len", "range", "bool", "sqrt", "isclose", "shape", "size"}
BULK = {"dot", "vdot", "matmul", "inner", "outer", "tensordot", "einsum", "kron", "sum", "prod", "cumsum", "mean",
        "convolve", "correlate", "solve", "inv", "lstsq", "norm", "bincount", "reduceat", "trace", "mm", "mv", "bmm",
        "addmm", "addmv", "spmv", "cg", "spsolve", "matvec", "linalg"}
COPY_INTO = {"memcpy_dtoh", "memcpy_dtoh_async", "memcpy_htod", "memcpy_htod_async", "memcpy_dtod", "copyto",
             "memcpy_peer"}  # first argument is the destination
WRAP_OUT = {"Out", "InOut", "In"}


@dataclass(frozen=True)
class Val:
    kind: str = "none"
    device: bool = False
    origin: str = ""  # the host expression that did the work (evidence)
    array: bool = False  # an array (input, allocation): a launch given it may write it

    def rank(self) -> int:
        return RANK[self.kind]


NONE = Val()


def join(*vals: Val) -> Val:
    best = max(vals, key=Val.rank, default=NONE)
    return Val(best.kind, any(v.device for v in vals), best.origin, any(v.array for v in vals))


@dataclass
class Write:
    output: str
    value: Val
    line: int
    text: str
    whole: bool  # covers the output (no element index inside a loop)
    loop: str  # "" outside loops, "sweep" in a loop over the elements, "rest" in a loop from a computed index


def host_writes_problem(code: str, function: str, outputs: set[str], inputs: set[str], returned: bool,
                        what: str, device: frozenset[str] = frozenset()) -> str | None:
    """None when the outputs' values come from the model's work (or the code is not read); else the evidence.

    outputs/inputs: the bound function's parameter names of the kernel's output/input arrays; returned: whether
    an output is delivered by the return value; what: the model's work in words ("jitted code", "device work");
    device: the parameters the driver hands as device arrays (bind.adapt.python: annotated, or used as one), whose
    arithmetic is device work."""
    code, outputs, inputs = _fields_as_names(code, outputs, inputs)
    try:
        tree = parse_python(code)
    except SyntaxError:
        return None
    mod = read_module(tree)
    fn = mod.functions.get(function.split(".")[-1])
    if fn is None or fn.name in mod.jitted:
        return None
    params = {p: Val("input", p in device, array=True) for p in inputs}
    writes = _Function(mod, fn, params, outputs, depth=0, device=set(device) & outputs).run(returned)
    for name in sorted({w.output for w in writes}):
        mine = sorted((w for w in writes if w.output == name), key=lambda w: w.line)
        model_lines = [w.line for w in mine if w.value.kind == "accel"]
        for w in mine:
            if w.value.kind not in ("host", "bulk"):
                continue
            if w.loop == "rest" and model_lines:
                continue
            sweep = w.value.kind == "bulk" or w.loop == "sweep" or w.whole
            if not sweep or (w.value.kind == "host" and not w.loop and any(line > w.line for line in model_lines)):
                continue
            if w.value.kind == "host" and w.loop == "sweep" and any(line > w.line for line in model_lines):
                continue
            origin = w.value.origin
            source = f", from `{origin[:70]}`" if origin and origin not in w.text else ""
            where = "in a Python loop over the elements" if w.loop == "sweep" else "by plain Python/NumPy"
            return (f"{name} is computed on the host {where}: `{w.text[:90]}` (line {w.line}{source}), not by "
                    f"{what}; the construct beside it does not write the outputs")
    return None


def _fields_as_names(code: str, outputs: set[str], inputs: set[str]) -> tuple[str, set[str], set[str]]:
    """Outputs and inputs that are fields of a record parameter (`C.data`, as the binding names them: bind.adapt.
    python_records) read as plain names (`C__data`, analysis.source.python_fields_as_names), so that `C.data[:] =
    ...` is a write of the output and `A.data` a read of the input."""
    renames = {tuple(n.split(".", 1)): n.replace(".", "__") for n in outputs | inputs if "." in n}
    if not renames:
        return code, outputs, inputs
    flat = {".".join(k): v for k, v in renames.items()}
    return (python_fields_as_names(code, renames), {flat.get(n, n) for n in outputs},
            {flat.get(n, n) for n in inputs})


class _Function:
    """One host function: the values of its names (to a fixed point), then the writes to the outputs."""

    def __init__(self, mod: Module, fn: ast.FunctionDef, params: dict[str, Val], outputs: set[str], depth: int,
                 device: set[str] | None = None):
        self.mod, self.fn, self.outputs, self.depth = mod, fn, set(outputs), depth
        self.device = device or set()  # outputs that are device arrays: reading one reads device data
        self.names: dict[str, Val] = dict(params)
        self.params = {p for p in params if p not in outputs}  # the kernel's inputs: a launch reads them
        self.aliases: dict[str, str] = {}  # local view of an output -> the output
        self.nested = {n.name: n for n in ast.walk(fn) if isinstance(n, ast.FunctionDef) and n is not fn}
        self.writes: list[Write] = []
        self.loops: list[str] = []
        self.returns: list[Val] = []
        self.collect = False

    def run(self, returned: bool = False) -> list[Write]:
        for _ in range(4):  # flow-insensitive: a few passes settle loops that feed themselves
            before = dict(self.names)
            self._body(self.fn.body)
            if before == self.names:
                break
        self.collect = True
        self._body(self.fn.body)
        if returned:
            self.writes += [Write("the returned value", v, ln, t, True, "") for v, ln, t in self._returned()]
        return self.writes

    def _returned(self) -> list[tuple[Val, int, str]]:
        return [(self.value(n.value), n.lineno, ast.unparse(n)) for n in ast.walk(self.fn)
                if isinstance(n, ast.Return) and n.value is not None and self._own(n)]

    def _own(self, node: ast.AST) -> bool:
        return not any(node in set(ast.walk(f)) for f in self.nested.values())

    # ---------------------------------------------------------------- statements
    def _body(self, body: list[ast.stmt]) -> None:
        for stmt in body:
            self._stmt(stmt)

    def _stmt(self, stmt: ast.stmt) -> None:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return
        if isinstance(stmt, ast.Assign):
            value = self.value(stmt.value)
            for target in stmt.targets:
                self._assign(target, stmt.value, value, stmt)
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            self._assign(stmt.target, stmt.value, self.value(stmt.value), stmt)
        elif isinstance(stmt, ast.AugAssign):
            value = self._op([self.value(stmt.target), self.value(stmt.value)], stmt, bulk=False)
            self._assign(stmt.target, stmt.value, value, stmt, whole_if_name=True)
        elif isinstance(stmt, ast.Expr):
            self.value(stmt.value)
        elif isinstance(stmt, ast.For):
            self.value(stmt.iter)
            self._loop(self._loop_kind(stmt.iter), stmt.body + stmt.orelse)
        elif isinstance(stmt, ast.While):
            self._loop("sweep", stmt.body + stmt.orelse)
        elif isinstance(stmt, ast.If):
            self._body(stmt.body)
            self._body(stmt.orelse)
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            self._body(stmt.body)
        elif isinstance(stmt, ast.Try):
            for part in (stmt.body, *[h.body for h in stmt.handlers], stmt.orelse, stmt.finalbody):
                self._body(part)
        elif isinstance(stmt, ast.Return) and stmt.value is not None:
            self.returns.append(self.value(stmt.value))

    def _loop(self, kind: str, body: list[ast.stmt]) -> None:
        self.loops.append(kind)
        self._body(body)
        self.loops.pop()

    def _loop_kind(self, it: ast.expr) -> str:
        """"sweep" over the elements, "rest" from a computed start (a remainder), "" for a fixed small count."""
        if isinstance(it, (ast.Tuple, ast.List, ast.Set)):
            return ""
        if isinstance(it, ast.Call) and dotted(it.func).split(".")[-1] in ("range", "prange"):
            if all(isinstance(a, ast.Constant) for a in it.args):
                return ""
            if len(it.args) >= 2 and not isinstance(it.args[0], ast.Constant):
                return "rest"
        return "sweep"

    def _assign(self, target: ast.expr, raw: ast.expr, value: Val, stmt: ast.stmt, whole_if_name: bool = False) -> None:
        if isinstance(target, (ast.Tuple, ast.List)):
            parts = raw.elts if isinstance(raw, (ast.Tuple, ast.List)) and len(raw.elts) == len(target.elts) else None
            for i, t in enumerate(target.elts):
                self._assign(t, parts[i] if parts else raw, self.value(parts[i]) if parts else value, stmt)
            return
        if isinstance(target, ast.Starred):
            return self._assign(target.value, raw, value, stmt)
        base = target
        while isinstance(base, (ast.Subscript, ast.Attribute)):
            base = base.value
        if not isinstance(base, ast.Name):
            return
        name = base.id
        output = self.aliases.get(name, name if name in self.outputs else None)
        if output is None:
            view = self._is_view_of_output(raw) if isinstance(target, ast.Name) else None
            if view:
                self.aliases[name] = view
            else:
                self.names[name] = join(self.names.get(name, NONE), value)
            return
        if isinstance(target, ast.Name) and not whole_if_name:
            return  # the output name rebound to a new object: nothing is written into the caller's array
        whole = isinstance(target, ast.Name) or _whole_index(target)
        self._write(output, value, stmt, whole)

    def _is_view_of_output(self, raw: ast.expr) -> str | None:
        node = raw
        while isinstance(node, (ast.Subscript, ast.Attribute)) or (
                isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("reshape", "ravel", "view", "T", "squeeze")):
            node = node.func.value if isinstance(node, ast.Call) else node.value
        if isinstance(node, ast.Name) and node is not raw:
            return self.aliases.get(node.id, node.id if node.id in self.outputs else None)
        return None

    def _write(self, output: str, value: Val, stmt: ast.AST, whole: bool) -> None:
        if not self.collect:
            return
        loop = next((k for k in self.loops if k), "")
        self.writes.append(Write(output, value, getattr(stmt, "lineno", 0), ast.unparse(stmt).split("\n")[0],
                                 whole and not loop, loop))

    # ---------------------------------------------------------------- expressions
    def value(self, node: ast.expr | None) -> Val:
        if node is None or isinstance(node, (ast.Constant, ast.Lambda, ast.Compare, ast.BoolOp, ast.JoinedStr)):
            return NONE
        if isinstance(node, ast.Name):
            if node.id in self.outputs or node.id in self.aliases:
                return Val("input", self.aliases.get(node.id, node.id) in self.device, array=True)
            return self.names.get(node.id, NONE)
        if isinstance(node, ast.Subscript):
            self.value(node.slice)
            base = self.value(node.value)
            if base.device and "sweep" in self.loops and not _whole_index(node):
                # one element of a device array in a Python loop: read to the host, worked on there
                return Val(base.kind, False, base.origin, base.array)
            return base
        if isinstance(node, ast.Attribute):
            return NONE if node.attr in SCALAR else self.value(node.value)
        if isinstance(node, ast.BinOp):
            return self._op([self.value(node.left), self.value(node.right)], node,
                            bulk=isinstance(node.op, ast.MatMult))
        if isinstance(node, ast.UnaryOp):
            return self.value(node.operand)
        if isinstance(node, ast.IfExp):
            return join(self.value(node.body), self.value(node.orelse))
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            return join(*[self.value(e) for e in node.elts])
        if isinstance(node, (ast.ListComp, ast.GeneratorExp, ast.SetComp)):
            inner = join(*[self.value(g.iter) for g in node.generators], self.value(node.elt))
            return self._op([inner], node, bulk=True) if inner.kind in ("input", "host") else inner
        if isinstance(node, ast.Call):
            return self._call(node)
        if isinstance(node, ast.Starred):
            return self.value(node.value)
        return NONE

    def _op(self, vals: list[Val], node: ast.AST, bulk: bool) -> Val:
        """An operation on values: on the device when any operand is device-resident and none is host work (a
        host copy or result beside a device array is host work: NumPy computes it); else host work."""
        if any(v.device for v in vals) and not any(not v.device and (v.kind in ("host", "bulk") or (
                v.kind == "input" and v.array)) for v in vals):
            return Val("accel", True, array=True)
        kinds = {v.kind for v in vals}
        host_bulk = next((v for v in vals if v.kind == "bulk"), None)
        if host_bulk is not None:
            return host_bulk
        data = kinds & {"input", "host", "accel"}
        if not data:
            return NONE
        text = ast.unparse(node)
        if bulk:
            return Val("bulk", False, text)
        if "accel" in kinds:
            return next(v for v in vals if v.kind == "accel")
        origin = next((v.origin for v in vals if v.kind == "host" and v.origin), text)
        return Val("host", False, origin)

    def _call(self, node: ast.Call) -> Val:
        func = node.func
        args = [*node.args, *[k.value for k in node.keywords]]
        vals = [self.value(a) for a in args]
        name = dotted(func)
        last = name.split(".")[-1] if name else (func.attr if isinstance(func, ast.Attribute) else "")
        # ---- launches: a jitted function or kernel object called, `k[grid](...)`, `k.forall(n)(...)`
        if self._launches(func):
            copied = self._copied_args(func, node)
            self._model_writes([a for a in self._written_args(func, node) if id(a) not in copied], node)
            for dest, source in copied.values():
                self._into(dest, self.value(source), node)
            if not any(v.kind != "none" or v.array for v in vals):
                return Val("none", any(v.device for v in vals))  # no data in, no data out: a token call
            return Val("accel", any(v.device for v in vals), array=True)
        owner = func.value if isinstance(func, ast.Attribute) else None
        owner_val = self.value(owner) if owner is not None else NONE
        root = module_root(self.mod, func)
        # ---- copies into an array: the destination gets the source's value
        if last in COPY_INTO and len(node.args) >= 2:
            self._into(node.args[0], self.value(node.args[1]), node)
            return NONE
        if owner is not None and last in ("copy_to_host", "get") and (node.args or node.keywords):
            dest = node.args[0] if node.args else node.keywords[0].value
            self._into(dest, Val(owner_val.kind, False, owner_val.origin), node)
            return Val(owner_val.kind, False, owner_val.origin)
        if owner is not None and last in ("copy_to_device", "set", "copy_", "set_async") and node.args:
            self._into(owner, Val(vals[0].kind, True, vals[0].origin), node)
            return NONE
        out = next((k.value for k in node.keywords if k.arg == "out"), None)
        result = self._plain_call(node, func, name, last, root, owner, owner_val, vals)
        if out is not None:
            self._into(out, result, node)
        return result

    def _plain_call(self, node, func, name, last, root, owner, owner_val, vals) -> Val:
        device_kw = any(k.arg == "device" and not (isinstance(k.value, ast.Constant) and k.value.value == "cpu")
                        for k in node.keywords)
        data = join(*vals) if vals else NONE
        if last in WRAP_OUT and root == "pycuda":
            return data
        if last in SCALAR or name in ("float", "int", "len", "range"):
            return NONE
        if last in ALLOC:
            like = last.endswith("_like") and any(v.device for v in vals)
            return Val("none", root in ACCEL_ROOTS or device_kw or like, array=True)
        if owner is not None and root not in ACCEL_ROOTS and module_root(self.mod, owner) == "":
            # a method of a value: transfers, conversions, or an operation where the value lives
            if last in TO_HOST:
                return Val(owner_val.kind, False, owner_val.origin)
            if last in TO_DEVICE:
                return Val(owner_val.kind, True, owner_val.origin)
            if last in CONVERT:
                return owner_val
            return self._op([owner_val, *vals], node, bulk=last in BULK)
        if root in ACCEL_ROOTS:
            if last in TO_HOST:
                return Val(data.kind, False, data.origin)
            if last in TO_DEVICE or last in CONVERT:
                return Val(data.kind, True, data.origin)
            return Val("accel", True, array=True) if data.kind != "none" or data.array else Val("none", True)
        if root == "torch":
            if last in TO_DEVICE and device_kw or device_kw:
                return Val(data.kind, True, data.origin)
            if last in CONVERT or last in ("tensor", "as_tensor", "asarray"):
                return data
        if root in ("numpy", "torch", "math", "scipy") or name in ("sum", "abs", "max", "min", "sorted"):
            if root == "numpy" and (last in CONVERT or last in ("asarray", "array", "copy")):
                return Val(data.kind, False, data.origin, data.array)  # NumPy's copy: on the host
            if last in CONVERT or last in TO_DEVICE or last in ("asarray", "array", "copy"):
                return data
            return self._op(vals or [NONE], node, bulk=last in BULK or name == "sum")
        callee = self.nested.get(name) or (self.mod.functions.get(name) if name and "." not in name else None)
        if callee is not None and callee.name not in self.mod.jitted:
            return self._callee(callee, node, vals)
        return self._op(vals, node, bulk=False) if vals else NONE

    def _launches(self, func: ast.expr) -> bool:
        node = func
        if isinstance(node, ast.Subscript):  # kernel[grid, block](...)
            node = node.value
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in (
                "forall", "configure"):
            node = node.func.value
        name = dotted(node)
        return bool(name) and (name in self.mod.jitted or name in self.mod.kernels)

    def _written_args(self, func: ast.expr, node: ast.Call) -> list[ast.expr]:
        """The arguments a launch may write: those at the parameters a jitted function of the suggestion stores
        into; every argument of a kernel object whose code is not Python (RawKernel, SourceModule)."""
        base = func.value if isinstance(func, ast.Subscript) else func
        if isinstance(base, ast.Call) and isinstance(base.func, ast.Attribute):
            base = base.func.value
        fn = self.mod.functions.get(dotted(base))
        if fn is None or dotted(base) not in self.mod.writes:
            return [*node.args, *[k.value for k in node.keywords]]
        params = [a.arg for a in fn.args.args]
        written = self.mod.writes[dotted(base)]
        if fn.args.vararg is not None or (len(node.args) > len(params) and not written):
            return [*node.args, *[k.value for k in node.keywords]]  # guvectorize's implicit outputs, *args
        chosen = [a for i, a in enumerate(node.args) if i < len(params) and params[i] in written]
        return chosen + [k.value for k in node.keywords if k.arg in written or k.arg == "out"]

    def _copied_args(self, func: ast.expr, node: ast.Call) -> dict[int, tuple[ast.expr, ast.expr]]:
        """The arguments a jitted call only copies into, by id: (the argument, the argument it copies)."""
        base = func.value if isinstance(func, ast.Subscript) else func
        fn = self.mod.functions.get(dotted(base))
        copies = self.mod.copies.get(dotted(base), {})
        if fn is None or not copies:
            return {}
        params = [a.arg for a in fn.args.args]
        by_param = {params[i]: a for i, a in enumerate(node.args) if i < len(params)}
        by_param.update({k.arg: k.value for k in node.keywords if k.arg})
        return {id(by_param[d]): (by_param[d], by_param[s]) for d, s in copies.items()
                if d in by_param and s in by_param}

    def _model_writes(self, args: list[ast.expr], node: ast.AST) -> None:
        """A launch (or jitted call) writes what it is given: each array argument (a name, a tuple of names, a
        pyCUDA `Out(y)`) becomes the model's work; the kernel's own inputs stay what they are, and a new array
        made in the argument list (`cuda.to_device(u)`) is not a name of the caller's."""
        for arg in args:
            if isinstance(arg, (ast.Tuple, ast.List)):
                self._model_writes(list(arg.elts), node)
                continue
            if isinstance(arg, ast.Call) and dotted(arg.func).split(".")[-1] in WRAP_OUT and arg.args:
                arg = arg.args[0]
            while isinstance(arg, ast.Subscript):
                arg = arg.value
            if not isinstance(arg, ast.Name) or arg.id in self.params:
                continue
            known = self.names.get(arg.id, NONE)
            if arg.id in self.outputs or arg.id in self.aliases or known.array or known.kind != "none":
                self._into(arg, Val("accel", known.device, array=True), node)

    def _into(self, dest: ast.expr, value: Val, node: ast.AST) -> None:
        base = dest
        if isinstance(base, ast.Call) and dotted(base.func).split(".")[-1] in WRAP_OUT and base.args:
            base = base.args[0]
        while isinstance(base, (ast.Subscript, ast.Attribute)):
            base = base.value
        if not isinstance(base, ast.Name):
            return
        output = self.aliases.get(base.id, base.id if base.id in self.outputs else None)
        if output is not None:
            self._write(output, value, node, True)
        elif base.id in self.names or base.id not in self.mod.functions:
            self.names[base.id] = join(self.names.get(base.id, NONE), value)

    def _callee(self, callee: ast.FunctionDef, node: ast.Call, vals: list[Val]) -> Val:
        """A plain function of the suggestion: its parameters take the arguments' values; its writes into an
        output parameter are writes of the output; its return value is the call's value."""
        if self.depth >= 3:
            return join(*vals) if vals else NONE
        params = [a.arg for a in callee.args.args]
        given: dict[str, Val] = {}
        outs: dict[str, str] = {}
        for i, arg in enumerate(node.args):
            if i >= len(params):
                break
            given[params[i]] = self.value(arg)
            base = arg.args[0] if isinstance(arg, ast.Call) and arg.args else arg
            while isinstance(base, ast.Subscript):
                base = base.value
            if isinstance(base, ast.Name):
                out = self.aliases.get(base.id, base.id if base.id in self.outputs else None)
                outs[params[i]] = out or f"local:{base.id}"
        inner = _Function(self.mod, callee, {**self.names, **given}, set(outs), self.depth + 1)
        inner.params = self.params | {params[i] for i, arg in enumerate(node.args[:len(params)])
                                      if isinstance(arg, ast.Name) and arg.id in self.params}
        inner.nested.update(self.nested)
        for write in inner.run():
            target = outs.get(write.output, "")
            if target.startswith("local:"):
                name = target[6:]
                self.names[name] = join(self.names.get(name, NONE), write.value)
            elif target and self.collect:
                where = f"{write.text} in {callee.name}()"
                self.writes.append(Write(target, write.value, node.lineno, where, write.whole, write.loop
                                         or next((k for k in self.loops if k), "")))
        return join(*inner.returns) if inner.returns else NONE


def _whole_index(target: ast.expr) -> bool:
    """`y[:]`, `y[...]`, `y[:n]`, `C[:, :]`: an assignment covering the array (no scalar element index)."""
    if not isinstance(target, ast.Subscript):
        return True
    items = target.slice.elts if isinstance(target.slice, ast.Tuple) else [target.slice]
    return all(isinstance(i, ast.Slice) or (isinstance(i, ast.Constant) and i.value is Ellipsis) for i in items)
