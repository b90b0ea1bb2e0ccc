from numba import cuda


@cuda.jit
def _spmv_kernel(n, row_ptr, col_idx, values, x, y):
    i = cuda.grid(1)
    if i < n:
        s = 0.0
        for k in range(row_ptr[i], row_ptr[i + 1]):
            s += values[k] * x[col_idx[k]]
        y[i] = s


def spmv(n, nnz, row_ptr, col_idx, values, x, y):
    d_row_ptr = cuda.to_device(row_ptr)
    d_col_idx = cuda.to_device(col_idx)
    d_values = cuda.to_device(values)
    d_x = cuda.to_device(x)
    d_y = cuda.device_array(n, dtype=y.dtype)
    _spmv_kernel.forall(n)(n, d_row_ptr, d_col_idx, d_values, d_x, d_y)
    d_y.copy_to_host(y)
