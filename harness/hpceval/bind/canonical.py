"""The canonical binding: the driver calls the kernel with the spec's own signature, argument for argument.

Chat prompts fix this signature, and signature inference falls back to it when a free-form suggestion matches it
exactly; it lives apart from the package init so that inference (bind.signature) can use it without importing
the package that imports inference.
"""

from __future__ import annotations

from hpceval.contracts import Binding
from hpceval.spec import KernelSpec, Language


def canonical_args(spec: KernelSpec, lang: Language) -> list[str]:
    """Argument expressions for calling the kernel with the spec's own signature."""
    params = [p for p in spec.params if not p.returned]  # a returned scalar is the call's value, no argument
    if lang.id == "cpp":
        return [f"{p.name}.data()" if p.is_array else p.name for p in params]
    if lang.id == "python":
        return [f'ns["{p.name}"]' for p in params]
    return [p.name for p in params]


def canonical_binding(spec: KernelSpec, lang: Language) -> Binding:
    outputs = [p.name for p in spec.outputs if p.is_array]
    returns = outputs[0] if lang.id in ("python", "julia") and len(outputs) == 1 else None
    args = canonical_args(spec, lang)
    call = None
    if spec.returned is not None:  # the function's value is the result (glue.returned_call spells it per language)
        from hpceval.bind.glue.common import returned_call

        returns = spec.returned.name
        call = returned_call(lang.id, spec.function, args, returns)
    return Binding(function=spec.function, args=args, returns=returns, call=call,
                   evidence=f"canonical signature {spec.function}({', '.join(p.name for p in spec.params)})")
