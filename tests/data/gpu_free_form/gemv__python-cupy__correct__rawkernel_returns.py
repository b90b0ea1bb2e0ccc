"""Matrix-vector product y = A @ x with a hand-written CuPy RawKernel.

One warp (32 threads) per row: the lanes stride over the columns and reduce
their partial sums with warp shuffles. The result stays on the GPU and is
returned as a new CuPy array.
"""
import cupy as cp
import numpy as np

_GEMV_SRC = r"""
extern "C" __global__
void gemv_warp_per_row(const double* __restrict__ A,
                       const double* __restrict__ x,
                       double* __restrict__ y,
                       const int m, const int n)
{
    const int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const int lane = threadIdx.x & 31;
    if (warp >= m) return;               // whole warp leaves together

    const double* row = A + (size_t)warp * n;
    double acc = 0.0;
    for (int j = lane; j < n; j += 32)
        acc += row[j] * x[j];

    for (int offset = 16; offset > 0; offset >>= 1)
        acc += __shfl_down_sync(0xffffffffu, acc, offset);

    if (lane == 0)
        y[warp] = acc;
}
"""

_gemv_kernel = cp.RawKernel(_GEMV_SRC, "gemv_warp_per_row")

_THREADS = 256                 # 8 warps -> 8 rows per block
_ROWS_PER_BLOCK = _THREADS // 32


def gemv(A, x):
    """Return A @ x as a CuPy array. A: (m, n), x: (n,). Accepts NumPy or CuPy input."""
    A_d = cp.ascontiguousarray(cp.asarray(A, dtype=cp.float64))
    x_d = cp.ascontiguousarray(cp.asarray(x, dtype=cp.float64))
    m, n = A_d.shape
    if x_d.shape != (n,):
        raise ValueError(f"shape mismatch: A is {A_d.shape}, x is {x_d.shape}")

    y_d = cp.empty(m, dtype=cp.float64)
    if m == 0:
        return y_d
    blocks = (m + _ROWS_PER_BLOCK - 1) // _ROWS_PER_BLOCK
    _gemv_kernel((blocks,), (_THREADS,), (A_d, x_d, y_d, np.int32(m), np.int32(n)))
    return y_d


if __name__ == "__main__":
    rng = np.random.default_rng(42)
    A = rng.standard_normal((300, 101))
    x = rng.standard_normal(101)
    y = gemv(A, x)
    print("max abs err:", float(np.abs(cp.asnumpy(y) - A @ x).max()))
