# Conjugate Gradient solver for a sparse SPD matrix in CSR format, using
# numba.cuda kernels for the SpMV, the dot products and the vector updates.
# The iteration loop runs on the host; only scalars travel back each step.
import math

import numpy as np
from numba import cuda, float64

TPB = 256  # threads per block (power of two for the reduction)


@cuda.jit
def csr_matvec(row_ptr, col_idx, values, v, out):
    row = cuda.grid(1)
    if row < out.shape[0]:
        s = 0.0
        for jj in range(row_ptr[row], row_ptr[row + 1]):
            s += values[jj] * v[col_idx[jj]]
        out[row] = s


@cuda.jit
def dot_kernel(a, b, result):
    # block-level tree reduction, then one atomic add per block
    cache = cuda.shared.array(TPB, dtype=float64)
    tid = cuda.threadIdx.x
    i = cuda.grid(1)
    stride = cuda.gridsize(1)
    s = 0.0
    while i < a.shape[0]:
        s += a[i] * b[i]
        i += stride
    cache[tid] = s
    cuda.syncthreads()
    half = TPB // 2
    while half > 0:
        if tid < half:
            cache[tid] += cache[tid + half]
        cuda.syncthreads()
        half //= 2
    if tid == 0:
        cuda.atomic.add(result, 0, cache[0])


@cuda.jit
def update_x_r(alpha, p, ap, x, r):
    i = cuda.grid(1)
    if i < x.shape[0]:
        x[i] += alpha * p[i]
        r[i] -= alpha * ap[i]


@cuda.jit
def update_p(beta, r, p):
    i = cuda.grid(1)
    if i < p.shape[0]:
        p[i] = r[i] + beta * p[i]


@cuda.jit
def residual_kernel(b, ax, r, p):
    i = cuda.grid(1)
    if i < r.shape[0]:
        r[i] = b[i] - ax[i]
        p[i] = r[i]


def _dot(a, b, acc, blocks):
    acc.copy_to_device(np.zeros(1, dtype=np.float64))  # reset the accumulator
    dot_kernel[blocks, TPB](a, b, acc)
    return acc.copy_to_host()[0]


def cg(n, nnz, row_ptr, col_idx, values, b, x, tol, max_iter):
    """Solve A x = b; x holds the initial guess on entry and the solution on exit.
    Stops when ||b - A x|| / ||b|| <= tol or after max_iter iterations.
    Returns the number of iterations performed."""
    blocks = (n + TPB - 1) // TPB
    red_blocks = min(blocks, 1024)

    d_rp = cuda.to_device(np.ascontiguousarray(row_ptr, dtype=np.int32))
    d_ci = cuda.to_device(np.ascontiguousarray(col_idx, dtype=np.int32) if nnz > 0
                          else np.zeros(1, dtype=np.int32))
    d_val = cuda.to_device(np.ascontiguousarray(values, dtype=np.float64) if nnz > 0
                           else np.zeros(1, dtype=np.float64))
    d_b = cuda.to_device(np.ascontiguousarray(b[:n], dtype=np.float64))
    d_x = cuda.to_device(np.ascontiguousarray(x[:n], dtype=np.float64))
    d_r = cuda.device_array(n, dtype=np.float64)
    d_p = cuda.device_array(n, dtype=np.float64)
    d_ap = cuda.device_array(n, dtype=np.float64)
    d_acc = cuda.device_array(1, dtype=np.float64)

    # r = b - A x0, p = r
    csr_matvec[blocks, TPB](d_rp, d_ci, d_val, d_x, d_ap)
    residual_kernel[blocks, TPB](d_b, d_ap, d_r, d_p)

    bnorm = math.sqrt(_dot(d_b, d_b, d_acc, red_blocks))
    if bnorm == 0.0:
        x[:n] = 0.0
        return 0
    rr = _dot(d_r, d_r, d_acc, red_blocks)

    it = 0
    while it < max_iter and math.sqrt(rr) > tol * bnorm:
        csr_matvec[blocks, TPB](d_rp, d_ci, d_val, d_p, d_ap)
        pap = _dot(d_p, d_ap, d_acc, red_blocks)
        if pap <= 0.0:
            break
        alpha = rr / pap
        update_x_r[blocks, TPB](alpha, d_p, d_ap, d_x, d_r)
        rr_new = _dot(d_r, d_r, d_acc, red_blocks)
        update_p[blocks, TPB](rr_new / rr, d_r, d_p)
        rr = rr_new
        it += 1

    x[:n] = d_x.copy_to_host()
    return it


if __name__ == "__main__":
    # 1D Poisson matrix (tridiagonal 2, -1) as a quick self-test
    n = 200
    rows, cols, vals = [], [], []
    row_ptr = [0]
    for i in range(n):
        for j, v in ((i - 1, -1.0), (i, 2.0), (i + 1, -1.0)):
            if 0 <= j < n:
                cols.append(j)
                vals.append(v)
        row_ptr.append(len(cols))
    row_ptr = np.array(row_ptr, dtype=np.int32)
    col_idx = np.array(cols, dtype=np.int32)
    values = np.array(vals)
    b = np.random.rand(n)
    x = np.zeros(n)
    iters = cg(n, len(values), row_ptr, col_idx, values, b, x, 1e-10, 2000)
    A = np.zeros((n, n))
    for i in range(n):
        A[i, col_idx[row_ptr[i]:row_ptr[i + 1]]] = values[row_ptr[i]:row_ptr[i + 1]]
    print(iters, "iterations, relative residual", np.linalg.norm(b - A @ x) / np.linalg.norm(b))
