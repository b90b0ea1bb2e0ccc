"""Kernel variants (kernels_spec/<kernel>/variants.toml): each names its extra parameters, its own NumPy reference
and the canonical point at which the harness grades it; at that point the variant's reference must be the canonical
kernel, which is what makes grading a variant through the canonical driver sound."""

from __future__ import annotations

import numpy as np
import pytest

from hpceval.bind.roles import kernel_roles


def _canonical_point(kr, inputs: dict, variant: str) -> tuple[dict, float]:
    """The canonical inputs completed with the extras at their canonical values; and the output scale.

    BLAS gemv takes alpha and beta too (declared with the alpha_beta variant); `accumulate` has no extras: its
    output starts at zero (the glue zeroes an output that is read before it is written)."""
    values = dict(inputs)
    scale = 1.0
    if variant == "accumulate":
        for out in kr.canonical:
            if out.is_array and out.intent == "out":
                values[out.name] = np.zeros_like(inputs[out.name])
        return values, scale
    for r in kr.extras:
        if r.tuning:
            continue
        value = r.canonical
        if value.startswith("lead:") or value == "notrans":
            continue
        if value.startswith("output:"):
            values[r.name] = np.full_like(inputs[value.split(":", 1)[1]], np.nan)
            continue
        values[r.name] = float(value) if r.kind == "real" else int(value)
        if r.scale:
            scale *= float(r.scale)
        if r.prefill:
            for out in kr.canonical:
                if out.is_array and out.intent == "out":
                    values[out.name] = np.full_like(inputs[out.name], float(r.prefill))
    return values, scale


@pytest.mark.parametrize("kernel", ["axpy", "gemv"])
def test_variant_references_meet_the_canonical_kernel(catalog, kernel):
    spec = catalog.kernels[kernel]
    kr = kernel_roles(spec)
    assert kr.variants, "the kernel declares variants"
    rng = np.random.default_rng(7)
    for size in spec.sizes.validation[:4]:
        inputs = spec.make_inputs(size, rng)
        expected = spec.reference(inputs)
        for vid, variant in kr.variants.items():
            reference = getattr(spec.module, variant["reference"])
            values, scale = _canonical_point(kr, inputs, vid)
            got = reference(values)
            for name, ref in expected.items():
                out = got.get(name, got.get("z"))
                assert np.allclose(np.asarray(out) * scale, ref, rtol=1e-6, atol=1e-6), (kernel, vid, size)


def test_variant_parameters_are_named(catalog):
    for kernel in ("axpy", "gemv"):
        kr = kernel_roles(catalog.kernels[kernel])
        for r in kr.extras:
            assert r.names and r.canonical, (kernel, r.name)
            assert r.tuning or r.variant in kr.variants
