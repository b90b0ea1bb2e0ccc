import numba


@numba.njit(parallel=True)
def jacobi(nx, ny, nz, u, unew):
    for i in numba.prange(1, nx - 1):
        for j in range(1, ny - 1):
            for k in range(1, nz - 1):
                unew[i, j, k] = (u[i - 1, j, k] + u[i + 1, j, k] + u[i, j - 1, k] + u[i, j + 1, k]
                                 + u[i, j, k - 1] + u[i, j, k + 1]) / 6.0
