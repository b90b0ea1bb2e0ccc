"""CUDA/HIP kernels the harness launches: separate outputs come back, and the launch is the suggestion's own.

Written as unseen LLM output. Two mechanisms:

* separate outputs (out-of-place AXPY `z = alpha*x + y`, ParEval's prompt shape) of a kernel the harness launches,
  or of a host function that launches on device pointers: the output gets a device buffer and is copied back
  before it is copied to its canonical target (otherwise the kernel writes host memory and `y` stays unwritten);
* the launch configuration (grid, block, dynamic shared memory, template arguments) is the one the suggestion's
  `main` uses, its size variables translated to the kernel's roles; the harness's default only where the
  suggestion does not say (or says it in terms the harness cannot evaluate), and the evidence says which.

CPU-runnable: the binding's launch and glue text, and nvcc compile-only of the rendered units. The
`@pytest.mark.gpu` tests run the verdicts end to end on a CUDA GPU.
"""

from __future__ import annotations

import re

import pytest

from hpceval.bind import choose_binding
from hpceval.bind.glue.launch import harness_launched
from hpceval.bind.signature import infer_binding
from hpceval.toolchains.cuda import nvcc_path, nvidia_gpu

needs_nvcc = pytest.mark.skipif(nvcc_path() is None, reason="nvcc not installed")
gpu = [pytest.mark.gpu, pytest.mark.skipif(nvidia_gpu() is None, reason="needs a CUDA GPU")]


def _bind(catalog, code: str, kernel: str, model: str):
    m = catalog.models[model]
    return infer_binding(code, catalog.kernels[kernel], catalog.languages[m.language], m)


def _built(catalog, code: str, kernel: str, model: str, binding):
    from hpceval.executors.local import LocalExecutor
    from hpceval.toolchains.cuda import build_only

    return build_only(code, catalog.kernels[kernel], catalog.models[model], LocalExecutor(), binding=binding)


# ------------------------------------------------------------------------------- separate outputs on the device

PAREVAL_PROMPT = """/* Compute z = alpha*x+y where x and y are vectors. Store the result in z.
   The kernel is launched with at least as many threads as values in x.
*/
__global__ void axpy(double alpha, const double *x, const double *y, double *z, size_t N) {
"""

OUT_TEXTBOOK = PAREVAL_PROMPT + """
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < N) {
        z[i] = alpha * x[i] + y[i];
    }
}
"""

OUT_GRID_STRIDE_FLOAT = """
__global__ void saxpy_out(int n, float a, const float *__restrict__ x, const float *__restrict__ y,
                          float *__restrict__ out) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    out[i] = a * x[i] + y[i];
}
"""

OUT_TEMPLATE = """
template <typename T>
__global__ void axpy_kernel(int n, T a, const T *x, const T *y, T *result) {
  const int idx = threadIdx.x + blockIdx.x * blockDim.x;
  if (idx >= n) return;
  result[idx] = a * x[idx] + y[idx];
}
"""

OUT_NO_GUARD = PAREVAL_PROMPT + """
    size_t i = blockIdx.x * blockDim.x + threadIdx.x;
    z[i] = alpha * x[i] + y[i];
}
"""

OUT_WRITES_Y = PAREVAL_PROMPT + """
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < N) {
        double *w = (double *)y;
        w[i] = alpha * x[i] + y[i];
    }
}
"""

OUT_DEVICE_WRAPPER = """
#include <hip/hip_runtime.h>
__global__ void axpy_k(int n, double a, const double *x, const double *y, double *z) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) z[i] = a * x[i] + y[i];
}

// x, y and z are device pointers
void axpy(int n, double a, const double *x, const double *y, double *z) {
  hipLaunchKernelGGL(axpy_k, dim3((n + 127) / 128), dim3(128), 0, 0, n, a, x, y, z);
}
"""

OUT_HOST_LOOP = """
#include <cuda_runtime.h>
void axpy(int n, double alpha, const double *x, const double *y, double *z) {
  for (int i = 0; i < n; ++i) z[i] = alpha * x[i] + y[i];
}
"""

OUT_BUILD_ERROR = PAREVAL_PROMPT + """
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < N) {
        z[i] = alpha * x[i] + y[i]
    }
}
"""


def _device_copy_back_before_target(b, api: str) -> None:
    """z has a device buffer, the kernel gets it, and it comes back to its temporary before the temporary is
    copied to its canonical target."""
    assert any(re.search(rf"{api}Malloc\(\(void \*\*\)&hp_d_z", s) for s in b.setup), b.setup
    assert "hp_d_z" in b.call and "hp_z.data()" not in b.call, b.call
    back = next(i for i, s in enumerate(b.teardown) if s.startswith(f"{api}Memcpy(hp_z.data(), hp_d_z"))
    late = next(i for i, s in enumerate(b.teardown) if s.startswith("hpceval_unpack(hp_z, y"))
    assert back < late, b.teardown
    assert f"{api}Free(hp_d_z);" in b.teardown


@pytest.mark.parametrize("code,model,api", [
    (OUT_TEXTBOOK, "cpp-cuda", "cuda"), (OUT_TEXTBOOK, "cpp-hip", "hip"),
    (OUT_GRID_STRIDE_FLOAT, "cpp-cuda", "cuda"), (OUT_TEMPLATE, "cpp-cuda", "cuda"),
    (OUT_NO_GUARD, "cpp-cuda", "cuda"), (OUT_WRITES_Y, "cpp-hip", "hip")],
    ids=["pareval-cuda", "pareval-hip", "grid-stride-float", "template", "no-guard", "writes-y"])
def test_separate_output_of_a_launched_kernel_comes_back(catalog, code, model, api):
    b = _bind(catalog, code, "axpy", model)
    assert not b.error, b.error
    assert harness_launched(b.call) and b.variant == "out_of_place", (b.call, b.variant)
    _device_copy_back_before_target(b, api)


def test_separate_output_of_a_device_pointer_wrapper_comes_back(catalog):
    b = _bind(catalog, OUT_DEVICE_WRAPPER, "axpy", "cpp-hip")
    assert not b.error, b.error
    assert b.function == "axpy" and not harness_launched(b.call)
    _device_copy_back_before_target(b, "hip")


def test_host_loop_is_not_launched(catalog):
    b = _bind(catalog, OUT_HOST_LOOP, "axpy", "cpp-cuda")
    assert not b.error and b.function == "axpy" and not harness_launched(b.call)
    assert not any("hp_d_" in s for s in b.setup)


@needs_nvcc
@pytest.mark.parametrize("code,model", [(OUT_TEXTBOOK, "cpp-cuda"), (OUT_TEXTBOOK, "cpp-hip"),
                                        (OUT_TEMPLATE, "cpp-cuda"), (OUT_DEVICE_WRAPPER, "cpp-hip")],
                         ids=["pareval-cuda", "pareval-hip", "template", "device-wrapper"])
def test_separate_output_units_build(catalog, code, model):
    b = _bind(catalog, code, "axpy", model)
    result = _built(catalog, code, "axpy", model, b)
    assert result is not None and result.returncode == 0, (result.stderr or result.stdout)[-2000:]


@needs_nvcc
def test_separate_output_with_a_syntax_error_stays_a_build_error(catalog):
    b = _bind(catalog, OUT_BUILD_ERROR, "axpy", "cpp-cuda")
    result = _built(catalog, OUT_BUILD_ERROR, "axpy", "cpp-cuda", b)
    assert result is not None and result.returncode != 0


# ------------------------------------------------------------------------------- the launch main makes

MAIN_HEAD = """
int main(int argc, char **argv) {
  const int M = 1000, N = 700, K = 300;
  double *d_A, *d_B, *d_C;
  cudaMalloc(&d_A, M * K * sizeof(double));
  cudaMalloc(&d_B, K * N * sizeof(double));
  cudaMalloc(&d_C, M * N * sizeof(double));
"""

TILED_32 = """
#include <cstdio>
#define TILE 32

__global__ void matmul_tiled(const double *A, const double *B, double *C, int M, int N, int K) {
  __shared__ double As[TILE][TILE];
  __shared__ double Bs[TILE][TILE];
  int row = blockIdx.y * TILE + threadIdx.y;
  int col = blockIdx.x * TILE + threadIdx.x;
  double acc = 0.0;
  for (int t = 0; t < (K + TILE - 1) / TILE; ++t) {
    As[threadIdx.y][threadIdx.x] = (row < M && t * TILE + threadIdx.x < K) ? A[row * K + t * TILE + threadIdx.x] : 0.0;
    Bs[threadIdx.y][threadIdx.x] = (col < N && t * TILE + threadIdx.y < K) ? B[(t * TILE + threadIdx.y) * N + col] : 0.0;
    __syncthreads();
    for (int k = 0; k < TILE; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
    __syncthreads();
  }
  if (row < M && col < N) C[row * N + col] = acc;
}
""" + MAIN_HEAD + """
  dim3 block(TILE, TILE);
  dim3 grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
  matmul_tiled<<<grid, block>>>(d_A, d_B, d_C, M, N, K);
  cudaDeviceSynchronize();
  printf("ok\\n");
  return 0;
}
"""

# the same tiles, indexed with the block's x for rows: right only on the square tiles main launches
TILED_WRONG_INDEX = TILED_32.replace("int row = blockIdx.y * TILE + threadIdx.y;",
                                     "int row = blockIdx.x * TILE + threadIdx.y;")

GRID_STRIDE_FIXED = """
__global__ void gemv_gs(int rows, int cols, const float *A, const float *x, float *y) {
  for (int r = blockIdx.x * blockDim.x + threadIdx.x; r < rows; r += gridDim.x * blockDim.x) {
    float s = 0.f;
    for (int c = 0; c < cols; ++c) s += A[(size_t)r * cols + c] * x[c];
    y[r] = s;
  }
}

int main() {
  int rows = 4096, cols = 4096;
  float *dA, *dx, *dy;
  cudaMalloc(&dA, sizeof(float) * rows * cols);
  cudaMalloc(&dx, sizeof(float) * cols);
  cudaMalloc(&dy, sizeof(float) * rows);
  gemv_gs<<<48, 128>>>(rows, cols, dA, dx, dy);
  cudaDeviceSynchronize();
  return 0;
}
"""

ONE_D_INTS = """
__global__ void saxpy(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

int main(void) {
  int size = 1 << 22;
  float *d_x, *d_y;
  cudaMalloc(&d_x, size * sizeof(float));
  cudaMalloc(&d_y, size * sizeof(float));
  int threadsPerBlock = 512;
  int blocksPerGrid = (size + threadsPerBlock - 1) / threadsPerBlock;
  saxpy<<<blocksPerGrid, threadsPerBlock>>>(size, 3.0f, d_x, d_y);
  cudaDeviceSynchronize();
  return 0;
}
"""

HIP_GGL = """
#include <hip/hip_runtime.h>
#define BLOCK 64
__global__ void gemv_rows(const double *A, const double *x, double *y, int nrows, int ncols) {
  __shared__ double partial[BLOCK];
  int row = blockIdx.x;
  double s = 0.0;
  for (int j = threadIdx.x; j < ncols; j += BLOCK) s += A[(size_t)row * ncols + j] * x[j];
  partial[threadIdx.x] = s;
  __syncthreads();
  for (int stride = BLOCK / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) y[row] = partial[0];
}

int main() {
  int m = 300, n = 200;
  double *A, *x, *y;
  hipMalloc(&A, m * n * sizeof(double));
  hipMalloc(&x, n * sizeof(double));
  hipMalloc(&y, m * sizeof(double));
  hipLaunchKernelGGL(gemv_rows, dim3(m), dim3(BLOCK), 0, 0, A, x, y, m, n);
  hipDeviceSynchronize();
  return 0;
}
"""

TEMPLATE_TILE = """
template <int BS>
__global__ void gemm_bs(int M, int N, int K, const float *A, const float *B, float *C) {
  __shared__ float sA[BS][BS], sB[BS][BS];
  int ty = threadIdx.y, tx = threadIdx.x;
  int row = blockIdx.y * BS + ty, col = blockIdx.x * BS + tx;
  float acc = 0.f;
  for (int t = 0; t < K; t += BS) {
    sA[ty][tx] = (row < M && t + tx < K) ? A[row * K + t + tx] : 0.f;
    sB[ty][tx] = (col < N && t + ty < K) ? B[(t + ty) * N + col] : 0.f;
    __syncthreads();
    for (int k = 0; k < BS; ++k) acc += sA[ty][k] * sB[k][tx];
    __syncthreads();
  }
  if (row < M && col < N) C[row * N + col] = acc;
}

int main() {
  int M = 512, N = 256, K = 128;
  float *A, *B, *C;
  cudaMalloc(&A, M * K * 4); cudaMalloc(&B, K * N * 4); cudaMalloc(&C, M * N * 4);
  const int bs = 16;
  dim3 threads(bs, bs);
  dim3 blocks((N + bs - 1) / bs, (M + bs - 1) / bs);
  gemm_bs<16><<<blocks, threads>>>(M, N, K, A, B, C);
  return 0;
}
"""

DYNAMIC_SHARED = """
__global__ void gemv_smem(const double *A, const double *x, double *y, int m, int n) {
  extern __shared__ double xs[];
  for (int j = threadIdx.x; j < n; j += blockDim.x) xs[j] = x[j];
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < m) {
    double s = 0.0;
    for (int j = 0; j < n; ++j) s += A[(size_t)i * n + j] * xs[j];
    y[i] = s;
  }
}

int main() {
  int m = 1024, n = 512;
  double *A, *x, *y;
  cudaMalloc(&A, sizeof(double) * m * n); cudaMalloc(&x, sizeof(double) * n); cudaMalloc(&y, sizeof(double) * m);
  dim3 block(128);
  dim3 grid((m + block.x - 1) / block.x);
  size_t shmem = n * sizeof(double);
  gemv_smem<<<grid, block, shmem>>>(A, x, y, m, n);
  cudaDeviceSynchronize();
  return 0;
}
"""

# subtly wrong: main's grid only covers sizes that are multiples of 16
UNDER_COVER = """
__global__ void mm(const float *A, const float *B, float *C, int n) {
  int r = blockIdx.y * blockDim.y + threadIdx.y, c = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < n && c < n) {
    float s = 0;
    for (int k = 0; k < n; k++) s += A[r * n + k] * B[k * n + c];
    C[r * n + c] = s;
  }
}

int main() {
  int N = 1024;
  float *A, *B, *C;
  cudaMalloc(&A, N * N * 4); cudaMalloc(&B, N * N * 4); cudaMalloc(&C, N * N * 4);
  dim3 threadsPerBlock(16, 16);
  dim3 numBlocks(N / threadsPerBlock.x, N / threadsPerBlock.y);
  mm<<<numBlocks, threadsPerBlock>>>(A, B, C, N);
  return 0;
}
"""

# subtly wrong: no bounds guard, and main's launch rounds up (over-covers)
NO_GUARD_OVER_COVER = """
__global__ void axpy(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  y[i] = a * x[i] + y[i];
}

int main() {
  int n = 100000;
  float *x, *y;
  cudaMalloc(&x, n * 4); cudaMalloc(&y, n * 4);
  axpy<<<(n + 255) / 256, 256>>>(n, 2.0f, x, y);
  return 0;
}
"""

# main asks the device for its block size: not a function of the sizes the harness can evaluate
DEVICE_QUERY = """
__global__ void axpy(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

int main() {
  int n = 1 << 20;
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  int threads = prop.maxThreadsPerBlock;
  float *x, *y;
  cudaMalloc(&x, n * 4); cudaMalloc(&y, n * 4);
  axpy<<<(n + threads - 1) / threads, threads>>>(n, 2.0f, x, y);
  return 0;
}
"""

# main sizes its grid by a variable it never passes to the kernel (the kernel reads n from its argument)
OWN_SIZE = """
__global__ void axpy(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

int main() {
  const int total = 1 << 20;
  int n = total;
  float *x, *y;
  cudaMalloc(&x, n * 4); cudaMalloc(&y, n * 4);
  axpy<<<total / 256, 256>>>(n, 2.0f, x, y);
  return 0;
}
"""

HOST_LOOP_GEMM = """
#include <cuda_runtime.h>
void gemm(const double *A, const double *B, double *C, int M, int N, int K) {
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double s = 0.0;
      for (int k = 0; k < K; ++k) s += A[i * K + k] * B[k * N + j];
      C[i * N + j] = s;
    }
}

int main() { return 0; }
"""

TILED_BUILD_ERROR = TILED_32.replace("__syncthreads();\n    for", "__syncthread();\n    for")


def test_tiled_gemm_is_launched_32x32_as_main_launches_it(catalog):
    b = _bind(catalog, TILED_32, "gemm", "cpp-cuda")
    assert not b.error, b.error
    assert harness_launched(b.call)
    setup = "\n".join(b.setup)
    assert "dim3 hp_l_block((32), (32));" in setup, setup  # TILE expanded: the driver is shielded from its macros
    # main's N and M are the kernel's N and M parameters: the driver's sizes of those roles
    assert "launch taken from the suggestion's main" in b.evidence
    assert "16x16" not in b.evidence


def test_main_size_names_are_translated_to_the_kernels_roles(catalog):
    b = _bind(catalog, TILED_32, "gemm", "cpp-cuda")
    grid = next(s for s in b.setup if s.startswith("dim3 hp_l_grid("))
    # the kernel's (M, N, K) map to the canonical sizes: main's N becomes the driver's column count, M its rows
    mapping = b.mapping
    assert grid == f"dim3 hp_l_grid(({mapping['N']} + (32) - 1) / (32), ({mapping['M']} + (32) - 1) / (32));", grid


def test_one_dimensional_launch_keeps_mains_512_threads(catalog):
    b = _bind(catalog, ONE_D_INTS, "axpy", "cpp-cuda")
    assert not b.error, b.error
    setup = "\n".join(b.setup)
    assert "hp_l_threadsPerBlock = 512;" in setup
    assert re.search(r"hp_l_blocksPerGrid = \(n \+ hp_l_threadsPerBlock - 1\) / hp_l_threadsPerBlock;", setup), setup
    assert "hp_grid = dim3(hp_l_blocksPerGrid)" in setup and "hp_block = dim3(hp_l_threadsPerBlock)" in setup


def test_fixed_grid_of_a_grid_stride_kernel_is_kept(catalog):
    b = _bind(catalog, GRID_STRIDE_FIXED, "gemv", "cpp-cuda")
    assert not b.error, b.error
    assert "hp_grid = dim3(48), hp_block = dim3(128)" in "\n".join(b.setup)
    assert "launch taken from the suggestion's main" in b.evidence


def test_hip_launch_kernel_ggl_in_main(catalog):
    b = _bind(catalog, HIP_GGL, "gemv", "cpp-hip")
    assert not b.error, b.error
    setup = "\n".join(b.setup)
    # one block per row (main's dim3(m)): m is the kernel's nrows, the driver's row count
    assert f"hp_grid = dim3(dim3({b.mapping['nrows']}))" in setup and "hp_block = dim3(dim3((64)))" in setup, setup


def test_template_arguments_come_from_mains_launch(catalog):
    b = _bind(catalog, TEMPLATE_TILE, "gemm", "cpp-cuda")
    assert not b.error, b.error
    assert "gemm_bs<16><<<hp_grid, hp_block>>>(" in b.call, b.call
    assert "hp_l_bs = 16;" in "\n".join(b.setup)


def test_dynamic_shared_memory_comes_from_main(catalog):
    b = _bind(catalog, DYNAMIC_SHARED, "gemv", "cpp-cuda")
    assert not b.error, b.error
    assert "<<<hp_grid, hp_block, hp_shmem>>>" in b.call, b.call
    assert any(s.startswith("size_t hp_l_shmem = n * sizeof(double)") or "hp_l_shmem =" in s for s in b.setup)
    assert harness_launched(b.call)


def test_under_covering_grid_is_launched_as_written(catalog):
    b = _bind(catalog, UNDER_COVER, "gemm", "cpp-cuda")
    assert not b.error, b.error
    grid = next(s for s in b.setup if s.startswith("dim3 hp_l_numBlocks("))
    assert "/ hp_l_threadsPerBlock.x" in grid and "+" not in grid, grid  # not rounded up for it


def test_no_guard_kernel_gets_mains_over_covering_launch(catalog):
    b = _bind(catalog, NO_GUARD_OVER_COVER, "axpy", "cpp-cuda")
    assert not b.error, b.error
    assert "hp_grid = dim3((n + 255) / 256), hp_block = dim3(256)" in "\n".join(b.setup)


@pytest.mark.parametrize("code,why", [(DEVICE_QUERY, "prop"), (OWN_SIZE, "total")], ids=["device-query", "own-size"])
def test_launch_main_computes_otherwise_falls_back_to_the_default_and_says_so(catalog, code, why):
    b = _bind(catalog, code, "axpy", "cpp-cuda")
    assert not b.error, b.error
    assert "1D grid of 256-thread blocks" in b.evidence
    assert "default launch" in b.evidence and why in b.evidence, b.evidence


def test_kernel_nobody_launches_gets_the_default_and_says_so(catalog):
    b = _bind(catalog, OUT_TEXTBOOK, "axpy", "cpp-cuda")
    assert "default launch" in b.evidence and "no launch of axpy in the suggestion" in b.evidence, b.evidence


def test_host_loop_gemm_is_not_launched(catalog):
    b = _bind(catalog, HOST_LOOP_GEMM, "gemm", "cpp-cuda")
    assert not b.error and b.function == "gemm" and not harness_launched(b.call)


@needs_nvcc
@pytest.mark.parametrize("code,kernel,model", [
    (TILED_32, "gemm", "cpp-cuda"), (ONE_D_INTS, "axpy", "cpp-cuda"), (HIP_GGL, "gemv", "cpp-hip"),
    (TEMPLATE_TILE, "gemm", "cpp-cuda"), (DYNAMIC_SHARED, "gemv", "cpp-cuda"), (UNDER_COVER, "gemm", "cpp-cuda")],
    ids=["tiled-32", "1d-ints", "hip-ggl", "template-tile", "dynamic-shared", "under-cover"])
def test_launch_from_main_units_build(catalog, code, kernel, model):
    b = _bind(catalog, code, kernel, model)
    assert not b.error, b.error
    result = _built(catalog, code, kernel, model, b)
    assert result is not None and result.returncode == 0, (result.stderr or result.stdout)[-3000:]


@needs_nvcc
def test_tiled_kernel_that_does_not_compile_stays_a_build_error(catalog):
    b = _bind(catalog, TILED_BUILD_ERROR, "gemm", "cpp-cuda")
    result = _built(catalog, TILED_BUILD_ERROR, "gemm", "cpp-cuda", b)
    assert result is not None and result.returncode != 0


# ------------------------------------------------------------------------------- end to end on a GPU

E2E = [
    (OUT_TEXTBOOK, "axpy", "cpp-cuda", {"correct"}),
    (OUT_TEXTBOOK, "axpy", "cpp-hip", {"correct"}),
    (OUT_GRID_STRIDE_FLOAT, "axpy", "cpp-cuda", {"correct"}),
    (OUT_TEMPLATE, "axpy", "cpp-cuda", {"correct"}),
    (OUT_DEVICE_WRAPPER, "axpy", "cpp-hip", {"correct"}),
    (OUT_NO_GUARD, "axpy", "cpp-cuda", {"runtime_error", "wrong_result"}),
    (OUT_WRITES_Y, "axpy", "cpp-cuda", {"wrong_result"}),
    (OUT_HOST_LOOP, "axpy", "cpp-cuda", {"wrong_model"}),
    (OUT_BUILD_ERROR, "axpy", "cpp-cuda", {"build_error"}),
    (TILED_32, "gemm", "cpp-cuda", {"correct"}),
    (TILED_WRONG_INDEX, "gemm", "cpp-cuda", {"wrong_result", "runtime_error"}),
    (GRID_STRIDE_FIXED, "gemv", "cpp-cuda", {"correct"}),
    (ONE_D_INTS, "axpy", "cpp-cuda", {"correct"}),
    (HIP_GGL, "gemv", "cpp-hip", {"correct"}),
    (TEMPLATE_TILE, "gemm", "cpp-cuda", {"correct"}),
    (DYNAMIC_SHARED, "gemv", "cpp-cuda", {"correct"}),
    (UNDER_COVER, "gemm", "cpp-cuda", {"wrong_result"}),
    (NO_GUARD_OVER_COVER, "axpy", "cpp-cuda", {"runtime_error", "wrong_result"}),
    (DEVICE_QUERY, "axpy", "cpp-cuda", {"correct"}),
    (HOST_LOOP_GEMM, "gemm", "cpp-cuda", {"wrong_model"}),
    (TILED_BUILD_ERROR, "gemm", "cpp-cuda", {"build_error"}),
]


@pytest.mark.parametrize("code,kernel,model,verdicts", E2E, ids=[f"{k}-{m}-{i}" for i, (_, k, m, _) in enumerate(E2E)])
@gpu[0]
@gpu[1]
def test_verdicts_on_a_gpu(evaluator, catalog, code, kernel, model, verdicts):
    spec, m = catalog.kernels[kernel], catalog.models[model]
    lang = catalog.languages[m.language]
    ev = evaluator.evaluate(code, spec, m, choose_binding(code, spec, lang, "paper", m))
    assert ev.verdict in verdicts, f"{ev.verdict}: {ev.evidence[-1500:]}"
