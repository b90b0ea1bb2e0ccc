"""GEMV reference: y = A @ x, A of logical shape (m, n)."""

import numpy as np


def make_inputs(size, rng, dtype):
    m, n = size["m"], size["n"]
    return {
        "m": m,
        "n": n,
        "A": rng.uniform(-1.0, 1.0, (m, n)).astype(dtype),
        "x": rng.uniform(-1.0, 1.0, n).astype(dtype),
        "y": np.zeros(m, dtype=dtype),
    }


def reference(inp):
    A = np.asarray(inp["A"], dtype=np.float64)
    x = np.asarray(inp["x"], dtype=np.float64)
    return {"y": A @ x}
