import numba


@numba.njit(parallel=True)
def saxpy(n, a, x, y):
    for i in numba.prange(n):
        y[i] = a * x[i] + y[i]
