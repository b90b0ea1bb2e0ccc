from numba import cuda


@cuda.jit
def _gemv_kernel(m, n, A, x, y):
    i = cuda.grid(1)
    if i < m:
        s = 0.0
        for j in range(n):
            s += A[i, j] * x[j]
        y[i] = s


def gemv(m, n, A, x, y):
    d_A = cuda.to_device(A)
    d_x = cuda.to_device(x)
    d_y = cuda.device_array(m, dtype=y.dtype)
    _gemv_kernel.forall(m)(m, n, d_A, d_x, d_y)
    d_y.copy_to_host(y)
