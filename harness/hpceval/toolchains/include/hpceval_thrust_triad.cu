// Streaming ceiling through the vendor library: y = a*x + y by thrust::transform (CUB's transform, which on Hopper
// streams faster than cudaMemcpy and than a hand-written triad), timed like the other ceiling streams: CUDA events
// around `batch` back-to-back calls (the events' and the launches' own cost spread over them), median of `reps`.
// Built once into the cache by hpceval.ceilings and called through ctypes; returns GB/s (bytes read + written),
// or a negative number when the device refused the memory.
#include <cuda_runtime.h>
#include <thrust/device_vector.h>
#include <thrust/transform.h>

#include <algorithm>
#include <vector>

struct hpceval_triad_op {
  float a;
  __host__ __device__ float operator()(float x, float y) const { return a * x + y; }
};

extern "C" double hpceval_thrust_triad_gbs(long long n, int reps, int batch) {
  try {
    thrust::device_vector<float> x(n, 1.0f), y(n, 1.0f);
    const hpceval_triad_op op{0.5f};
    for (int w = 0; w < 3; ++w) thrust::transform(x.begin(), x.end(), y.begin(), y.begin(), op);
    cudaDeviceSynchronize();
    cudaEvent_t start, end;
    cudaEventCreate(&start);
    cudaEventCreate(&end);
    std::vector<float> ms;
    for (int r = 0; r < reps; ++r) {
      cudaEventRecord(start);
      for (int b = 0; b < batch; ++b) thrust::transform(x.begin(), x.end(), y.begin(), y.begin(), op);
      cudaEventRecord(end);
      cudaEventSynchronize(end);
      float t = 0;
      cudaEventElapsedTime(&t, start, end);
      ms.push_back(t / batch);
    }
    cudaEventDestroy(start);
    cudaEventDestroy(end);
    std::sort(ms.begin(), ms.end());
    return 3.0 * (double)n * sizeof(float) / (ms[ms.size() / 2] * 1e-3) / 1e9;
  } catch (...) {
    return -1.0;
  }
}
