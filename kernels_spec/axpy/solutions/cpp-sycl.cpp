#include <sycl/sycl.hpp>

void saxpy(int n, float a, const float *x, float *y) {
  sycl::queue q{sycl::property::queue::in_order{}};
  float *d_x = sycl::malloc_device<float>(n, q);
  float *d_y = sycl::malloc_device<float>(n, q);
  q.memcpy(d_x, x, sizeof(float) * n);
  q.memcpy(d_y, y, sizeof(float) * n);
  q.parallel_for(sycl::range<1>(n), [=](sycl::id<1> i) { d_y[i] = a * d_x[i] + d_y[i]; });
  q.memcpy(y, d_y, sizeof(float) * n).wait();
  sycl::free(d_x, q);
  sycl::free(d_y, q);
}
