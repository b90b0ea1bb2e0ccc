#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>

// One interior point (i, j, k) per index of the counting range; k is the fastest axis.
struct jacobi_point {
  int ny, nz;
  const double *u;
  double *unew;
  __host__ __device__ void operator()(long idx) const {
    const long k = 1 + idx % (nz - 2);
    const long j = 1 + (idx / (nz - 2)) % (ny - 2);
    const long i = 1 + idx / ((long)(nz - 2) * (ny - 2));
    const long c = (i * ny + j) * nz + k;
    const long sx = (long)ny * nz;
    unew[c] = (u[c - sx] + u[c + sx] + u[c - nz] + u[c + nz] + u[c - 1] + u[c + 1]) / 6.0;
  }
};

void jacobi(int nx, int ny, int nz, const double *u, double *unew) {
  if (nx < 3 || ny < 3 || nz < 3) {
    return;  // no interior point
  }
  const size_t total = (size_t)nx * ny * nz;
  thrust::device_vector<double> d_u(u, u + total);
  thrust::device_vector<double> d_unew(unew, unew + total);
  const long interior = (long)(nx - 2) * (ny - 2) * (nz - 2);
  thrust::for_each(thrust::counting_iterator<long>(0), thrust::counting_iterator<long>(interior),
                   jacobi_point{ny, nz, thrust::raw_pointer_cast(d_u.data()), thrust::raw_pointer_cast(d_unew.data())});
  thrust::copy(d_unew.begin(), d_unew.end(), unew);
}
