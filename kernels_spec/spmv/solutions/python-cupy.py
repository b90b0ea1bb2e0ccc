import cupy as cp

# CSR SpMV as an element-wise kernel: one row per element of y.
_spmv_rows = cp.ElementwiseKernel(
    "raw int32 row_ptr, raw int32 col_idx, raw float64 values, raw float64 x",
    "float64 y",
    """
    double sum = 0.0;
    for (int k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
        sum += values[k] * x[col_idx[k]];
    }
    y = sum;
    """,
    "spmv_rows",
)


def spmv(n, nnz, row_ptr, col_idx, values, x, y):
    d_row_ptr = cp.asarray(row_ptr[: n + 1])
    d_col_idx = cp.asarray(col_idx[:nnz])
    d_values = cp.asarray(values[:nnz])
    d_x = cp.asarray(x[:n])
    d_y = cp.empty(n, dtype=cp.float64)
    _spmv_rows(d_row_ptr, d_col_idx, d_values, d_x, d_y)
    y[:n] = cp.asnumpy(d_y)
