"""Validation and timing cases: fresh seeded inputs per size, pure outputs poisoned with NaN.

Every size gets its own inputs (a kernel cannot learn one case from another), and an output the kernel never
writes stays NaN, so it cannot pass by accident. After the spec's plain sizes come its declared structures
(KernelSpec.structures: empty rows, one column, a diagonal system...), each checked to be really there.
"""

from __future__ import annotations

import hashlib

import numpy as np

from hpceval.cases.io import Case, array_dtype, array_shape
from hpceval.spec import KernelSpec, SpecError, Structure, eval_expr

POISON_INT = np.int32(-(2**31) + 7)


def case_rng(seed: int, kernel: str, label: str) -> np.random.Generator:
    digest = hashlib.sha256(f"{seed}:{kernel}:{label}".encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:8], "little"))


def size_label(size: dict[str, int]) -> str:
    return ",".join(f"{k}={v}" for k, v in size.items())


def make_case(spec: KernelSpec, size: dict[str, int], seed: int, *, reps: int = 1, warmup: int = 0,
              write_outputs: bool = True, structure: Structure | None = None) -> Case:
    label = size_label(size) + (f" [{structure.name}]" if structure else "")
    inputs = spec.make_inputs(size, case_rng(seed, spec.id, label))
    if structure is not None:
        _check_structure(spec, structure, inputs, label)
    for p in spec.params:
        if p.intent == "out" and p.is_array:
            shape = array_shape(p, inputs)
            dtype = array_dtype(p, spec)
            poison = np.nan if dtype.kind == "f" else POISON_INT
            inputs[p.name] = np.full(shape, poison, dtype=dtype)
        elif p.is_array:
            inputs[p.name] = np.asarray(inputs[p.name], dtype=array_dtype(p, spec)).reshape(array_shape(p, inputs))
    return Case(label=label, size=size, inputs=inputs, reps=reps, warmup=warmup, write_outputs=write_outputs,
                structure=structure.name if structure else "")


def _check_structure(spec: KernelSpec, structure: Structure, inputs: dict, label: str) -> None:
    """A declared structure that make_inputs did not produce would validate nothing: the spec's fault, said loudly."""
    try:
        ok = bool(eval_expr(structure.holds, inputs))
    except Exception as exc:  # noqa: BLE001 - any failure of the expression is the spec's
        raise SpecError(f"{spec.folder}/spec.toml: structure {structure.name}: holds {structure.holds!r} fails at "
                        f"{label} ({type(exc).__name__}: {exc})") from None
    if not ok:
        raise SpecError(f"{spec.folder}/spec.toml: structure {structure.name}: make_inputs did not produce it at "
                        f"{label} ({structure.holds!r} is false); reference.py must honour the size's keys")


def validation_cases(spec: KernelSpec, seed: int) -> list[Case]:
    """The plain validation sizes, then every size of every declared structure."""
    cases = [make_case(spec, size, seed) for size in spec.sizes.validation]
    return cases + [make_case(spec, size, seed, structure=st) for st in spec.structures for size in st.sizes]


def timing_case(spec: KernelSpec, seed: int) -> Case:
    return make_case(spec, spec.sizes.timing, seed, reps=spec.sizes.timing_reps, warmup=1, write_outputs=False)
