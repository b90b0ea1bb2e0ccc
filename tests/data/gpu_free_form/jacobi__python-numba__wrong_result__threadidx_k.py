"""
3D Jacobi sweep (7-point stencil) with Numba CUDA.

Mapping: one block per (i, j) column of the grid, one thread per k.
"""
import numpy as np
from numba import cuda

THREADS = 128


@cuda.jit
def jacobi_kernel(u, unew):
    i = cuda.blockIdx.x
    j = cuda.blockIdx.y
    k = cuda.threadIdx.x

    nx, ny, nz = u.shape
    if 0 < i < nx - 1 and 0 < j < ny - 1 and 0 < k < nz - 1:
        unew[i, j, k] = (u[i - 1, j, k] + u[i + 1, j, k]
                         + u[i, j - 1, k] + u[i, j + 1, k]
                         + u[i, j, k - 1] + u[i, j, k + 1]) / 6.0


def jacobi(u, unew):
    """One sweep: interior of unew <- mean of the 6 neighbours in u (boundary of unew kept)."""
    nx, ny, nz = u.shape
    d_u = cuda.to_device(np.ascontiguousarray(u))
    d_unew = cuda.to_device(np.ascontiguousarray(unew))
    blocks = (nx, ny)
    jacobi_kernel[blocks, THREADS](d_u, d_unew)
    d_unew.copy_to_host(unew)
    return unew


if __name__ == "__main__":
    nx, ny, nz = 40, 30, 20
    u = np.random.rand(nx, ny, nz)
    unew = u.copy()

    d_u = cuda.to_device(u)
    d_unew = cuda.to_device(unew)
    jacobi_kernel[(nx, ny), THREADS](d_u, d_unew)
    result = d_unew.copy_to_host()

    ref = u.copy()
    ref[1:-1, 1:-1, 1:-1] = (u[:-2, 1:-1, 1:-1] + u[2:, 1:-1, 1:-1]
                             + u[1:-1, :-2, 1:-1] + u[1:-1, 2:, 1:-1]
                             + u[1:-1, 1:-1, :-2] + u[1:-1, 1:-1, 2:]) / 6.0
    print("max error:", np.abs(result - ref).max())
