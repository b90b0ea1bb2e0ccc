import numpy as np
import pycuda.autoinit  # noqa: F401 - creates the CUDA context
import pycuda.gpuarray as gpuarray
from pycuda.compiler import SourceModule

_module = SourceModule("""
__global__ void matvec(int n, const int *row_ptr, const int *col_idx, const double *values, const double *v,
                       double *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        double sum = 0.0;
        for (int k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
            sum += values[k] * v[col_idx[k]];
        }
        out[i] = sum;
    }
}
""")
_matvec = _module.get_function("matvec")


def cg(n, nnz, row_ptr, col_idx, values, b, x, tol, max_iter):
    d_row_ptr = gpuarray.to_gpu(np.ascontiguousarray(row_ptr, dtype=np.int32))
    d_col_idx = gpuarray.to_gpu(np.ascontiguousarray(col_idx, dtype=np.int32))
    d_values = gpuarray.to_gpu(np.ascontiguousarray(values))
    d_b = gpuarray.to_gpu(np.ascontiguousarray(b))
    d_x = gpuarray.to_gpu(np.ascontiguousarray(x))
    ap = gpuarray.empty(n, dtype=np.float64)
    def apply(v, out):
        _matvec(np.int32(n), d_row_ptr, d_col_idx, d_values, v, out, block=(256, 1, 1), grid=((n + 255) // 256, 1))

    apply(d_x, ap)
    r = d_b - ap
    p = r.copy()
    rr = float(gpuarray.dot(r, r).get())
    bnorm = float(np.sqrt(gpuarray.dot(d_b, d_b).get()))
    if bnorm == 0.0:
        x[:n] = 0.0
        return
    for _ in range(max_iter):
        if np.sqrt(rr) <= tol * bnorm:
            break
        apply(p, ap)
        alpha = rr / float(gpuarray.dot(p, ap).get())
        d_x += alpha * p
        r -= alpha * ap
        rr_new = float(gpuarray.dot(r, r).get())
        p = r + (rr_new / rr) * p
        rr = rr_new
    x[:n] = d_x.get()
