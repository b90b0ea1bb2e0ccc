import cupy as cp
import cupyx.scipy.sparse as sparse


def cg(n, nnz, row_ptr, col_idx, values, b, x, tol, max_iter):
    A = sparse.csr_matrix((cp.asarray(values[:nnz]), cp.asarray(col_idx[:nnz]), cp.asarray(row_ptr[: n + 1])),
                          shape=(n, n))
    d_b = cp.asarray(b[:n])
    d_x = cp.asarray(x[:n])
    r = d_b - A @ d_x
    p = r.copy()
    rr = float(r @ r)
    bnorm = float(cp.sqrt(d_b @ d_b))
    if bnorm == 0.0:
        x[:n] = 0.0
        return
    for _ in range(max_iter):
        if rr ** 0.5 <= tol * bnorm:
            break
        ap = A @ p
        alpha = rr / float(p @ ap)
        d_x += alpha * p
        r -= alpha * ap
        rr_new = float(r @ r)
        p *= rr_new / rr
        p += r
        rr = rr_new
    x[:n] = cp.asnumpy(d_x)
