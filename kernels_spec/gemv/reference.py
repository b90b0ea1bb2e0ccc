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


# Variants of variants.toml (hpceval.bind.signature): references for grading at arbitrary parameter values.
def reference_alpha_beta(inp):
    """y = alpha*A@x + beta*y."""
    A = np.asarray(inp["A"], dtype=np.float64)
    x = np.asarray(inp["x"], dtype=np.float64)
    return {"y": float(inp["alpha"]) * (A @ x) + _beta_y(inp, np.asarray(inp["y"], dtype=np.float64))}


def _beta_y(inp, y):
    """beta*y, where beta = 0 means y is not read (BLAS: y may hold anything, NaN included)."""
    beta = float(inp.get("beta", 0.0))
    return beta * y if beta != 0.0 else np.zeros_like(y)


def reference_blas(inp):
    """dgemv('N', m, n, alpha, A, lda, x, incx, beta, y, incy) on the logical m x n matrix A."""
    m, n = int(inp["m"]), int(inp["n"])
    incx, incy = int(inp.get("incx", 1)), int(inp.get("incy", 1))
    A = np.asarray(inp["A"], dtype=np.float64)[:m, :n]
    x = np.asarray(inp["x"], dtype=np.float64)[: n * incx : incx]
    y = np.asarray(inp["y"], dtype=np.float64).copy()
    y[: m * incy : incy] = float(inp.get("alpha", 1.0)) * (A @ x) + _beta_y(inp, y[: m * incy : incy])
    return {"y": y}


def reference_accumulate(inp):
    """y = y + A@x."""
    A = np.asarray(inp["A"], dtype=np.float64)
    x = np.asarray(inp["x"], dtype=np.float64)
    return {"y": np.asarray(inp["y"], dtype=np.float64) + A @ x}
