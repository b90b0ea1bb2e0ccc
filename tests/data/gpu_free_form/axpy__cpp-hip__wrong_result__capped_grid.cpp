#include <hip/hip_runtime.h>
#include <iostream>

// Number of threads per block
#define BLOCK_SIZE 256
// Limit the number of blocks so we don't oversubscribe the GPU
#define MAX_BLOCKS 16

// HIP kernel for SAXPY: y = a*x + y
__global__ void saxpy_kernel(float a, const float *x, float *y, int n)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < n) {
        y[idx] = a * x[idx] + y[idx];
    }
}

// Host function
void saxpy(int n, float a, float *x, float *y)
{
    float *d_x, *d_y;
    size_t size = n * sizeof(float);

    // Allocate memory on the device
    hipMalloc((void **)&d_x, size);
    hipMalloc((void **)&d_y, size);

    // Copy data from host to device
    hipMemcpy(d_x, x, size, hipMemcpyHostToDevice);
    hipMemcpy(d_y, y, size, hipMemcpyHostToDevice);

    // Launch the kernel
    int numBlocks = (n + BLOCK_SIZE - 1) / BLOCK_SIZE;
    if (numBlocks > MAX_BLOCKS) {
        numBlocks = MAX_BLOCKS;
    }
    saxpy_kernel<<<numBlocks, BLOCK_SIZE>>>(a, d_x, d_y, n);

    // Wait for the GPU to finish
    hipDeviceSynchronize();

    // Copy the result back to the host
    hipMemcpy(y, d_y, size, hipMemcpyDeviceToHost);

    // Free device memory
    hipFree(d_x);
    hipFree(d_y);
}
