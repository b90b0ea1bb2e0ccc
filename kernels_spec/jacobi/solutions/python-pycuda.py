import numpy as np
import pycuda.autoinit  # noqa: F401 - creates the CUDA context
import pycuda.gpuarray as gpuarray
from pycuda.compiler import SourceModule

_module = SourceModule("""
__global__ void jacobi_kernel(int nx, int ny, int nz, const double *u, double *unew) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    int i = blockIdx.z;
    if (i >= 1 && i < nx - 1 && j >= 1 && j < ny - 1 && k >= 1 && k < nz - 1) {
        size_t c = ((size_t)i * ny + j) * nz + k;
        size_t sx = (size_t)ny * nz;
        unew[c] = (u[c - sx] + u[c + sx] + u[c - nz] + u[c + nz] + u[c - 1] + u[c + 1]) / 6.0;
    }
}
""")
_jacobi = _module.get_function("jacobi_kernel")


def jacobi(nx, ny, nz, u, unew):
    d_u = gpuarray.to_gpu(np.ascontiguousarray(u))
    d_unew = gpuarray.to_gpu(np.ascontiguousarray(unew))
    bx, by = 32, 8
    _jacobi(np.int32(nx), np.int32(ny), np.int32(nz), d_u, d_unew, block=(bx, by, 1),
            grid=((nz + bx - 1) // bx, (ny + by - 1) // by, nx))
    unew[...] = d_unew.get()
