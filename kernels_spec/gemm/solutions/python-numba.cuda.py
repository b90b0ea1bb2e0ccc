from numba import cuda


@cuda.jit
def _gemm_kernel(m, n, k, A, B, C):
    i, j = cuda.grid(2)
    if i < m and j < n:
        s = 0.0
        for p in range(k):
            s += A[i, p] * B[p, j]
        C[i, j] = s


def gemm(m, n, k, A, B, C):
    d_A = cuda.to_device(A)
    d_B = cuda.to_device(B)
    d_C = cuda.device_array((m, n), dtype=C.dtype)
    threads = (8, 16)
    blocks = ((m + threads[0] - 1) // threads[0], (n + threads[1] - 1) // threads[1])
    _gemm_kernel[blocks, threads](m, n, k, d_A, d_B, d_C)
    d_C.copy_to_host(C)
