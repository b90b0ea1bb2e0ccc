"""Bind stage: wrap a suggestion into a runnable build unit with the harness-owned driver of its language.

The driver owns data, validation and timing; the suggestion only provides the kernel function. The binding
says how the driver calls it (argument expressions, which output receives a returned array). The canonical
binding calls the kernel with the spec's signature; signature inference (bind.signature) may replace it with a
mapping for free-form suggestions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from jinja2 import Environment, FileSystemLoader, StrictUndefined

from hpceval.bind.canonical import canonical_binding
from hpceval.bind.fortran_module import fortran_kernel_source, with_omp_lib
from hpceval.contracts import Binding
from hpceval.paths import DRIVERS_DIR
from hpceval.spec import KernelSpec, Language, Param

_ENV = Environment(loader=FileSystemLoader(DRIVERS_DIR), undefined=StrictUndefined, keep_trailing_newline=True,
                   trim_blocks=True, lstrip_blocks=True)


class BindError(Exception):
    """The suggestion cannot be connected to the driver; the message is the `unbindable` evidence."""


@dataclass
class DriverHooks:
    """What a toolchain adds to its language's driver (e.g. Kokkos initialize/finalize).

    thread_probe: the driver records, per case, evidence of how many threads ran the kernel (<case>/threads.txt,
    see cases.io.read_threads) for the dynamic thread check of the CPU threading models (toolchains.ThreadCheck).
    """

    includes: list[str] = field(default_factory=list)
    init: str = ""
    finalize: str = ""
    thread_probe: bool = False
    # the kernel's scalars as Python int/float, not NumPy scalars: a Triton kernel rejects a NumPy scalar
    # ("failed to specialize argument of type: numpy.float32") wherever the suggestion hands the driver's value on
    native_scalars: bool = False


def _ctype(p: Param, spec: KernelSpec) -> str:
    if p.kind in ("int", "index"):
        return "int"
    return "float" if spec.dtype == "float32" else "double"


def _ftype(p: Param, spec: KernelSpec) -> str:
    if p.kind in ("int", "index"):
        return "integer"
    return "real(real32)" if spec.dtype == "float32" else "real(real64)"


def _pytype(p: Param, spec: KernelSpec) -> str:
    if p.kind in ("int", "index"):
        return "int" if not p.is_array else "np.int32"
    return f"np.{spec.dtype}"


def _call(lang: Language, binding: Binding) -> str:
    if binding.call:
        return binding.call
    args = ", ".join(binding.args)
    if lang.id == "fortran":
        return f"call {binding.function}({args})"
    if lang.id == "python":
        return f"kernel({args})"
    return f"{binding.function}({args})"


def render_unit(code: str, spec: KernelSpec, lang: Language, binding: Binding, hooks: DriverHooks,
                driver_ext: str | None = None) -> dict[str, str]:
    """Source files of the build unit: the suggestion (possibly wrapped) and the rendered driver."""
    ext = driver_ext or lang.extension
    params = []
    for p in spec.params:
        dims = [str(e) for e in p.shape]
        params.append({
            "name": p.name, "is_array": p.is_array, "ctype": _ctype(p, spec), "ftype": _ftype(p, spec),
            "size_expr": "*".join(f"({d})" for d in dims) or "1", "dims": ", ".join(dims),
            "colons": ",".join(":" for _ in dims), "inout": p.intent == "inout",
            "output": p.is_output,
        })
    context = {"params": params, "call": _call(lang, binding), "function": binding.function,
               "returns": binding.returns, "hooks": hooks, "setup": binding.setup, "teardown": binding.teardown,
               "decls": binding.decls,
               # types the glue declares (a derived type, bind.adapt.fortran) come from the kernel's module too
               "uses": "".join(f", {t}" for t in sorted(set(re.findall(r"^type\((\w+)\)", "\n".join(binding.decls),
                                                                         re.MULTILINE | re.IGNORECASE))))}
    files: dict[str, str] = {}
    if binding.source is not None:
        code = binding.source
    if lang.id == "fortran":
        if binding.source is not None and binding.module:
            source, module = binding.source, binding.module
        else:
            source, module = fortran_kernel_source(code)
        files["kernel.f90"] = with_omp_lib(source)
        files["driver.f90"] = _ENV.get_template("fortran.j2").render(module=module, **context)
    elif lang.id == "python":
        files["kernel.py"] = code
        scalars = [f'("{p.name}", {_pytype(p, spec)})' for p in spec.params if not p.is_array]
        arrays = [f'("{p.name}", {_pytype(p, spec)}, {[str(e) for e in p.shape]!r})' for p in spec.params if p.is_array]
        from hpceval.bind.adapt.python import DEVICE_GUARD_SOURCE, HOST_VALUE_SOURCE

        files["driver.py"] = _ENV.get_template("python.j2").render(
            kernel_file="kernel.py", host_value=(HOST_VALUE_SOURCE + DEVICE_GUARD_SOURCE).strip("\n"), scalar_types="[" + ", ".join(scalars) + "]",
            arrays="[" + ", ".join(arrays) + "]", returned_scalar=spec.returned is not None, **context)
    elif lang.id == "cpp":
        from hpceval.analysis.completeness import drop_local_headers
        from hpceval.bind.shield import shield

        kernel_file = f"kernel.{ext}"
        files[kernel_file] = drop_local_headers(code)  # `#include "spmv.h"` of a header nobody wrote
        driver = _ENV.get_template("cpp.j2").render(kernel_file=kernel_file, **context)
        files[f"driver.{ext}"] = shield(driver, "#define main hpceval_suggestion_main\n", "#undef main\n",
                                           files[kernel_file])
    elif lang.id == "julia":
        files["kernel.jl"] = code
        files["driver.jl"] = _ENV.get_template("julia.j2").render(kernel_file="kernel.jl", **context)
    else:
        raise BindError(f"no driver for language {lang.id}")
    return files


def choose_binding(code: str, spec: KernelSpec, lang: Language, style: str, model=None) -> Binding:
    """The binding for a suggestion: signature inference where available, else the canonical signature.

    Chat prompts fix the signature, so the canonical binding is right for them; free-form (paper-style)
    suggestions go through signature inference when the bind.signature module can handle the language.
    `model` (the requested ProgrammingModel, optional) lets inference prefer, among several candidate functions,
    the one that uses it.
    """
    if style == "paper":
        try:
            from hpceval.bind.signature import infer_binding
        except ImportError:
            infer_binding = None
        if infer_binding is not None:
            return infer_binding(code, spec, lang, model)
    return canonical_binding(spec, lang)
