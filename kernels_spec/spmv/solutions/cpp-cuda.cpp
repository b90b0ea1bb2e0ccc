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
  CUDA_CHECK(cudaMalloc(&d_row_ptr, (size_t)(n + 1) * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&d_col_idx, (size_t)nnz * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&d_values, (size_t)nnz * sizeof(double)));
  CUDA_CHECK(cudaMalloc(&d_x, (size_t)n * sizeof(double)));
  CUDA_CHECK(cudaMalloc(&d_y, (size_t)n * sizeof(double)));
  CUDA_CHECK(cudaMemcpy(d_row_ptr, row_ptr, (size_t)(n + 1) * sizeof(int), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_col_idx, col_idx, (size_t)nnz * sizeof(int), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_values, values, (size_t)nnz * sizeof(double), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_x, x, (size_t)n * sizeof(double), cudaMemcpyHostToDevice));
  spmv_kernel<<<(n + 255) / 256, 256>>>(n, d_row_ptr, d_col_idx, d_values, d_x, d_y);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpy(y, d_y, (size_t)n * sizeof(double), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaFree(d_row_ptr));
  CUDA_CHECK(cudaFree(d_col_idx));
  CUDA_CHECK(cudaFree(d_values));
  CUDA_CHECK(cudaFree(d_x));
  CUDA_CHECK(cudaFree(d_y));
}
