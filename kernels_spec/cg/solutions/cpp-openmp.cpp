#include <cmath>
#include <vector>
#include <omp.h>

void cg(int n, int nnz, const int *row_ptr, const int *col_idx, const double *values, const double *b, double *x,
        double tol, int max_iter) {
  std::vector<double> r(n), p(n), Ap(n);
  double rr = 0.0, bb = 0.0;
  // r = b - A*x, p = r
#pragma omp parallel for reduction(+ : rr, bb)
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
#pragma omp parallel for
    for (int i = 0; i < n; ++i) x[i] = 0.0;
    return;
  }
  for (int it = 0; it < max_iter && std::sqrt(rr) > tol * bnorm; ++it) {
    double pAp = 0.0;
#pragma omp parallel for reduction(+ : pAp)
    for (int i = 0; i < n; ++i) {
      double s = 0.0;
      for (int k = row_ptr[i]; k < row_ptr[i + 1]; ++k) s += values[k] * p[col_idx[k]];
      Ap[i] = s;
      pAp += p[i] * s;
    }
    const double alpha = rr / pAp;
    double rr_new = 0.0;
#pragma omp parallel for reduction(+ : rr_new)
    for (int i = 0; i < n; ++i) {
      x[i] += alpha * p[i];
      r[i] -= alpha * Ap[i];
      rr_new += r[i] * r[i];
    }
    const double beta = rr_new / rr;
    rr = rr_new;
#pragma omp parallel for
    for (int i = 0; i < n; ++i) p[i] = r[i] + beta * p[i];
  }
}
