"""A CUDA/HIP suggestion whose only launch is in its own `main` (the study's Copilot pattern) is graded on its kernel.

Cases written as an unseen LLM would write them: a `__global__` kernel with the qualifier on its own line and a
test `main`, a kernel beside a CPU reference function, a host wrapper that takes device pointers, a 2D kernel, a
square GEMV kernel, and the host launcher that allocates and copies itself (which must stay as it is). The build
with nvcc is checked where nvcc exists (CI has it; nothing CUDA runs there). Also: Python suggestions that use the
model's package under its conventional name without importing it get the import the prompt file had.
"""

from __future__ import annotations

import textwrap

import pytest

from hpceval.bind.glue.launch import dimensions, harness_launched, takes_device_pointers
from hpceval.bind.signature import infer_binding
from hpceval.checks.model_usage import usage_problem
from hpceval.evaluate import _checked_code
from hpceval.toolchains.cuda import nvcc_path

MAIN = """
int main(void) {
  int N = 1 << 20;
  float *x, *y, *d_x, *d_y;
  x = (float *)malloc(N * sizeof(float));
  y = (float *)malloc(N * sizeof(float));
  cudaMalloc(&d_x, N * sizeof(float));
  cudaMalloc(&d_y, N * sizeof(float));
  cudaMemcpy(d_x, x, N * sizeof(float), cudaMemcpyHostToDevice);
  KERNEL_LAUNCH;
  cudaMemcpy(y, d_y, N * sizeof(float), cudaMemcpyDeviceToHost);
  printf("done\\n");
  return 0;
}
"""

KERNEL_ONLY = textwrap.dedent("""\
          __global__
          void
          saxpy(int n, float a, float *x, float *y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
      y[i] = a * x[i] + y[i];
  }
""") + MAIN.replace("KERNEL_LAUNCH", "saxpy<<<(N + 255) / 256, 256>>>(N, 2.0f, d_x, d_y)")

WITH_CPU_REFERENCE = """
void saxpy_cpu(int n, float a, const float *x, float *y) {
  for (int i = 0; i < n; i++) y[i] = a * x[i] + y[i];
}

__global__ void saxpy_gpu(float a, const float *x, float *y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    y[i] = a * x[i] + y[i];
}
""" + MAIN.replace("KERNEL_LAUNCH", "saxpy_gpu<<<64, 128>>>(2.0f, d_x, d_y, N)")

DEVICE_POINTER_WRAPPER = """
#include <hip/hip_runtime.h>
__global__ void saxpy_kernel(int n, float a, float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

// saxpy wrapper: x and y live on the device
void saxpy(int n, float a, float *x, float *y) {
  int blocks = (n + 255) / 256;
  hipLaunchKernelGGL(saxpy_kernel, dim3(blocks), dim3(256), 0, 0, n, a, x, y);
}
"""

HOST_LAUNCHER = """
__global__ void saxpy_kernel(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

void saxpy(int n, float a, const float *x, float *y) {
  float *dx, *dy;
  cudaMalloc(&dx, n * sizeof(float));
  cudaMalloc(&dy, n * sizeof(float));
  cudaMemcpy(dx, x, n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(dy, y, n * sizeof(float), cudaMemcpyHostToDevice);
  saxpy_kernel<<<(n + 255) / 256, 256>>>(n, a, dx, dy);
  cudaMemcpy(y, dy, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(dx);
  cudaFree(dy);
}
"""

GEMM_2D = """
__global__ void matmul(const double *A, const double *B, double *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    double sum = 0.0;
    for (int k = 0; k < K; ++k) sum += A[row * K + k] * B[k * N + col];
    C[row * N + col] = sum;
  }
}
"""

GEMV_SQUARE = """
__global__ void gemv_kernel(int n, const float *A, const float *x, float *y) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < n) {
    float s = 0.0f;
    for (int j = 0; j < n; j++) s += A[row * n + j] * x[j];
    y[row] = s;
  }
}
"""

# the study's Thrust prompt files had no includes: "// gemv Thrust function" and nothing else
THRUST_NO_INCLUDE = """
// gemv Thrust function
void gemv_thrust(int m, int n, const double *A, const double *x, double *y) {
  thrust::device_vector<double> d_A(A, A + (size_t)m * n), d_x(x, x + n), d_y(m);
  for (int i = 0; i < m; ++i)
    d_y[i] = thrust::inner_product(d_A.begin() + (size_t)i * n, d_A.begin() + (size_t)(i + 1) * n, d_x.begin(), 0.0);
  thrust::copy(d_y.begin(), d_y.end(), y);
}
"""


def _bind(catalog, code: str, kernel: str, model: str):
    m = catalog.models[model]
    return infer_binding(code, catalog.kernels[kernel], catalog.languages[m.language], m), m


def test_kernel_with_qualifier_on_its_own_line_is_launched_by_the_harness(catalog):
    b, m = _bind(catalog, KERNEL_ONLY, "axpy", "cpp-cuda")
    assert not b.error, b.error
    assert b.function == "saxpy" and harness_launched(b.call)
    assert "__global__" in b.source and "main" not in b.source
    assert any("cudaMalloc" in line for line in b.setup) and any("cudaMemcpyDeviceToHost" in line for line in b.teardown)
    # launched as its own main launches it (the grid and block of main's chevrons, main's N read as the driver's n)
    assert "launch taken from the suggestion's main: saxpy<<<(N + 255) / 256, 256>>>" in b.evidence, b.evidence
    assert "const dim3 hp_grid = dim3((n + 255) / 256), hp_block = dim3(256);" in b.setup
    # the model check reads the launch the suggestion's own main made (its main is not in the unit)
    assert usage_problem(_checked_code(KERNEL_ONLY, b), m, catalog.languages["cpp"]) is None


def test_a_cpu_reference_beside_the_kernel_is_not_the_suggested_kernel(catalog):
    b, _ = _bind(catalog, WITH_CPU_REFERENCE, "axpy", "cpp-cuda")
    assert not b.error, b.error
    assert b.function == "saxpy_gpu" and harness_launched(b.call)
    assert "hp_d_x" in b.call and "hp_d_y" in b.call  # parameters reordered by the mapping, arrays on the device


def test_host_wrapper_on_device_pointers_gets_device_buffers(catalog):
    assert takes_device_pointers(DEVICE_POINTER_WRAPPER.split("// saxpy wrapper")[1])
    b, _ = _bind(catalog, DEVICE_POINTER_WRAPPER, "axpy", "cpp-hip")
    assert not b.error, b.error
    assert b.function == "saxpy" and not harness_launched(b.call)
    assert b.call.startswith("{ saxpy(") and "hp_d_y" in b.call and "hipDeviceSynchronize" in b.call
    assert any("hipMemcpy(hp_d_x" in line for line in b.setup)


def test_host_launcher_that_copies_itself_is_left_alone(catalog):
    assert not takes_device_pointers(HOST_LAUNCHER)
    b, _ = _bind(catalog, HOST_LAUNCHER, "axpy", "cpp-cuda")
    assert not b.error and b.function == "saxpy"
    assert not any("hp_d_" in line for line in b.setup) and not harness_launched(b.call)


def test_two_dimensional_kernel_gets_a_2d_grid(catalog):
    assert dimensions(GEMM_2D) == 2
    b, _ = _bind(catalog, GEMM_2D, "gemm", "cpp-cuda")
    assert not b.error, b.error
    assert harness_launched(b.call) and "2D grid of 16x16-thread blocks" in b.evidence


def test_device_kernels_are_not_launched_for_other_models(catalog):
    b, _ = _bind(catalog, KERNEL_ONLY, "axpy", "cpp-openmp")
    assert b.error and "device kernel" in b.error


def test_thrust_without_includes_gets_the_thrust_headers(catalog):
    b, _ = _bind(catalog, THRUST_NO_INCLUDE, "gemv", "cpp-thrust")
    assert not b.error, b.error
    assert "#include <thrust/device_vector.h>" in b.source and "#include <thrust/inner_product.h>" in b.source
    assert "added `#include <thrust/*.h>`" in b.evidence
    included = "#include <thrust/device_vector.h>\n#include <thrust/inner_product.h>\n#include <thrust/copy.h>\n"
    b2, _ = _bind(catalog, included + THRUST_NO_INCLUDE, "gemv", "cpp-thrust")
    assert not b2.error and "thrust/transform.h" not in b2.source  # its own includes are left as they are


@pytest.mark.skipif(nvcc_path() is None, reason="nvcc not installed")
@pytest.mark.parametrize("code,kernel,model", [(KERNEL_ONLY, "axpy", "cpp-cuda"),
                                                (DEVICE_POINTER_WRAPPER, "axpy", "cpp-hip"),
                                                (GEMV_SQUARE, "gemv", "cpp-cuda"),
                                                (THRUST_NO_INCLUDE, "gemv", "cpp-thrust")],
                         ids=["kernel-only", "device-pointer-wrapper", "square-gemv", "thrust-no-include"])
def test_launch_glue_builds_with_nvcc(catalog, code, kernel, model):
    from hpceval.executors.local import LocalExecutor
    from hpceval.toolchains.cuda import build_only

    b, m = _bind(catalog, code, kernel, model)
    assert not b.error, b.error
    result = build_only(code, catalog.kernels[kernel], m, LocalExecutor(), binding=b)
    assert result is not None and result.returncode == 0, (result.stderr or result.stdout)[-2000:]


# ------------------------------------------------------------------------------------------ Python imports

CUPY_NO_IMPORT = """
def gemv_cupy(A, x, y):
    d = cp.asarray(A) @ cp.asarray(x)
    y[:] = cp.asnumpy(d)
"""

PYCUDA_NO_IMPORT = """
def saxpy(n, a, x, y):
    mod = SourceModule('''
    __global__ void k(int n, float a, float *x, float *y) {
      int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = a * x[i] + y[i]; }''')
    k = mod.get_function("k")
    k(np.int32(n), np.float32(a), cuda.In(x), cuda.InOut(y), block=(256, 1, 1), grid=((n + 255) // 256, 1))
"""

NUMBA_CUDA_NO_IMPORT = """
@cuda.jit
def _k(n, a, x, y):
    i = cuda.grid(1)
    if i < n:
        y[i] = a * x[i] + y[i]

def saxpy(n, a, x, y):
    _k[(n + 255) // 256, 256](n, a, x, y)
"""


@pytest.mark.parametrize("code,kernel,model,wanted,unwanted", [
    (CUPY_NO_IMPORT, "gemv", "python-cupy", ["import cupy as cp"], []),
    (PYCUDA_NO_IMPORT, "axpy", "python-pycuda",
     ["import pycuda.autoinit", "import pycuda.driver as cuda", "from pycuda.compiler import SourceModule",
      "import numpy as np"], ["from numba import cuda"]),
    (NUMBA_CUDA_NO_IMPORT, "axpy", "python-numba", ["from numba import cuda"], ["pycuda"]),
], ids=["cupy", "pycuda", "numba-cuda"])
def test_conventional_imports_are_added_per_model(catalog, code, kernel, model, wanted, unwanted):
    b, _ = _bind(catalog, code, kernel, model)
    assert not b.error, b.error
    lines = b.source.splitlines()
    for line in wanted:
        assert line in lines, b.source
    assert lines.count("import pycuda.autoinit") <= 1
    for text in unwanted:
        assert text not in b.source
    assert "added `" in b.evidence
