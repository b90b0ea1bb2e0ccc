import numba


@numba.njit(parallel=True)
def gemm(m, n, k, A, B, C):
    for i in numba.prange(m):
        for j in range(n):
            C[i, j] = 0.0
        for p in range(k):
            a = A[i, p]
            for j in range(n):
                C[i, j] += a * B[p, j]
