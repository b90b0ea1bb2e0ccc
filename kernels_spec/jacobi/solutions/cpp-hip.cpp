#include <hip/hip_runtime.h>
#include <cstdio>
#include <cstdlib>

#define HIP_CHECK(call)                                                                    \
  do {                                                                                      \
    hipError_t err_ = (call);                                                              \
    if (err_ != hipSuccess) {                                                              \
      std::fprintf(stderr, "HIP error %s at line %d\n", hipGetErrorString(err_), __LINE__); \
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
  HIP_CHECK(hipMalloc(&d_u, bytes));
  HIP_CHECK(hipMalloc(&d_unew, bytes));
  HIP_CHECK(hipMemcpy(d_u, u, bytes, hipMemcpyHostToDevice));
  HIP_CHECK(hipMemcpy(d_unew, unew, bytes, hipMemcpyHostToDevice));
  const dim3 block(16, 8, 1);
  const dim3 grid((nz + 15) / 16, (ny + 7) / 8, nx);
  hipLaunchKernelGGL(jacobi_kernel, grid, block, 0, 0, nx, ny, nz, d_u, d_unew);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipMemcpy(unew, d_unew, bytes, hipMemcpyDeviceToHost));
  HIP_CHECK(hipFree(d_u));
  HIP_CHECK(hipFree(d_unew));
}
