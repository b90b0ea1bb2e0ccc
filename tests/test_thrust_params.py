"""Thrust containers and cuBLAS handles as parameters (cpp-thrust, cpp-cuda), written as unseen LLM output.

A function that takes `thrust::device_vector<T>&` / `const&` or `thrust::host_vector<T>` gets a container of that
type built from the driver's std::vector before the timed call, and (when the function may write it) copied back
after it; a separate output (out-of-place AXPY's `z`) comes back to its canonical target. A `cublasHandle_t`
parameter takes no kernel role: the driver creates the handle once and destroys it at exit.

CPU-runnable: the binding's glue text and nvcc compile-only of the rendered unit. `@pytest.mark.gpu`: the verdicts
end to end (right-but-unusual, subtly wrong, wrong model, build error).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hpceval.bind import choose_binding
from hpceval.toolchains.cuda import nvcc_path
from test_gpu_launch_from_main import _bind, _built, gpu, needs_nvcc


def _has_cublas() -> bool:
    """cuBLAS's headers beside nvcc (a toolkit without the math libraries has none: those units build on the GPU
    machine only)."""
    if nvcc_path() is None:
        return False
    root = Path(nvcc_path()).resolve().parent.parent
    return any(root.glob("include/cublas_v2.h")) or any(root.glob("targets/*/include/cublas_v2.h"))


needs_cublas = pytest.mark.skipif(not _has_cublas(), reason="cuBLAS headers not installed")


# right but unusual: device vectors by (const) reference, a functor, single precision as the prompt asks
SAXPY_DEVICE = """
#include <thrust/device_vector.h>
#include <thrust/transform.h>

struct saxpy_functor {
  const float a;
  saxpy_functor(float _a) : a(_a) {}
  __host__ __device__ float operator()(const float &x, const float &y) const { return a * x + y; }
};

void saxpy(float a, const thrust::device_vector<float> &x, thrust::device_vector<float> &y) {
  thrust::transform(x.begin(), x.end(), y.begin(), y.begin(), saxpy_functor(a));
}
"""

# right but unusual: host vectors in and out, the function moves them to the device itself
GEMV_HOST = """
#include <thrust/host_vector.h>
#include <thrust/device_vector.h>
#include <thrust/inner_product.h>

void gemv(int m, int n, const thrust::host_vector<double> &A, const thrust::host_vector<double> &x,
          thrust::host_vector<double> &y) {
  thrust::device_vector<double> dA = A, dx = x;
  for (int i = 0; i < m; ++i)
    y[i] = thrust::inner_product(dA.begin() + (size_t)i * n, dA.begin() + (size_t)(i + 1) * n, dx.begin(), 0.0);
}
"""

# right but unusual: a separate device_vector output (z = a*x + y), a lambda
AXPY_OUT = """
#include <thrust/device_vector.h>
#include <thrust/transform.h>

void axpy(double alpha, const thrust::device_vector<double> &x, const thrust::device_vector<double> &y,
          thrust::device_vector<double> &z) {
  thrust::transform(x.begin(), x.end(), y.begin(), z.begin(),
                    [=] __device__ (double xi, double yi) { return alpha * xi + yi; });
}
"""

# cpp-cuda: a host function on device vectors that launches its own kernel on their raw pointers
CUDA_RAW = """
#include <thrust/device_vector.h>

__global__ void saxpy_kernel(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

void saxpy(int n, float a, thrust::device_vector<float> &x, thrust::device_vector<float> &y) {
  saxpy_kernel<<<(n + 255) / 256, 256>>>(n, a, thrust::raw_pointer_cast(x.data()), thrust::raw_pointer_cast(y.data()));
  cudaDeviceSynchronize();
}
"""

# subtly wrong: the transform stops one element short
SAXPY_SHORT = SAXPY_DEVICE.replace("x.begin(), x.end(), y.begin()", "x.begin(), x.end() - 1, y.begin()")

# wrong model: device vectors in the signature, the work in a host loop over host copies
SAXPY_HOST_LOOP = """
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>

void saxpy(float a, const thrust::device_vector<float> &x, thrust::device_vector<float> &y) {
  thrust::host_vector<float> hx = x, hy = y;
  for (size_t i = 0; i < hx.size(); ++i) hy[i] = a * hx[i] + hy[i];
  y = hy;
}
"""

# must stay a build error: a missing semicolon
SAXPY_BUILD_ERROR = SAXPY_DEVICE.replace("saxpy_functor(a));", "saxpy_functor(a))")

# cuBLAS: a handle the caller owns, raw device pointers
GEMV_CUBLAS = """
#include <cublas_v2.h>

// A is row-major m x n; x, y device pointers
void gemv(cublasHandle_t handle, int m, int n, const double *A, const double *x, double *y) {
  const double one = 1.0, zero = 0.0;
  cublasDgemv(handle, CUBLAS_OP_T, n, m, &one, A, n, x, 1, &zero, y, 1);
  cudaDeviceSynchronize();
}
"""

# cuBLAS and device vectors together
AXPY_CUBLAS_THRUST = """
#include <cublas_v2.h>
#include <thrust/device_vector.h>

void saxpy(cublasHandle_t h, int n, float a, const thrust::device_vector<float> &x, thrust::device_vector<float> &y) {
  cublasSaxpy(h, n, &a, thrust::raw_pointer_cast(x.data()), 1, thrust::raw_pointer_cast(y.data()), 1);
  cudaDeviceSynchronize();
}
"""


CASES = [(SAXPY_DEVICE, "axpy", "cpp-thrust"), (GEMV_HOST, "gemv", "cpp-thrust"), (AXPY_OUT, "axpy", "cpp-thrust"),
         (CUDA_RAW, "axpy", "cpp-cuda"), (SAXPY_SHORT, "axpy", "cpp-thrust"), (SAXPY_HOST_LOOP, "axpy", "cpp-thrust"),
         (AXPY_CUBLAS_THRUST, "axpy", "cpp-cuda")]
IDS = ["device-ref", "host-vectors", "separate-output", "cuda-raw-pointers", "short", "host-loop", "cublas-thrust"]


@pytest.mark.parametrize("code,kernel,model", CASES, ids=IDS)
def test_thrust_containers_bind(catalog, code, kernel, model):
    b = _bind(catalog, code, kernel, model)
    assert not b.error, b.error
    text = "\n".join([*b.setup, *b.args, *b.teardown])
    assert "thrust::" in text and not any(".data()" in a for a in b.args), (b.setup, b.args)


def test_device_vector_inputs_built_and_outputs_copied_back(catalog):
    b = _bind(catalog, SAXPY_DEVICE, "axpy", "cpp-thrust")
    assert any(s.startswith("thrust::device_vector<float> hp_tv_x(") for s in b.setup), b.setup
    assert any(s.startswith("thrust::device_vector<float> hp_tv_y(") for s in b.setup), b.setup
    assert b.args == ["a", "hp_tv_x", "hp_tv_y"], b.args
    assert any("thrust::copy(hp_tv_y.begin(), hp_tv_y.end()" in s for s in b.teardown), b.teardown
    assert not any("hp_tv_x.begin(), hp_tv_x.end()" in s for s in b.teardown), "a const input is not copied back"
    assert any("device_vector" in n for n in b.evidence.split("; ")), b.evidence


def test_host_vector_is_a_host_vector(catalog):
    b = _bind(catalog, GEMV_HOST, "gemv", "cpp-thrust")
    assert any(s.startswith("thrust::host_vector<double> hp_tv_y(") for s in b.setup), b.setup
    assert any("thrust::copy(hp_tv_y.begin(), hp_tv_y.end()" in s for s in b.teardown), b.teardown


def test_separate_device_vector_output_reaches_its_target(catalog):
    b = _bind(catalog, AXPY_OUT, "axpy", "cpp-thrust")
    assert b.variant == "out_of_place", b.variant
    assert any("thrust::device_vector<double>" in s and "NAN" in s for s in b.setup), b.setup
    assert any("hpceval_take_back" in s and ", y," in s for s in b.teardown), b.teardown


@pytest.mark.parametrize("code,kernel", [(GEMV_CUBLAS, "gemv"), (AXPY_CUBLAS_THRUST, "axpy")], ids=["raw", "thrust"])
def test_cublas_handle_is_created_by_the_driver(catalog, code, kernel):
    b = _bind(catalog, code, kernel, "cpp-cuda")
    assert not b.error, b.error
    setup = "\n".join(b.setup)
    assert "cublasCreate(" in setup and "cublasDestroy(" in setup, setup
    call = b.call or f"{b.function}({', '.join(b.args)})"
    assert f"{b.function}(hp_ctx_" in call, call
    assert "cublasHandle_t" in b.evidence or "cuBLAS handle" in b.evidence, b.evidence


@needs_nvcc
@pytest.mark.parametrize("code,kernel,model", [
    *(pytest.param(*c, marks=needs_cublas) if "cublas" in c[0] else c for c in CASES),
    pytest.param(GEMV_CUBLAS, "gemv", "cpp-cuda", marks=needs_cublas)], ids=[*IDS, "cublas-raw"])
def test_rendered_units_compile(catalog, code, kernel, model):
    b = _bind(catalog, code, kernel, model)
    result = _built(catalog, code, kernel, model, b)
    assert result is not None and result.returncode == 0, (result.stderr or result.stdout)[-2000:]


@needs_nvcc
def test_syntax_error_stays_a_build_error(catalog):
    b = _bind(catalog, SAXPY_BUILD_ERROR, "axpy", "cpp-thrust")
    result = _built(catalog, SAXPY_BUILD_ERROR, "axpy", "cpp-thrust", b)
    assert result is not None and result.returncode != 0


E2E = [(SAXPY_DEVICE, "axpy", "cpp-thrust", {"correct"}), (GEMV_HOST, "gemv", "cpp-thrust", {"correct"}),
       (AXPY_OUT, "axpy", "cpp-thrust", {"correct"}), (CUDA_RAW, "axpy", "cpp-cuda", {"correct"}),
       (GEMV_CUBLAS, "gemv", "cpp-cuda", {"correct"}), (AXPY_CUBLAS_THRUST, "axpy", "cpp-cuda", {"correct"}),
       (SAXPY_SHORT, "axpy", "cpp-thrust", {"wrong_result"}), (SAXPY_HOST_LOOP, "axpy", "cpp-thrust", {"wrong_model"}),
       (SAXPY_BUILD_ERROR, "axpy", "cpp-thrust", {"build_error"})]


@pytest.mark.parametrize("code,kernel,model,verdicts", E2E, ids=[f"{k}-{m}-{i}" for i, (_, k, m, _) in enumerate(E2E)])
@gpu[0]
@gpu[1]
def test_verdicts_on_a_gpu(evaluator, catalog, code, kernel, model, verdicts):
    assert_verdict(evaluator, catalog, code, kernel, model, verdicts)


def assert_verdict(evaluator, catalog, code: str, kernel: str, model: str, verdicts: set[str]) -> None:
    """The suggestion's verdict, end to end, is one of `verdicts`."""
    spec, m = catalog.kernels[kernel], catalog.models[model]
    ev = evaluator.evaluate(code, spec, m, choose_binding(code, spec, catalog.languages[m.language], "paper", m))
    assert ev.verdict in verdicts, f"{ev.verdict}: {ev.evidence[-1500:]}"
