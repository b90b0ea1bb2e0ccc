import numpy as np  # noqa: F401 (the NumPy model's solutions import it; this one needs only slicing)


def stencil2d(nx, ny, u, unew):
    unew[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
