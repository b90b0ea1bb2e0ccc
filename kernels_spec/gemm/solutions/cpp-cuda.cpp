#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                                    \
  do {                                                                                      \
    cudaError_t err_ = (call);                                                              \
    if (err_ != cudaSuccess) {                                                              \
      std::fprintf(stderr, "CUDA error %s at line %d\n", cudaGetErrorString(err_), __LINE__); \
      std::exit(1);                                                                         \
    }                                                                                       \
  } while (0)

#define TILE 32

// Shared-memory tiled C = A*B (row-major): each block computes a TILE x TILE tile of C.
__global__ void gemm_kernel(int m, int n, int k, const double *A, const double *B, double *C) {
  __shared__ double As[TILE][TILE];
  __shared__ double Bs[TILE][TILE + 1];
  const int row = blockIdx.y * TILE + threadIdx.y;
  const int col = blockIdx.x * TILE + threadIdx.x;
  double sum = 0.0;
  for (int t = 0; t < k; t += TILE) {
    const int ak = t + threadIdx.x;
    const int bk = t + threadIdx.y;
    As[threadIdx.y][threadIdx.x] = (row < m && ak < k) ? A[(size_t)row * k + ak] : 0.0;
    Bs[threadIdx.y][threadIdx.x] = (bk < k && col < n) ? B[(size_t)bk * n + col] : 0.0;
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

void gemm(int m, int n, int k, const double *A, const double *B, double *C) {
  double *d_A = nullptr, *d_B = nullptr, *d_C = nullptr;
  CUDA_CHECK(cudaMalloc(&d_A, (size_t)m * k * sizeof(double)));
  CUDA_CHECK(cudaMalloc(&d_B, (size_t)k * n * sizeof(double)));
  CUDA_CHECK(cudaMalloc(&d_C, (size_t)m * n * sizeof(double)));
  CUDA_CHECK(cudaMemcpy(d_A, A, (size_t)m * k * sizeof(double), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_B, B, (size_t)k * n * sizeof(double), cudaMemcpyHostToDevice));
  const dim3 block(TILE, TILE);
  const dim3 grid((n + 31) / 32, (m + 31) / 32);
  gemm_kernel<<<grid, block>>>(m, n, k, d_A, d_B, d_C);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpy(C, d_C, (size_t)m * n * sizeof(double), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaFree(d_A));
  CUDA_CHECK(cudaFree(d_B));
  CUDA_CHECK(cudaFree(d_C));
}
