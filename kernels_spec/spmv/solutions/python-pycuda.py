import numpy as np
import pycuda.autoinit  # noqa: F401 - creates the CUDA context
import pycuda.gpuarray as gpuarray
from pycuda.compiler import SourceModule

_module = SourceModule("""
__global__ void spmv_kernel(int n, const int *row_ptr, const int *col_idx, const double *values, const double *x,
                            double *y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        double sum = 0.0;
        for (int k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
            sum += values[k] * x[col_idx[k]];
        }
        y[i] = sum;
    }
}
""")
_spmv = _module.get_function("spmv_kernel")


def spmv(n, nnz, row_ptr, col_idx, values, x, y):
    d_row_ptr = gpuarray.to_gpu(np.ascontiguousarray(row_ptr, dtype=np.int32))
    d_col_idx = gpuarray.to_gpu(np.ascontiguousarray(col_idx, dtype=np.int32))
    d_values = gpuarray.to_gpu(np.ascontiguousarray(values))
    d_x = gpuarray.to_gpu(np.ascontiguousarray(x))
    d_y = gpuarray.empty(n, dtype=np.float64)
    _spmv(np.int32(n), d_row_ptr, d_col_idx, d_values, d_x, d_y, block=(256, 1, 1), grid=((n + 255) // 256, 1))
    y[:n] = d_y.get()
