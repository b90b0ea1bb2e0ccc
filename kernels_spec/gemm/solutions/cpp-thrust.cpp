#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>

// C[i*n + j] = sum_p A[i*k + p] * B[p*n + j], one element of C per index of the counting range
struct gemm_element {
  int n, k;
  const double *A;
  const double *B;
  double *C;
  __host__ __device__ void operator()(long idx) const {
    const long i = idx / n;
    const long j = idx % n;
    double sum = 0.0;
    for (int p = 0; p < k; ++p) {
      sum += A[i * k + p] * B[(long)p * n + j];
    }
    C[idx] = sum;
  }
};

void gemm(int m, int n, int k, const double *A, const double *B, double *C) {
  thrust::device_vector<double> d_A(A, A + (size_t)m * k);
  thrust::device_vector<double> d_B(B, B + (size_t)k * n);
  thrust::device_vector<double> d_C((size_t)m * n);
  thrust::for_each(thrust::counting_iterator<long>(0), thrust::counting_iterator<long>((long)m * n),
                   gemm_element{n, k, thrust::raw_pointer_cast(d_A.data()), thrust::raw_pointer_cast(d_B.data()),
                                thrust::raw_pointer_cast(d_C.data())});
  thrust::copy(d_C.begin(), d_C.end(), C);
}
