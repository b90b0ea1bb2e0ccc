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


# Variants of variants.toml (hpceval.bind.signature): references for grading at arbitrary parameter values.
def reference_strided(inp):
    """BLAS saxpy with increments: y[i*incy] += a*x[i*incx] for i < n (non-negative increments)."""
    n, incx, incy = int(inp["n"]), int(inp["incx"]), int(inp["incy"])
    y = inp["y"].astype(np.float64).copy()
    x = inp["x"].astype(np.float64)
    y[: n * incy : incy] += np.float64(inp["a"]) * x[: n * incx : incx]
    return {"y": y}


def reference_out_of_place(inp):
    """z = a*x + y; x and y unchanged. The glue copies z into the canonical output y (canonical = "output:y"), so
    the result is compared as y."""
    return {"y": np.float64(inp["a"]) * inp["x"].astype(np.float64) + inp["y"].astype(np.float64)}
