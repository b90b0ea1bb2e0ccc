#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <thrust/transform.h>
#include <thrust/iterator/counting_iterator.h>

#include <cstdio>

// Functor: computes one element C(i, j) = sum_p A(i, p) * B(p, j)
// from a linear index idx = i * n + j. Row-major storage.
struct MatMulElement
{
    const double* A;
    const double* B;
    int n;
    int k;

    __host__ __device__
    double operator()(int idx) const
    {
        const int i = idx / n;
        const int j = idx % n;
        double sum = 0.0;
        for (int p = 0; p < k; ++p)
            sum += A[i * k + p] * B[p * n + j];
        return sum;
    }
};

// C (m x n) = A (m x k) * B (k x n); all three live on the device.
void gemm(const thrust::device_vector<double>& A,
          const thrust::device_vector<double>& B,
          thrust::device_vector<double>& C,
          int m, int n, int k)
{
    if (C.size() != static_cast<size_t>(m) * n)
        C.resize(static_cast<size_t>(m) * n);

    MatMulElement op{thrust::raw_pointer_cast(A.data()),
                     thrust::raw_pointer_cast(B.data()), n, k};

    thrust::transform(thrust::counting_iterator<int>(0),
                      thrust::counting_iterator<int>(m * n),
                      C.begin(), op);
}

int main()
{
    const int m = 3, n = 4, k = 2;
    thrust::host_vector<double> hA(m * k), hB(k * n);
    for (int i = 0; i < m * k; ++i) hA[i] = i + 1;
    for (int i = 0; i < k * n; ++i) hB[i] = 0.5 * i;

    thrust::device_vector<double> A = hA, B = hB, C;
    gemm(A, B, C, m, n, k);

    thrust::host_vector<double> hC = C;
    for (int i = 0; i < m; ++i) {
        for (int j = 0; j < n; ++j) printf("%8.2f ", (double)hC[i * n + j]);
        printf("\n");
    }
    return 0;
}
