#include <thrust/device_vector.h>
#include <thrust/transform.h>
#include <thrust/iterator/counting_iterator.h>

// Functor that computes one row of y = A * x for a CSR matrix
struct csr_row_dot
{
    const int*    row_ptr;
    const int*    col_idx;
    const double* values;
    const double* x;

    __host__ __device__
    double operator()(int row) const
    {
        double sum = 0.0;
        for (int jj = row_ptr[row]; jj < row_ptr[row + 1]; ++jj)
            sum += values[jj] * x[col_idx[jj]];
        return sum;
    }
};

// y = A * x, A is n x n in CSR format; all pointers are host pointers
void spmv(int n, int nnz, const int* row_ptr, const int* col_idx,
          const double* values, const double* x, double* y)
{
    // Copy the CSR arrays and x to the device
    thrust::device_vector<int>    d_row_ptr(row_ptr, row_ptr + n + 1);
    thrust::device_vector<int>    d_col_idx(col_idx, col_idx + nnz);
    thrust::device_vector<double> d_values(values, values + nnz);
    thrust::device_vector<double> d_x(x, x + n);
    thrust::device_vector<double> d_y(n);

    csr_row_dot op;
    op.row_ptr = thrust::raw_pointer_cast(d_row_ptr.data());
    op.col_idx = thrust::raw_pointer_cast(d_col_idx.data());
    op.values  = thrust::raw_pointer_cast(d_values.data());
    op.x       = thrust::raw_pointer_cast(d_x.data());

    // One "thread" per row
    thrust::transform(thrust::counting_iterator<int>(0),
                      thrust::counting_iterator<int>(num_rows),
                      d_y.begin(), op);

    // Copy the result back to the host
    thrust::copy(d_y.begin(), d_y.end(), y);
}
