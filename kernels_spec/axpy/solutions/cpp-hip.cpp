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

__global__ void saxpy_kernel(int n, float a, const float *x, float *y) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    y[i] = a * x[i] + y[i];
  }
}

void saxpy(int n, float a, const float *x, float *y) {
  const size_t bytes = (size_t)n * sizeof(float);
  float *d_x = nullptr, *d_y = nullptr;
  HIP_CHECK(hipMalloc(&d_x, bytes));
  HIP_CHECK(hipMalloc(&d_y, bytes));
  HIP_CHECK(hipMemcpy(d_x, x, bytes, hipMemcpyHostToDevice));
  HIP_CHECK(hipMemcpy(d_y, y, bytes, hipMemcpyHostToDevice));
  hipLaunchKernelGGL(saxpy_kernel, dim3((n + 255) / 256), dim3(256), 0, 0, n, a, d_x, d_y);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipMemcpy(y, d_y, bytes, hipMemcpyDeviceToHost));
  HIP_CHECK(hipFree(d_x));
  HIP_CHECK(hipFree(d_y));
}
