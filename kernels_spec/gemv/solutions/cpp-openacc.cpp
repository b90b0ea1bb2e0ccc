void gemv(int m, int n, const double *A, const double *x, double *y) {
#pragma acc parallel loop gang copyin(A[0:(long)m * n], x[0:n]) copyout(y[0:m])
  for (int i = 0; i < m; ++i) {
    double sum = 0.0;
#pragma acc loop vector reduction(+ : sum)
    for (int j = 0; j < n; ++j) {
      sum += A[(long)i * n + j] * x[j];
    }
    y[i] = sum;
  }
}
