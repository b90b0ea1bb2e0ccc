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

// One thread per interior point; k (the contiguous axis) is threadIdx.x for coalescing.
__global__ void jacobi_kernel(int nx, int ny, int nz, const double *u, double *unew) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  const int j = blockIdx.y * blockDim.y + threadIdx.y;
  const int i = blockIdx.z;
  if (i >= 1 && i < nx - 1 && j >= 1 && j < ny - 1 && k >= 1 && k < nz - 1) {
    const size_t c = ((size_t)i * ny + j) * nz + k;
    const size_t sx = (size_t)ny * nz;
    unew[c] = (u[c - sx] + u[c + sx] + u[c - nz] + u[c + nz] + u[c - 1] + u[c + 1]) / 6.0;
  }
}

void jacobi(int nx, int ny, int nz, const double *u, double *unew) {
  const size_t bytes = (size_t)nx * ny * nz * sizeof(double);
  double *d_u = nullptr, *d_unew = nullptr;
  CUDA_CHECK(cudaMalloc(&d_u, bytes));
  CUDA_CHECK(cudaMalloc(&d_unew, bytes));
  CUDA_CHECK(cudaMemcpy(d_u, u, bytes, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_unew, unew, bytes, cudaMemcpyHostToDevice));
  const dim3 block(16, 8, 1);
  const dim3 grid((nz + 15) / 16, (ny + 7) / 8, nx);
  jacobi_kernel<<<grid, block>>>(nx, ny, nz, d_u, d_unew);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpy(unew, d_unew, bytes, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaFree(d_u));
  CUDA_CHECK(cudaFree(d_unew));
}
