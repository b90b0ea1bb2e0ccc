"""2D Jacobi reference: one 5-point sweep, unew[interior] = mean of the four neighbours in u, boundary kept."""

import numpy as np


def make_inputs(size, rng, dtype):
    """Every canonical parameter for one case. unew's interior is NaN: a point the kernel forgets cannot pass."""
    nx, ny = size["nx"], size["ny"]
    u = rng.uniform(-1.0, 1.0, (nx, ny)).astype(dtype)
    unew = u.copy()
    unew[1:-1, 1:-1] = np.nan
    return {"nx": nx, "ny": ny, "u": u, "unew": unew}


def reference(inp):
    """The expected outputs, in float64."""
    u = np.asarray(inp["u"], dtype=np.float64)
    out = u.copy()
    out[1:-1, 1:-1] = (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:]) / 4.0
    return {"unew": out}
