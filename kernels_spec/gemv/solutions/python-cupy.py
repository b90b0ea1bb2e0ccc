import cupy as cp


def gemv(m, n, A, x, y):
    d_A = cp.asarray(A[:m, :n])
    d_x = cp.asarray(x[:n])
    y[:m] = cp.asnumpy(d_A @ d_x)
