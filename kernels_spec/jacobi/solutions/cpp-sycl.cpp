#include <sycl/sycl.hpp>

void jacobi(int nx, int ny, int nz, const double *u, double *unew) {
  if (nx < 3 || ny < 3 || nz < 3) return;  // no interior point
  const size_t total = (size_t)nx * ny * nz;
  sycl::queue q{sycl::property::queue::in_order{}};
  double *d_u = sycl::malloc_device<double>(total, q);
  double *d_unew = sycl::malloc_device<double>(total, q);
  q.memcpy(d_u, u, sizeof(double) * total);
  q.memcpy(d_unew, unew, sizeof(double) * total);
  q.parallel_for(sycl::range<3>(nx - 2, ny - 2, nz - 2), [=](sycl::id<3> idx) {
    const size_t i = idx[0] + 1, j = idx[1] + 1, k = idx[2] + 1;
    const size_t c = (i * ny + j) * nz + k, sx = (size_t)ny * nz;
    d_unew[c] = (d_u[c - sx] + d_u[c + sx] + d_u[c - nz] + d_u[c + nz] + d_u[c - 1] + d_u[c + 1]) / 6.0;
  });
  q.memcpy(unew, d_unew, sizeof(double) * total).wait();
  sycl::free(d_u, q);
  sycl::free(d_unew, q);
}
