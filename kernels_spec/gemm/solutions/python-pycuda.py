import numpy as np
import pycuda.autoinit  # noqa: F401 - creates the CUDA context
import pycuda.gpuarray as gpuarray
from pycuda.compiler import SourceModule

_module = SourceModule("""
#define TILE 16
__global__ void gemm_kernel(int m, int n, int k, const double *A, const double *B, double *C) {
    __shared__ double As[TILE][TILE];
    __shared__ double Bs[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y;
    int col = blockIdx.x * TILE + threadIdx.x;
    double sum = 0.0;
    for (int t = 0; t < k; t += TILE) {
        As[threadIdx.y][threadIdx.x] = (row < m && t + threadIdx.x < k) ? A[(size_t)row * k + t + threadIdx.x] : 0.0;
        Bs[threadIdx.y][threadIdx.x] = (t + threadIdx.y < k && col < n) ? B[(size_t)(t + threadIdx.y) * n + col] : 0.0;
        __syncthreads();
        for (int p = 0; p < TILE; ++p) {
            sum += As[threadIdx.y][p] * Bs[p][threadIdx.x];
        }
        __syncthreads();
    }
    if (row < m && col < n) {
        C[(size_t)row * n + col] = sum;
    }
}
""")
_gemm = _module.get_function("gemm_kernel")


def gemm(m, n, k, A, B, C):
    d_A = gpuarray.to_gpu(np.ascontiguousarray(A))
    d_B = gpuarray.to_gpu(np.ascontiguousarray(B))
    d_C = gpuarray.empty((m, n), dtype=np.float64)
    tile = 16
    _gemm(np.int32(m), np.int32(n), np.int32(k), d_A, d_B, d_C, block=(tile, tile, 1),
          grid=((n + tile - 1) // tile, (m + tile - 1) // tile))
    C[:m, :n] = d_C.get()
