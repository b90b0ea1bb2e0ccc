#include <omp.h>

void gemm(int m, int n, int k, const double *A, const double *B, double *C) {
#pragma omp target teams distribute parallel for collapse(2) \
    map(to : A[0:(long)m * k], B[0:(long)k * n]) map(from : C[0:(long)m * n])
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      double sum = 0.0;
      for (int p = 0; p < k; ++p) {
        sum += A[(long)i * k + p] * B[(long)p * n + j];
      }
      C[(long)i * n + j] = sum;
    }
  }
}
