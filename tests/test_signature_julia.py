"""Signature inference for Julia suggestions (binding only: the Julia toolchain belongs to the GPU/Julia work).

Julia arrays know their size, so sizes are implied when no parameter carries them; `!` functions update in place;
device kernels (@kernel, threadIdx without a launch) are not what the driver calls.
"""

from __future__ import annotations

import pytest

from hpceval.bind.signature import infer_binding

CASES = [
    ("canonical", "axpy", "function saxpy(n, a, x, y)\n    for i in 1:n\n        y[i] += a * x[i]\n    end\nend\n",
     {"n": "n", "a": "a", "x": "x", "y": "y"}, "canonical", None),
    ("typed-bang", "axpy", "function saxpy!(y::Vector{Float32}, a::Float32, x::Vector{Float32})\n    Threads.@threads for i in eachindex(y)\n        @inbounds y[i] += a * x[i]\n    end\n    return y\nend\n",
     {"y": "y", "a": "a", "x": "x"}, "canonical", None),
    ("greek-alpha", "axpy", "function axpy!(α, x, y)\n    y .+= α .* x\nend\n", {"α": "a", "x": "x", "y": "y"}, "canonical", None),
    ("short-form", "axpy", "saxpy(a, x, y) = a .* x .+ y\n",
     {"a": "a", "x": "x", "y": "y", "<return>": "y"}, "canonical", None),
    ("double-precision", "axpy", "function daxpy!(n::Int, a::Float64, x::Vector{Float64}, y::Vector{Float64})\n    for i = 1:n\n        y[i] = a*x[i] + y[i]\n    end\nend\n",
     {"a": "a", "x": "x"}, "canonical", None),
    ("threads-argument", "axpy", "function saxpy_threaded!(y, a, x, nthreads)\n    Threads.@threads for i in 1:length(y)\n        y[i] += a * x[i]\n    end\nend\n",
     {"nthreads": "threads=threads"}, "canonical", None),
    ("gemv-matrix", "gemv", "function gemv!(y::Vector{Float64}, A::Matrix{Float64}, x::Vector{Float64})\n    for j in 1:size(A, 2), i in 1:size(A, 1)\n        y[i] += A[i, j] * x[j]\n    end\n    return y\nend\n",
     {"y": "y", "A": "A", "x": "x"}, "accumulate", None),
    ("gemv-alpha-beta", "gemv", "function gemv!(y, alpha, A, x, beta)\n    y .= alpha .* (A * x) .+ beta .* y\nend\n",
     {"alpha": "alpha", "beta": "beta"}, "alpha_beta", None),
    ("gemv-sizes", "gemv", "function gemv(m, n, A, x, y)\n    for i in 1:m\n        s = 0.0\n        for j in 1:n\n            s += A[i, j] * x[j]\n        end\n        y[i] = s\n    end\nend\n",
     {"m": "m", "n": "n"}, "canonical", None),
    ("helper-chosen-by-name", "axpy", "function fill_random(n)\n    return rand(Float32, n)\nend\nfunction saxpy!(a, x, y)\n    y .= a .* x .+ y\nend\n",
     {"a": "a"}, "canonical", None),
    ("refuse-device-kernel", "axpy", "using KernelAbstractions\n@kernel function saxpy_kernel!(y, a, @Const(x))\n    i = @index(Global)\n    y[i] += a * x[i]\nend\n",
     None, None, "device kernel"),
    ("refuse-no-function", "axpy", "x = rand(Float32, 100)\ny = rand(Float32, 100)\ny .+= 2f0 .* x\n", None, None, "no function"),
    ("refuse-unknown-argument", "axpy", "function saxpy!(y, a, x, queue::CuStream)\n    y .+= a .* x\nend\n",
     None, None, "queue"),
    ("refuse-complex", "axpy", "function caxpy!(a::ComplexF32, x::Vector{ComplexF32}, y::Vector{ComplexF32})\n    y .+= a .* x\nend\n",
     None, None, "unbindable"),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_julia_signature(catalog, case):
    _id, kernel, code, mapping, variant, error = case
    b = infer_binding(code, catalog.kernels[kernel], "julia")
    if error:
        assert b.error is not None, b.evidence
        assert error in b.error, b.error
        return
    assert b.error is None, b.error
    for param, role in mapping.items():
        assert b.mapping.get(param) == role, (param, b.mapping)
    assert b.variant == variant, b.evidence
