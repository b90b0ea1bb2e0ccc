"""Python type adapters: NumPy host arrays (what the driver holds), CuPy arrays, Torch CUDA tensors, numba device
arrays, pyCUDA GPUArrays, SciPy CSR matrices and records (the suggestion's own dataclass or NamedTuple, a plain
object with fields, a dict, a tuple) of the kernel's arrays.

What a parameter is comes from the suggestion's code, never from its name (infer_parameter_types):

* its annotation (`cp.ndarray`, `torch.Tensor`, `DeviceNDArray`, `GPUArray`, `csr_matrix`, a class it defines);
* what the function does with it: a host array is what it copies to the device itself (`cp.asarray(x)`,
  `torch.from_numpy(x)`, `cuda.to_device(x)`, `gpuarray.to_gpu(x)`, `drv.In(x)`, `memcpy_htod`) or writes a device
  result into (`y[:] = cp.asnumpy(d)`, `d.copy_to_host(y)`); a device array is what it uses as one (`.is_cuda`,
  `.data_ptr()`, `.copy_to_host()`, `.gpudata`, `cp.`/`torch.` operations on it) or hands as it is to a device
  kernel (a CuPy RawKernel/ElementwiseKernel, a `@cuda.jit` or `@triton.jit` kernel, a pyCUDA SourceModule
  function), or to a helper of its own that does one of those;
* the fields it reads: `A.indptr`/`A.indices`/`A.data` or `A @ x` (SciPy), `A.row_ptr` (an object with fields),
  `A["values"]` (a dict), `row_ptr, col_idx, values = A` (a tuple).
Host evidence wins over device evidence (a function that copies a parameter itself wants it on the host), and a
parameter with no evidence either way is a NumPy array, as before.

Device arrays are views of the first n elements of device buffers of n + HP_PAD elements (guard zones): the pad
holds a pattern (NaN after inputs, a large finite value after outputs, as the host driver's guards), and after the
call the driver checks it is intact, so a kernel that stores past n (a Triton kernel without a mask, a CUDA kernel
without its `if (i < n)`) is reported ("wrote past the end of y") instead of landing in the allocator's slack.

Device arrays are made before the clock starts and copied back (outputs, and inputs a call may have clobbered) after
it stops; a returned device array is read back by the driver's host_value (HOST_VALUE_SOURCE) after the clock stops,
with each library's own call. So no conversion is ever timed; on the GPU the timing run reports the kernel-only
time anyway.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

from hpceval.analysis.pyparse import parse_python
from hpceval.bind.adapt.common import Built
from hpceval.bind.roles import KernelRoles, Role

# ------------------------------------------------------------------------------------------------ the adapters


@dataclass(frozen=True)
class DeviceArray:
    """A device array of one library: made from the host array, read back with the library's own call."""

    kind: str
    module: str  # what the setup imports (as hp_<kind>)
    make: str  # {m}: the module, {h}: a contiguous host array
    read: str  # {v}: the device value
    label: str
    # the first n elements of the guarded buffer {f}, shaped as {h}; pyCUDA's slices carry a bare int as `.gpudata`,
    # which its own kernel calls reject, so its view shares the buffer's allocation object instead
    view: str = "{f}[:{h}.size].reshape({h}.shape)"

    def build(self, var: str, host: str, name: str = "", output: bool = False) -> Built:
        """`var`: the first n elements of a guarded device buffer made from `host`; the teardown copies it back
        and checks the guard zone (`name`: the array in the report; `output`: which pattern the pad holds)."""
        mod, full = f"hp_{self.kind}", f"{var}_guarded"
        guarded = f"hp_guarded({host}, {output})"
        return Built(setup=[f"{mod} = __import__({self.module!r}, fromlist=['_'])",
                            f"{full} = {self.make.format(m=mod, h=guarded)}",
                            f"{var} = {self.view.format(f=full, h=host, m=mod)}"],
                     arg=var, teardown=[f"{host}[...] = {self.read_back(var)}", self.check(full, host, name, output)],
                     note=f"passed as {self.label} (a guarded buffer), made before the timed call and copied back "
                          "after it")

    def check(self, full: str, host: str, name: str, output: bool) -> str:
        """The statement that checks the guard zone after the call (reads it back with the library's call)."""
        return f"hp_check_pad({self.read_back(f'{full}[{host}.size:]')}, {name!r}, {output})"

    def read_back(self, value: str) -> str:
        return self.read.format(v=value)


DEVICE = {
    "cupy": DeviceArray("cupy", "cupy", "{m}.asarray({h})", "{v}.get()", "a CuPy array"),
    # Triton's interpreter (no GPU) runs on CPU tensors: the device is CUDA where there is one
    "torch": DeviceArray("torch", "torch", "{m}.from_numpy({h}).to('cuda' if {m}.cuda.is_available() else 'cpu')",
                         "{v}.detach().cpu().numpy()", "a Torch CUDA tensor"),
    "numba": DeviceArray("numba", "numba.cuda", "{m}.to_device({h})", "{v}.copy_to_host()", "a numba device array"),
    "gpuarray": DeviceArray("gpuarray", "pycuda.gpuarray", "({m}, __import__('pycuda.autoinit'))[0].to_gpu({h})",
                            "{v}.get()", "a pyCUDA GPUArray",
                            "{m}.GPUArray({h}.shape, {f}.dtype, gpudata={f}.gpudata, base={f})"),
}

# The driver's read-back of returned values: device arrays of every library by their own call (`np.asarray` on a
# CuPy array raises "Implicit conversion to a NumPy array is not allowed"), tuples element by element.
HOST_VALUE_SOURCE = '''
def host_value(value):
    """A returned value in host form: device arrays read back with their library's own call."""
    if isinstance(value, (tuple, list)) and any(not isinstance(v, (int, float)) for v in value):
        parts = [host_value(v) for v in value]
        return type(value)._make(parts) if hasattr(value, "_make") else type(value)(parts)  # NamedTuple: _make
    library = type(value).__module__.split(".")[0]
    if library == "cupy" or library == "pycuda":
        return value.get()
    if library == "torch":
        return value.detach().cpu().numpy()
    if hasattr(value, "copy_to_host"):  # numba device arrays (and the simulator's)
        return value.copy_to_host()
    return value
'''


# The driver's guard zones of device arrays (DeviceArray.build): made before the clock starts, checked after it
# stops. The report is read by the harness as wrong_result (checks.base run_failure, OUT_OF_BOUNDS).
DEVICE_GUARD_SOURCE = '''
HP_PAD = 4096  # elements after each device array: at least one block of any launch
_hp_exit = os._exit


def hp_pad_value(dtype, output):
    """The guard pattern: NaN after inputs (a read past the end poisons the result), a large finite value after
    outputs (a store past the end changes it, NaN included)."""
    dtype = np.dtype(dtype)
    if dtype.kind in "fc":
        return -1.2345678e30 if output else np.nan
    return np.iinfo(dtype).min + 7 if dtype.kind in "iu" else 0


def hp_guarded(host, output):
    """The host array's elements followed by HP_PAD guard elements, as one contiguous host buffer."""
    flat = np.ravel(host)
    full = np.empty(flat.size + HP_PAD, dtype=flat.dtype)
    full[:flat.size] = flat
    full[flat.size:] = hp_pad_value(flat.dtype, output)
    return full


def hp_check_pad(pad, name, output):
    """Leave with the out-of-bounds report when a guard element changed (bit for bit)."""
    pad = np.ascontiguousarray(pad)
    expected = np.full(pad.shape, hp_pad_value(pad.dtype, output), dtype=pad.dtype)
    changed = int(np.count_nonzero((pad.view(np.uint8).reshape(pad.size, -1)
                                    != expected.view(np.uint8).reshape(pad.size, -1)).any(axis=1)))
    if changed:
        sys.stderr.write(f"hpceval out of bounds: the kernel wrote past the end of {name} ({changed} elements "
                         "beyond n)\\n")
        sys.stderr.flush()
        _hp_exit(5)
'''


@dataclass
class ParamType:
    """What a parameter is, with the evidence (`why`). Records: `fields` maps each field (attribute, key, or the
    name a tuple element is unpacked into) to itself in order; `cls` is the suggestion's own class to construct."""

    kind: str = "numpy"  # numpy | cupy | torch | numba | gpuarray | scipy_csr | record | namespace | dict | tuple
    why: str = ""
    fields: list[str] = field(default_factory=list)
    cls: str | None = None
    # used as a matrix (`p @ v`, `p * v`, `p.dot(v)`) and never indexed: a SciPy matrix where the kernel is sparse
    # (its variants carry CSR arrays), the dense array the driver holds where it is dense (GEMV)
    matmul: bool = False
    # a scalar that reaches a `@triton.jit` kernel: handed as a Python float/int (Triton's launcher refuses NumPy
    # scalars: "failed to specialize argument of type: numpy.float32"); the evidence, else ""
    native: str = ""

    def role(self, kr: KernelRoles, name: str) -> Role | None:
        """The role a record parameter takes: the canonical parameters its fields carry (each field named like one
        of them, at least two arrays, inputs only), or None when it is no record of this kernel's arrays. A class
        of the suggestion's own may instead hold one array and its sizes (`Matrix(rows, cols, data)`): sizes named
        like the kernel's, one further field of any name, which carries the one input array of exactly that shape."""
        fields = list(SCIPY_FIELDS) if self.sparse else self.fields if self.record else []
        carried: list[tuple[str, str]] = []
        unnamed: list[str] = []
        for f in fields:
            named = [r for r in kr.canonical if f in r.names]
            if len(named) > 1:
                named = [r for r in named if r.name == f] or [r for r in named if r.is_array]
            if len(named) != 1:
                if f in SIZE_FIELDS and self.kind != "record":  # a size the driver need not hand over
                    continue
                if self.kind == "record":
                    unnamed.append(f)
                    continue
                return None
            carried.append((f, named[0].name))
        arrays = 2
        if unnamed:
            held = _array_of_sizes(kr, carried, unnamed)
            if held is None:
                return None
            carried.append(held)
            arrays = 1
        roles = [kr.role(c) for _f, c in carried]
        if len({c for _f, c in carried}) != len(carried) or sum(r.is_array for r in roles) < arrays:
            return None
        if any(r.is_output for r in roles) and self.sparse:
            return None  # a SciPy matrix holds no output
        # a record that carries an output (`grids["unew"]`, `state.y`) is read back after the call (build_record)
        intent = "inout" if any(r.is_output for r in roles) else "in"
        return Role(name=f"{name}{{{', '.join(c for _f, c in carried)}}}", kind="record", intent=intent,
                    names=[name], fields=tuple(carried))

    @property
    def sparse(self) -> bool:
        """A SciPy matrix wherever the kernel's roles carry its CSR fields (read, or used only as a matrix)."""
        return self.kind == "scipy_csr" or (self.matmul and self.kind == "numpy")

    @property
    def device(self) -> bool:
        return self.kind in DEVICE

    @property
    def record(self) -> bool:
        return self.kind in ("scipy_csr", "record", "namespace", "dict", "tuple")


def _array_of_sizes(kr: KernelRoles, carried: list[tuple[str, str]], unnamed: list[str]) -> tuple[str, str] | None:
    """(field, array) for a record whose named fields are only sizes and whose one other field holds the input
    array of exactly those sizes; None where the record is not that, or where no single array has that shape."""
    sizes = {c for _f, c in carried}
    if len(unnamed) != 1 or not sizes or any(kr.role(c).is_array for c in sizes):
        return None
    shaped = [r for r in kr.canonical if r.is_array and set(r.shape) == sizes]  # outputs too: AXPY's x or y?
    return (unnamed[0], shaped[0].name) if len(shaped) == 1 and not shaped[0].is_output else None


# The product called through a sparse matrix class, the matrix its first argument: `scipy.sparse.csr_matrix.dot(A,
# x)`, `csr_array.__matmul__(A, x)`, `cupy.sparse.csr_matrix.dot(A, x)` (SciPy's and CuPy's class names).
SPARSE_CLASS = re.compile(r"(cs[rc]|coo|bsr)_(matrix|array)|spmatrix|sparray")
CLASS_PRODUCTS = {"dot", "__matmul__", "__mul__", "matvec", "_mul_vector"}


def _sparse_class_product(node: ast.Call, name: str) -> bool:
    func = node.func
    if not (isinstance(func, ast.Attribute) and func.attr in CLASS_PRODUCTS and node.args and _is(node.args[0], name)):
        return False
    owner = func.value
    last = owner.attr if isinstance(owner, ast.Attribute) else owner.id if isinstance(owner, ast.Name) else ""
    return bool(SPARSE_CLASS.fullmatch(last))


SCIPY_FIELDS = ("indptr", "indices", "data")
SCIPY_OTHER = {"shape", "nnz", "T", "dot", "transpose", "tocsr", "toarray", "todense", "multiply", "getrow",
               "diagonal", "sum", "has_sorted_indices", "sort_indices", "sum_duplicates", "dtype", "ndim",
               "multiply_vector"}
SIZE_FIELDS = {"shape", "nnz", "n", "m", "nrows", "ncols", "size", "rows", "cols", "num_rows", "num_cols", "N"}


def build_record(t: ParamType, var: str, fields: dict[str, str], rows: str, outputs: set[str] = frozenset()) -> Built:
    """The statements that make a record parameter from the driver's arrays (`fields`: field -> host expression;
    `rows`: the matrix's row count, for a SciPy matrix), and read the output fields back after the call (`outputs`:
    a function may write them in place or put a new array in the record)."""
    if t.sparse:
        parts = ", ".join(fields[f] for f in ("data", "indices", "indptr"))
        make = f"__import__('scipy.sparse', fromlist=['_']).csr_matrix(({parts}), shape=({rows}, {rows}))"
        note = "a SciPy CSR matrix of the kernel's arrays"
    elif t.kind == "tuple":
        make = "(" + ", ".join(fields[f] for f in t.fields) + ",)"
        note = f"a tuple ({', '.join(t.fields)})"
    else:
        kwargs = ", ".join(f"{f}={fields[f]}" for f in t.fields if f in fields)
        if t.kind == "dict":
            make = "{" + ", ".join(f"{f!r}: {fields[f]}" for f in t.fields) + "}"
            note = f"a dict with keys {', '.join(t.fields)}"
        elif t.kind == "record":
            make = f"_module.{t.cls}({kwargs})"
            note = f"the suggestion's own {t.cls}({', '.join(t.fields)})"
        else:
            make = f"__import__('types').SimpleNamespace({kwargs})"
            note = f"an object with fields {', '.join(t.fields)}"
    teardown = []
    for f in sorted(outputs):
        held = f"{var}[{t.fields.index(f)}]" if t.kind == "tuple" else f"{var}[{f!r}]" if t.kind == "dict" \
            else f"{var}.{f}"
        teardown.append(f"take_back({fields[f]}, host_value({held}), {f!r})")
    return Built(setup=[f"{var} = {make}"], arg=var, teardown=teardown,
                 note=f"passed as {note}, made before the timed call" + (
                     f"; {', '.join(sorted(outputs))} read back from it after the call" if outputs else ""))


# ------------------------------------------------------------------------------------------------ inference

TRANSFERS_IN = {"cupy": {"asarray", "array", "ascontiguousarray"}, "torch": {"from_numpy", "tensor", "as_tensor"},
                "numba.cuda": {"to_device", "pinned_array_like", "mapped_array_like"},
                "pycuda.gpuarray": {"to_gpu", "to_gpu_async"}, "pycuda.driver": {"In", "Out", "InOut", "to_device"}}
READ_BACK = {"asnumpy", "copy_to_host", "get", "cpu", "numpy", "memcpy_dtoh"}
ATTRIBUTES = {"is_cuda": "torch", "data_ptr": "torch", "numel": "torch", "element_size": "torch",
              "contiguous": "torch", "cuda": "torch", "copy_to_host": "numba", "copy_to_device": "numba",
              "gpudata": "gpuarray", "__cuda_array_interface__": "numba"}
SCALAR_TYPES = {"float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint32", "uint64", "intp", "uintp",
                "float_", "int_", "dtype", "cdiv", "next_power_of_2", "device"}
LIBRARY_OF_MODULE = {"cupy": "cupy", "torch": "torch", "numba.cuda": "numba", "pycuda.gpuarray": "gpuarray",
                     "pycuda.driver": "gpuarray", "triton": "torch"}
ANNOTATIONS = [("cupy", ("cupy.ndarray",)), ("torch", ("torch.Tensor", "Tensor")),
               ("numba", ("DeviceNDArray", "devicearray")), ("gpuarray", ("GPUArray", "gpuarray")),
               ("scipy_csr", ("csr_matrix", "csr_array", "spmatrix", "sparray", "sparse"))]


class _Module:
    """What the suggestion's top level says: import aliases, device kernels, classes and functions."""

    def __init__(self, tree: ast.Module):
        self.alias: dict[str, str] = {}
        self.kernels: dict[str, str] = {}  # name -> library its arguments must be on
        self.triton: set[str] = set()  # the @triton.jit kernels (their scalars must be Python scalars)
        self.classes: dict[str, list[str]] = {}
        self.functions: dict[str, ast.FunctionDef] = {}
        for node in tree.body:
            if isinstance(node, ast.Import):
                for a in node.names:
                    self.alias[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
            elif isinstance(node, ast.ImportFrom) and node.module:
                for a in node.names:
                    self.alias[a.asname or a.name] = f"{node.module}.{a.name}"
        for node in tree.body:
            if isinstance(node, ast.FunctionDef):
                self.functions[node.name] = node
                for d in node.decorator_list:
                    lib = self._jit_library(d)
                    if lib:
                        self.kernels[node.name] = lib
                    if lib == "torch":
                        self.triton.add(node.name)
            elif isinstance(node, ast.ClassDef):
                self.classes[node.name] = [s.target.id for s in node.body
                                           if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)] \
                    or _init_parameters(node)
            elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                self._assigned(node.targets[0].id, node.value)

    def resolve(self, node: ast.AST) -> str:
        """`cp.asarray` -> `cupy.asarray` through the import aliases."""
        text = ast.unparse(node)
        head, _, rest = text.partition(".")
        full = self.alias.get(head, head)
        return f"{full}.{rest}" if rest else full

    def _jit_library(self, d: ast.AST) -> str | None:
        name = self.resolve(d.func if isinstance(d, ast.Call) else d)
        if name.endswith("jit") and ("numba.cuda" in name or name.startswith("cuda.")):
            return "numba"
        if name.startswith("triton") and name.endswith("jit"):
            return "torch"
        return None

    def _assigned(self, name: str, value: ast.AST) -> None:
        if not isinstance(value, ast.Call):
            return
        func = self.resolve(value.func)
        if func.startswith("cupy") and func.endswith(("RawKernel", "ElementwiseKernel", "ReductionKernel")):
            self.kernels[name] = "cupy"
        elif func.endswith("get_function"):
            self.kernels[name] = "cupy" if "cupy" in self.alias.values() else "gpuarray"
        elif func.endswith("namedtuple") and len(value.args) >= 2:
            spec = value.args[1]
            if isinstance(spec, ast.Constant) and isinstance(spec.value, str):
                self.classes[name] = spec.value.replace(",", " ").split()
            elif isinstance(spec, (ast.List, ast.Tuple)):
                self.classes[name] = [e.value for e in spec.elts if isinstance(e, ast.Constant)]

    def library(self, lib: str) -> str:
        """The library a device array of an ambiguous call (`.get()`) belongs to, by what the module imports."""
        imported = " ".join(self.alias.values())
        if lib == "get":
            return "gpuarray" if "pycuda" in imported and "cupy" not in imported else "cupy"
        return lib


def _init_parameters(cls: ast.ClassDef) -> list[str]:
    """A plain class's fields as its `__init__` takes them (keyword-callable, no *args/**kwargs), else []."""
    init = next((f for f in cls.body if isinstance(f, ast.FunctionDef) and f.name == "__init__"), None)
    if init is None or init.args.vararg or init.args.kwarg or init.args.posonlyargs:
        return []
    return [a.arg for a in init.args.args[1:]] + [a.arg for a in init.args.kwonlyargs]


def _root(node: ast.AST) -> str | None:
    while isinstance(node, (ast.Subscript, ast.Attribute, ast.Starred)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _is(node: ast.AST, name: str) -> bool:
    """The parameter itself or a slice of it (`x`, `x[:n]`), as handed to a call."""
    while isinstance(node, ast.Subscript):
        node = node.value
    return isinstance(node, ast.Name) and node.id == name


def _matrix_operand(node: ast.AST, name: str) -> bool:
    """The parameter as the left operand of a product, itself or transposed (`A`, `A.T`, `A.transpose()`)."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "transpose":
        node = node.func.value
    if isinstance(node, ast.Attribute) and node.attr in ("T", "H"):
        node = node.value
    return isinstance(node, ast.Name) and node.id == name


def _callee_name(func: ast.AST) -> str | None:
    """The kernel a call launches: `k(...)`, `k[grid, block](...)`, `k.forall(n)(...)`."""
    node = func
    while isinstance(node, (ast.Subscript, ast.Call, ast.Attribute)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


def _kernel_called(mod: _Module, func: ast.AST) -> str | None:
    """The library whose arrays a call's callee wants."""
    return mod.kernels.get(_callee_name(func) or "")


def _call_args(call: ast.Call) -> list[ast.AST]:
    """Positional arguments, with a tuple argument's elements (a RawKernel takes its arguments as a tuple)."""
    out: list[ast.AST] = []
    for a in [*call.args, *(k.value for k in call.keywords)]:
        out.extend(a.elts if isinstance(a, (ast.Tuple, ast.List)) else [a])
    return out


def _param_type(mod: _Module, fn: ast.FunctionDef, name: str, depth: int = 0) -> ParamType:
    arg = next(a for a in fn.args.args + fn.args.kwonlyargs if a.arg == name)
    if arg.annotation is not None:
        text = mod.resolve(arg.annotation)
        for kind, words in ANNOTATIONS:
            if any(w in text for w in words):
                return ParamType(kind, f"annotated {ast.unparse(arg.annotation)}")
        cls = ast.unparse(arg.annotation)
        if cls in mod.classes:
            return ParamType("record", f"annotated with its own class {cls}", list(mod.classes[cls]), cls)
    host = device = None
    matmul = product = indexed = False
    native = ""
    attrs: list[str] = []
    keys: list[str] = []
    unpacked: list[str] = []
    for node in ast.walk(fn):
        if isinstance(node, ast.Call):
            func = mod.resolve(node.func)
            args = _call_args(node)
            here = [a for a in args if _is(a, name)]
            module, _, last = func.rpartition(".")
            if here and _callee_name(node.func) in mod.triton:
                native = native or f"handed to the Triton kernel {ast.unparse(node.func)}"
            if here and last in TRANSFERS_IN.get(module, ()):
                host = host or f"copied to the device by {ast.unparse(node.func)}()"
            elif here and last == "asnumpy" and node.args and _is(node.args[0], name):
                device = device or ("cupy", f"read back by {ast.unparse(node.func)}()")
            elif here and last in READ_BACK | {"memcpy_htod", "set"} and not _is(node.func, name):
                host = host or f"copied to or from the device by {ast.unparse(node.func)}()"
            elif here and (lib := _kernel_called(mod, node.func)):
                device = device or (lib, f"handed as it is to the device kernel {ast.unparse(node.func)}")
            elif here and module in LIBRARY_OF_MODULE and module != "triton" and last not in SCALAR_TYPES:
                device = device or (LIBRARY_OF_MODULE[module], f"used by {ast.unparse(node.func)}()")
            elif here and isinstance(node.func, ast.Name) and node.func.id in mod.functions and depth < 3:
                helper = mod.functions[node.func.id]
                position = next(i for i, a in enumerate(node.args) if _is(a, name)) if any(
                    _is(a, name) for a in node.args) else None
                params = [a.arg for a in helper.args.args]
                if position is not None and position < len(params) and helper is not fn:
                    inner = _param_type(mod, helper, params[position], depth + 1)
                    if inner.native:
                        native = native or f"handed to {helper.name}, where it is {inner.native}"
                    if inner.device:
                        device = device or (inner.kind, f"handed to {helper.name}, where it is {inner.why}")
                    elif inner.why.startswith(("copied", "receives")):
                        host = host or f"handed to {helper.name}, where it is {inner.why}"
            if (_is(node.func, name) is False and isinstance(node.func, ast.Attribute) and
                    _is(node.func.value, name) and node.func.attr in ("dot",)) or _sparse_class_product(node, name):
                matmul = True  # A.dot(x), or the class's product with A first (csr_matrix.dot(A, x))
        elif isinstance(node, ast.Attribute) and _is(node.value, name) and isinstance(node.value, ast.Name):
            attrs.append(node.attr)
            lib = ATTRIBUTES.get(node.attr)
            if node.attr == "get":
                lib = mod.library("get")
            if lib:
                device = device or (lib, f"uses .{node.attr}")
        elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == name:
            indexed = True
            key = node.slice
            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                keys.append(key.value)
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult) and _is(node.left, name):
            matmul = True
        elif isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Mult, ast.MatMult)) and \
                _matrix_operand(node.left, name) and not isinstance(node.right, ast.Constant):
            product = True
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Name) and node.value.id == name:
            target = node.targets[0]
            if isinstance(target, (ast.Tuple, ast.List)) and all(isinstance(e, ast.Name) for e in target.elts):
                unpacked = [e.id for e in target.elts]
        if isinstance(node, (ast.Assign, ast.AugAssign)) and host is None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            value = ast.unparse(node.value)
            if any(_is(t, name) and isinstance(t, ast.Subscript) for t in targets) and any(
                    f"{w}(" in value or f".{w}" in value for w in ("asnumpy", "copy_to_host", ".get", ".cpu")):
                host = f"receives a device result ({value[:40]})"
    matmul = matmul or (product and not indexed)  # `A * x` is a matrix product only for a matrix never indexed
    if host:
        found = ParamType("numpy", host)
    elif device:
        found = ParamType(device[0], device[1])
    else:
        found = _record_type(mod, name, attrs, keys, unpacked, matmul)
    found.native = native
    return found


def _record_type(mod: _Module, name: str, attrs: list[str], keys: list[str], unpacked: list[str], matmul: bool
                 ) -> ParamType:
    fields = list(dict.fromkeys(a for a in attrs if a not in SCIPY_OTHER or a in SIZE_FIELDS))
    if any(f in SCIPY_FIELDS for f in attrs) and set(attrs) <= set(SCIPY_FIELDS) | SCIPY_OTHER:
        return ParamType("scipy_csr", f"reads {', '.join(sorted(set(attrs) & set(SCIPY_FIELDS)))} (SciPy's CSR fields)",
                         list(SCIPY_FIELDS), matmul=matmul)
    if keys and not attrs:
        return ParamType("dict", f"indexed by {', '.join(dict.fromkeys(keys))}", list(dict.fromkeys(keys)))
    if unpacked and not attrs and not keys:
        return ParamType("tuple", f"unpacked into {', '.join(unpacked)}", unpacked)
    if len(fields) >= 2 and not matmul:
        return ParamType("namespace", f"reads the fields {', '.join(fields)}", fields)
    return ParamType("numpy", "", matmul=matmul)


def infer_parameter_types(code: str, function: str) -> dict[str, ParamType]:
    """Per parameter of the module-level function `function`: what type it must be handed. Empty when the code
    does not parse or has no such function (every parameter is then a NumPy array, as the driver holds it)."""
    try:
        tree = parse_python(code)
    except (SyntaxError, ValueError):
        return {}
    mod = _Module(tree)
    fn = mod.functions.get(function)
    if fn is None:
        return {}
    out = {}
    for a in fn.args.args + fn.args.kwonlyargs:
        try:
            out[a.arg] = _param_type(mod, fn, a.arg)
        except (StopIteration, RecursionError):  # noqa: PERF203 - an odd signature: left as the driver holds it
            out[a.arg] = ParamType()
    return out

