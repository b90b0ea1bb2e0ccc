#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>

// y[i] = sum over the nonzeros of row i, one row per index of the counting range
struct csr_row {
  const int *row_ptr;
  const int *col_idx;
  const double *values;
  const double *x;
  double *y;
  __host__ __device__ void operator()(int i) const {
    double sum = 0.0;
    for (int k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
      sum += values[k] * x[col_idx[k]];
    }
    y[i] = sum;
  }
};

void spmv(int n, int nnz, const int *row_ptr, const int *col_idx, const double *values, const double *x,
          double *y) {
  thrust::device_vector<int> d_row_ptr(row_ptr, row_ptr + n + 1);
  thrust::device_vector<int> d_col_idx(col_idx, col_idx + nnz);
  thrust::device_vector<double> d_values(values, values + nnz);
  thrust::device_vector<double> d_x(x, x + n);
  thrust::device_vector<double> d_y(n);
  thrust::for_each(thrust::counting_iterator<int>(0), thrust::counting_iterator<int>(n),
                   csr_row{thrust::raw_pointer_cast(d_row_ptr.data()), thrust::raw_pointer_cast(d_col_idx.data()),
                           thrust::raw_pointer_cast(d_values.data()), thrust::raw_pointer_cast(d_x.data()),
                           thrust::raw_pointer_cast(d_y.data())});
  thrust::copy(d_y.begin(), d_y.end(), y);
}
