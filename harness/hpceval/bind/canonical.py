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
    if lang.id == "cpp":
        return [f"{p.name}.data()" if p.is_array else p.name for p in spec.params]
    if lang.id == "python":
        return [f'ns["{p.name}"]' for p in spec.params]
    return [p.name for p in spec.params]


def canonical_binding(spec: KernelSpec, lang: Language) -> Binding:
    outputs = [p.name for p in spec.outputs if p.is_array]
    returns = outputs[0] if lang.id in ("python", "julia") and len(outputs) == 1 else None
    return Binding(function=spec.function, args=canonical_args(spec, lang), returns=returns,
                   evidence=f"canonical signature {spec.function}({', '.join(p.name for p in spec.params)})")
