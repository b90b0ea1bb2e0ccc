#include <omp.h>

void gemv(int m, int n, const double *A, const double *x, double *y) {
#pragma omp target teams distribute parallel for map(to : A[0:(long)m * n], x[0:n]) map(from : y[0:m])
  for (int i = 0; i < m; ++i) {
    double sum = 0.0;
    for (int j = 0; j < n; ++j) {
      sum += A[(long)i * n + j] * x[j];
    }
    y[i] = sum;
  }
}
