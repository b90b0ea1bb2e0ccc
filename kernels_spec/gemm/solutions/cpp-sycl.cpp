#include <sycl/sycl.hpp>

void gemm(int m, int n, int k, const double *A, const double *B, double *C) {
  sycl::queue q{sycl::property::queue::in_order{}};
  double *d_A = sycl::malloc_device<double>((size_t)m * k, q);
  double *d_B = sycl::malloc_device<double>((size_t)k * n, q);
  double *d_C = sycl::malloc_device<double>((size_t)m * n, q);
  q.memcpy(d_A, A, sizeof(double) * m * k);
  q.memcpy(d_B, B, sizeof(double) * k * n);
  q.parallel_for(sycl::range<2>(m, n), [=](sycl::id<2> idx) {
    const size_t i = idx[0], j = idx[1];
    double sum = 0.0;
    for (int p = 0; p < k; ++p) sum += d_A[i * k + p] * d_B[(size_t)p * n + j];
    d_C[i * n + j] = sum;
  });
  q.memcpy(C, d_C, sizeof(double) * m * n).wait();
  sycl::free(d_A, q);
  sycl::free(d_B, q);
  sycl::free(d_C, q);
}
