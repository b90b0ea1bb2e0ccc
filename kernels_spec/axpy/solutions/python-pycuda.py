import numpy as np
import pycuda.autoinit  # noqa: F401 - creates the CUDA context
import pycuda.driver as cuda
from pycuda.compiler import SourceModule

_module = SourceModule("""
__global__ void saxpy_kernel(int n, float a, const float *x, float *y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = a * x[i] + y[i];
    }
}
""")
_saxpy = _module.get_function("saxpy_kernel")


def saxpy(n, a, x, y):
    d_x = cuda.mem_alloc(max(x.nbytes, 1))
    d_y = cuda.mem_alloc(max(y.nbytes, 1))
    cuda.memcpy_htod(d_x, np.ascontiguousarray(x))
    cuda.memcpy_htod(d_y, np.ascontiguousarray(y))
    _saxpy(np.int32(n), np.float32(a), d_x, d_y, block=(256, 1, 1), grid=((n + 255) // 256, 1))
    cuda.memcpy_dtoh(y, d_y)
