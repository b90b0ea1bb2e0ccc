"""CUDA/HIP kernels nothing in the suggestion launches: the block their own index arithmetic implies.

Written as unseen LLM output: tiled kernels whose global index is `blockIdx.y * TS + threadIdx.y` (a macro, a
constexpr, a template parameter, a thread-index alias, the operands in any order), which are right only on blocks of
that size; beside them kernels that index by blockDim (any block: the default launch stands), a subtly wrong tiled
kernel (it must still fail on the launch it implies) and one that does not compile (it stays build_error).

CPU-runnable: the stride the kernel implies (bind.launches.implied), the binding's launch text, nvcc compile-only of
the rendered units. `@pytest.mark.gpu`: the verdicts end to end on a CUDA GPU.
"""

from __future__ import annotations

import pytest

from hpceval.bind.launches.implied import block_stride
from test_gpu_launch_from_main import _bind, _built, gpu, needs_nvcc

# right but unusual: constexpr tile, padded shared tiles, the operands reversed
GEMM_CONSTEXPR = """
constexpr int TILE_DIM = 32;
__global__ void matmul_tiled(const double *A, const double *B, double *C, int M, int N, int K) {
    __shared__ double As[TILE_DIM][TILE_DIM + 1];
    __shared__ double Bs[TILE_DIM][TILE_DIM + 1];
    int row = threadIdx.y + blockIdx.y * TILE_DIM;
    int col = threadIdx.x + blockIdx.x * TILE_DIM;
    double acc = 0.0;
    for (int t = 0; t < (K + TILE_DIM - 1) / TILE_DIM; ++t) {
        int ak = t * TILE_DIM + threadIdx.x, bk = t * TILE_DIM + threadIdx.y;
        As[threadIdx.y][threadIdx.x] = (row < M && ak < K) ? A[row * K + ak] : 0.0;
        Bs[threadIdx.y][threadIdx.x] = (col < N && bk < K) ? B[bk * N + col] : 0.0;
        __syncthreads();
        for (int q = 0; q < TILE_DIM; ++q) acc += As[threadIdx.y][q] * Bs[q][threadIdx.x];
        __syncthreads();
    }
    if (row < M && col < N) C[row * N + col] = acc;
}
"""

# right but unusual: thread-index aliases, the tile a macro written before the block index
GEMM_ALIASES = """
#define TW 8
__global__ void mm(float *a, float *b, float *c, int m, int n, int k) {
    __shared__ float sa[TW][TW], sb[TW][TW];
    int tx = threadIdx.x, ty = threadIdx.y;
    int r = TW * blockIdx.y + ty, cc = TW * blockIdx.x + tx;
    float s = 0.0f;
    for (int p = 0; p < k; p += TW) {
        sa[ty][tx] = (r < m && p + tx < k) ? a[r * k + p + tx] : 0.0f;
        sb[ty][tx] = (cc < n && p + ty < k) ? b[(p + ty) * n + cc] : 0.0f;
        __syncthreads();
        for (int q = 0; q < TW; ++q) s += sa[ty][q] * sb[q][tx];
        __syncthreads();
    }
    if (r < m && cc < n) c[r * n + cc] = s;
}
"""

# right but unusual: the tile is a template parameter after a type parameter
GEMM_TEMPLATE_TYPED = """
template <typename real, int BS>
__global__ void gemm_t(const real *A, const real *B, real *C, int M, int N, int K) {
    __shared__ real a_s[BS][BS], b_s[BS][BS];
    int i = blockIdx.y * BS + threadIdx.y, j = blockIdx.x * BS + threadIdx.x;
    real v = 0;
    for (int t = 0; t < K; t += BS) {
        a_s[threadIdx.y][threadIdx.x] = (i < M && t + threadIdx.x < K) ? A[i * K + t + threadIdx.x] : 0;
        b_s[threadIdx.y][threadIdx.x] = (j < N && t + threadIdx.y < K) ? B[(t + threadIdx.y) * N + j] : 0;
        __syncthreads();
        for (int q = 0; q < BS; ++q) v += a_s[threadIdx.y][q] * b_s[q][threadIdx.x];
        __syncthreads();
    }
    if (i < M && j < N) C[i * N + j] = v;
}
"""

# right but unusual: a 1-D kernel that stages x through shared memory in blocks of the macro's size
GEMV_STAGED = """
#define THREADS 128
__global__ void gemv_staged(int rows, int cols, const double *A, const double *x, double *y) {
    __shared__ double xs[THREADS];
    int r = blockIdx.x * THREADS + threadIdx.x;
    double s = 0.0;
    for (int c0 = 0; c0 < cols; c0 += THREADS) {
        xs[threadIdx.x] = (c0 + threadIdx.x < cols) ? x[c0 + threadIdx.x] : 0.0;
        __syncthreads();
        for (int e = 0; e < THREADS && c0 + e < cols; ++e)
            if (r < rows) s += A[(long)r * cols + c0 + e] * xs[e];
        __syncthreads();
    }
    if (r < rows) y[r] = s;
}
"""

# indexes by blockDim: right on any block, the default launch stands
AXPY_BLOCKDIM = """
__global__ void daxpy(int n, double a, const double *x, double *y) {
    int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < n) y[i] += a * x[i];
}
"""

# subtly wrong: the tile loads index B by the wrong tile offset (t instead of t * TS): fails on the implied launch
GEMM_WRONG_TILE = GEMM_CONSTEXPR.replace("bk = t * TILE_DIM + threadIdx.y", "bk = t + threadIdx.y")

# does not compile (a missing semicolon): stays build_error whatever launch the harness would pick
GEMM_BROKEN = GEMM_CONSTEXPR.replace("double acc = 0.0;", "double acc = 0.0")


@pytest.mark.parametrize("body,d,expected", [
    ("int r = blockIdx.y * TS + threadIdx.y;", "y", "TS"),
    ("int c = threadIdx.x + blockIdx.x * TILE;", "x", "TILE"),
    ("int tx = threadIdx.x; int c = TW * blockIdx.x + tx;", "x", "TW"),
    ("int c = threadIdx.x + 32 * blockIdx.x;", "x", "32"),
    ("int i = blockIdx.x * blockDim.x + threadIdx.x;", "x", None),
    ("int i = blockDim.x * blockIdx.x + threadIdx.x;", "x", None),
    ("int i = threadIdx.x;", "x", None),
    ("int j = blockIdx.x * (BS) + threadIdx.x;", "x", "(BS)"),
])
def test_the_stride_of_the_block_index(body, d, expected):
    assert block_stride(body, d) == expected


@pytest.mark.parametrize("code,kernel,model,block,targs", [
    (GEMM_CONSTEXPR, "gemm", "cpp-cuda", "TILE_DIM, TILE_DIM, 1", ""),
    (GEMM_ALIASES, "gemm", "cpp-cuda", "(8), (8), 1", ""),
    (GEMM_TEMPLATE_TYPED, "gemm", "cpp-cuda", "16, 16, 1", "<double, 16>"),
    (GEMV_STAGED, "gemv", "cpp-hip", "(128), 1, 1", ""),
], ids=["constexpr", "aliases", "template-typed", "gemv-staged-hip"])
def test_the_implied_block_is_launched(catalog, code, kernel, model, block, targs):
    b = _bind(catalog, code, kernel, model)
    assert b.error is None, b.error
    setup = "\n".join(b.setup)
    assert f"hp_block = dim3({block})" in setup, setup
    assert f"{targs}<<<hp_grid, hp_block>>>" in (b.call or ""), b.call
    assert "index arithmetic implies" in b.evidence, b.evidence


def test_a_blockdim_kernel_keeps_the_default_launch(catalog):
    b = _bind(catalog, AXPY_BLOCKDIM, "axpy", "cpp-cuda")
    assert b.error is None and "hp_block(256, 1, 1)" in "\n".join(b.setup), b.setup
    assert "blockDim" in b.evidence, b.evidence


@needs_nvcc
@pytest.mark.parametrize("code,kernel,model", [(GEMM_CONSTEXPR, "gemm", "cpp-cuda"), (GEMM_ALIASES, "gemm", "cpp-cuda"),
                                               (GEMM_TEMPLATE_TYPED, "gemm", "cpp-cuda"),
                                               (GEMV_STAGED, "gemv", "cpp-cuda")],
                         ids=["constexpr", "aliases", "template-typed", "gemv-staged"])
def test_the_rendered_units_compile(catalog, code, kernel, model):
    b = _bind(catalog, code, kernel, model)
    result = _built(catalog, code, kernel, model, b)
    assert result is not None and result.returncode == 0, (result.stderr or result.stdout)[-2000:]


@needs_nvcc
def test_a_broken_tiled_kernel_does_not_build(catalog):
    """(On a GPU it is build_error: GPU_CASES.)"""
    b = _bind(catalog, GEMM_BROKEN, "gemm", "cpp-cuda")
    result = _built(catalog, GEMM_BROKEN, "gemm", "cpp-cuda", b)
    assert result is not None and result.returncode != 0 and "expected a \";\"" in (result.stderr + result.stdout)


GPU_CASES = [(GEMM_CONSTEXPR, "gemm", "cpp-cuda", "correct"), (GEMM_ALIASES, "gemm", "cpp-cuda", "correct"),
             (GEMM_TEMPLATE_TYPED, "gemm", "cpp-cuda", "correct"), (GEMV_STAGED, "gemv", "cpp-cuda", "correct"),
             (GEMV_STAGED, "gemv", "cpp-hip", "correct"), (AXPY_BLOCKDIM, "axpy", "cpp-cuda", "correct"),
             (GEMM_WRONG_TILE, "gemm", "cpp-cuda", "wrong_result"), (GEMM_BROKEN, "gemm", "cpp-cuda", "build_error")]


@pytest.mark.parametrize("code,kernel,model,want", GPU_CASES, ids=[f"{k}-{m}-{i}" for i, (_, k, m, _) in
                                                                  enumerate(GPU_CASES)])
@gpu[0]
@gpu[1]
def test_verdicts_on_a_gpu(catalog, evaluator, code, kernel, model, want):
    from hpceval.bind import choose_binding

    spec, m = catalog.kernels[kernel], catalog.models[model]
    e = evaluator.evaluate(code, spec, m, choose_binding(code, spec, catalog.languages["cpp"], "paper", m))
    assert e.verdict.value == want, e.evidence[-1500:]


# subtly wrong: the row length used as the block stride (an indexing slip); one block of n threads would hide it
AXPY_SIZE_STRIDE = """
__global__ void saxpy_k(int n, float a, const float *x, float *y) {
    int i = blockIdx.x * n + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
"""


def test_a_parameter_as_the_block_stride_implies_nothing(catalog):
    b = _bind(catalog, AXPY_SIZE_STRIDE, "axpy", "cpp-cuda")
    assert b.error is None and "hp_block(256, 1, 1)" in "\n".join(b.setup), b.setup
    assert "its block stride is its own parameter n" in b.evidence, b.evidence
