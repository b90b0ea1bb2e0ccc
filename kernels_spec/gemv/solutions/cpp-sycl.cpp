#include <sycl/sycl.hpp>

void gemv(int m, int n, const double *A, const double *x, double *y) {
  sycl::queue q{sycl::property::queue::in_order{}};
  double *d_A = sycl::malloc_device<double>((size_t)m * n, q);
  double *d_x = sycl::malloc_device<double>(n, q);
  double *d_y = sycl::malloc_device<double>(m, q);
  q.memcpy(d_A, A, sizeof(double) * m * n);
  q.memcpy(d_x, x, sizeof(double) * n);
  q.parallel_for(sycl::range<1>(m), [=](sycl::id<1> idx) {
    const size_t i = idx[0];
    double sum = 0.0;
    for (int j = 0; j < n; ++j) sum += d_A[i * n + j] * d_x[j];
    d_y[i] = sum;
  });
  q.memcpy(y, d_y, sizeof(double) * m).wait();
  sycl::free(d_A, q);
  sycl::free(d_x, q);
  sycl::free(d_y, q);
}
