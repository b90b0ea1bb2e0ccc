"""Feasible timing sizes: a graded spec whose arrays at the timing size cannot fit is timed at a smaller size.

Why: a kernel's timing size is chosen for its canonical storage, and a variant may store more (CG with a dense
matrix: n^2 values where CSR holds 7n, 91 GiB at the 48^3 timing size). Allocating that fails for reasons that are
not the suggestion's, so the timing size (and the GPU timing size) is scaled down until the arrays fit the budget:
half the machine's memory and the sandbox's memory and address-space limits, counting the copies the timing run
holds (its input sets in the driver, the outputs, the harness's references). The evidence says which size was
timed and why; FLOP and byte counts follow the size actually timed.

The arrays' sizes come from the spec's shapes, evaluated with the scalar parameters the kernel's canonical
make_inputs gives at that size (the variant's derived arrays, such as the dense matrix, are never built here).
"""

from __future__ import annotations

import math
import os
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from hpceval.cases.generate import case_rng, size_label
from hpceval.cases.timing import SETS
from hpceval.executors import Limits
from hpceval.spec import KernelSpec, eval_expr

MIB = 1 << 20
COPIES = SETS + 2  # the driver's input sets, the outputs and the harness's references of the timing run


def footprint_bytes(spec: KernelSpec, size: dict[str, int]) -> int:
    """Bytes of one set of the spec's arrays (graded extras included) at `size`."""
    scalars = _scalars(spec.module.__file__, spec.id, tuple(sorted(size.items())), spec.dtype)
    values = {**scalars, **{p.name: 1 for p in spec.params if not p.is_array and p.name not in scalars}}
    total = 0
    for p in spec.params:
        if p.is_array:
            count = math.prod(int(eval_expr(e, values)) for e in p.shape)
            total += count * (4 if p.kind in ("int", "index") else np.dtype(spec.dtype).itemsize)
    return total


@lru_cache(maxsize=64)
def _scalars(module_file: str, kernel: str, size: tuple, dtype: str) -> dict[str, Any]:
    """The integer scalars of the canonical make_inputs at `size` (cached: the same few sizes come back)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"hpceval_feasible_{kernel}", module_file)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    inputs = module.make_inputs(dict(size), case_rng(0, kernel, size_label(dict(size))), np.dtype(dtype))
    return {k: int(v) for k, v in inputs.items() if isinstance(v, int | np.integer)}


def budget_bytes(limits: Limits) -> int:
    """What one timing run may hold: the sandbox's memory limit, half its address space, half the machine."""
    try:
        machine = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2
    except (ValueError, OSError, AttributeError):
        machine = 1 << 62
    return min(limits.memory_mb * MIB, limits.address_space_mb * MIB // 2, machine)


def scaled(size: dict[str, int], factor: float) -> dict[str, int]:
    """The size with its extents (values of 2 or more) scaled by `factor`; flags (0/1) and other keys kept."""
    return {k: max(2, int(v * factor)) if v >= 2 else v for k, v in size.items()}


def fitting(spec: KernelSpec, size: dict[str, int], budget: int) -> dict[str, int]:
    """`size` itself when its arrays fit `budget` COPIES times, else the largest scaled-down size that does."""
    if footprint_bytes(spec, size) * COPIES <= budget:
        return size
    lo, hi = 0.0, 1.0  # bisection on the scale factor: the footprint grows with it
    for _ in range(14):
        mid = (lo + hi) / 2
        if footprint_bytes(spec, scaled(size, mid)) * COPIES <= budget:
            lo = mid
        else:
            hi = mid
    return scaled(size, lo)


@lru_cache(maxsize=32)
def _declared_arrays(folder: str) -> frozenset[tuple[str, tuple[str, ...]]]:
    """The arrays (name, shape) of the kernel's own spec.toml: the storage its timing sizes were chosen for."""
    from hpceval.spec import load_kernel

    return frozenset((p.name, tuple(p.shape)) for p in load_kernel(Path(folder)).params if p.is_array)


def feasible_timing(spec: KernelSpec, limits: Limits) -> tuple[KernelSpec, str]:
    """(spec with timing sizes that fit, the evidence note; "" when nothing changed). Only a spec that stores
    arrays its kernel's spec.toml does not declare (a variant's) is sized here: the declared storage is what the
    timing sizes were chosen for, and sizing it would cost a make_inputs at the timing size per process."""
    if all((p.name, tuple(p.shape)) in _declared_arrays(str(spec.folder)) for p in spec.params if p.is_array):
        return spec, ""
    budget = budget_bytes(limits)
    sizes = spec.sizes
    timing = fitting(spec, dict(sizes.timing), budget)
    gpu = fitting(spec, dict(sizes.gpu_timing), budget) if sizes.gpu_timing else None
    if timing == sizes.timing and gpu == sizes.gpu_timing:
        return spec, ""
    changed = [(what, old, new) for what, old, new in (("timing size", sizes.timing, timing),
                                                        ("GPU timing size", sizes.gpu_timing, gpu)) if old != new]
    variant = getattr(spec, "variant", "canonical")
    note = "; ".join(
        f"{what} {size_label(new)} instead of {size_label(old)}: the {variant} form's arrays need "
        f"{footprint_bytes(spec, old) * COPIES / MIB / 1024:.1f} GiB there (budget {budget / MIB / 1024:.1f} GiB: "
        "machine memory and sandbox limits)" for what, old, new in changed)
    out = spec.model_copy(update={"sizes": sizes.model_copy(update={"timing": timing, "gpu_timing": gpu})})
    return out, note
