#include <sycl/sycl.hpp>

void spmv(int n, int nnz, const int *row_ptr, const int *col_idx, const double *values, const double *x,
          double *y) {
  sycl::queue q{sycl::property::queue::in_order{}};
  int *d_row_ptr = sycl::malloc_device<int>(n + 1, q);
  int *d_col_idx = sycl::malloc_device<int>(nnz, q);
  double *d_values = sycl::malloc_device<double>(nnz, q);
  double *d_x = sycl::malloc_device<double>(n, q);
  double *d_y = sycl::malloc_device<double>(n, q);
  q.memcpy(d_row_ptr, row_ptr, sizeof(int) * (n + 1));
  q.memcpy(d_col_idx, col_idx, sizeof(int) * nnz);
  q.memcpy(d_values, values, sizeof(double) * nnz);
  q.memcpy(d_x, x, sizeof(double) * n);
  q.parallel_for(sycl::range<1>(n), [=](sycl::id<1> idx) {
    const int i = idx[0];
    double sum = 0.0;
    for (int k = d_row_ptr[i]; k < d_row_ptr[i + 1]; ++k) sum += d_values[k] * d_x[d_col_idx[k]];
    d_y[i] = sum;
  });
  q.memcpy(y, d_y, sizeof(double) * n).wait();
  sycl::free(d_row_ptr, q);
  sycl::free(d_col_idx, q);
  sycl::free(d_values, q);
  sycl::free(d_x, q);
  sycl::free(d_y, q);
}
