import numba


@numba.njit(parallel=True)
def spmv(n, nnz, row_ptr, col_idx, values, x, y):
    for i in numba.prange(n):
        s = 0.0
        for k in range(row_ptr[i], row_ptr[i + 1]):
            s += values[k] * x[col_idx[k]]
        y[i] = s
