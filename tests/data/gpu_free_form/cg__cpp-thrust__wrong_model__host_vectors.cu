// Conjugate Gradient for a sparse SPD matrix in CSR format, written with Thrust.
//
//   cg(n, nnz, row_ptr, col_idx, values, b, x, tol, max_iter)
//
// x holds the initial guess on entry and the solution on exit. Iteration stops
// when ||r|| / ||b|| <= tol or after max_iter iterations.

#include <thrust/host_vector.h>
#include <thrust/inner_product.h>
#include <thrust/transform.h>
#include <thrust/copy.h>
#include <thrust/execution_policy.h>
#include <thrust/iterator/counting_iterator.h>

#include <cmath>

namespace {

// one row of the sparse matrix-vector product
struct CsrRow {
    const int* row_ptr;
    const int* col_idx;
    const double* values;
    const double* v;

    double operator()(int row) const {
        double sum = 0.0;
        for (int jj = row_ptr[row]; jj < row_ptr[row + 1]; ++jj)
            sum += values[jj] * v[col_idx[jj]];
        return sum;
    }
};

// z = a * x + y
struct Axpy {
    double a;
    double operator()(double xi, double yi) const { return a * xi + yi; }
};

void spmv(int n, const thrust::host_vector<int>& row_ptr, const thrust::host_vector<int>& col_idx,
          const thrust::host_vector<double>& values, const thrust::host_vector<double>& v,
          thrust::host_vector<double>& out) {
    CsrRow op{row_ptr.data(), col_idx.data(), values.data(), v.data()};
    thrust::transform(thrust::host, thrust::counting_iterator<int>(0), thrust::counting_iterator<int>(n),
                      out.begin(), op);
}

double dot(const thrust::host_vector<double>& a, const thrust::host_vector<double>& b) {
    return thrust::inner_product(thrust::host, a.begin(), a.end(), b.begin(), 0.0);
}

}  // namespace

int cg(int n, int nnz, const int* row_ptr, const int* col_idx, const double* values,
       const double* b, double* x, double tol, int max_iter) {
    thrust::host_vector<int> rp(row_ptr, row_ptr + n + 1);
    thrust::host_vector<int> ci(col_idx, col_idx + nnz);
    thrust::host_vector<double> val(values, values + nnz);
    thrust::host_vector<double> vb(b, b + n);
    thrust::host_vector<double> vx(x, x + n);
    thrust::host_vector<double> r(n), p(n), Ap(n);

    // r = b - A x
    spmv(n, rp, ci, val, vx, Ap);
    thrust::transform(thrust::host, Ap.begin(), Ap.end(), vb.begin(), r.begin(), Axpy{-1.0});
    p = r;

    const double bnorm = std::sqrt(dot(vb, vb));
    if (bnorm == 0.0) {
        for (int i = 0; i < n; ++i) x[i] = 0.0;
        return 0;
    }

    double rr = dot(r, r);
    int it = 0;
    while (it < max_iter && std::sqrt(rr) > tol * bnorm) {
        spmv(n, rp, ci, val, p, Ap);
        const double alpha = rr / dot(p, Ap);
        thrust::transform(thrust::host, p.begin(), p.end(), vx.begin(), vx.begin(), Axpy{alpha});   // x += alpha p
        thrust::transform(thrust::host, Ap.begin(), Ap.end(), r.begin(), r.begin(), Axpy{-alpha});  // r -= alpha Ap
        const double rr_new = dot(r, r);
        const double beta = rr_new / rr;
        thrust::transform(thrust::host, p.begin(), p.end(), r.begin(), p.begin(), Axpy{beta});      // p = r + beta p
        rr = rr_new;
        ++it;
    }

    thrust::copy(vx.begin(), vx.end(), x);
    return it;
}
