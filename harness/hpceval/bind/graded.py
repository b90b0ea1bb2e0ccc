"""The kernel a bound suggestion is graded against: the canonical spec, or the variant it implements.

A variant (kernels_spec/<kernel>/variants.toml) is graded at *random* values of its extra parameters, drawn per
case from the case's seeded generator: alpha and beta, a sweep count, a starting vector. Grading only at the point
where a variant equals the canonical kernel (alpha = 1, beta = 0) would pass a GEMM that ignores beta. So the
graded spec is the canonical one plus:

* the variant's graded extras as parameters of their own (the driver reads them from the case files like any
  scalar or array, and the glue passes them by name);
* outputs the variant reads (`y += A*x`, `beta*C`) turned inout and filled with random values on entry: never
  zero-filled, so an output a kernel must set but never does stays wrong; pure outputs stay NaN-poisoned;
* the variant's own NumPy reference (reference.py), tolerance and, where it has one, its own check;
* where the prompt does not pin the precision (paper style, kernels whose variants.toml does not say
  `precision.pinned`), the suggestion's own declared precision, with that precision's tolerance.

The binding says all this in its mapping (graded extras map to their own names, `<precision>` to the dtype), so
the evaluator derives the graded spec from the binding alone (`graded_spec`).
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
from pydantic import PrivateAttr

from hpceval.bind.roles import KernelRoles, Role, _load, kernel_roles
from hpceval.contracts import Binding
from hpceval.spec import KernelSpec, Param

PRECISION_KEY = "<precision>"


def draw(how: str, rng: np.random.Generator, shape: tuple[int, ...], dtype: np.dtype) -> Any:
    """One random value (or array) as variants.toml asks: uniform(lo, hi), loguniform(lo, hi), integers(lo, hi)
    (both ends included)."""
    m = re.fullmatch(r"\s*(uniform|loguniform|integers)\(\s*([-+.\deE]+)\s*,\s*([-+.\deE]+)\s*\)\s*", how)
    if m is None:
        raise ValueError(f"variants.toml: cannot draw {how!r} (uniform/loguniform/integers(lo, hi))")
    kind, lo, hi = m.group(1), float(m.group(2)), float(m.group(3))
    size = shape or None
    if kind == "integers":
        value = rng.integers(int(lo), int(hi) + 1, size=size)
        return int(value) if size is None else value.astype(np.int32)
    value = np.exp(rng.uniform(np.log(lo), np.log(hi), size=size)) if kind == "loguniform" else rng.uniform(lo, hi, size)
    return dtype.type(value) if size is None else np.asarray(value, dtype=dtype)


class GradedSpec(KernelSpec):
    """A kernel spec for one variant: canonical parameters (intents adjusted), graded extras, own reference."""

    variant: str = "canonical"
    _extras: list[Role] = PrivateAttr(default_factory=list)
    _filled: list[str] = PrivateAttr(default_factory=list)
    _fixed: dict[str, Any] = PrivateAttr(default_factory=dict)
    _reference: str = PrivateAttr(default="")
    _inputs: list[str] = PrivateAttr(default_factory=list)
    _check: str = PrivateAttr(default="")

    def make_inputs(self, size: dict[str, int], rng: np.random.Generator) -> dict[str, Any]:
        values = self.module.make_inputs(dict(size), rng, self.np_dtype)
        values.update(self._fixed)
        for derive in self._inputs:  # derived extras (a dense copy of the CSR matrix, a starting vector)
            values.update(getattr(self.module, derive)(values, rng, self.np_dtype))
        for r in self._extras:
            if r.name in values and r.random == "derived":
                continue
            shape = tuple(int(_eval(e, values)) for e in r.shape)
            values[r.name] = draw(r.random, rng, shape, self.np_dtype)
        for name in self._filled:  # read by the variant: random on entry, never zeros
            values[name] = rng.uniform(-1.0, 1.0, np.shape(values[name])).astype(self.np_dtype)
        return values

    def reference(self, inputs: dict[str, Any]) -> dict[str, np.ndarray]:
        if self._reference:
            return getattr(self.module, self._reference)({**self._fixed, **inputs})
        return super().reference(inputs)

    @property
    def custom_check(self):
        if self._check:
            return getattr(self.module, self._check)
        return super().custom_check


def _eval(expr: str, values: dict[str, Any]) -> Any:
    from hpceval.spec import eval_expr

    return eval_expr(expr, values)


def variant_ids(binding: Binding, kr: KernelRoles) -> list[str]:
    return [v for v in binding.variant.split("+") if v in kr.variants]


def graded_spec(spec: KernelSpec, binding: Binding) -> KernelSpec:
    """The spec a bound suggestion is graded against (the canonical spec itself when nothing differs)."""
    if not binding.mapping or binding.error:
        return spec
    kr = kernel_roles(spec)
    ids = variant_ids(binding, kr)
    bound = set(binding.mapping.values())
    extras = [r for r in kr.extras if r.graded and r.name in bound]
    dtype = binding.mapping.get(PRECISION_KEY, spec.dtype)
    if not ids and not extras and dtype == spec.dtype and "square" not in binding.variant.split("+"):
        return spec
    declared = [kr.variants[v] for v in ids]
    filled = {n for d in declared for n in d.get("inout", [])} | {n for r in extras for n in r.reads}
    pure = {n for d in declared for n in d.get("outputs", [])}
    modified = {n for d in declared for n in d.get("modifies", [])}  # inputs a variant may overwrite (unchecked)
    params = []
    for p in spec.params:
        intent = "inout" if p.name in filled | modified else "out" if p.name in pure else p.intent
        params.append(p.model_copy(update={"intent": intent}))
    for r in extras:
        kind = "real" if r.kind == "real" else "int"
        params.append(Param(name=r.name, kind=kind, intent=r.intent, shape=list(r.shape), doc=f"variant extra {r.name}"))
    update: dict[str, Any] = {"params": params, "dtype": dtype}
    reduction = next((d["reduction"] for d in declared if d.get("reduction")), None)
    if reduction:
        update["tolerance"] = spec.tolerance.model_copy(update={"reduction": str(reduction)})
    sizes = next((d["sizes"] for d in declared if d.get("sizes")), None)
    if "square" in binding.variant.split("+"):  # one size for all: graded on the square's own cases where given
        cubes = [s for s in sizes or [] if len({v for k, v in s.items() if k in kr.square}) == 1]  # the variant's own
        sizes = cubes or _load(str(spec.folder)).get("square", {}).get("validation") or sizes
    if sizes:
        update["sizes"] = spec.sizes.model_copy(update={"validation": [dict(s) for s in sizes]})
    if "square" in binding.variant.split("+"):  # structures too: only their square sizes (one size for all)
        update["structures"] = [st.model_copy(update={"sizes": kept}) for st in spec.structures
                                if (kept := [s for s in st.sizes if len({v for k, v in s.items() if k in kr.square}) == 1])]
    check = next((d["check"] for d in declared if d.get("check")), "")
    if check:
        update["check"] = "custom"
    data = {**spec.model_dump(), **update, "folder": spec.folder}
    out = GradedSpec(**data, variant=binding.variant)
    out._extras = extras
    out._filled = sorted(filled)
    # extras of the variant the suggestion does not take sit at their canonical values for its reference
    out._fixed = {r.name: _literal(r) for r in kr.extras if r.variant and not r.tuning and r.name not in bound
                  and _literal(r) is not None}
    out._reference = next((d["reference"] for d in declared if d.get("reference")), "")
    out._inputs = [d["inputs"] for d in declared if d.get("inputs")]
    out._check = check
    return out


def _literal(r: Role) -> Any:
    try:
        return float(r.canonical) if r.kind == "real" else int(r.canonical)
    except (TypeError, ValueError):
        return None
