import numpy as np


def spmv(n, nnz, row_ptr, col_idx, values, x, y):
    starts = row_ptr[:n]
    nonempty = starts < row_ptr[1 : n + 1]
    products = values[:nnz] * x[col_idx[:nnz]]
    y[:n] = 0.0
    if nnz > 0:
        # reduceat over the starts of non-empty rows only: an empty row would otherwise receive
        # products[start] (and a trailing empty row's start == nnz would be out of range)
        y[:n][nonempty] = np.add.reduceat(products, starts[nonempty])
