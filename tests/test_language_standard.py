"""Code written for a newer language standard is built with it before it is called a build_error.

The C++ toolchains build with -std=c++17. LLM answers use C++20 freely (`std::span` parameters, ranges,
designated initializers, `<numbers>`), and such right code was `build_error`: a failure of the harness's flags
charged to the LLM. A unit that does not build with the default standard is built again with each newer one
(the build and the compile-first check alike); what builds is graded, with the standard named in the evidence.
Code that builds with the default keeps it (C++17 code that C++20 rejects stays right), and code that builds
with no standard stays `build_error` with the default's error, as before. Written as unseen answers, in each C++
model that builds and runs here, before the mechanism."""

from __future__ import annotations

import pytest

from hpceval.contracts import Verdict

SPAN_AXPY = """#include <span>
#include <omp.h>

void axpy(double a, std::span<const double> x, std::span<double> y) {
    #pragma omp parallel for
    for (std::size_t i = 0; i < y.size(); ++i) {
        y[i] += a * x[i];
    }
}
"""

RANGES_GEMV = """#include <vector>
#include <ranges>
#include <numeric>

// y = A x, A row-major m x n
void gemv(int m, int n, const double* A, const double* x, double* y) {
    #pragma omp parallel for schedule(static)
    for (int i = 0; i < m; ++i) {
        auto row = std::views::iota(0, n);
        double s = 0.0;
        for (int j : row) s += A[(long)i * n + j] * x[j];
        y[i] = s;
    }
}
"""

DESIGNATED_SPMV = """#include <span>

struct Csr {
    int rows;
    const int* row_ptr;
    const int* cols;
    const double* vals;
};

static double row_dot(const Csr& m, int r, const double* x) {
    double s = 0.0;
    for (int k = m.row_ptr[r]; k < m.row_ptr[r + 1]; ++k) s += m.vals[k] * x[m.cols[k]];
    return s;
}

void spmv(int nrows, const int* row_ptr, const int* col_idx, const double* values, const double* x, double* y) {
    const Csr m{.rows = nrows, .row_ptr = row_ptr, .cols = col_idx, .vals = values};
    #pragma omp parallel for
    for (int r = 0; r < m.rows; ++r) y[r] = row_dot(m, r, x);
}
"""

SPAN_AXPY_WRONG = SPAN_AXPY.replace("y[i] += a * x[i];", "y[i] = a * x[i] + x[i];")
SPAN_AXPY_SERIAL = SPAN_AXPY.replace("    #pragma omp parallel for\n", "")

# C++17 code that C++20 rejects (a u8 literal is const char8_t[] there): built with the default, it stays right
CXX17_ONLY_AXPY = """#include <cstdio>

static const char* label = u8"axpy";

void axpy(int n, double a, const double* x, double* y) {
    #pragma omp parallel for
    for (int i = 0; i < n; ++i) y[i] += a * x[i];
    if (n < 0) std::puts(label);
}
"""

# fails in every standard: the default's error is the evidence, as before
BROKEN_SPAN_AXPY = SPAN_AXPY.replace("y[i] += a * x[i];", "y[i] += a * x[i]")

OFFLOAD_SPAN_AXPY = """#include <span>

void axpy(double a, std::span<const double> x, std::span<double> y) {
    const double* xp = x.data();
    double* yp = y.data();
    const std::size_t n = y.size();
    #pragma omp target teams distribute parallel for map(to: xp[0:n]) map(tofrom: yp[0:n])
    for (std::size_t i = 0; i < n; ++i) yp[i] += a * xp[i];
}
"""

SYCL_SPAN_AXPY = """#include <sycl/sycl.hpp>
#include <span>

void axpy(double a, std::span<const double> x, std::span<double> y) {
    sycl::queue q;
    const std::size_t n = y.size();
    {
        sycl::buffer<double> bx(x.data(), sycl::range<1>(n));
        sycl::buffer<double> by(y.data(), sycl::range<1>(n));
        q.submit([&](sycl::handler& h) {
            sycl::accessor ax(bx, h, sycl::read_only);
            sycl::accessor ay(by, h, sycl::read_write);
            h.parallel_for(sycl::range<1>(n), [=](sycl::id<1> i) { ay[i] += a * ax[i]; });
        });
    }
}
"""

KOKKOS_SPAN_AXPY = """#include <Kokkos_Core.hpp>
#include <span>

void axpy(double a, std::span<const double> x, std::span<double> y) {
    const double* xp = x.data();
    double* yp = y.data();
    Kokkos::parallel_for("axpy", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, y.size()),
                         KOKKOS_LAMBDA(const std::size_t i) { yp[i] += a * xp[i]; });
    Kokkos::fence();
}
"""

CASES = [
    ("span-axpy", SPAN_AXPY, "axpy", "cpp-openmp", Verdict.correct),
    ("ranges-gemv", RANGES_GEMV, "gemv", "cpp-openmp", Verdict.correct),
    ("designated-init-spmv", DESIGNATED_SPMV, "spmv", "cpp-openmp", Verdict.correct),
    ("span-axpy-openacc-model", SPAN_AXPY, "axpy", "cpp-openacc", Verdict.wrong_model),
    ("span-axpy-subtly-wrong", SPAN_AXPY_WRONG, "axpy", "cpp-openmp", Verdict.wrong_result),
    ("span-axpy-serial", SPAN_AXPY_SERIAL, "axpy", "cpp-openmp", Verdict.wrong_model),
    ("cxx17-only-u8-literal", CXX17_ONLY_AXPY, "axpy", "cpp-openmp", Verdict.correct),
    ("span-axpy-missing-semicolon", BROKEN_SPAN_AXPY, "axpy", "cpp-openmp", Verdict.build_error),
    ("offload-span-axpy", OFFLOAD_SPAN_AXPY, "axpy", "cpp-openmp-offload", Verdict.correct),
    ("sycl-span-axpy", SYCL_SPAN_AXPY, "axpy", "cpp-sycl", Verdict.correct),
    ("kokkos-span-axpy", KOKKOS_SPAN_AXPY, "axpy", "cpp-kokkos", Verdict.correct),
]


@pytest.mark.parametrize("code,kernel,model,verdict", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_newer_standard_code_is_graded_as_written(paper_verdict, code, kernel, model, verdict):
    e = paper_verdict(code, kernel, model, verdict)
    if verdict == Verdict.correct and ("std::span" in code or "views::" in code):
        assert "built as C++20 (as C++17: " in e.evidence  # says which standard built it, and why
    if "u8\"" in code or ".rows =" in code:  # g++ builds both as C++17 (designated initializers as an extension)
        assert "C++20" not in e.evidence  # the default built it: never switched
    if verdict == Verdict.build_error:
        # the default's errors as before, then the newest standard's own first error (the real one here)
        assert e.evidence.startswith("kernel.cpp") and "span" in e.evidence.split("\n")[0]
        assert "\nas C++20: " in e.evidence and "expected ‘;’" in e.evidence.split("\nas C++20: ")[1]


def test_nvcc_builds_a_cuda_unit_that_needs_cxx20():
    """The CUDA toolchain (compiles here, runs on the device): a host wrapper taking spans builds as C++20."""
    import shutil

    if shutil.which("nvcc") is None:
        pytest.skip("no nvcc")
    from hpceval.bind import choose_binding
    from hpceval.executors import get_executor
    from hpceval.spec import catalog
    from hpceval.toolchains.cuda import build_only

    code = """#include <span>
__global__ void axpy_kernel(int n, double a, const double* x, double* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] += a * x[i];
}
void axpy(double a, std::span<const double> x, std::span<double> y) {
    double *dx, *dy;
    int n = (int)y.size();
    cudaMalloc(&dx, n * sizeof(double)); cudaMalloc(&dy, n * sizeof(double));
    cudaMemcpy(dx, x.data(), n * sizeof(double), cudaMemcpyHostToDevice);
    cudaMemcpy(dy, y.data(), n * sizeof(double), cudaMemcpyHostToDevice);
    axpy_kernel<<<(n + 255) / 256, 256>>>(n, a, dx, dy);
    cudaMemcpy(y.data(), dy, n * sizeof(double), cudaMemcpyDeviceToHost);
    cudaFree(dx); cudaFree(dy);
}
"""
    cat = catalog()
    spec, model = cat.kernels["axpy"], cat.models["cpp-cuda"]
    binding = choose_binding(code, spec, cat.languages["cpp"], "paper", model)
    result = build_only(code, spec, model, get_executor("local"), binding=binding)
    assert result is not None and result.returncode == 0, result.tail[-800:] if result else None
