// GEMV with HIP: y = A * x, A is m x n, row-major (A[i*n + j]).
//
// Strategy: one work-group (block) per row. The threads of the block stride
// across the row, then combine their partial sums with a shared-memory tree
// reduction. Using a block-wide reduction (instead of warp shuffles) keeps the
// kernel independent of the wavefront size (64 on AMD, 32 on NVIDIA).

#include <hip/hip_runtime.h>

#include <cstdio>
#include <cstdlib>

#define HIP_ASSERT(cmd)                                                        \
    do {                                                                       \
        hipError_t e = (cmd);                                                  \
        if (e != hipSuccess) {                                                 \
            std::fprintf(stderr, "HIP error '%s' at %s:%d\n",                  \
                         hipGetErrorString(e), __FILE__, __LINE__);            \
            std::exit(EXIT_FAILURE);                                           \
        }                                                                      \
    } while (0)

template <int BLOCK>
__global__ void gemv_row_block(const double* __restrict__ A,
                               const double* __restrict__ x,
                               double* __restrict__ y,
                               int m, int n)
{
    __shared__ double partial[BLOCK];

    const int row = blockIdx.x;
    const int tid = threadIdx.x;
    if (row >= m) return;  // uniform across the block

    const double* a_row = A + static_cast<size_t>(row) * n;
    double sum = 0.0;
    for (int j = tid; j < n; j += BLOCK) {
        sum += a_row[j] * x[j];
    }
    partial[tid] = sum;
    __syncthreads();

    for (int s = BLOCK / 2; s > 0; s >>= 1) {
        if (tid < s) {
            partial[tid] += partial[tid + s];
        }
        __syncthreads();
    }

    if (tid == 0) {
        y[row] = partial[0];
    }
}

// Host entry point: A (m*n), x (n) and y (m) are host arrays.
void gemv(const double* A, const double* x, double* y, int m, int n)
{
    if (m <= 0) return;

    constexpr int kBlock = 128;
    const size_t bytesA = static_cast<size_t>(m) * n * sizeof(double);
    const size_t bytesX = static_cast<size_t>(n) * sizeof(double);
    const size_t bytesY = static_cast<size_t>(m) * sizeof(double);

    double *dA = nullptr, *dx = nullptr, *dy = nullptr;
    HIP_ASSERT(hipMalloc(&dA, bytesA));
    HIP_ASSERT(hipMalloc(&dx, bytesX));
    HIP_ASSERT(hipMalloc(&dy, bytesY));

    HIP_ASSERT(hipMemcpy(dA, A, bytesA, hipMemcpyHostToDevice));
    HIP_ASSERT(hipMemcpy(dx, x, bytesX, hipMemcpyHostToDevice));

    hipLaunchKernelGGL(HIP_KERNEL_NAME(gemv_row_block<kBlock>),
                       dim3(m), dim3(kBlock), 0, 0,
                       dA, dx, dy, m, n);
    HIP_ASSERT(hipGetLastError());
    HIP_ASSERT(hipDeviceSynchronize());

    HIP_ASSERT(hipMemcpy(y, dy, bytesY, hipMemcpyDeviceToHost));

    HIP_ASSERT(hipFree(dA));
    HIP_ASSERT(hipFree(dx));
    HIP_ASSERT(hipFree(dy));
}
