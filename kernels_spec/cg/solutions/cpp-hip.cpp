#include <hip/hip_runtime.h>
#include <cmath>
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

#define BLOCK 256

// Sum of v over the block, added atomically to *out.
__device__ void block_sum(double v, double *out) {
  __shared__ double partial[BLOCK / 32];
  __syncthreads();  // partial may still be read by a previous call
  for (int offset = warpSize / 2; offset > 0; offset /= 2) v += __shfl_down(v, offset);
  if (threadIdx.x % warpSize == 0) partial[threadIdx.x / warpSize] = v;
  __syncthreads();
  if (threadIdx.x < warpSize) {
    v = threadIdx.x < BLOCK / warpSize ? partial[threadIdx.x] : 0.0;
    for (int offset = warpSize / 2; offset > 0; offset /= 2) v += __shfl_down(v, offset);
    if (threadIdx.x == 0) atomicAdd(out, v);
  }
}

// r = b - Ap (Ap = A*x from cg_matvec), p = r, sums r.r and b.b
__global__ void cg_init(int n, const double *b, const double *Ap, double *r, double *p, double *sums) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  double rr = 0.0, bb = 0.0;
  if (i < n) {
    r[i] = b[i] - Ap[i];
    p[i] = r[i];
    rr = r[i] * r[i];
    bb = b[i] * b[i];
  }
  block_sum(rr, &sums[0]);
  block_sum(bb, &sums[1]);
}

// Ap = A*p, sums p.Ap
__global__ void cg_matvec(int n, const int *row_ptr, const int *col_idx, const double *values, const double *p,
                          double *Ap, double *pAp) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  double d = 0.0;
  if (i < n) {
    double s = 0.0;
    for (int k = row_ptr[i]; k < row_ptr[i + 1]; ++k) s += values[k] * p[col_idx[k]];
    Ap[i] = s;
    d = p[i] * s;
  }
  block_sum(d, pAp);
}

// x += alpha*p, r -= alpha*Ap, sums r.r
__global__ void cg_update(int n, double alpha, const double *p, const double *Ap, double *x, double *r,
                          double *rr) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  double d = 0.0;
  if (i < n) {
    x[i] += alpha * p[i];
    r[i] -= alpha * Ap[i];
    d = r[i] * r[i];
  }
  block_sum(d, rr);
}

// p = r + beta*p
__global__ void cg_direction(int n, double beta, const double *r, double *p) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = r[i] + beta * p[i];
}

void cg(int n, int nnz, const int *row_ptr, const int *col_idx, const double *values, const double *b, double *x,
        double tol, int max_iter) {
  int *d_row_ptr, *d_col_idx;
  double *d_values, *d_b, *d_x, *d_r, *d_p, *d_Ap, *d_sums;
  const size_t vec = (size_t)n * sizeof(double);
  HIP_CHECK(hipMalloc(&d_row_ptr, (size_t)(n + 1) * sizeof(int)));
  HIP_CHECK(hipMalloc(&d_col_idx, (size_t)nnz * sizeof(int)));
  HIP_CHECK(hipMalloc(&d_values, (size_t)nnz * sizeof(double)));
  HIP_CHECK(hipMalloc(&d_b, vec));
  HIP_CHECK(hipMalloc(&d_x, vec));
  HIP_CHECK(hipMalloc(&d_r, vec));
  HIP_CHECK(hipMalloc(&d_p, vec));
  HIP_CHECK(hipMalloc(&d_Ap, vec));
  HIP_CHECK(hipMalloc(&d_sums, 2 * sizeof(double)));
  HIP_CHECK(hipMemcpy(d_row_ptr, row_ptr, (size_t)(n + 1) * sizeof(int), hipMemcpyHostToDevice));
  HIP_CHECK(hipMemcpy(d_col_idx, col_idx, (size_t)nnz * sizeof(int), hipMemcpyHostToDevice));
  HIP_CHECK(hipMemcpy(d_values, values, (size_t)nnz * sizeof(double), hipMemcpyHostToDevice));
  HIP_CHECK(hipMemcpy(d_b, b, vec, hipMemcpyHostToDevice));
  HIP_CHECK(hipMemcpy(d_x, x, vec, hipMemcpyHostToDevice));
  const int grid = (n + 255) / 256;
  double sums[2];
  HIP_CHECK(hipMemset(d_sums, 0, 2 * sizeof(double)));
  hipLaunchKernelGGL(cg_matvec, dim3(grid), dim3(BLOCK), 0, 0, n, d_row_ptr, d_col_idx, d_values, d_x, d_Ap, &d_sums[0]);
  HIP_CHECK(hipMemset(d_sums, 0, 2 * sizeof(double)));
  hipLaunchKernelGGL(cg_init, dim3(grid), dim3(BLOCK), 0, 0, n, d_b, d_Ap, d_r, d_p, d_sums);
  HIP_CHECK(hipMemcpy(sums, d_sums, 2 * sizeof(double), hipMemcpyDeviceToHost));
  double rr = sums[0];
  const double bnorm = std::sqrt(sums[1]);
  for (int it = 0; it < max_iter && bnorm > 0.0 && std::sqrt(rr) > tol * bnorm; ++it) {
    double pAp, rr_new;
    HIP_CHECK(hipMemset(d_sums, 0, 2 * sizeof(double)));
    hipLaunchKernelGGL(cg_matvec, dim3(grid), dim3(BLOCK), 0, 0, n, d_row_ptr, d_col_idx, d_values, d_p, d_Ap, &d_sums[0]);
    HIP_CHECK(hipMemcpy(&pAp, &d_sums[0], sizeof(double), hipMemcpyDeviceToHost));
    const double alpha = rr / pAp;
    hipLaunchKernelGGL(cg_update, dim3(grid), dim3(BLOCK), 0, 0, n, alpha, d_p, d_Ap, d_x, d_r, &d_sums[1]);
    HIP_CHECK(hipMemcpy(&rr_new, &d_sums[1], sizeof(double), hipMemcpyDeviceToHost));
    const double beta = rr_new / rr;
    rr = rr_new;
    hipLaunchKernelGGL(cg_direction, dim3(grid), dim3(BLOCK), 0, 0, n, beta, d_r, d_p);
  }
  HIP_CHECK(hipGetLastError());
  if (bnorm > 0.0) {
    HIP_CHECK(hipMemcpy(x, d_x, vec, hipMemcpyDeviceToHost));
  } else {
    for (int i = 0; i < n; ++i) x[i] = 0.0;
  }
  HIP_CHECK(hipFree(d_row_ptr));
  HIP_CHECK(hipFree(d_col_idx));
  HIP_CHECK(hipFree(d_values));
  HIP_CHECK(hipFree(d_b));
  HIP_CHECK(hipFree(d_x));
  HIP_CHECK(hipFree(d_r));
  HIP_CHECK(hipFree(d_p));
  HIP_CHECK(hipFree(d_Ap));
  HIP_CHECK(hipFree(d_sums));
}
