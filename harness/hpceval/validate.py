"""Validate stage: build cases, compare outputs with the reference, check the programming model was used.

Inputs are fresh seeded random data at every validation size; pure outputs are poisoned with NaN before the
call so an unwritten element cannot pass. The error bound is per element and scaled by the kernel evaluated on
absolute values (the classical bound for sums of products), the precision and the reduction length.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from hpceval.caseio import Case, array_dtype, array_shape
from hpceval.spec import KernelSpec, Language, ProgrammingModel, eval_expr

POISON_INT = np.int32(-(2**31) + 7)


def case_rng(seed: int, kernel: str, label: str) -> np.random.Generator:
    digest = hashlib.sha256(f"{seed}:{kernel}:{label}".encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:8], "little"))


def size_label(size: dict[str, int]) -> str:
    return ",".join(f"{k}={v}" for k, v in size.items())


def make_case(spec: KernelSpec, size: dict[str, int], seed: int, *, reps: int = 1, warmup: int = 0,
              write_outputs: bool = True) -> Case:
    label = size_label(size)
    inputs = spec.make_inputs(size, case_rng(seed, spec.id, label))
    for p in spec.params:
        if p.intent == "out" and p.is_array:
            shape = array_shape(p, inputs)
            dtype = array_dtype(p, spec)
            poison = np.nan if dtype.kind == "f" else POISON_INT
            inputs[p.name] = np.full(shape, poison, dtype=dtype)
        elif p.is_array:
            inputs[p.name] = np.asarray(inputs[p.name], dtype=array_dtype(p, spec)).reshape(array_shape(p, inputs))
    return Case(label=label, size=size, inputs=inputs, reps=reps, warmup=warmup, write_outputs=write_outputs)


def validation_cases(spec: KernelSpec, seed: int) -> list[Case]:
    return [make_case(spec, size, seed) for size in spec.sizes.validation]


def timing_case(spec: KernelSpec, seed: int) -> Case:
    return make_case(spec, spec.sizes.timing, seed, reps=spec.sizes.timing_reps, warmup=1, write_outputs=False)


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
    eps = float(np.finfo(spec.np_dtype).eps)
    reduction = float(eval_expr(spec.tolerance.reduction, case.inputs))
    worst = 0.0
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
                             f"at {tuple(int(i) for i in idx)} got {got[idx]:.6g} expected {ref[idx]:.6g}")
    return CaseCheck(True, worst, "")


def strip_comments(code: str, lang: Language) -> str:
    """Remove comments (not directives: '#pragma' and Fortran '!$omp'/'!$acc' sentinels are kept)."""
    if lang.block_comment:
        start, end = (re.escape(t) for t in lang.block_comment)
        code = re.sub(start + r".*?" + end, " ", code, flags=re.DOTALL)
    marker = re.escape(lang.line_comment)
    keep = r"(?!\$)" if lang.id == "fortran" else ""
    if lang.id in ("python", "julia"):
        code = re.sub(r'"""(?:.|\n)*?"""|\'\'\'(?:.|\n)*?\'\'\'', " ", code)
    return re.sub(marker + keep + r"[^\n]*", "", code)


def usage_problem(code: str, model: ProgrammingModel, lang: Language) -> str | None:
    """None when the code uses the requested model; else what is missing (the wrong_model evidence)."""
    clean = strip_comments(code, lang)
    missing = [pattern for pattern in model.usage if not re.search(pattern, clean)]
    if missing:
        return f"no {model.name} construct found (needs /{missing[0]}/ outside comments)"
    return None
