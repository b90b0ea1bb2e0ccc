import numpy as np
import pycuda.autoinit
import pycuda.driver as cuda
from pycuda.compiler import SourceModule

BLOCK = 16

mod = SourceModule("""
__global__ void matmul(const double *A, const double *B, double *C, int M, int N, int K)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;

    if (row < M && col < N) {
        double sum = 0.0;
        for (int p = 0; p < K; ++p) {
            sum += A[row * K + p] * B[p * N + col];
        }
        C[row * N + col] = sum;
    }
}
""")

matmul_kernel = mod.get_function("matmul")


def gemm(A, B, C=None):
    """Compute C = A @ B on the GPU with pyCUDA. A is (M, K), B is (K, N)."""
    A = np.ascontiguousarray(A, dtype=np.float64)
    B = np.ascontiguousarray(B, dtype=np.float64)
    M, K = A.shape
    K2, N = B.shape
    assert K == K2, "inner dimensions must match"
    if C is None:
        C = np.empty((M, N), dtype=np.float64)

    A_gpu = cuda.mem_alloc(A.nbytes)
    B_gpu = cuda.mem_alloc(B.nbytes)
    C_gpu = cuda.mem_alloc(C.nbytes)
    cuda.memcpy_htod(A_gpu, A)
    cuda.memcpy_htod(B_gpu, B)

    grid = ((M + BLOCK - 1) // BLOCK, (N + BLOCK - 1) // BLOCK)
    matmul_kernel(A_gpu, B_gpu, C_gpu, np.int32(M), np.int32(N), np.int32(K),
                  block=(BLOCK, BLOCK, 1), grid=grid)

    result = np.empty((M, N), dtype=np.float64)
    cuda.memcpy_dtoh(result, C_gpu)
    C[...] = result
    return C


if __name__ == "__main__":
    n = 64
    A = np.random.rand(n, n)
    B = np.random.rand(n, n)
    C = gemm(A, B)
    print("Max error:", np.max(np.abs(C - A @ B)))
