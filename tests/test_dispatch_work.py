"""Kokkos and SYCL: a parallel dispatch does the work that writes the outputs, not a host loop beside it.

The usage check only asks whether `Kokkos::parallel_for` (or a SYCL `parallel_for`) is present, and the dynamic
check whether a dispatch ran; a Kokkos GEMM that zeroes its result View in a `parallel_for` and then computes the
product in a plain triple loop, copying the View into C at the end, passed both as `correct`. The directive models'
analysis (analysis.parallel_work) now reads the dispatches' lambdas as the constructs of these two models, and a
copy out of a local temporary (a View, a USM allocation, a vector) is followed to the loops that computed the
temporary, in every model. Written as unseen answers before the change: right but unusual (View aliases, MDRange,
team policies, functors, USM, buffers), wrong model, and code that must stay `build_error`.
"""

from __future__ import annotations

import pytest

from hpceval.analysis.parallel_work import family, serial_work_problem
from hpceval.contracts import Verdict

KOKKOS_GEMM_SERIAL = """
#include <Kokkos_Core.hpp>
using Matrix = Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace>;

void gemm(int m, int n, int k, const double* A, const double* B, double* C)
{
    Matrix Cv("C", m, n);
    Kokkos::parallel_for("zero_C", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, m),
        KOKKOS_LAMBDA(const int i) {
            for (int j = 0; j < n; ++j) Cv(i, j) = 0.0;
        });
    Kokkos::fence();
    for (int i = 0; i < m; ++i)
        for (int p = 0; p < k; ++p) {
            const double a_ip = A[i * k + p];
            for (int j = 0; j < n; ++j)
                Cv(i, j) += a_ip * B[p * n + j];
        }
    for (int i = 0; i < m; ++i)
        for (int j = 0; j < n; ++j)
            C[i * n + j] = Cv(i, j);
}
"""

KOKKOS_GEMV_TOKEN_ZERO = """
#include <Kokkos_Core.hpp>
void gemv(int m, int n, const double* A, const double* x, double* y) {
  Kokkos::parallel_for("clear", m, KOKKOS_LAMBDA(const int i) { y[i] = 0.0; });
  Kokkos::fence();
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++)
      y[i] += A[i * n + j] * x[j];
}
"""

KOKKOS_GEMV_REDUCE_TOKEN = """
#include <Kokkos_Core.hpp>
void gemv(int m, int n, const double* A, const double* x, double* y) {
  double norm = 0.0;
  Kokkos::parallel_reduce("xnorm", n, KOKKOS_LAMBDA(const int j, double& s) { s += x[j] * x[j]; }, norm);
  if (norm == 0.0) { for (int i = 0; i < m; i++) y[i] = 0.0; return; }
  for (int i = 0; i < m; i++) {
    double s = 0.0;
    for (int j = 0; j < n; j++) s += A[i * n + j] * x[j];
    y[i] = s;
  }
}
"""

KOKKOS_JACOBI_MDRANGE = """
#include <Kokkos_Core.hpp>
using Grid = Kokkos::View<double***>;
using ConstGrid = Kokkos::View<const double***>;
using Policy3D = Kokkos::MDRangePolicy<Kokkos::Rank<3>>;
void jacobi(ConstGrid u, Grid unew) {
  const int nx = u.extent(0), ny = u.extent(1), nz = u.extent(2);
  if (nx < 3 || ny < 3 || nz < 3) return;
  Kokkos::parallel_for("jacobi", Policy3D({1, 1, 1}, {nx - 1, ny - 1, nz - 1}),
    KOKKOS_LAMBDA(const int i, const int j, const int k) {
      unew(i, j, k) = (u(i - 1, j, k) + u(i + 1, j, k) + u(i, j - 1, k) + u(i, j + 1, k)
                       + u(i, j, k - 1) + u(i, j, k + 1)) / 6.0;
    });
  Kokkos::fence();
}
"""

KOKKOS_GEMV_TEAM = """
#include <Kokkos_Core.hpp>
using namespace Kokkos;
void gemv(int m, int n, const double* A, const double* x, double* y) {
  using team_t = TeamPolicy<>::member_type;
  parallel_for("gemv", TeamPolicy<>(m, AUTO), KOKKOS_LAMBDA(const team_t& t) {
    const int i = t.league_rank();
    double sum = 0.0;
    parallel_reduce(TeamThreadRange(t, n), [&](const int j, double& s) { s += A[i * n + j] * x[j]; }, sum);
    single(PerTeam(t), [&]() { y[i] = sum; });
  });
  fence();
}
"""

KOKKOS_AXPY_COPY_FROM_PARALLEL = """
#include <Kokkos_Core.hpp>
void saxpy(int n, float a, const float* x, float* y) {
  Kokkos::View<float*> out("out", n);
  Kokkos::parallel_for(n, KOKKOS_LAMBDA(const int i) { out(i) = a * x[i] + y[i]; });
  Kokkos::fence();
  for (int i = 0; i < n; ++i) y[i] = out(i);
}
"""

KOKKOS_FUNCTOR = """
#include <Kokkos_Core.hpp>
struct Axpy {
  float a; const float* x; float* y;
  KOKKOS_INLINE_FUNCTION void operator()(const int i) const { y[i] = a * x[i] + y[i]; }
};
void saxpy(int n, float a, const float* x, float* y) {
  Kokkos::parallel_for("axpy", Kokkos::RangePolicy<>(0, n), Axpy{a, x, y});
  Kokkos::fence();
}
"""

SYCL_AXPY_USM = """
#include <sycl/sycl.hpp>
void saxpy(sycl::queue& q, int n, float a, const float* x, float* y) {
  float* d_x = sycl::malloc_device<float>(n, q);
  float* d_y = sycl::malloc_device<float>(n, q);
  q.memcpy(d_x, x, n * sizeof(float));
  q.memcpy(d_y, y, n * sizeof(float)).wait();
  q.parallel_for(sycl::range<1>(n), [=](sycl::id<1> i) { d_y[i] = a * d_x[i] + d_y[i]; }).wait();
  q.memcpy(y, d_y, n * sizeof(float)).wait();
  sycl::free(d_x, q);
  sycl::free(d_y, q);
}
"""

SYCL_GEMM_HOST_LOOP = """
#include <sycl/sycl.hpp>
void gemm(int m, int n, int k, const double* A, const double* B, double* C) {
  sycl::queue q;
  double* c = sycl::malloc_shared<double>(m * n, q);
  q.parallel_for(sycl::range<1>(m * n), [=](sycl::id<1> i) { c[i] = 0.0; }).wait();
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double s = 0.0;
      for (int p = 0; p < k; ++p) s += A[i * k + p] * B[p * n + j];
      c[i * n + j] = s;
    }
  for (int i = 0; i < m * n; ++i) C[i] = c[i];
  sycl::free(c, q);
}
"""

SYCL_GEMV_BUFFERS = """
#include <sycl/sycl.hpp>
void gemv(int m, int n, const double* A, const double* x, double* y) {
  sycl::queue q;
  {
    sycl::buffer<double, 1> bA(A, sycl::range<1>(m * n)), bx(x, sycl::range<1>(n)), by(y, sycl::range<1>(m));
    q.submit([&](sycl::handler& h) {
      auto a = bA.get_access<sycl::access::mode::read>(h);
      auto v = bx.get_access<sycl::access::mode::read>(h);
      auto out = by.get_access<sycl::access::mode::write>(h);
      h.parallel_for<class gemv_rows>(sycl::range<1>(m), [=](sycl::id<1> i) {
        double s = 0.0;
        for (int j = 0; j < n; ++j) s += a[i[0] * n + j] * v[j];
        out[i] = s;
      });
    });
  }
}
"""

SYCL_AXPY_HOST_ACCESSOR_COPY = """
#include <CL/sycl.hpp>
class saxpy_kernel {
public:
  saxpy_kernel(float a, const float* x, float* y) : a(a), x(x), y(y) {}
  void operator()(cl::sycl::id<1> i) const { y[i] = a * x[i] + y[i]; }
private:
  float a; const float* x; float* y;
};
void saxpy(float a, const float* x, float* y, int n) {
  cl::sycl::queue q;
  cl::sycl::buffer<float, 1> x_buf(x, cl::sycl::range<1>(n));
  cl::sycl::buffer<float, 1> y_buf(y, cl::sycl::range<1>(n));
  q.submit([&](cl::sycl::handler& cgh) {
    auto x_acc = x_buf.template get_access<cl::sycl::access::mode::read>(cgh);
    auto y_acc = y_buf.template get_access<cl::sycl::access::mode::read_write>(cgh);
    saxpy_kernel k(a, x_acc.get_pointer(), y_acc.get_pointer());
    cgh.parallel_for<class saxpy_kernel>(cl::sycl::range<1>(n), k);
  });
  auto y_acc = y_buf.template get_access<cl::sycl::access::mode::read>();
  for (int i = 0; i < n; ++i) {
    y[i] = y_acc[i];
  }
}
"""

KOKKOS_MIRROR_COPY = """
#include <Kokkos_Core.hpp>
void gemv(int m, int n, const double* A, const double* x, double* y) {
  Kokkos::View<double*> d_y("y", m);
  Kokkos::View<const double*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> hA(A, m * n), hx(x, n);
  auto dA = Kokkos::create_mirror_view_and_copy(Kokkos::DefaultExecutionSpace(), hA);
  auto dx = Kokkos::create_mirror_view_and_copy(Kokkos::DefaultExecutionSpace(), hx);
  Kokkos::parallel_for("rows", m, KOKKOS_LAMBDA(const int i) {
    double s = 0.0;
    for (int j = 0; j < n; ++j) s += dA(i * n + j) * dx(j);
    d_y(i) = s;
  });
  auto h_y = Kokkos::create_mirror_view(d_y);
  Kokkos::deep_copy(h_y, d_y);
  for (int i = 0; i < m; ++i) y[i] = h_y(i);
}
"""

OMP_SPMV_SERIAL_TEMP = """
#include <vector>
void spmv(int n, int nnz, const int* row_ptr, const int* col_idx, const double* values, const double* x, double* y) {
  std::vector<double> tmp(n);
  for (int i = 0; i < n; ++i) {
    double s = 0.0;
    for (int p = row_ptr[i]; p < row_ptr[i + 1]; ++p) s += values[p] * x[col_idx[p]];
    tmp[i] = s;
  }
  #pragma omp parallel for
  for (int i = 0; i < n; ++i) y[i] = tmp[i];
}
"""

OMP_SPMV_PARALLEL_TEMP = OMP_SPMV_SERIAL_TEMP.replace(
    "  for (int i = 0; i < n; ++i) {\n    double s", "  #pragma omp parallel for\n  for (int i = 0; i < n; ++i) {\n    double s")

# name, model, code, function, outputs, wrong model?
CASES = [
    ("kokkos-serial-product-copied-out-of-a-view", "cpp-kokkos", KOKKOS_GEMM_SERIAL, "gemm", {"C"}, True),
    ("kokkos-token-zeroing-dispatch", "cpp-kokkos", KOKKOS_GEMV_TOKEN_ZERO, "gemv", {"y"}, True),
    ("kokkos-token-reduction-beside-host-rows", "cpp-kokkos", KOKKOS_GEMV_REDUCE_TOKEN, "gemv", {"y"}, True),
    ("kokkos-mdrange-view-aliases", "cpp-kokkos", KOKKOS_JACOBI_MDRANGE, "jacobi", {"unew"}, False),
    ("kokkos-team-policy-nested-reduce", "cpp-kokkos", KOKKOS_GEMV_TEAM, "gemv", {"y"}, False),
    ("kokkos-copy-out-of-a-view-computed-in-parallel", "cpp-kokkos", KOKKOS_AXPY_COPY_FROM_PARALLEL, "saxpy", {"y"},
     False),
    ("kokkos-functor-dispatch", "cpp-kokkos", KOKKOS_FUNCTOR, "saxpy", {"y"}, False),
    ("sycl-usm-parallel-for", "cpp-sycl", SYCL_AXPY_USM, "saxpy", {"y"}, False),
    ("sycl-host-product-copied-out-of-shared-usm", "cpp-sycl", SYCL_GEMM_HOST_LOOP, "gemm", {"C"}, True),
    ("sycl-buffers-and-accessors", "cpp-sycl", SYCL_GEMV_BUFFERS, "gemv", {"y"}, False),
    ("sycl-host-accessor-copied-back", "cpp-sycl", SYCL_AXPY_HOST_ACCESSOR_COPY, "saxpy", {"y"}, False),
    ("kokkos-mirror-copied-back", "cpp-kokkos", KOKKOS_MIRROR_COPY, "gemv", {"y"}, False),
    ("openmp-parallel-copy-of-a-serial-temporary", "cpp-openmp", OMP_SPMV_SERIAL_TEMP, "spmv", {"y"}, True),
    ("openmp-parallel-temporary-copied", "cpp-openmp", OMP_SPMV_PARALLEL_TEMP, "spmv", {"y"}, False),
]


@pytest.mark.parametrize("name,model,code,function,outputs,wrong", CASES, ids=[c[0] for c in CASES])
def test_the_dispatch_writes_the_outputs(name, model, code, function, outputs, wrong, catalog):
    kind = family(catalog.models[model].usage)
    assert kind is not None, f"{model} has no construct family"
    problem = serial_work_problem(code, False, function, outputs, kind)
    if wrong:
        assert problem and "did not do the kernel's work" in problem, problem
    else:
        assert problem is None, problem


def test_the_evidence_names_the_temporary_and_the_output(catalog):
    problem = serial_work_problem(KOKKOS_GEMM_SERIAL, False, "gemm", {"C"}, family(catalog.models["cpp-kokkos"].usage))
    assert "Cv" in problem and "copied into C" in problem and "Kokkos" in problem, problem


@pytest.mark.parametrize("code,kernel,verdict", [
    (KOKKOS_GEMM_SERIAL, "gemm", Verdict.wrong_model),
    (KOKKOS_GEMM_SERIAL.replace("Cv(i, j) += a_ip", "Cv(i, j) += a_ip *"), "gemm", Verdict.build_error),
], ids=["serial-product-is-wrong-model", "broken-stays-build-error"])
def test_kokkos_end_to_end(code, kernel, verdict, paper_verdict):
    paper_verdict(code, kernel, "cpp-kokkos", verdict)
