void spmv(int n, int nnz, const int *row_ptr, const int *col_idx, const double *values, const double *x,
          double *y) {
#pragma acc parallel loop gang vector copyin(row_ptr[0 : n + 1], col_idx[0 : nnz], values[0 : nnz], x[0 : n]) \
    copyout(y[0 : n])
  for (int i = 0; i < n; ++i) {
    double sum = 0.0;
#pragma acc loop seq
    for (int k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
      sum += values[k] * x[col_idx[k]];
    }
    y[i] = sum;
  }
}
