import numba


@numba.njit(parallel=True)
def gemv(m, n, A, x, y):
    for i in numba.prange(m):
        s = 0.0
        for j in range(n):
            s += A[i, j] * x[j]
        y[i] = s
