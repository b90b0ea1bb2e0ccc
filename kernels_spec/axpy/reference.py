"""AXPY reference: y = a*x + y."""

import numpy as np


def make_inputs(size, rng, dtype):
    n = size["n"]
    return {
        "n": n,
        "a": dtype.type(rng.uniform(-2.0, 2.0)),
        "x": rng.uniform(-1.0, 1.0, n).astype(dtype),
        "y": rng.uniform(-1.0, 1.0, n).astype(dtype),
    }


def reference(inp):
    a = np.float64(inp["a"])
    return {"y": a * inp["x"].astype(np.float64) + inp["y"].astype(np.float64)}
