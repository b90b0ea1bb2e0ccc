#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define THREADS_PER_BLOCK 64

// CUDA kernel for matrix-vector multiplication y = A * x
// A is a rows x cols matrix stored in row-major order
__global__ void gemv_kernel(const double *A, const double *x, double *y, int rows, int cols)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;

    if (row < rows) {
        double sum = 0.0;
        for (int j = 0; j < cols; j++) {
            sum += A[row * cols + j] * x[j];
        }
        y[row] = sum;
    }
}

// Host function that computes y = A * x on the GPU
void gemv(int m, int n, double *A, double *x, double *y)
{
    double *d_A, *d_x, *d_y;

    cudaMalloc((void **)&d_A, m * n * sizeof(double));
    cudaMalloc((void **)&d_x, n * sizeof(double));
    cudaMalloc((void **)&d_y, m * sizeof(double));

    cudaMemcpy(d_A, A, m * n * sizeof(double), cudaMemcpyHostToDevice);
    cudaMemcpy(d_x, x, n * sizeof(double), cudaMemcpyHostToDevice);

    // Calculate the number of blocks needed
    int numBlocks = (n + THREADS_PER_BLOCK - 1) / THREADS_PER_BLOCK;

    gemv_kernel<<<numBlocks, THREADS_PER_BLOCK>>>(d_A, d_x, d_y, m, n);
    cudaDeviceSynchronize();

    cudaMemcpy(y, d_y, m * sizeof(double), cudaMemcpyDeviceToHost);

    cudaFree(d_A);
    cudaFree(d_x);
    cudaFree(d_y);
}

int main()
{
    int m = 4, n = 4;
    double A[16], x[4], y[4];
    for (int i = 0; i < m * n; i++) A[i] = i + 1;
    for (int j = 0; j < n; j++) x[j] = 1.0;

    gemv(m, n, A, x, y);

    for (int i = 0; i < m; i++) printf("y[%d] = %f\n", i, y[i]);
    return 0;
}
