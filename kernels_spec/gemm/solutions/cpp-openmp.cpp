#include <omp.h>

void gemm(int m, int n, int k, const double *A, const double *B, double *C) {
#pragma omp parallel for
  for (int i = 0; i < m; ++i) {
    double *c = C + (long)i * n;
    for (int j = 0; j < n; ++j) {
      c[j] = 0.0;
    }
    for (int p = 0; p < k; ++p) {
      const double a = A[(long)i * k + p];
      const double *b = B + (long)p * n;
      for (int j = 0; j < n; ++j) {
        c[j] += a * b[j];
      }
    }
  }
}
