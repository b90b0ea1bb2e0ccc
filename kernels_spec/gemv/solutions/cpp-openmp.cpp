#include <omp.h>

void gemv(int m, int n, const double *A, const double *x, double *y) {
#pragma omp parallel for
  for (int i = 0; i < m; ++i) {
    double sum = 0.0;
    for (int j = 0; j < n; ++j) {
      sum += A[(long)i * n + j] * x[j];
    }
    y[i] = sum;
  }
}
