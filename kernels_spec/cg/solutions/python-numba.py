import numba
import numpy as np


@numba.njit(parallel=True)
def _matvec_dot(n, row_ptr, col_idx, values, p, ap):
    """ap = A*p; returns p.ap"""
    pap = 0.0
    for i in numba.prange(n):
        s = 0.0
        for k in range(row_ptr[i], row_ptr[i + 1]):
            s += values[k] * p[col_idx[k]]
        ap[i] = s
        pap += p[i] * s
    return pap


@numba.njit(parallel=True)
def cg(n, nnz, row_ptr, col_idx, values, b, x, tol, max_iter):
    r = np.empty(n)
    p = np.empty(n)
    ap = np.empty(n)
    _matvec_dot(n, row_ptr, col_idx, values, x, ap)
    rr = 0.0
    bb = 0.0
    for i in numba.prange(n):
        r[i] = b[i] - ap[i]
        p[i] = r[i]
        rr += r[i] * r[i]
        bb += b[i] * b[i]
    bnorm = np.sqrt(bb)
    if bnorm == 0.0:
        x[:] = 0.0
        return
    for _ in range(max_iter):
        if np.sqrt(rr) <= tol * bnorm:
            break
        alpha = rr / _matvec_dot(n, row_ptr, col_idx, values, p, ap)
        rr_new = 0.0
        for i in numba.prange(n):
            x[i] += alpha * p[i]
            r[i] -= alpha * ap[i]
            rr_new += r[i] * r[i]
        beta = rr_new / rr
        rr = rr_new
        for i in numba.prange(n):
            p[i] = r[i] + beta * p[i]
