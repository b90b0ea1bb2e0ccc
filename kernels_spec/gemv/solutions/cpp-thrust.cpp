#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>

// y[i] = sum_j A[i*n + j] * x[j], one row per element of the counting range
struct gemv_row {
  int n;
  const double *A;
  const double *x;
  double *y;
  __host__ __device__ void operator()(int i) const {
    double sum = 0.0;
    for (int j = 0; j < n; ++j) {
      sum += A[(size_t)i * n + j] * x[j];
    }
    y[i] = sum;
  }
};

void gemv(int m, int n, const double *A, const double *x, double *y) {
  thrust::device_vector<double> d_A(A, A + (size_t)m * n);
  thrust::device_vector<double> d_x(x, x + n);
  thrust::device_vector<double> d_y(m);
  thrust::for_each(thrust::counting_iterator<int>(0), thrust::counting_iterator<int>(m),
                   gemv_row{n, thrust::raw_pointer_cast(d_A.data()), thrust::raw_pointer_cast(d_x.data()),
                            thrust::raw_pointer_cast(d_y.data())});
  thrust::copy(d_y.begin(), d_y.end(), y);
}
