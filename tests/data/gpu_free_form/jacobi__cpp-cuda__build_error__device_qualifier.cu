#include <cuda_runtime.h>
#include <cstdio>

// One 7-point Jacobi sweep on an nx x ny x nz grid.
// u and unew are stored as u[(i*ny + j)*nz + k].
// Interior points of unew become the average of their 6 neighbours in u;
// boundary points of unew are left untouched.
__device__ void jacobi_sweep(const double* u, double* unew, int nx, int ny, int nz)
{
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    int i = blockIdx.z * blockDim.z + threadIdx.z;

    if (i > 0 && i < nx - 1 && j > 0 && j < ny - 1 && k > 0 && k < nz - 1) {
        const long idx = ((long)i * ny + j) * nz + k;
        const long sx = (long)ny * nz;
        const long sy = nz;
        unew[idx] = (u[idx - sx] + u[idx + sx] +
                     u[idx - sy] + u[idx + sy] +
                     u[idx - 1]  + u[idx + 1]) / 6.0;
    }
}

void jacobi(int nx, int ny, int nz, const double* u, double* unew)
{
    const size_t bytes = (size_t)nx * ny * nz * sizeof(double);
    double *d_u, *d_unew;
    cudaMalloc(&d_u, bytes);
    cudaMalloc(&d_unew, bytes);
    cudaMemcpy(d_u, u, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_unew, unew, bytes, cudaMemcpyHostToDevice);  // keep the boundary

    dim3 block(32, 4, 2);
    dim3 grid((nz + block.x - 1) / block.x,
              (ny + block.y - 1) / block.y,
              (nx + block.z - 1) / block.z);
    jacobi_sweep<<<grid, block>>>(d_u, d_unew, nx, ny, nz);
    cudaDeviceSynchronize();

    cudaMemcpy(unew, d_unew, bytes, cudaMemcpyDeviceToHost);
    cudaFree(d_u);
    cudaFree(d_unew);
}
