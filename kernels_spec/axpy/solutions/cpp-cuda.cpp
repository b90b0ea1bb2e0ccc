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

__global__ void saxpy_kernel(int n, float a, const float *x, float *y) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    y[i] = a * x[i] + y[i];
  }
}

void saxpy(int n, float a, const float *x, float *y) {
  const size_t bytes = (size_t)n * sizeof(float);
  float *d_x = nullptr, *d_y = nullptr;
  CUDA_CHECK(cudaMalloc(&d_x, bytes));
  CUDA_CHECK(cudaMalloc(&d_y, bytes));
  CUDA_CHECK(cudaMemcpy(d_x, x, bytes, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_y, y, bytes, cudaMemcpyHostToDevice));
  saxpy_kernel<<<(n + 255) / 256, 256>>>(n, a, d_x, d_y);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpy(y, d_y, bytes, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaFree(d_x));
  CUDA_CHECK(cudaFree(d_y));
}
