import math

import numpy as np
from numba import cuda


@cuda.jit
def _matvec_dot(n, row_ptr, col_idx, values, p, ap, out):
    """ap = A*p and out[0] += p.ap"""
    i = cuda.grid(1)
    if i < n:
        s = 0.0
        for k in range(row_ptr[i], row_ptr[i + 1]):
            s += values[k] * p[col_idx[k]]
        ap[i] = s
        cuda.atomic.add(out, 0, p[i] * s)


@cuda.jit
def _update(n, alpha, p, ap, x, r, out):
    """x += alpha*p, r -= alpha*ap, out[0] += r.r"""
    i = cuda.grid(1)
    if i < n:
        x[i] += alpha * p[i]
        r[i] -= alpha * ap[i]
        cuda.atomic.add(out, 0, r[i] * r[i])


@cuda.jit
def _direction(n, beta, r, p):
    i = cuda.grid(1)
    if i < n:
        p[i] = r[i] + beta * p[i]


def cg(n, nnz, row_ptr, col_idx, values, b, x, tol, max_iter):
    d_row_ptr = cuda.to_device(row_ptr)
    d_col_idx = cuda.to_device(col_idx)
    d_values = cuda.to_device(values)
    d_x = cuda.to_device(x)
    ap = cuda.device_array(n, dtype=np.float64)
    acc = cuda.device_array(1)  # p.ap of the first product is not used
    _matvec_dot.forall(n)(n, d_row_ptr, d_col_idx, d_values, d_x, ap, acc)
    r_host = b - ap.copy_to_host()
    rr = float(r_host @ r_host)
    bnorm = math.sqrt(float(b @ b))
    if bnorm == 0.0:
        x[:] = 0.0
        return
    r = cuda.to_device(r_host)
    p = cuda.to_device(r_host)
    for _ in range(max_iter):
        if math.sqrt(rr) <= tol * bnorm:
            break
        acc.copy_to_device(np.zeros(1))
        _matvec_dot.forall(n)(n, d_row_ptr, d_col_idx, d_values, p, ap, acc)
        alpha = rr / acc.copy_to_host()[0]
        acc.copy_to_device(np.zeros(1))
        _update.forall(n)(n, alpha, p, ap, d_x, r, acc)
        rr_new = acc.copy_to_host()[0]
        _direction.forall(n)(n, rr_new / rr, r, p)
        rr = rr_new
    d_x.copy_to_host(x)
