#include <cuda_runtime.h>
#include <cmath>
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

#define BLOCK 256

// Sum of v over the block, added atomically to *out.
__device__ void block_sum(double v, double *out) {
  __shared__ double partial[BLOCK / 32];
  __syncthreads();  // partial may still be read by a previous call
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = v;
  __syncthreads();
  if (threadIdx.x < 32) {
    v = threadIdx.x < BLOCK / 32 ? partial[threadIdx.x] : 0.0;
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
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
  CUDA_CHECK(cudaMalloc(&d_row_ptr, (size_t)(n + 1) * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&d_col_idx, (size_t)nnz * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&d_values, (size_t)nnz * sizeof(double)));
  CUDA_CHECK(cudaMalloc(&d_b, vec));
  CUDA_CHECK(cudaMalloc(&d_x, vec));
  CUDA_CHECK(cudaMalloc(&d_r, vec));
  CUDA_CHECK(cudaMalloc(&d_p, vec));
  CUDA_CHECK(cudaMalloc(&d_Ap, vec));
  CUDA_CHECK(cudaMalloc(&d_sums, 2 * sizeof(double)));
  CUDA_CHECK(cudaMemcpy(d_row_ptr, row_ptr, (size_t)(n + 1) * sizeof(int), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_col_idx, col_idx, (size_t)nnz * sizeof(int), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_values, values, (size_t)nnz * sizeof(double), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_b, b, vec, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_x, x, vec, cudaMemcpyHostToDevice));
  const int grid = (n + 255) / 256;
  double sums[2];
  CUDA_CHECK(cudaMemset(d_sums, 0, 2 * sizeof(double)));
  cg_matvec<<<grid, BLOCK>>>(n, d_row_ptr, d_col_idx, d_values, d_x, d_Ap, &d_sums[0]);
  CUDA_CHECK(cudaMemset(d_sums, 0, 2 * sizeof(double)));
  cg_init<<<grid, BLOCK>>>(n, d_b, d_Ap, d_r, d_p, d_sums);
  CUDA_CHECK(cudaMemcpy(sums, d_sums, 2 * sizeof(double), cudaMemcpyDeviceToHost));
  double rr = sums[0];
  const double bnorm = std::sqrt(sums[1]);
  for (int it = 0; it < max_iter && bnorm > 0.0 && std::sqrt(rr) > tol * bnorm; ++it) {
    double pAp, rr_new;
    CUDA_CHECK(cudaMemset(d_sums, 0, 2 * sizeof(double)));
    cg_matvec<<<grid, BLOCK>>>(n, d_row_ptr, d_col_idx, d_values, d_p, d_Ap, &d_sums[0]);
    CUDA_CHECK(cudaMemcpy(&pAp, &d_sums[0], sizeof(double), cudaMemcpyDeviceToHost));
    const double alpha = rr / pAp;
    cg_update<<<grid, BLOCK>>>(n, alpha, d_p, d_Ap, d_x, d_r, &d_sums[1]);
    CUDA_CHECK(cudaMemcpy(&rr_new, &d_sums[1], sizeof(double), cudaMemcpyDeviceToHost));
    const double beta = rr_new / rr;
    rr = rr_new;
    cg_direction<<<grid, BLOCK>>>(n, beta, d_r, d_p);
  }
  CUDA_CHECK(cudaGetLastError());
  if (bnorm > 0.0) {
    CUDA_CHECK(cudaMemcpy(x, d_x, vec, cudaMemcpyDeviceToHost));
  } else {
    for (int i = 0; i < n; ++i) x[i] = 0.0;
  }
  CUDA_CHECK(cudaFree(d_row_ptr));
  CUDA_CHECK(cudaFree(d_col_idx));
  CUDA_CHECK(cudaFree(d_values));
  CUDA_CHECK(cudaFree(d_b));
  CUDA_CHECK(cudaFree(d_x));
  CUDA_CHECK(cudaFree(d_r));
  CUDA_CHECK(cudaFree(d_p));
  CUDA_CHECK(cudaFree(d_Ap));
  CUDA_CHECK(cudaFree(d_sums));
}
