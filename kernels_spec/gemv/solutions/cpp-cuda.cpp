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

// One warp per row: the lanes read consecutive elements of the row (coalesced) and reduce with shuffles.
__global__ void gemv_kernel(int m, int n, const double *A, const double *x, double *y) {
  const int warps_per_block = blockDim.x / 32;
  const int row = blockIdx.x * warps_per_block + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (row >= m) return;
  const double *a = A + (size_t)row * n;
  double sum = 0.0;
  for (int j = lane; j < n; j += 32) {
    sum += a[j] * x[j];
  }
  for (int offset = 16; offset > 0; offset /= 2) {
    sum += __shfl_down_sync(0xffffffffu, sum, offset);
  }
  if (lane == 0) {
    y[row] = sum;
  }
}

void gemv(int m, int n, const double *A, const double *x, double *y) {
  double *d_A = nullptr, *d_x = nullptr, *d_y = nullptr;
  CUDA_CHECK(cudaMalloc(&d_A, (size_t)m * n * sizeof(double)));
  CUDA_CHECK(cudaMalloc(&d_x, (size_t)n * sizeof(double)));
  CUDA_CHECK(cudaMalloc(&d_y, (size_t)m * sizeof(double)));
  CUDA_CHECK(cudaMemcpy(d_A, A, (size_t)m * n * sizeof(double), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_x, x, (size_t)n * sizeof(double), cudaMemcpyHostToDevice));
  gemv_kernel<<<(m + 7) / 8, 256>>>(m, n, d_A, d_x, d_y);  // 8 warps (rows) per block
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpy(y, d_y, (size_t)m * sizeof(double), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaFree(d_A));
  CUDA_CHECK(cudaFree(d_x));
  CUDA_CHECK(cudaFree(d_y));
}
