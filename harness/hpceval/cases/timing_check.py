"""The timing run's validation: every call's outputs against the reference of the inputs that call got.

Call k's inputs are its set with each element of the scaled arrays times 2^(its class's exponent) (cases/timing.py),
and the outputs are linear in those arrays, so the expected outputs are the sum over the classes of 2^e_c times
the set's reference with the scaled arrays masked to class c: one reference per set and class, computed once in
the process, and a weighted sum per call. The bound's scale combines the same way (every term non-negative), so a
call is held to exactly the validation sizes' tolerance. Calls the plan marks full are compared element by
element (precision lost only at scale, float accumulation in a double kernel, fails here); the others by the
fingerprint the driver returns (a weighted sum of the outputs, `weights`), against the same combination of the
classes' weighted sums. Kernels graded by a check of their own (CG: a residual) are compared in full on every
call, against that check on the call's own inputs.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from hpceval.cases.compare import CaseCheck, Weighted, reference_and_scale, within_bound
from hpceval.cases.io import MissingOutput, array_shape
from hpceval.cases.timing import NUMPY_LOCK, TimingPlan, TimingRecord, read_call_outputs, shared_plan
from hpceval.spec import KernelSpec, Language, eval_expr


@cache
def _weights(n: int) -> np.ndarray:
    """w_i = 1 + ((i * 2654435761) mod 2^32) / 2^32: the drivers' fingerprint weights (hpceval_runtime.c)."""
    h = (np.arange(n, dtype=np.uint64) * np.uint64(2654435761)) & np.uint64(0xFFFFFFFF)
    return 1.0 + h.astype(np.float64) * 2.0**-32


def weights(n: int) -> np.ndarray:
    return _weights(int(n))


def fingerprint(values: np.ndarray, order: str) -> float:
    flat = np.asarray(values, dtype=np.float64).ravel(order=order)
    return float(np.dot(weights(flat.size), flat))


@dataclass
class CallsCheck:
    ok: bool
    detail: str = ""
    call: int | None = None
    worst: float = 0.0
    full: int = 0


@dataclass
class _SetReference:
    """One set's references, one per scale class, computed once for every call on the set: outputs, the bound's
    scale, the reduction length, and per output and storage order the classes' fingerprint sums."""

    expected: list[dict]
    scale: list[dict]
    reduction: float
    sums: dict[tuple[str, str], tuple[np.ndarray, float]]  # (output, order) -> per class (w.ref, w.scale, w.|ref|), sum(w)

    def combined(self, name: str, factors: np.ndarray) -> tuple[Weighted, Weighted]:
        """The expected output and its scale for a call whose classes are scaled by `factors`."""
        return Weighted(factors, [e[name] for e in self.expected]), Weighted(factors, [s[name] for s in self.scale])

    def fingerprint_sums(self, p, inputs: dict, order: str) -> tuple[np.ndarray, float]:
        key = (p.name, order)
        if key not in self.sums:
            shape = array_shape(p, inputs)
            w = weights(int(np.prod(shape)))
            rows = []
            for expected, scale in zip(self.expected, self.scale, strict=True):
                ref = np.asarray(expected[p.name], dtype=np.float64).reshape(shape).ravel(order=order)
                sc = np.asarray(scale[p.name], dtype=np.float64).reshape(shape).ravel(order=order)
                rows.append(np.stack([ref, sc, np.abs(ref)]) @ w)
            self.sums[key] = (np.array(rows).T, float(w.sum()))
        return self.sums[key]


def _set_reference(spec: KernelSpec, plan: TimingPlan, s: int) -> _SetReference:
    """The set's references, per class (shared by every plan on the same sets: see make_plan)."""
    key = ("reference", s)
    if key not in plan._refs:
        expected, scale = zip(*(reference_and_scale(spec, plan.class_inputs(s, c)) for c in range(plan.classes)),
                              strict=True)
        reduction = float(eval_expr(spec.tolerance.reduction, plan.sets[s]))
        plan._refs[key] = _SetReference(list(expected), list(scale), reduction, {})
    return plan._refs[key]


def prepare_references(spec: KernelSpec, size: dict[str, int], reps: int) -> None:
    """The shared sets of (spec, size) and their references, made now (a suggestion's build and validation run
    meanwhile) instead of when the first suggestion's timing run is checked. Nothing if the kernel is graded by
    its own check (no references)."""
    plan = shared_plan(spec, size, reps)
    if spec.custom_check is None:
        for s in range(len(plan.sets)):
            with NUMPY_LOCK:
                _set_reference(spec, plan, s)


def prepare_layouts(spec: KernelSpec, size: dict[str, int], reps: int, lang: Language) -> None:
    """The shared sets' files' contents in this language's layout (and the Python driver's class indices), and the
    references' fingerprint sums in its storage order, made now, while a suggestion builds and validates, instead
    of in its timing run's preparation and its first check (the sums weigh every class's reference at the timing
    size: a second or two for the first suggestion of each kernel and storage order, charged to its comparison)."""
    plan = shared_plan(spec, size, reps)
    for s in range(len(plan.sets)):
        for p in plan.arrays_of_set(s):
            plan.laid_out(s, p, lang)
            if lang.class_indices and p.name in plan.scaled:
                plan.class_indices(s, p.name, array_shape(p, plan.sets[s]), lang.array_order)
        if spec.custom_check is None:
            with NUMPY_LOCK:
                ref = _set_reference(spec, plan, s)
                for p in spec.outputs:
                    if p.is_array and p.name in ref.expected[0]:
                        ref.fingerprint_sums(p, plan.sets[s], lang.array_order)


def check_calls(workdir: Path, spec: KernelSpec, lang: Language, plan: TimingPlan, record: TimingRecord) -> CallsCheck:
    """Every call of the run: full ones against the reference with the validation tolerance, all by fingerprint."""
    with NUMPY_LOCK:
        return _check_calls(workdir, spec, lang, plan, record)


def _check_calls(workdir: Path, spec: KernelSpec, lang: Language, plan: TimingPlan, record: TimingRecord) -> CallsCheck:
    outputs = [p for p in spec.outputs if p.is_array]
    worst, full_count = 0.0, 0
    order = sorted(range(len(record.times)), key=lambda k: not plan.calls[k].full)  # full calls first
    for k in order:
        if plan.calls[k].full:
            try:
                got = read_call_outputs(workdir, spec, lang, plan, k)
            except MissingOutput as exc:
                return CallsCheck(False, f"{plan.describe(k)}: {exc}", k, worst, full_count)
            result = _full_check(spec, plan, k, got)
            worst = max(worst, result.max_rel_error if np.isfinite(result.max_rel_error) else worst)
            if not result.ok:
                return CallsCheck(False, f"{plan.describe(k)}: {result.detail}", k, worst, full_count)
            full_count += 1
        prints = record.fingerprints[k]
        bad = [p.name for p, f in zip(outputs, prints, strict=True) if not np.isfinite(f)]
        if bad:
            return CallsCheck(False, f"{plan.describe(k)}: {bad[0]} has NaN/Inf elements (unwritten or invalid: "
                                     f"its fingerprint is {prints[outputs.index(spec.param(bad[0]))]})", k, worst,
                              full_count)
        problem = None if spec.custom_check is not None else _fingerprint_problem(spec, lang, plan, k, prints)
        if problem:
            return CallsCheck(False, f"{plan.describe(k)}: {problem}", k, worst, full_count)
    return CallsCheck(True, "", None, worst, full_count)


def _full_check(spec: KernelSpec, plan: TimingPlan, k: int, got: dict[str, np.ndarray]) -> CaseCheck:
    if spec.custom_check is not None:
        inputs = plan.inputs(k)
        ok, err, detail = spec.custom_check(inputs, {**inputs, **got}, spec.np_dtype)
        return CaseCheck(bool(ok), float(err), detail)
    ref = _set_reference(spec, plan, plan.calls[k].set)
    factors = plan.factors(k)
    expected, scale = {}, {}
    for name in ref.expected[0]:
        expected[name], scale[name] = ref.combined(name, factors)
    return within_bound(spec, {name: np.asarray(v) for name, v in got.items()}, expected, scale, ref.reduction)


def _fingerprint_problem(spec: KernelSpec, lang: Language, plan: TimingPlan, k: int, prints: list[float]) -> str | None:
    s = plan.calls[k].set
    ref = _set_reference(spec, plan, s)
    factors = plan.factors(k)
    eps = float(np.finfo(spec.np_dtype).eps)
    outputs = [p for p in spec.outputs if p.is_array]
    for p, got in zip(outputs, prints, strict=True):
        if p.name not in ref.expected[0]:
            continue
        sums, wsum = ref.fingerprint_sums(p, plan.sets[s], lang.array_order)
        wref, wscale, wabs = (float(np.dot(factors, row)) for row in sums)
        size = int(np.prod(array_shape(p, plan.sets[s])))
        bound = (spec.tolerance.factor * eps * max(ref.reduction, 1.0) * wscale + spec.tolerance.floor * wsum
                 + 8 * size * np.finfo(np.float64).eps * wabs)
        if not abs(got - wref) <= bound:
            return (f"{p.name}: output fingerprint {got:.17g}, expected {wref:.17g} +- {bound:.3g} (the outputs of "
                    "this call are wrong; the calls compared in full were right)")
    return None
