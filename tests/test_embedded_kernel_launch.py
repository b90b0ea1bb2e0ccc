"""CUDA kernels held in Python strings (CuPy `RawKernel`/`RawModule`, pyCUDA `SourceModule`) that only the
suggestion's script launches, written as unseen LLM output.

The kernel's parameters come from its CUDA signature; the harness appends a launcher to the unit that copies the
driver's arrays to the device (in the kernel's element type), launches the kernel with the configuration the
script uses (`k((grid,), (block,), (args...))`, pyCUDA `k(..., block=(...), grid=(...))`), its size names
translated to the kernel's arguments, and copies the written arrays back. The default launch only where the
script does not say in terms the harness can evaluate, and the evidence says which.

CPU-runnable: the binding and the launcher's text. `@pytest.mark.gpu`: the verdicts end to end.
"""

from __future__ import annotations

import ast

import pytest

from test_gpu_launch_from_main import _bind, gpu
from test_thrust_params import assert_verdict


def _launcher(b) -> str:
    tree = ast.parse(b.source)
    fn = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == b.function)
    return ast.unparse(fn)


CUPY_SCRIPT = '''
import cupy as cp
import numpy as np

saxpy_src = r"""
extern "C" __global__ void saxpy(const int n, const float a, const float *x, float *y) {
    int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
"""
saxpy_kernel = cp.RawKernel(saxpy_src, "saxpy")

N = 1 << 20
x = cp.random.rand(N, dtype=cp.float32)
y = cp.random.rand(N, dtype=cp.float32)
threads = 128
blocks = (N + threads - 1) // threads
saxpy_kernel((blocks,), (threads,), (np.int32(N), np.float32(2.0), x, y))
print(y[:4])
'''

# a 2-D tiled GEMM whose shared tiles assume the script's 32x32 blocks, from a RawModule, inside main()
CUPY_MODULE_TILED = '''
import cupy as cp
import numpy as np

code = r"""
#define TILE 32
extern "C" __global__ void mm(const double *A, const double *B, double *C, int M, int N, int K) {
  __shared__ double As[TILE][TILE];
  __shared__ double Bs[TILE][TILE];
  int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
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
"""
module = cp.RawModule(code=code)
mm = module.get_function("mm")


def main():
    M, N, K = 300, 200, 100
    A = cp.random.rand(M, K)
    B = cp.random.rand(K, N)
    C = cp.zeros((M, N))
    tile = 32
    grid = ((N + tile - 1) // tile, (M + tile - 1) // tile)
    mm(grid, (tile, tile), (A, B, C, np.int32(M), np.int32(N), np.int32(K)))
    print(C.sum())


if __name__ == "__main__":
    main()
'''

PYCUDA_SCRIPT = '''
import numpy as np
import pycuda.autoinit
import pycuda.driver as drv
from pycuda.compiler import SourceModule

mod = SourceModule("""
__global__ void gemv(const double *A, const double *x, double *y, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    double s = 0.0;
    for (int c = 0; c < cols; ++c) s += A[r * cols + c] * x[c];
    y[r] = s;
  }
}
""")
gemv = mod.get_function("gemv")

rows, cols = 1024, 512
A = np.random.rand(rows, cols)
x = np.random.rand(cols)
y = np.zeros(rows)
block_size = 64
gemv(drv.In(A), drv.In(x), drv.Out(y), np.int32(rows), np.int32(cols),
     block=(block_size, 1, 1), grid=((rows + block_size - 1) // block_size, 1))
print(y[:3])
'''

# the script asks the device for its block size: Python evaluates that in the launcher as the script does
CUPY_DEVICE_QUERY = CUPY_SCRIPT.replace("threads = 128", "threads = cp.cuda.Device().attributes['MaxThreadsPerBlock']")

# the script never launches the kernel: the harness's default, said so
CUPY_NO_LAUNCH = CUPY_SCRIPT[:CUPY_SCRIPT.index("saxpy_kernel((blocks,)")]

# subtly wrong: the script's grid covers only whole blocks and the kernel has no tail guard
CUPY_UNDER_COVER = CUPY_SCRIPT.replace("blocks = (N + threads - 1) // threads", "blocks = N // threads")

# subtly wrong: reads x twice, never y
PYCUDA_WRONG = PYCUDA_SCRIPT.replace("s += A[r * cols + c] * x[c];", "s += A[r * cols + c] * x[r % cols];")

# wrong model: the kernel is a token one-thread launch, the script computes y on the host
CUPY_TOKEN = '''
import cupy as cp
import numpy as np

k = cp.RawKernel(r"""
extern "C" __global__ void saxpy(int n, float a, const float *x, float *y) {
  if (threadIdx.x == 0 && blockIdx.x == 0 && n > 0) y[0] = a * x[0] + y[0];
}
""", "saxpy")

n = 4096
x = np.random.rand(n).astype(np.float32)
y = np.random.rand(n).astype(np.float32)
dx, dy = cp.asarray(x), cp.asarray(y)
k((1,), (1,), (np.int32(n), np.float32(2.0), dx, dy))
y = 2.0 * x + y
'''

# must stay build_error/incomplete: the script is cut off inside the kernel's string
CUPY_CUT = CUPY_SCRIPT[:CUPY_SCRIPT.index("if (i < n)")]

TAKEN = [(CUPY_SCRIPT, "axpy", "python-cupy", ["(blocks,)", "threads"]),
         (CUPY_MODULE_TILED, "gemm", "python-cupy", ["tile"]),
         (PYCUDA_SCRIPT, "gemv", "python-pycuda", ["block=", "grid=", "block_size"]),
         (CUPY_UNDER_COVER, "axpy", "python-cupy", ["n // threads"]),
         (PYCUDA_WRONG, "gemv", "python-pycuda", ["block_size"])]


@pytest.mark.parametrize("code,kernel,model,spelled", TAKEN, ids=["rawkernel", "rawmodule-main", "sourcemodule",
                                                                  "under-cover", "pycuda-wrong"])
def test_launch_is_the_scripts(catalog, code, kernel, model, spelled):
    b = _bind(catalog, code, kernel, model)
    assert not b.error, b.error
    assert b.function.startswith("_hpceval_launch_"), b.function
    text = _launcher(b)
    for s in spelled:
        assert s.replace("(blocks,)", "(_hp_blocks,)").replace("threads", "_hp_threads").replace(
            "tile", "_hp_tile").replace("block_size", "_hp_block_size") in text, text
    assert "launch taken from the suggestion's script" in b.evidence, b.evidence


def test_script_sizes_are_the_kernels_arguments(catalog):
    """N, the script's size, is the kernel's n: the launcher computes its grid from the driver's n."""
    text = _launcher(_bind(catalog, CUPY_SCRIPT, "axpy", "python-cupy"))
    assert "_hp_blocks = (n + _hp_threads - 1) // _hp_threads" in text, text
    assert "np.int32(n)" in text.replace("_hp_np.", "np.") and "float32(a)" in text, text
    assert ".get()" in text or "asnumpy" in text, "y must come back"


def test_pycuda_launch_copies_to_the_device_in_the_kernels_type(catalog):
    text = _launcher(_bind(catalog, PYCUDA_SCRIPT, "gemv", "python-pycuda"))
    assert "to_gpu" in text and "float64" in text and "gpudata" in text, text


def test_device_query_is_carried(catalog):
    b = _bind(catalog, CUPY_DEVICE_QUERY, "axpy", "python-cupy")
    assert not b.error, b.error
    assert "launch taken from the suggestion's script" in b.evidence and "MaxThreadsPerBlock" in _launcher(b)


def test_no_launch_takes_the_default_and_says_so(catalog):
    b = _bind(catalog, CUPY_NO_LAUNCH, "axpy", "python-cupy")
    assert not b.error, b.error
    assert "the harness's default launch" in b.evidence and "(256,)" in _launcher(b), b.evidence


def test_cut_off_script_is_not_bound(catalog):
    assert _bind(catalog, CUPY_CUT, "axpy", "python-cupy").error


E2E = [(CUPY_SCRIPT, "axpy", "python-cupy", {"correct"}), (CUPY_MODULE_TILED, "gemm", "python-cupy", {"correct"}),
       (PYCUDA_SCRIPT, "gemv", "python-pycuda", {"correct"}), (CUPY_DEVICE_QUERY, "axpy", "python-cupy", {"correct"}),
       (CUPY_NO_LAUNCH, "axpy", "python-cupy", {"correct"}),
       (CUPY_UNDER_COVER, "axpy", "python-cupy", {"wrong_result"}),
       (PYCUDA_WRONG, "gemv", "python-pycuda", {"wrong_result"}),
       (CUPY_TOKEN, "axpy", "python-cupy", {"wrong_result", "wrong_model"}),
       (CUPY_CUT, "axpy", "python-cupy", {"build_error", "incomplete"})]


@pytest.mark.parametrize("code,kernel,model,verdicts", E2E, ids=[f"{k}-{m}-{i}" for i, (_, k, m, _) in enumerate(E2E)])
@gpu[0]
@gpu[1]
def test_verdicts_on_a_gpu(evaluator, catalog, code, kernel, model, verdicts):
    assert_verdict(evaluator, catalog, code, kernel, model, verdicts)
