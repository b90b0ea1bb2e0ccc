"""Kokkos suggestions written as an unseen LLM would: functors that only the suggestion's own `main` launches, and
code written for the CUDA backend graded in a build without CUDA.

The study's Kokkos prompts made Copilot write a functor (a struct with members and `operator()(int i)`) and a test
`main` that builds Views and calls `Kokkos::parallel_for(n, Functor(...))`. There is no host function the driver
could call and `main` is never built, so such a suggestion was `incomplete`, though a reader sees a correct Kokkos
kernel. The harness now launches the functor itself (bind/functor.py): its members are the parameters, the range
is the extent of the View the index subscripts first (or the functor's one integer member), and the grade is the
functor's own numbers."""

from __future__ import annotations

import pytest

from hpceval.contracts import Verdict

V = Verdict
MAIN_AXPY = """
int main(int argc, char **argv) {
  Kokkos::initialize(argc, argv);
  {
    const int N = 1 << 20;
    Kokkos::View<double *> x("x", N), y("y", N);
    Kokkos::deep_copy(x, 1.0);
    Kokkos::deep_copy(y, 2.0);
    Kokkos::parallel_for(N, %s);
    Kokkos::fence();
  }
  Kokkos::finalize();
  return 0;
}
"""

CASES = [
    ("axpy-functor-with-constructor", "axpy", """
#include <Kokkos_Core.hpp>

struct AxpyFunctor {
  double a;
  Kokkos::View<const double *> x;
  Kokkos::View<double *> y;
  AxpyFunctor(double a_, Kokkos::View<const double *> x_, Kokkos::View<double *> y_) : a(a_), x(x_), y(y_) {}
  KOKKOS_INLINE_FUNCTION
  void operator()(const int i) const { y(i) = a * x(i) + y(i); }
};
""" + MAIN_AXPY % "AxpyFunctor(2.0, x, y)", V.correct),
    ("axpy-aggregate-functor", "axpy", """
#include <Kokkos_Core.hpp>

struct Axpy {
  double a;
  Kokkos::View<double *> x, y;
  KOKKOS_INLINE_FUNCTION void operator()(int i) const {
    y(i) += a * x(i);
  }
};
""" + MAIN_AXPY % "Axpy{2.0, x, y}", V.correct),
    ("axpy-functor-forgets-y", "axpy", """
#include <Kokkos_Core.hpp>

struct Saxpy {
  double a;
  Kokkos::View<double *> x, y;
  KOKKOS_INLINE_FUNCTION void operator()(const int i) const { y(i) = a * x(i); }
};
""" + MAIN_AXPY % "Saxpy{2.0, x, y}", V.wrong_result),
    ("axpy-functor-raw-pointers", "axpy", """
#include <Kokkos_Core.hpp>

struct AxpyPtr {
  int n;
  double a;
  const double *x;
  double *y;
  KOKKOS_INLINE_FUNCTION void operator()(const int i) const {
    if (i < n) y[i] = a * x[i] + y[i];
  }
};

int main() {
  Kokkos::initialize();
  double *x = new double[100], *y = new double[100];
  Kokkos::parallel_for(100, AxpyPtr{100, 2.0, x, y});
  Kokkos::finalize();
}
""", V.correct),
    # raw pointers and no size member (the range was main's N): the launcher takes the size; then prose
    ("axpy-functor-pointers-no-size", "axpy", """
#include <Kokkos_Core.hpp>
#include <cstdio>

// Kokkos functor for saxpy
struct saxpy_functor {
  const double a;
  const double *x;
  double *y;

  saxpy_functor(double a_, const double *x_, double *y_) : a(a_), x(x_), y(y_) {}

  KOKKOS_INLINE_FUNCTION
  void operator()(const int i) const { y[i] = a * x[i] + y[i]; }
};

int main(int argc, char *argv[]) {
  Kokkos::initialize(argc, argv);
  int N = 1000;
  double *x = new double[N], *y = new double[N];
  saxpy_functor f(2.0, x, y);
  Kokkos::parallel_for(N, f);
  Kokkos::finalize();
  return 0;
}

Here is the output :

    0 0.000000 0.000000 1 1.000000 4.000000
""", V.correct),
    ("gemv-row-functor-pointers", "gemv", """
#include <Kokkos_Core.hpp>

struct MatVec {
  int ncols;
  const double *A, *x;
  double *y;
  KOKKOS_INLINE_FUNCTION void operator()(const int row) const {
    double s = 0;
    for (int c = 0; c < ncols; ++c) s += A[row * ncols + c] * x[c];
    y[row] = s;
  }
};
""", V.correct),
    ("gemv-row-functor", "gemv", """
#include <Kokkos_Core.hpp>

struct GemvRow {
  Kokkos::View<const double **> A;
  Kokkos::View<const double *> x;
  Kokkos::View<double *> y;
  GemvRow(Kokkos::View<const double **> A_, Kokkos::View<const double *> x_, Kokkos::View<double *> y_)
      : A(A_), x(x_), y(y_) {}
  KOKKOS_INLINE_FUNCTION void operator()(const int i) const {
    double sum = 0.0;
    for (int j = 0; j < (int)A.extent(1); ++j) sum += A(i, j) * x(j);
    y(i) = sum;
  }
};

int main(int argc, char *argv[]) {
  Kokkos::initialize(argc, argv);
  {
    int M = 1000, N = 500;
    Kokkos::View<double **> A("A", M, N);
    Kokkos::View<double *> x("x", N), y("y", M);
    Kokkos::parallel_for("gemv", M, GemvRow(A, x, y));
  }
  Kokkos::finalize();
}
""", V.correct),
    # a helper that only checks the result beside the functor: the functor is the kernel
    ("functor-with-a-check-helper", "axpy", """
#include <Kokkos_Core.hpp>
#include <cmath>
#include <cstdio>

struct Axpy {
  double a;
  Kokkos::View<const double *> x;
  Kokkos::View<double *> y;
  KOKKOS_INLINE_FUNCTION void operator()(const int i) const { y(i) = a * x(i) + y(i); }
};

bool check(int n, const double *expected, const double *got) {
  for (int i = 0; i < n; ++i)
    if (std::fabs(expected[i] - got[i]) > 1e-12) return false;
  return true;
}
""", V.correct),
    ("functor-cut-off", "axpy", """
#include <Kokkos_Core.hpp>

struct Axpy {
  double a;
  Kokkos::View<double *> x, y;
  KOKKOS_INLINE_FUNCTION void operator()(int i) const {
    y(i) = a * x(i) +
""", V.incomplete),
]


MAIN_2D = """
int main(int argc, char *argv[]) {
  Kokkos::initialize(argc, argv);
  {
    const int M = 512, N = 256, K = 128;
    Kokkos::View<double **> A("A", M, K), B("B", K, N), C("C", M, N);
    Kokkos::deep_copy(A, 1.0);
    Kokkos::deep_copy(B, 2.0);
    Kokkos::parallel_for("gemm", Kokkos::MDRangePolicy<Kokkos::Rank<2>>({0, 0}, {M, N}), %s);
    Kokkos::fence();
  }
  Kokkos::finalize();
}
"""

TEAM_GEMV = """
#include <Kokkos_Core.hpp>

struct RowDot {
  typedef Kokkos::TeamPolicy<>::member_type member_type;
  Kokkos::View<double **> A;
  Kokkos::View<double *> x, y;
  KOKKOS_INLINE_FUNCTION void operator()(const member_type &team) const {
    const int row = team.league_rank();
    double sum = 0.0;
    Kokkos::parallel_reduce(Kokkos::TeamThreadRange(team, (int)A.extent(1)),
                            [&](const int j, double &acc) { acc += A(row, j) * x(j); }, sum);
    Kokkos::single(Kokkos::PerTeam(team), [&]() { y(row) = sum; });
  }
};

int main(int argc, char *argv[]) {
  Kokkos::initialize(argc, argv);
  {
    const int M = 300, N = 200;
    Kokkos::View<double **> A("A", M, N);
    Kokkos::View<double *> x("x", N), y("y", M);
    Kokkos::parallel_for("gemv", Kokkos::TeamPolicy<>(M, Kokkos::AUTO), RowDot{A, x, y});
  }
  Kokkos::finalize();
}
"""

# Functor templates (the study's AXPY keyword r9 shape: `template <class ViewType> struct`, built in main with the
# View type as its argument, followed by the author's prose) and functors over two indices dispatched by an
# MDRangePolicy in main.
CASES += [
    ("templated-functor-out-of-place-then-prose", "axpy", """
#include <Kokkos_Core.hpp>

template <class ViewType>
struct AxpyInto {
  typedef typename ViewType::value_type value_type;
  ViewType z;
  ViewType x;
  ViewType y;
  value_type alpha;
  AxpyInto(const value_type alpha_, const ViewType &z_, const ViewType &x_, const ViewType &y_)
      : z(z_), x(x_), y(y_), alpha(alpha_) {}
  KOKKOS_INLINE_FUNCTION
  void operator()(const int i) const { z(i) = alpha * x(i) + y(i); }
};

int main(int argc, char *argv[]) {
  Kokkos::initialize(argc, argv);
  {
    const int N = 100000;
    Kokkos::View<double *> z("z", N), x("x", N), y("y", N);
    AxpyInto<Kokkos::View<double *>> op(3.0, z, x, y);
    Kokkos::parallel_for(N, op);
  }
  Kokkos::finalize();
  return 0;
}

When I run this on our cluster node (x86_64, CentOS 7, gcc 4.8) it crashes with a segmentation fault
before printing anything. What am I doing wrong?
""", V.correct),
    ("templated-functor-on-its-scalar-type", "axpy", """
#include <Kokkos_Core.hpp>

template <typename Scalar>
struct AxpyT {
  Scalar a;
  Kokkos::View<Scalar *> x;
  Kokkos::View<Scalar *> y;
  KOKKOS_INLINE_FUNCTION void operator()(const int i) const { y(i) = a * x(i) + y(i); }
};
""" + MAIN_AXPY % "AxpyT<double>{2.0, x, y}", V.correct),
    ("templated-functor-deduced-from-its-constructor", "axpy", """
#include <Kokkos_Core.hpp>

template <class V>
struct Saxpy {
  float a;
  V x, y;
  Saxpy(float a_, V x_, V y_) : a(a_), x(x_), y(y_) {}
  KOKKOS_INLINE_FUNCTION void operator()(int i) const { y(i) += a * x(i); }
};

int main(int argc, char **argv) {
  Kokkos::initialize(argc, argv);
  {
    Kokkos::View<float *> x("x", 1000), y("y", 1000);
    Kokkos::parallel_for(1000, Saxpy(2.0f, x, y));
  }
  Kokkos::finalize();
}
""", V.correct),
    ("templated-functor-subtracts", "axpy", """
#include <Kokkos_Core.hpp>

template <class ViewType>
struct Axpy {
  ViewType x, y;
  double a;
  Axpy(ViewType x_, ViewType y_, double a_) : x(x_), y(y_), a(a_) {}
  KOKKOS_INLINE_FUNCTION void operator()(const int i) const { y(i) = a * x(i) - y(i); }
};
""" + MAIN_AXPY % "Axpy<Kokkos::View<double *>>(x, y, 2.0)", V.wrong_result),
    ("functor-with-its-scalar-in-a-one-element-view", "axpy", """
#include <Kokkos_Core.hpp>

template <class V>
struct ScaledAdd {
  V alpha;  // alpha(0) holds the scalar, so the functor sees it on any device
  V x, y;
  ScaledAdd(V alpha_, V x_, V y_) : alpha(alpha_), x(x_), y(y_) {}
  KOKKOS_INLINE_FUNCTION void operator()(const int i) const { y(i) += alpha(0) * x(i); }
};

int main(int argc, char *argv[]) {
  Kokkos::initialize(argc, argv);
  {
    const int N = 4096;
    Kokkos::View<double *> alpha("alpha", 1), x("x", N), y("y", N);
    Kokkos::deep_copy(alpha, 2.5);
    Kokkos::parallel_for(N, ScaledAdd<Kokkos::View<double *>>(alpha, x, y));
  }
  Kokkos::finalize();
}
""", V.correct),
    # team functors: one team per row, the row from league_rank(), a TeamThreadRange reduction over the columns
    ("team-functor-gemv", "gemv", TEAM_GEMV, V.correct),
    ("team-functor-gemv-reads-x-by-row", "gemv", TEAM_GEMV.replace("* x(j)", "* x(row)"), V.wrong_result),
    ("mdrange-gemm-functor", "gemm", """
#include <Kokkos_Core.hpp>

struct MatMul {
  Kokkos::View<double **> A, B, C;
  KOKKOS_INLINE_FUNCTION void operator()(const int i, const int j) const {
    double acc = 0.0;
    for (int p = 0; p < (int)A.extent(1); ++p) acc += A(i, p) * B(p, j);
    C(i, j) = acc;
  }
};
""" + MAIN_2D % "MatMul{A, B, C}", V.correct),
    ("mdrange-jacobi-functor-over-the-interior", "jacobi", """
#include <Kokkos_Core.hpp>

struct Sweep {
  Kokkos::View<double ***> u, unew;
  KOKKOS_INLINE_FUNCTION void operator()(const int i, const int j, const int k) const {
    unew(i, j, k) = (u(i - 1, j, k) + u(i + 1, j, k) + u(i, j - 1, k) + u(i, j + 1, k) + u(i, j, k - 1) +
                     u(i, j, k + 1)) / 6.0;
  }
};

int main(int argc, char *argv[]) {
  Kokkos::initialize(argc, argv);
  {
    const int N = 66;
    Kokkos::View<double ***> u("u", N, N, N), unew("unew", N, N, N);
    Kokkos::deep_copy(u, 1.0);
    using policy_t = Kokkos::MDRangePolicy<Kokkos::Rank<3>>;
    Kokkos::parallel_for("sweep", policy_t({1, 1, 1}, {N - 1, N - 1, N - 1}), Sweep{u, unew});
    Kokkos::fence();
  }
  Kokkos::finalize();
}
""", V.correct),
    ("mdrange-gemm-functor-drops-the-last-term", "gemm", """
#include <Kokkos_Core.hpp>

struct MatMulT {  // stops one term short of the inner dimension
  Kokkos::View<double **> A, B, C;
  int K;
  MatMulT(Kokkos::View<double **> A_, Kokkos::View<double **> B_, Kokkos::View<double **> C_, int K_)
      : A(A_), B(B_), C(C_), K(K_) {}
  KOKKOS_INLINE_FUNCTION void operator()(int i, int j) const {
    double acc = 0.0;
    for (int p = 0; p < K - 1; ++p) acc += A(i, p) * B(p, j);
    C(i, j) = acc;
  }
};
""" + MAIN_2D % "MatMulT(A, B, C, K)", V.wrong_result),
]


@pytest.fixture(scope="module")
def graded(catalog, evaluator):
    """Every case of this file extracted as a run extracts a completion, bound and evaluated, two at a time (each
    builds against Kokkos): name -> (binding, evaluation)."""
    from concurrent.futures import ThreadPoolExecutor

    from hpceval.bind import choose_binding
    from hpceval.extract import extract
    from hpceval.prompts import render

    model = catalog.models["cpp-kokkos"]
    lang = catalog.languages[model.language]

    def one(case):
        name, kernel, code, _ = case
        spec = catalog.kernels[kernel]
        code = extract(code, render(spec, model, lang, "paper", "keyword"), spec.function)  # as the run does
        binding = choose_binding(code, spec, lang, "paper", model)
        return name, (binding, evaluator.evaluate(code, spec, model, binding=binding))

    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(pool.map(one, CASES + SPACE_CASES))


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_a_functor_launched_only_from_main_is_graded_on_its_numbers(case, graded):
    name, _, _, verdict = case
    binding, e = graded[name]
    assert e.verdict == verdict, f"{e.verdict}: {e.evidence[:600]}"
    if verdict in (V.correct, V.wrong_result):
        assert "launched by the harness" in binding.evidence, binding.evidence


# Written for Kokkos' CUDA backend (the study's AXPY none r7 pattern): the spaces stand for this build's device space
CUDA_VIEWS = """
#include <Kokkos_Core.hpp>

void saxpy(int n, float a, Kokkos::View<float *, Kokkos::CudaSpace> x, Kokkos::View<float *, Kokkos::Cuda> y) {
  Kokkos::parallel_for("saxpy", Kokkos::RangePolicy<Kokkos::Cuda>(0, n), KOKKOS_LAMBDA(const int i) {
    y(i) = a * x(i) + y(i);
  });
  Kokkos::fence();
}
"""


def test_cuda_spaces_in_a_build_without_cuda_stand_for_its_device_space(catalog, evaluator):
    from hpceval.bind import choose_binding
    from hpceval.toolchains.kokkos import Kokkos

    model, spec = catalog.models["cpp-kokkos"], catalog.kernels["axpy"]
    if Kokkos().backend == "cuda":
        pytest.skip("a CUDA build has these spaces")
    binding = choose_binding(CUDA_VIEWS, spec, catalog.languages[model.language], "paper", model)
    e = evaluator.evaluate(CUDA_VIEWS, spec, model, binding=binding)
    assert e.verdict == V.correct, f"{e.verdict}: {e.evidence[:600]}"
    assert "read as this build's device space" in e.evidence, e.evidence


# ------------------------------------------------------------------------------------------------------------------
# Kokkos over the driver's host arrays on any backend. A suggestion that takes Views, or raw pointers it wraps in
# Views of the default memory space or captures in a KOKKOS_LAMBDA, works on a host backend and dereferences host
# memory on the GPU with the CUDA backend (cudaErrorIllegalAddress: 6 of the study's Copilot Kokkos suggestions on
# the H100). The harness hands such a function data in the memory space it reads (bind/glue/cpp.py, the Kokkos
# toolchain's hpceval_kokkos_in/out): the host arrays themselves where that space can read host memory, else Views
# allocated in that space and filled before the call. These cases run on the backend of the machine (OpenMP here,
# CUDA on a GPU machine); their builds with the CUDA backend are checked here too where nvcc and its Kokkos exist.

SPACE_CASES = [
    ("views-as-parameters", "axpy", """
#include <Kokkos_Core.hpp>

void daxpy(const int n, const double alpha, Kokkos::View<const double *> x, Kokkos::View<double *> y) {
  Kokkos::parallel_for("daxpy", n, KOKKOS_LAMBDA(const int i) { y(i) += alpha * x(i); });
  Kokkos::fence();
}
""", V.correct),
    ("pointers-wrapped-in-default-space-views", "axpy", """
#include <Kokkos_Core.hpp>

void axpy_kokkos(int n, double a, double *x, double *y) {
  Kokkos::View<double *, Kokkos::MemoryTraits<Kokkos::Unmanaged>> xv(x, n);
  Kokkos::View<double *, Kokkos::MemoryTraits<Kokkos::Unmanaged>> yv(y, n);
  Kokkos::parallel_for(Kokkos::RangePolicy<>(0, n), KOKKOS_LAMBDA(int i) { yv(i) = a * xv(i) + yv(i); });
  Kokkos::fence();
}
""", V.correct),
    ("pointers-captured-by-the-lambda", "axpy", """
#include <Kokkos_Core.hpp>

void axpy(int n, double a, const double *x, double *y) {
  Kokkos::parallel_for("axpy", n, KOKKOS_LAMBDA(const int i) { y[i] = a * x[i] + y[i]; });
  Kokkos::fence();
}
""", V.correct),
    ("host-pointers-copied-through-host-views", "axpy", """
#include <Kokkos_Core.hpp>

void axpy(int n, double a, double *x, double *y) {
  using host_view = Kokkos::View<double *, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;
  host_view hx(x, n), hy(y, n);
  Kokkos::View<double *> dx("dx", n), dy("dy", n);
  Kokkos::deep_copy(dx, hx);
  Kokkos::deep_copy(dy, hy);
  Kokkos::parallel_for(n, KOKKOS_LAMBDA(const int i) { dy(i) += a * dx(i); });
  Kokkos::deep_copy(hy, dy);
}
""", V.correct),
    ("gemv-with-a-2d-view", "gemv", """
#include <Kokkos_Core.hpp>

void gemv(int m, int n, Kokkos::View<double **> A, Kokkos::View<double *> x, Kokkos::View<double *> y) {
  Kokkos::parallel_for("gemv", m, KOKKOS_LAMBDA(const int i) {
    double sum = 0.0;
    for (int j = 0; j < n; ++j) sum += A(i, j) * x(j);
    y(i) = sum;
  });
  Kokkos::fence();
}
""", V.correct),
    ("execution-space-instance-parameter", "gemv", """
#include <Kokkos_Core.hpp>

template <class ExecSpace>
void gemv(const ExecSpace &space, int rows, int cols, int lda, const double *A, const double *x, double *y) {
  Kokkos::parallel_for(Kokkos::RangePolicy<ExecSpace>(space, 0, rows), KOKKOS_LAMBDA(const int i) {
    double acc = 0.0;
    for (int j = 0; j < cols; ++j) acc += A[i * lda + j] * x[j];
    y[i] = acc;
  });
  space.fence();
}
""", V.correct),
    ("lambda-over-pointers-forgets-y", "axpy", """
#include <Kokkos_Core.hpp>

void axpy(int n, double a, const double *x, double *y) {
  Kokkos::parallel_for("axpy", n, KOKKOS_LAMBDA(const int i) { y[i] = a * x[i]; });
  Kokkos::fence();
}
""", V.wrong_result),
]


@pytest.mark.parametrize("case", SPACE_CASES, ids=[c[0] for c in SPACE_CASES])
def test_kokkos_over_host_arrays_is_graded_on_the_machines_backend(case, graded):
    name, _, _, verdict = case
    _, e = graded[name]
    assert e.verdict == verdict, f"{e.verdict}: {e.evidence[:600]}"


@pytest.mark.parametrize("case", SPACE_CASES[:6], ids=[c[0] for c in SPACE_CASES[:6]])
def test_kokkos_arrays_reach_the_function_through_the_space_helpers(case, catalog):
    """The glue passes Views, and raw pointers the function reads on the device, through hpceval_kokkos_in (and
    outputs back through hpceval_kokkos_out); a function that copies from host Views itself gets the host arrays."""
    from hpceval.bind import choose_binding

    name, kernel, code, _ = case
    model, spec = catalog.models["cpp-kokkos"], catalog.kernels[kernel]
    binding = choose_binding(code, spec, catalog.languages[model.language], "paper", model)
    glue = "\n".join(binding.setup + [binding.call or ""] + binding.teardown)
    if name == "host-pointers-copied-through-host-views":
        assert "hpceval_kokkos_in" not in glue, glue
    else:
        assert "hpceval_kokkos_in<" in glue and "hpceval_kokkos_out(" in glue, glue


def test_kokkos_over_host_arrays_builds_with_the_cuda_backend(catalog):
    """The same cases, and the functor templates, MDRange and team functors the harness launches, built by
    nvcc_wrapper against Kokkos' CUDA backend (the space helpers' device branch, the launchers' policies)."""
    from hpceval.bind import choose_binding
    from hpceval.executors.local import LocalExecutor
    from hpceval.toolchains.cuda import build_only, nvcc_path
    from hpceval.toolchains.kokkos import Kokkos, install_dir

    if nvcc_path() is None or not (install_dir("cuda") / "bin" / "nvcc_wrapper").is_file():
        pytest.skip("no nvcc or no Kokkos built with its CUDA backend (python3 -m hpceval.toolchains.kokkos build cuda)")
    from concurrent.futures import ThreadPoolExecutor

    model = catalog.models["cpp-kokkos"]

    from hpceval.extract import extract
    from hpceval.prompts import render

    lang = catalog.languages[model.language]
    launched = [c for c in CASES if c[0].startswith(("templated-", "mdrange-", "team-", "functor-with-its-scalar"))]

    def one(case):
        name, kernel, code, _ = case
        spec = catalog.kernels[kernel]
        code = extract(code, render(spec, model, lang, "paper", "keyword"), spec.function)
        binding = choose_binding(code, spec, lang, "paper", model)
        return name, build_only(code, spec, model, LocalExecutor(), toolchain=Kokkos("cuda"), binding=binding)

    with ThreadPoolExecutor(max_workers=2) as pool:
        for name, result in pool.map(one, SPACE_CASES + launched):
            assert result is not None and result.returncode == 0, f"{name}: {(result.stderr or result.stdout)[-1500:]}"
