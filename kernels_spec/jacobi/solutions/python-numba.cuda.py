from numba import cuda


@cuda.jit
def _jacobi_kernel(nx, ny, nz, u, unew):
    i, j, k = cuda.grid(3)
    if 1 <= i < nx - 1 and 1 <= j < ny - 1 and 1 <= k < nz - 1:
        unew[i, j, k] = (u[i - 1, j, k] + u[i + 1, j, k] + u[i, j - 1, k] + u[i, j + 1, k]
                         + u[i, j, k - 1] + u[i, j, k + 1]) / 6.0


def jacobi(nx, ny, nz, u, unew):
    d_u = cuda.to_device(u)
    d_unew = cuda.to_device(unew)
    threads = (2, 4, 32)
    blocks = ((nx + threads[0] - 1) // threads[0], (ny + threads[1] - 1) // threads[1], (nz + threads[2] - 1) // threads[2])
    _jacobi_kernel[blocks, threads](nx, ny, nz, d_u, d_unew)
    d_unew.copy_to_host(unew)
