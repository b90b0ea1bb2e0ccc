import numpy as np


def cg(n, nnz, row_ptr, col_idx, values, b, x, tol, max_iter):
    starts = row_ptr[:n]  # every row of an SPD matrix holds its diagonal: no empty row to reduce
    cols = col_idx[:nnz]
    vals = values[:nnz]

    def matvec(v):
        return np.add.reduceat(vals * v[cols], starts)

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
