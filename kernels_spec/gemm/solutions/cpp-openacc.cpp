void gemm(int m, int n, int k, const double *A, const double *B, double *C) {
#pragma acc parallel loop collapse(2) copyin(A[0:(long)m * k], B[0:(long)k * n]) copyout(C[0:(long)m * n])
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      double sum = 0.0;
#pragma acc loop seq
      for (int p = 0; p < k; ++p) {
        sum += A[(long)i * k + p] * B[(long)p * n + j];
      }
      C[(long)i * n + j] = sum;
    }
  }
}
