#include <cmath>
#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/fill.h>
#include <thrust/for_each.h>
#include <thrust/inner_product.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/transform.h>

// out[i] = (A*v)[i] for a CSR matrix
struct csr_matvec {
  const int *row_ptr;
  const int *col_idx;
  const double *values;
  const double *v;
  double *out;
  __host__ __device__ void operator()(int i) const {
    double sum = 0.0;
    for (int k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
      sum += values[k] * v[col_idx[k]];
    }
    out[i] = sum;
  }
};

struct axpy_op {  // a*x + y
  const double a;
  __host__ __device__ double operator()(double x, double y) const { return a * x + y; }
};

void cg(int n, int nnz, const int *row_ptr, const int *col_idx, const double *values, const double *b, double *x,
        double tol, int max_iter) {
  thrust::device_vector<int> d_row_ptr(row_ptr, row_ptr + n + 1);
  thrust::device_vector<int> d_col_idx(col_idx, col_idx + nnz);
  thrust::device_vector<double> d_values(values, values + nnz);
  thrust::device_vector<double> d_b(b, b + n);
  thrust::device_vector<double> d_x(x, x + n);
  thrust::device_vector<double> r(n), p(n), Ap(n);
  const int *rp = thrust::raw_pointer_cast(d_row_ptr.data());
  const int *ci = thrust::raw_pointer_cast(d_col_idx.data());
  const double *va = thrust::raw_pointer_cast(d_values.data());
  auto rows = thrust::counting_iterator<int>(0);

  // r = b - A*x, p = r
  thrust::for_each(rows, rows + n, csr_matvec{rp, ci, va, thrust::raw_pointer_cast(d_x.data()),
                                              thrust::raw_pointer_cast(Ap.data())});
  thrust::transform(Ap.begin(), Ap.end(), d_b.begin(), r.begin(), axpy_op{-1.0});
  thrust::copy(r.begin(), r.end(), p.begin());
  double rr = thrust::inner_product(r.begin(), r.end(), r.begin(), 0.0);
  const double bnorm = std::sqrt(thrust::inner_product(d_b.begin(), d_b.end(), d_b.begin(), 0.0));
  if (bnorm == 0.0) {
    thrust::fill(d_x.begin(), d_x.end(), 0.0);
  }
  for (int it = 0; it < max_iter && bnorm > 0.0 && std::sqrt(rr) > tol * bnorm; ++it) {
    thrust::for_each(rows, rows + n, csr_matvec{rp, ci, va, thrust::raw_pointer_cast(p.data()),
                                                thrust::raw_pointer_cast(Ap.data())});
    const double alpha = rr / thrust::inner_product(p.begin(), p.end(), Ap.begin(), 0.0);
    thrust::transform(p.begin(), p.end(), d_x.begin(), d_x.begin(), axpy_op{alpha});    // x += alpha*p
    thrust::transform(Ap.begin(), Ap.end(), r.begin(), r.begin(), axpy_op{-alpha});     // r -= alpha*Ap
    const double rr_new = thrust::inner_product(r.begin(), r.end(), r.begin(), 0.0);
    const double beta = rr_new / rr;
    rr = rr_new;
    thrust::transform(p.begin(), p.end(), r.begin(), p.begin(), axpy_op{beta});         // p = r + beta*p
  }
  thrust::copy(d_x.begin(), d_x.end(), x);
}
