"""
CSR sparse matrix-vector product y = A x with pyCUDA.

Kernel: "CSR-vector" -- one warp per row. The 32 lanes of a warp walk the
nonzeros of their row together (coalesced reads of values/col_idx), then the
partial sums are combined with warp shuffles. Rows without entries still get
y[row] = 0 written.
"""
import numpy as np
import pycuda.autoinit  # noqa: F401  (creates a context)
import pycuda.gpuarray as gpuarray
from pycuda.compiler import SourceModule

WARP = 32
THREADS_PER_BLOCK = 128  # 4 rows per block

_kernel_source = r"""
__global__ void csr_vector_spmv(const int n_rows,
                                const int * __restrict__ row_ptr,
                                const int * __restrict__ col_idx,
                                const double * __restrict__ vals,
                                const double * __restrict__ x,
                                double * __restrict__ y)
{
    const int thread_id = blockIdx.x * blockDim.x + threadIdx.x;
    const int row  = thread_id / 32;
    const int lane = thread_id & 31;
    if (row >= n_rows) return;            /* warp-uniform */

    const int start = row_ptr[row];
    const int end   = row_ptr[row + 1];

    double sum = 0.0;
    for (int jj = start + lane; jj < end; jj += 32)
        sum += vals[jj] * x[col_idx[jj]];

    for (int offset = 16; offset > 0; offset /= 2)
        sum += __shfl_down_sync(0xffffffff, sum, offset);

    if (lane == 0)
        y[row] = sum;
}
"""

_mod = SourceModule(_kernel_source)
_csr_vector_spmv = _mod.get_function("csr_vector_spmv")


def csr_spmv(n, row_ptr, col_idx, vals, x, y):
    """y[:n] <- A @ x for the n x n CSR matrix (row_ptr, col_idx, vals). Host arrays in, host y out."""
    if n == 0:
        return y
    d_row_ptr = gpuarray.to_gpu(np.ascontiguousarray(row_ptr[: n + 1], dtype=np.int32))
    nnz = int(row_ptr[n])
    # a matrix with no entries at all still needs valid (non-empty) buffers
    d_col_idx = gpuarray.to_gpu(np.ascontiguousarray(col_idx[:nnz], dtype=np.int32)
                                if nnz > 0 else np.zeros(1, dtype=np.int32))
    d_vals = gpuarray.to_gpu(np.ascontiguousarray(vals[:nnz], dtype=np.float64)
                             if nnz > 0 else np.zeros(1, dtype=np.float64))
    d_x = gpuarray.to_gpu(np.ascontiguousarray(x[:n], dtype=np.float64))
    d_y = gpuarray.empty(n, dtype=np.float64)

    total_threads = n * WARP
    grid = ((total_threads + THREADS_PER_BLOCK - 1) // THREADS_PER_BLOCK, 1)
    _csr_vector_spmv(np.int32(n), d_row_ptr, d_col_idx, d_vals, d_x, d_y,
                     block=(THREADS_PER_BLOCK, 1, 1), grid=grid)

    y[:n] = d_y.get()
    return y


if __name__ == "__main__":
    import scipy.sparse as sp

    A = sp.random(500, 500, density=0.02, format="csr", random_state=0)
    x = np.random.default_rng(1).standard_normal(500)
    y = np.empty(500)
    csr_spmv(500, A.indptr, A.indices, A.data, x, y)
    print("max abs error:", np.abs(y - A @ x).max())
