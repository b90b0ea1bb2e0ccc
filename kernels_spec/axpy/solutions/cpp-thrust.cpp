#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/transform.h>

struct saxpy_functor {
  const float a;
  __host__ __device__ float operator()(float x, float y) const { return a * x + y; }
};

void saxpy(int n, float a, const float *x, float *y) {
  thrust::device_vector<float> d_x(x, x + n);
  thrust::device_vector<float> d_y(y, y + n);
  thrust::transform(d_x.begin(), d_x.end(), d_y.begin(), d_y.begin(), saxpy_functor{a});
  thrust::copy(d_y.begin(), d_y.end(), y);
}
