import numpy as np
import cupy as cp
from cupyx.scipy.sparse import csr_matrix


def conjugate_gradient(n, nnz, row_ptr, col_idx, values, b, x, tol=1e-8, max_iter=1000):
    """
    Solve A x = b with the Conjugate Gradient method on the GPU (CuPy).

    A is an n x n symmetric positive definite matrix in CSR format.
    x is updated in place with the solution.
    """
    # Build the sparse matrix on the GPU
    A = csr_matrix(
        (cp.asarray(values, dtype=cp.float64),
         cp.asarray(col_idx, dtype=cp.int32),
         cp.asarray(row_ptr, dtype=cp.int32)),
        shape=(n, n),
    )
    b_gpu = cp.asarray(b, dtype=cp.float64)
    x_gpu = cp.asarray(x, dtype=cp.float64)

    # Initial residual (x0 = 0, so r0 = b)
    r = b_gpu.copy()
    p = r.copy()
    rs_old = cp.dot(r, r)

    b_norm = cp.linalg.norm(b_gpu)
    if b_norm == 0:
        x[:] = 0.0
        return x

    for i in range(max_iter):
        if cp.sqrt(rs_old) / b_norm <= tol:
            break
        Ap = A @ p
        alpha = rs_old / cp.dot(p, Ap)
        x_gpu += alpha * p
        r -= alpha * Ap
        rs_new = cp.dot(r, r)
        p = r + (rs_new / rs_old) * p
        rs_old = rs_new

    # Copy the solution back to the host
    x[:] = cp.asnumpy(x_gpu)
    return x
