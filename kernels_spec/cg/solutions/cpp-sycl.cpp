#include <sycl/sycl.hpp>

#include <cmath>

void cg(int n, int nnz, const int *row_ptr, const int *col_idx, const double *values, const double *b, double *x,
        double tol, int max_iter) {
  sycl::queue q{sycl::property::queue::in_order{}};
  int *rp = sycl::malloc_device<int>(n + 1, q);
  int *ci = sycl::malloc_device<int>(nnz, q);
  double *va = sycl::malloc_device<double>(nnz, q);
  double *d_x = sycl::malloc_device<double>(n, q);
  double *r = sycl::malloc_device<double>(n, q);
  double *p = sycl::malloc_device<double>(n, q);
  double *Ap = sycl::malloc_device<double>(n, q);
  double *d_b = sycl::malloc_device<double>(n, q);
  // dot products as per-chunk partial sums added on the host: sycl::reduction is about 100x slower than a
  // parallel_for on AdaptiveCpp's OpenMP host flow (25 ms for 110k elements on 2 cores)
  constexpr int chunks = 256;
  double *sum = sycl::malloc_shared<double>(chunks, q);
  q.memcpy(rp, row_ptr, sizeof(int) * (n + 1));
  q.memcpy(ci, col_idx, sizeof(int) * nnz);
  q.memcpy(va, values, sizeof(double) * nnz);
  q.memcpy(d_x, x, sizeof(double) * n);
  q.memcpy(d_b, b, sizeof(double) * n);
  auto dot = [&](const double *u, const double *v) {
    const long long len = n;
    q.parallel_for(sycl::range<1>(chunks), [=](sycl::id<1> c) {
      double s = 0.0;
      for (long long i = len * c[0] / chunks; i < len * (c[0] + 1) / chunks; ++i) s += u[i] * v[i];
      sum[c[0]] = s;
    }).wait();
    double total = 0.0;
    for (int c = 0; c < chunks; ++c) total += sum[c];
    return total;
  };
  auto matvec = [&](const double *v, double *out) {
    q.parallel_for(sycl::range<1>(n), [=](sycl::id<1> idx) {
      const int i = idx[0];
      double s = 0.0;
      for (int k = rp[i]; k < rp[i + 1]; ++k) s += va[k] * v[ci[k]];
      out[i] = s;
    });
  };
  matvec(d_x, Ap);
  q.parallel_for(sycl::range<1>(n), [=](sycl::id<1> i) { r[i] = d_b[i] - Ap[i]; p[i] = r[i]; });
  double rr = dot(r, r);
  const double bnorm = std::sqrt(dot(d_b, d_b));
  if (bnorm == 0.0) q.memset(d_x, 0, sizeof(double) * n);
  for (int it = 0; it < max_iter && bnorm > 0.0 && std::sqrt(rr) > tol * bnorm; ++it) {
    matvec(p, Ap);
    const double alpha = rr / dot(p, Ap);
    q.parallel_for(sycl::range<1>(n), [=](sycl::id<1> i) { d_x[i] += alpha * p[i]; r[i] -= alpha * Ap[i]; });
    const double rr_new = dot(r, r);
    const double beta = rr_new / rr;
    rr = rr_new;
    q.parallel_for(sycl::range<1>(n), [=](sycl::id<1> i) { p[i] = r[i] + beta * p[i]; });
  }
  q.memcpy(x, d_x, sizeof(double) * n).wait();
  for (void *ptr : {(void *)rp, (void *)ci, (void *)va, (void *)d_x, (void *)r, (void *)p, (void *)Ap, (void *)d_b,
                    (void *)sum})
    sycl::free(ptr, q);
}
