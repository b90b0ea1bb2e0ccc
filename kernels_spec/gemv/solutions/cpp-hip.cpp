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

// One warp (wavefront) per row: the lanes read consecutive elements of the row and reduce with shuffles.
__global__ void gemv_kernel(int m, int n, const double *A, const double *x, double *y) {
  const int warps_per_block = blockDim.x / warpSize;
  const int row = blockIdx.x * warps_per_block + threadIdx.x / warpSize;
  const int lane = threadIdx.x % warpSize;
  if (row >= m) return;
  const double *a = A + (size_t)row * n;
  double sum = 0.0;
  for (int j = lane; j < n; j += warpSize) {
    sum += a[j] * x[j];
  }
  for (int offset = warpSize / 2; offset > 0; offset /= 2) {
    sum += __shfl_down(sum, offset);
  }
  if (lane == 0) {
    y[row] = sum;
  }
}

void gemv(int m, int n, const double *A, const double *x, double *y) {
  double *d_A = nullptr, *d_x = nullptr, *d_y = nullptr;
  HIP_CHECK(hipMalloc(&d_A, (size_t)m * n * sizeof(double)));
  HIP_CHECK(hipMalloc(&d_x, (size_t)n * sizeof(double)));
  HIP_CHECK(hipMalloc(&d_y, (size_t)m * sizeof(double)));
  HIP_CHECK(hipMemcpy(d_A, A, (size_t)m * n * sizeof(double), hipMemcpyHostToDevice));
  HIP_CHECK(hipMemcpy(d_x, x, (size_t)n * sizeof(double), hipMemcpyHostToDevice));
  int warp = 32;
  HIP_CHECK(hipDeviceGetAttribute(&warp, hipDeviceAttributeWarpSize, 0));
  const int rows_per_block = 256 / warp;  // one row per warp (wavefront)
  const int grid = (m + rows_per_block - 1) / rows_per_block;
  const int block = 256;
  hipLaunchKernelGGL(gemv_kernel, dim3(grid), dim3(block), 0, 0, m, n, d_A, d_x, d_y);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipMemcpy(y, d_y, (size_t)m * sizeof(double), hipMemcpyDeviceToHost));
  HIP_CHECK(hipFree(d_A));
  HIP_CHECK(hipFree(d_x));
  HIP_CHECK(hipFree(d_y));
}
