import numpy as np
import pycuda.autoinit  # noqa: F401 - creates the CUDA context
import pycuda.gpuarray as gpuarray
from pycuda.compiler import SourceModule

_module = SourceModule("""
__global__ void gemv_kernel(int m, int n, const double *A, const double *x, double *y) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < m) {
        double sum = 0.0;
        for (int j = 0; j < n; ++j) {
            sum += A[(size_t)row * n + j] * x[j];
        }
        y[row] = sum;
    }
}
""")
_gemv = _module.get_function("gemv_kernel")


def gemv(m, n, A, x, y):
    d_A = gpuarray.to_gpu(np.ascontiguousarray(A))
    d_x = gpuarray.to_gpu(np.ascontiguousarray(x))
    d_y = gpuarray.empty(m, dtype=np.float64)
    _gemv(np.int32(m), np.int32(n), d_A, d_x, d_y, block=(128, 1, 1), grid=((m + 127) // 128, 1))
    y[:m] = d_y.get()
