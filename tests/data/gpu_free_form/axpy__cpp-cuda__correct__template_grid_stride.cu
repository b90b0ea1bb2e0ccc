// axpy.cu -- generic AXPY (y <- alpha * x + y) on the GPU.
//
// The kernel is templated on the scalar type so the same code serves SAXPY
// (float) and DAXPY (double). It uses a grid-stride loop, so any grid size
// covers any n; the launch below caps the grid at a few waves per SM.

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstdlib>

#define CHECK_CUDA(expr)                                                        \
    do {                                                                        \
        cudaError_t status_ = (expr);                                           \
        if (status_ != cudaSuccess) {                                           \
            std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__,  \
                         #expr, cudaGetErrorString(status_));                   \
            std::abort();                                                       \
        }                                                                       \
    } while (0)

namespace {

template <typename Scalar>
__global__ void axpy_grid_stride(std::size_t count, Scalar alpha,
                                 const Scalar* __restrict__ x,
                                 Scalar* __restrict__ y) {
    const std::size_t stride = static_cast<std::size_t>(blockDim.x) * gridDim.x;
    for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
         i < count; i += stride) {
        y[i] = alpha * x[i] + y[i];
    }
}

}  // namespace

/// y <- alpha * x + y.  x and y are host arrays of `count` elements;
/// device buffers are allocated, filled and released here.
template <typename Scalar>
void axpy(std::size_t count, Scalar alpha, const Scalar* host_x, Scalar* host_y) {
    if (count == 0) return;

    const std::size_t bytes = count * sizeof(Scalar);
    Scalar* dev_x = nullptr;
    Scalar* dev_y = nullptr;
    CHECK_CUDA(cudaMalloc(reinterpret_cast<void**>(&dev_x), bytes));
    CHECK_CUDA(cudaMalloc(reinterpret_cast<void**>(&dev_y), bytes));
    CHECK_CUDA(cudaMemcpy(dev_x, host_x, bytes, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(dev_y, host_y, bytes, cudaMemcpyHostToDevice));

    int device = 0, sm_count = 0;
    CHECK_CUDA(cudaGetDevice(&device));
    CHECK_CUDA(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device));

    constexpr int kThreads = 256;
    const std::size_t wanted = (count + kThreads - 1) / kThreads;
    const int blocks = static_cast<int>(std::min<std::size_t>(wanted, 8u * static_cast<std::size_t>(sm_count)));

    axpy_grid_stride<Scalar><<<blocks, kThreads>>>(count, alpha, dev_x, dev_y);
    CHECK_CUDA(cudaGetLastError());

    CHECK_CUDA(cudaMemcpy(host_y, dev_y, bytes, cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaFree(dev_x));
    CHECK_CUDA(cudaFree(dev_y));
}

// Explicit instantiations: SAXPY and DAXPY.
template void axpy<float>(std::size_t, float, const float*, float*);
template void axpy<double>(std::size_t, double, const double*, double*);
