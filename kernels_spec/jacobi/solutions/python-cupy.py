import cupy as cp


def jacobi(nx, ny, nz, u, unew):
    d_u = cp.asarray(u)
    d_unew = cp.asarray(unew)
    d_unew[1:-1, 1:-1, 1:-1] = (d_u[:-2, 1:-1, 1:-1] + d_u[2:, 1:-1, 1:-1]
                                + d_u[1:-1, :-2, 1:-1] + d_u[1:-1, 2:, 1:-1]
                                + d_u[1:-1, 1:-1, :-2] + d_u[1:-1, 1:-1, 2:]) / 6.0
    unew[...] = cp.asnumpy(d_unew)
