"""GEMM reference: C = A @ B, A of logical shape (m, k), B (k, n), C (m, n)."""

import numpy as np


def make_inputs(size, rng, dtype):
    m, n, k = size["m"], size["n"], size["k"]
    return {
        "m": m,
        "n": n,
        "k": k,
        "A": rng.uniform(-1.0, 1.0, (m, k)).astype(dtype),
        "B": rng.uniform(-1.0, 1.0, (k, n)).astype(dtype),
        "C": np.zeros((m, n), dtype=dtype),
    }


def reference(inp):
    A = np.asarray(inp["A"], dtype=np.float64)
    B = np.asarray(inp["B"], dtype=np.float64)
    return {"C": A @ B}
