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
    expected = spec.reference(case.inputs)
    scale = spec.reference(_abs_inputs(spec, case.inputs))
    return within_bound(spec, outputs, expected, scale, float(eval_expr(spec.tolerance.reduction, case.inputs)))


def reference_and_scale(spec: KernelSpec, inputs: dict[str, Any]) -> tuple[dict, dict]:
    """The reference outputs and the kernel on |inputs| (the bound's scale), for `within_bound`."""
    return spec.reference(inputs), spec.reference(_abs_inputs(spec, inputs))


def within_bound(spec: KernelSpec, outputs: dict[str, np.ndarray], expected: dict, scale: dict,
                 reduction: float) -> CaseCheck:
    """Each output against an already computed reference and scale (the timing run reuses one reference per input
    set for every call: cases/timing.py)."""
    eps = float(np.finfo(spec.np_dtype).eps)
    worst = 0.0
    # repr-level digits of the precision graded, so that a difference shows in the evidence
    digits = 9 if spec.np_dtype == np.float32 else 17
    precision = " (graded in single precision)" if spec.np_dtype == np.float32 else ""
    for name, ref in expected.items():
        got = outputs[name].astype(np.float64)
        ref = np.asarray(ref, dtype=np.float64).reshape(got.shape)
        sc = np.asarray(scale[name], dtype=np.float64).reshape(got.shape)
        bound = spec.tolerance.factor * eps * max(reduction, 1.0) * sc + spec.tolerance.floor
        finite = np.isfinite(got)
        if not finite.all():
            bad = int((~finite).sum())
            return CaseCheck(False, float("inf"), f"{name}: {bad} of {got.size} elements NaN/Inf (unwritten or invalid)")
        err = np.abs(got - ref)
        rel = err / np.maximum(sc, np.finfo(np.float64).tiny)
        worst = max(worst, float(rel.max()) if rel.size else 0.0)
        fails = err > bound
        if fails.any():
            idx = np.unravel_index(int(np.argmax(np.where(fails, err - bound, -np.inf))), got.shape)
            return CaseCheck(False, worst, f"{name}: {int(fails.sum())} of {got.size} elements wrong; "
                             f"at {tuple(int(i) for i in idx)} got {got[idx]:.{digits}g} expected {ref[idx]:.{digits}g}"
                             f"{precision}")
    return CaseCheck(True, worst, "")
