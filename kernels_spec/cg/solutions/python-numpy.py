import numpy as np


def cg(n, nnz, row_ptr, col_idx, values, b, x, tol, max_iter):
    starts = row_ptr[:n]
    nonempty = starts < row_ptr[1 : n + 1]
    row_starts = starts[nonempty]
    cols = col_idx[:nnz]
    vals = values[:nnz]

    def matvec(v):
        out = np.zeros(n)
        if nnz > 0:
            out[nonempty] = np.add.reduceat(vals * v[cols], row_starts)
        return out

    r = b - matvec(x)
    p = r.copy()
    rr = r @ r
    bnorm = np.sqrt(b @ b)
    if bnorm == 0.0:
        x[:] = 0.0
        return
    for _ in range(max_iter):
        if np.sqrt(rr) <= tol * bnorm:
            break
        ap = matvec(p)
        alpha = rr / (p @ ap)
        x += alpha * p
        r -= alpha * ap
        rr_new = r @ r
        p *= rr_new / rr
        p += r
        rr = rr_new
