from numba import cuda


@cuda.jit
def _saxpy_kernel(n, a, x, y):
    i = cuda.grid(1)
    if i < n:
        y[i] = a * x[i] + y[i]


def saxpy(n, a, x, y):
    d_x = cuda.to_device(x)
    d_y = cuda.to_device(y)
    _saxpy_kernel.forall(n)(n, a, d_x, d_y)
    d_y.copy_to_host(y)
