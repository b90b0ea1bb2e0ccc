#include <cmath>
#include <omp.h>

// The matrix, b and x stay resident on the device for the whole solve (target data); only the scalar
// reductions travel back each iteration, and x is copied back at the end.
void cg(int n, int nnz, const int *row_ptr, const int *col_idx, const double *values, const double *b, double *x,
        double tol, int max_iter) {
  double *r = new double[n];
  double *p = new double[n];
  double *Ap = new double[n];
  double rr = 0.0, bb = 0.0;
#pragma omp target data map(to : row_ptr[0 : n + 1], col_idx[0 : nnz], values[0 : nnz], b[0 : n]) \
    map(tofrom : x[0 : n]) map(alloc : r[0 : n], p[0 : n], Ap[0 : n])
  {
    // r = b - A*x, p = r
#pragma omp target teams distribute parallel for map(tofrom : rr, bb) reduction(+ : rr, bb)
    for (int i = 0; i < n; ++i) {
      double s = 0.0;
      for (int k = row_ptr[i]; k < row_ptr[i + 1]; ++k) s += values[k] * x[col_idx[k]];
      r[i] = b[i] - s;
      p[i] = r[i];
      rr += r[i] * r[i];
      bb += b[i] * b[i];
    }
    const double bnorm = std::sqrt(bb);
    if (bnorm == 0.0) {
#pragma omp target teams distribute parallel for
      for (int i = 0; i < n; ++i) x[i] = 0.0;
    } else {
      for (int it = 0; it < max_iter && std::sqrt(rr) > tol * bnorm; ++it) {
        double pAp = 0.0;
#pragma omp target teams distribute parallel for map(tofrom : pAp) reduction(+ : pAp)
        for (int i = 0; i < n; ++i) {
          double s = 0.0;
          for (int k = row_ptr[i]; k < row_ptr[i + 1]; ++k) s += values[k] * p[col_idx[k]];
          Ap[i] = s;
          pAp += p[i] * s;
        }
        const double alpha = rr / pAp;
        double rr_new = 0.0;
#pragma omp target teams distribute parallel for map(tofrom : rr_new) reduction(+ : rr_new)
        for (int i = 0; i < n; ++i) {
          x[i] += alpha * p[i];
          r[i] -= alpha * Ap[i];
          rr_new += r[i] * r[i];
        }
        const double beta = rr_new / rr;
        rr = rr_new;
#pragma omp target teams distribute parallel for
        for (int i = 0; i < n; ++i) p[i] = r[i] + beta * p[i];
      }
    }
  }
  delete[] r;
  delete[] p;
  delete[] Ap;
}
