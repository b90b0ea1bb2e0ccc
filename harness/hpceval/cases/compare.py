"""Compare a case's outputs with the reference: unchanged inputs, then a per-element error bound.

The bound is |out - ref| <= factor * eps * K * scale, where scale is the kernel evaluated on absolute values and
K the reduction length: the classical bound of sums of products, so every correct summation order passes and
float accumulation in a double kernel does not.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from hpceval.cases.io import Case
from hpceval.spec import KernelSpec, eval_expr


@dataclass
class CaseCheck:
    ok: bool
    max_rel_error: float
    detail: str


def _abs_inputs(spec: KernelSpec, inputs: dict[str, Any]) -> dict[str, Any]:
    out = dict(inputs)
    for p in spec.params:
        if p.kind == "real":
            out[p.name] = np.abs(np.asarray(inputs[p.name], dtype=np.float64)) if p.is_array else abs(float(inputs[p.name]))
    return out


def compare(spec: KernelSpec, case: Case, outputs: dict[str, np.ndarray]) -> CaseCheck:
    """Check one case: unchanged inputs, then each output within the scaled bound (or the kernel's own check)."""
    for p in spec.params:
        if p.is_array and p.intent == "in":
            given = np.asarray(case.inputs[p.name])
            if not np.array_equal(outputs[p.name], given, equal_nan=True):
                return CaseCheck(False, float("inf"), f"the kernel modified its input {p.name}")
    if spec.custom_check is not None:
        ok, err, detail = spec.custom_check(case.inputs, outputs, spec.np_dtype)
        return CaseCheck(bool(ok), float(err), detail)
    expected, scale = case.reference or reference_and_scale(spec, case.inputs)
    return within_bound(spec, outputs, expected, scale, float(eval_expr(spec.tolerance.reduction, case.inputs)))


def reference_and_scale(spec: KernelSpec, inputs: dict[str, Any]) -> tuple[dict, dict]:
    """The reference outputs and the kernel on |inputs| (the bound's scale), for `within_bound`."""
    return spec.reference(inputs), spec.reference(_abs_inputs(spec, inputs))


class Weighted:
    """sum_c factors[c] * parts[c] in float64, formed a block at a time: a timing call's expected outputs (and
    their scale) combined from its set's per-class references (cases/timing_check.py) without materialising
    arrays of the output's size."""

    def __init__(self, factors: np.ndarray, parts: list):
        self.factors = [float(f) for f in factors]
        self.parts = [np.asarray(a).reshape(-1) for a in parts]

    @property
    def size(self) -> int:
        return self.parts[0].size

    def block(self, lo: int, hi: int) -> np.ndarray:
        out = np.multiply(self.parts[0][lo:hi], self.factors[0], dtype=np.float64)
        for f, a in zip(self.factors[1:], self.parts[1:], strict=True):
            out += np.multiply(a[lo:hi], f, dtype=np.float64)
        return out


def _flat(values: Any) -> np.ndarray | Weighted:
    return values if isinstance(values, Weighted) else np.asarray(values).reshape(-1)


def _block(values: np.ndarray | Weighted, lo: int, hi: int) -> np.ndarray:
    return values.block(lo, hi) if isinstance(values, Weighted) else np.asarray(values[lo:hi], dtype=np.float64)


_BLOCK = 1 << 16  # elements per pass: the temporaries of one block stay in the cache


def within_bound(spec: KernelSpec, outputs: dict[str, np.ndarray], expected: dict, scale: dict,
                 reduction: float) -> CaseCheck:
    """Each output against an already computed reference and scale (arrays, or `Weighted` combinations: the
    timing run reuses one reference per input set and class for every call: cases/timing_check.py). The outputs
    are compared a block at a time (the timing size's outputs are 10^7 elements: a pass per temporary over the
    whole array cost several times more); an output with any element out of bound or not finite is then
    described from the whole arrays."""
    eps = float(np.finfo(spec.np_dtype).eps)
    factor = spec.tolerance.factor * eps * max(reduction, 1.0)
    tiny = np.finfo(np.float64).tiny
    worst = 0.0
    for name, ref in expected.items():
        got, ref, sc = outputs[name].reshape(-1), _flat(ref), _flat(scale[name])
        if ref.size != got.size or sc.size != got.size:
            raise ValueError(f"{name}: {got.size} elements, its reference {ref.size} and scale {sc.size}")
        for lo in range(0, got.size, _BLOCK):
            hi = min(lo + _BLOCK, got.size)
            g, r, s = np.asarray(got[lo:hi], dtype=np.float64), _block(ref, lo, hi), _block(sc, lo, hi)
            err = np.abs(g - r)
            if not np.isfinite(g).all() or (err > factor * s + spec.tolerance.floor).any():
                return _described(spec, name, outputs[name], ref, sc, factor, worst)
            worst = max(worst, float((err / np.maximum(s, tiny)).max()))
    return CaseCheck(True, worst, "")


def _described(spec: KernelSpec, name: str, got: np.ndarray, ref: np.ndarray | Weighted,
               scale: np.ndarray | Weighted, factor: float, worst: float) -> CaseCheck:
    """The evidence for an output that failed: how many elements are invalid or out of bound, and the worst one."""
    got = got.astype(np.float64)
    ref, sc = (_block(values, 0, got.size).reshape(got.shape) for values in (ref, scale))
    # repr-level digits of the precision graded, so that a difference shows in the evidence
    digits = 9 if spec.np_dtype == np.float32 else 17
    precision = " (graded in single precision)" if spec.np_dtype == np.float32 else ""
    finite = np.isfinite(got)
    if not finite.all():
        bad = int((~finite).sum())
        return CaseCheck(False, float("inf"), f"{name}: {bad} of {got.size} elements NaN/Inf (unwritten or invalid)")
    err = np.abs(got - ref)
    worst = max(worst, float((err / np.maximum(sc, np.finfo(np.float64).tiny)).max()) if err.size else 0.0)
    bound = factor * sc + spec.tolerance.floor
    fails = err > bound
    idx = np.unravel_index(int(np.argmax(np.where(fails, err - bound, -np.inf))), got.shape)
    return CaseCheck(False, worst, f"{name}: {int(fails.sum())} of {got.size} elements wrong; "
                     f"at {tuple(int(i) for i in idx)} got {got[idx]:.{digits}g} expected {ref[idx]:.{digits}g}"
                     f"{precision}")
