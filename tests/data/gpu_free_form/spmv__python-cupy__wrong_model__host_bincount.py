import numpy as np
import cupy as cp


def spmv(n, nnz, row_ptr, col_idx, values, x, y):
    """
    Sparse matrix-vector multiplication y = A * x, with A in CSR format,
    using CuPy.
    """
    # Move the data to the GPU
    d_row_ptr = cp.asarray(row_ptr, dtype=cp.int32)
    d_col_idx = cp.asarray(col_idx, dtype=cp.int32)
    d_values = cp.asarray(values, dtype=cp.float64)
    d_x = cp.asarray(x, dtype=cp.float64)

    # Number of nonzeros in each row
    row_lengths = cp.asnumpy(d_row_ptr[1:] - d_row_ptr[:-1])

    # Expand the row pointer into a row index for every nonzero
    rows = np.repeat(np.arange(n), row_lengths)

    # Multiply each nonzero by the matching entry of x and sum per row
    products = cp.asnumpy(d_values) * cp.asnumpy(d_x)[cp.asnumpy(d_col_idx)]
    y[:] = np.bincount(rows, weights=products, minlength=n)
    return y
