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


OTHER_KERNELS = [
    # the study's other kernels: generic names and the specs' own parameters, no variants file needed
    ("spmv", "cpp", "void spmv(int n, const int *row_ptr, const int *col_ind, const double *val, const double *x, double *y) {"
     " for (int i = 0; i < n; i++) { double s = 0; for (int j = row_ptr[i]; j < row_ptr[i+1]; j++) s += val[j] * x[col_ind[j]];"
     " y[i] = s; } }", {"col_ind": "col_idx", "val": "values"}, None),  # nnz derived from row_ptr
    ("spmv", "fortran", "subroutine spmv(n, nnz, ia, ja, a, x, y)\n integer :: n, nnz, ia(n+1), ja(nnz)\n real(8) :: a(nnz), x(n), y(n)\n integer :: i, j\n do i = 1, n\n  y(i) = 0\n  do j = ia(i), ia(i+1)-1\n   y(i) = y(i) + a(j)*x(ja(j))\n  end do\n end do\nend subroutine\n",
     {"ia": "row_ptr", "ja": "col_idx", "a": "values"}, None),
    ("gemm", "python", "import numpy as np\ndef gemm(A, B):\n    return A @ B\n", {"<return>": "C"}, None),
    ("jacobi", "python", "def jacobi(u, unew):\n    unew[1:-1, 1:-1, 1:-1] = (u[:-2, 1:-1, 1:-1] + u[2:, 1:-1, 1:-1]) / 2\n",
     {"u": "u", "unew": "unew"}, None),
    ("jacobi", "cpp", "void jacobi(double *u, double *unew, int n) { for (int i = 1; i < n-1; i++) for (int j = 1; j < n-1; j++)"
     " for (int k = 1; k < n-1; k++) unew[(i*n+j)*n+k] = u[(i*n+j)*n+k]; }", {"n": "nx=ny=nz"}, None),  # a cube (variants.toml)
    ("cg", "python", "def cg(A, b, x, tol=1e-10, max_iter=100):\n    return x\n", {"A": "dense"}, None),  # dense A (variants.toml)
]


@pytest.mark.parametrize("case", OTHER_KERNELS, ids=[f"{c[0]}-{c[1]}-{i}" for i, c in enumerate(OTHER_KERNELS)])
def test_other_kernels_of_the_study(catalog, case):
    from hpceval.bind.signature import infer_binding

    kernel, lang, code, mapping, error = case
    b = infer_binding(code, catalog.kernels[kernel], lang)
    if error:
        assert b.error and error in b.error, b.error
        return
    assert b.error is None, b.error
    for param, role in mapping.items():
        assert b.mapping.get(param) == role, (param, b.mapping)
