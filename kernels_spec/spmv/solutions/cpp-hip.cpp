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

// CSR SpMV, one thread per row.
__global__ void spmv_kernel(int n, const int *row_ptr, const int *col_idx, const double *values, const double *x,
                            double *y) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    double sum = 0.0;
    for (int k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
      sum += values[k] * x[col_idx[k]];
    }
    y[i] = sum;
  }
}

void spmv(int n, int nnz, const int *row_ptr, const int *col_idx, const double *values, const double *x,
          double *y) {
  int *d_row_ptr = nullptr, *d_col_idx = nullptr;
  double *d_values = nullptr, *d_x = nullptr, *d_y = nullptr;
  HIP_CHECK(hipMalloc(&d_row_ptr, (size_t)(n + 1) * sizeof(int)));
  HIP_CHECK(hipMalloc(&d_col_idx, (size_t)nnz * sizeof(int)));
  HIP_CHECK(hipMalloc(&d_values, (size_t)nnz * sizeof(double)));
  HIP_CHECK(hipMalloc(&d_x, (size_t)n * sizeof(double)));
  HIP_CHECK(hipMalloc(&d_y, (size_t)n * sizeof(double)));
  HIP_CHECK(hipMemcpy(d_row_ptr, row_ptr, (size_t)(n + 1) * sizeof(int), hipMemcpyHostToDevice));
  HIP_CHECK(hipMemcpy(d_col_idx, col_idx, (size_t)nnz * sizeof(int), hipMemcpyHostToDevice));
  HIP_CHECK(hipMemcpy(d_values, values, (size_t)nnz * sizeof(double), hipMemcpyHostToDevice));
  HIP_CHECK(hipMemcpy(d_x, x, (size_t)n * sizeof(double), hipMemcpyHostToDevice));
  hipLaunchKernelGGL(spmv_kernel, dim3((n + 255) / 256), dim3(256), 0, 0, n, d_row_ptr, d_col_idx, d_values, d_x, d_y);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipMemcpy(y, d_y, (size_t)n * sizeof(double), hipMemcpyDeviceToHost));
  HIP_CHECK(hipFree(d_row_ptr));
  HIP_CHECK(hipFree(d_col_idx));
  HIP_CHECK(hipFree(d_values));
  HIP_CHECK(hipFree(d_x));
  HIP_CHECK(hipFree(d_y));
}
