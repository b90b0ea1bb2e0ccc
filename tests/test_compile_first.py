"""Compile first (checks.builds_alone): the suggestion's own unit is built alone before binding decides anything.

Code that does not build alone is `build_error` (or `incomplete` when the compiler confirms only names it never
defines) whatever its signature; `unbindable` is only for code that builds alone; the completeness analysis never
calls code incomplete for a name the compiler accepted; the not-the-kernel rule (`wrong_result`) comes after the
build, in every language. Cases written as an unseen LLM would answer: right-but-unusual, subtly wrong, broken.
"""

from __future__ import annotations

import pytest

from hpceval.checks.builds_alone import Alone, alone_argv, decide, missing_names, names_reported
from hpceval.contracts import Verdict
from hpceval.toolchains import get_toolchain

V = Verdict


def _evaluate(evaluator, catalog, code, kernel, model):
    from hpceval.bind.signature import infer_binding

    m = catalog.models[model]
    b = infer_binding(code, catalog.kernels[kernel], catalog.languages[m.language], m)
    return evaluator.evaluate(code, catalog.kernels[kernel], m, binding=b)


def _needs(toolchain: str) -> None:
    info = get_toolchain(toolchain).detect()
    if not info.available or not info.can_run:
        pytest.skip(f"toolchain {toolchain} not usable here")


BROKEN_TAIL = "  for (int i = 0; i < n; i++) y[i] = a * x[i] + y[i] + tmp[i];\n}\n"
CASES = [
    # undeclared arrays in a kernel whose signature cannot be mapped (the Llama-2 pattern): not outside the score
    ("cpp-undeclared-arrays", "axpy", "cpp-openmp", """
#include <omp.h>
void axpy(float a, float *x) {
  #pragma omp parallel for
  for (int i = 0; i < N; i++) y[i] = a * x[i] + y[i];
}
""", V.build_error, "not declared"),
    # a `result` clause on a subroutine (Llama-2's Fortran AXPY answers)
    ("fortran-result-on-subroutine", "axpy", "fortran-openmp", """
SUBROUTINE axpy_omp(a, x, y) result(y)
    real(kind=8), intent(in) :: a
    real(kind=8), intent(in) :: x
    real(kind=8), intent(out) :: y
    integer :: i
    !$OMP PARALLEL DO default(none) shared(x, y, a)
    do concurrent (i = 1:size(x)) y(i) = y(i) + a * x(i)
    !$OMP END PARALLEL DO
END SUBROUTINE axpy_omp
""", V.build_error, "SUBROUTINE statement"),
    # an OpenMP clause that does not exist, in a subroutine with scalar dummies the binder cannot map
    ("fortran-invalid-clause", "gemv", "fortran-openmp", """
subroutine gemv_omp(A, x, y)
  real(8), intent(in) :: A
  real(8), intent(in) :: x
  real(8), intent(out) :: y
  integer :: i
  !$omp parallel do schedule(fastest)
  do i = 1, size(y)
    y(i) = 0
  end do
end subroutine gemv_omp
""", V.build_error, "clause"),
    # Python: a decorator that numba does not have fails at import, before any binding
    ("python-import-fails", "axpy", "python-numba", """
import numba
import numpy as np

@numba.njitt(parallel=True)
def axpy(a, pair):
    x, y = pair
    for i in numba.prange(x.shape[0]):
        y[i] = a * x[i] + y[i]
""", V.build_error, "njitt"),
    # Python: a syntax error mid-file (not a cut-off answer) in code the binder cannot map
    ("python-syntax-error-mid-file", "axpy", "python-numpy", """
import numpy as np

def axpy(a, pair):
    x, y = pair
    y[:] = a * x + y)

def describe():
    return "axpy on a pair"
""", V.build_error, "SyntaxError"),
    # right but unusual: builds alone, the harness cannot build its map of named scalars -> its shortfall, said so
    ("cpp-map-builds-alone", "axpy", "cpp-openmp", """
#include <map>
#include <string>
void saxpy(const std::map<std::string, float> &params, const float *x, float *y, int n) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) y[i] = params.at("a") * x[i] + y[i];
}
""", V.unbindable, "builds alone"),
    # the suggestion's own struct is built by its fields (bind.adapt): right code, graded
    ("cpp-struct-builds-alone", "axpy", "cpp-openmp", """
struct Params { float a; int n; };
void saxpy(const Params &p, const float *x, float *y) {
#pragma omp parallel for
  for (int i = 0; i < p.n; i++) y[i] = p.a * x[i] + y[i];
}
""", V.correct, "sizes within tolerance"),
    # must stay incomplete: a helper nobody defines, confirmed by the compiler, whatever the signature
    ("cpp-missing-helper-unmappable", "axpy", "cpp-openmp", """
struct Params { float a; int n; };
void saxpy(const Params &p, const float *x, float *y) {
#pragma omp parallel for
  for (int i = 0; i < p.n; i++) y[i] = fused_multiply_add_scalar(p.a, x[i], y[i]);
}
""", V.incomplete, "fused_multiply_add_scalar"),
    ("fortran-missing-subroutine", "axpy", "fortran-openmp", """
subroutine axpy(n, a, x, y)
  integer, intent(in) :: n
  real(8), intent(in) :: a, x(n)
  real(8), intent(inout) :: y(n)
  !$omp parallel
  call scale_and_accumulate_block(n, a, x, y)
  !$omp end parallel
end subroutine axpy
""", V.incomplete, "confirmed by the compiler"),
    ("python-missing-helper", "axpy", "python-numpy", """
import numpy as np

def axpy(a, x, y):
    return fused_scale_add(a, x, y)
""", V.incomplete, "fused_scale_add"),
    # a test main that does not compile beside a kernel that does: as for a bound function, the driver is not graded
    ("cpp-broken-main-map-kernel", "axpy", "cpp-openmp", """
#include <cstdio>
#include <map>
#include <string>
void saxpy(const std::map<std::string, float> &params, const float *x, float *y, int n) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) y[i] = params.at("a") * x[i] + y[i];
}
int main() {
  std::map<std::string, float> p{{"a", 2.0f}};
  saxpy(p, xs, ys, 4);
  printf("%f\\n", ys[0]);
}
""", V.unbindable, "builds alone"),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_compile_first_verdicts(case, catalog, evaluator):
    _, kernel, model, code, verdict, evidence = case
    e = _evaluate(evaluator, catalog, code, kernel, model)
    assert e.verdict == verdict, f"{e.verdict}: {e.evidence}"
    assert evidence in e.evidence, e.evidence


def test_one_extra_parameter_does_not_flip_the_verdict(catalog, evaluator):
    """The same broken body under a mappable and an unmappable signature: build_error both times."""
    bindable = "void axpy(int n, float a, const float *x, float *y) {\n" + BROKEN_TAIL
    unmappable = "struct Opts { int n; };\nvoid axpy(const Opts &o, int n, float a, const float *x, float *y) {\n" \
                 + BROKEN_TAIL
    for code in (bindable, unmappable):
        e = _evaluate(evaluator, catalog, code, "axpy", "cpp-openmp")
        assert e.verdict == V.build_error and "tmp" in e.evidence, f"{e.verdict}: {e.evidence}"


def test_a_unit_is_compiled_alone_once(catalog, evaluator, monkeypatch):
    from hpceval.evaluate import Evaluator

    ev = Evaluator(catalog, evaluator.executor, timing=False)
    calls = []
    real = ev.executor.run

    def counting(argv, *args, **kwargs):
        calls.append(argv)
        return real(argv, *args, **kwargs)

    monkeypatch.setattr(ev.executor, "run", counting)
    code = next(c[3] for c in CASES if c[0] == "cpp-map-builds-alone")  # builds alone, unbindable
    for _ in range(2):
        assert _evaluate(ev, catalog, code, "axpy", "cpp-openmp").verdict == V.unbindable
    assert len([a for a in calls if "-fsyntax-only" in a]) == 1, calls


# ------------------------------------------------------------------------ mechanism 7: completeness false positives
KOKKOS_INT_LITERAL = """
#include <Kokkos_Core.hpp>
void axpy(int n, double a, Kokkos::View<double*> x, Kokkos::View<double*> y) {
  Kokkos::parallel_for("axpy", n, KOKKOS_LAMBDA(const int i) {
    const double old = y(i);
    y(i) = 0;
    y(i) = a * x(i) + old;
  });
  Kokkos::fence();
}
"""
KOKKOS_INT_LITERAL_WRONG = KOKKOS_INT_LITERAL.replace("y(i) = a * x(i) + old;", "y(i) = a * x(i) + y(i);")
RLIMIT = """
#include <sys/resource.h>
#include <omp.h>
void axpy(int n, float a, const float *x, float *y) {
  struct rlimit rl;
  getrlimit(RLIMIT_STACK, &rl);
  #pragma omp parallel for
  for (int i = 0; i < n; i++) y[i] = a * x[i] + y[i];
}
"""
MISPARSE_AND_TYPO = """
struct Vec { double *p; double &operator()(int i) { return p[i]; } };
void gemv(int n, const double *A, const double *x, double *yp) {
  Vec y{yp};
  #pragma omp parallel for
  for (int i = 0; i < n; i++) {
    y(i) = 0;
    for (int j = 0; j < n; j++) y(i) += A[i * n + j] * x[j] * scale;
  }
}
"""
HELPER_ABOVE = """
#include <omp.h>
static inline __attribute__((always_inline)) double row_dot(const double *__restrict a, const double *__restrict x,
                                                           int n) {
  double s = 0.0;
  for (int j = 0; j < n; ++j) s += a[j] * x[j];
  return s;
}
void gemv(int n, const double *A, const double *x, double *y) {
  #pragma omp parallel for
  for (int i = 0; i < n; ++i) y[i] = row_dot(A + (long)i * n, x, n);
}
"""


@pytest.mark.parametrize("code,verdict", [(KOKKOS_INT_LITERAL, V.correct), (KOKKOS_INT_LITERAL_WRONG, V.wrong_result)],
                         ids=["right", "subtly-wrong"])
def test_kokkos_lambda_with_an_int_literal_is_graded(code, verdict, catalog, evaluator):
    _needs("kokkos")
    e = _evaluate(evaluator, catalog, code, "axpy", "cpp-kokkos")
    assert e.verdict == verdict, f"{e.verdict}: {e.evidence}"
    assert "never defines" not in e.evidence


@pytest.mark.parametrize("code,kernel,verdict", [(RLIMIT, "axpy", V.correct), (HELPER_ABOVE, "gemv", V.correct),
                                                 (MISPARSE_AND_TYPO, "gemv", V.build_error)],
                         ids=["struct-rlimit", "helper-above", "misparse-and-undeclared"])
def test_names_the_compiler_accepts_are_never_missing(code, kernel, verdict, catalog, evaluator):
    e = _evaluate(evaluator, catalog, code, kernel, "cpp-openmp")
    assert e.verdict == verdict, f"{e.verdict}: {e.evidence}"
    assert "never defines" not in e.evidence, e.evidence


def test_wrong_model_kokkos_serial_loop_is_not_incomplete(catalog, evaluator):
    """A Kokkos suggestion that loops on the host (wrong model) with the same `y(i) = 0;`: graded, never incomplete."""
    _needs("kokkos")
    code = KOKKOS_INT_LITERAL.replace('Kokkos::parallel_for("axpy", n, KOKKOS_LAMBDA(const int i) {',
                                      "for (int i = 0; i < n; ++i) {").replace("});", "}")
    e = _evaluate(evaluator, catalog, code, "axpy", "cpp-kokkos")
    assert e.verdict == V.wrong_model, f"{e.verdict}: {e.evidence}"


# ------------------------------------------------------------------------ the decision itself (no compiler)
def test_decide_precedence():
    reason = "incomplete: calls helpers it never defines: `foo`, `bar`"
    names = missing_names(reason)
    assert names == ["foo", "bar"]
    failed = Alone(built=False, evidence="error: 'foo' was not declared", undeclared=frozenset({"foo"}))
    d = decide(reason, names, failed, "cpp")
    assert d.verdict == "incomplete" and "`foo`" in d.evidence and "`bar`" not in d.evidence.split("(")[0]
    other = Alone(built=False, evidence="error: expected ';'", undeclared=frozenset())
    assert decide(reason, names, other, "cpp").verdict == "build_error"  # never "never defines" for another failure
    assert decide(reason, names, Alone(built=True), "cpp").verdict is None  # the compiler accepted every name
    assert decide(reason, names, Alone(built=True), "python").verdict == "incomplete"  # an import resolves no call
    assert decide(reason, names, Alone(built=None), "cpp").verdict == "incomplete"  # nothing to ask: as before
    assert decide("incomplete: cut off (1 unclosed brace)", [], other, "cpp").verdict == "incomplete"
    assert decide("incomplete: signature only (`f` is declared, never defined)", [], Alone(built=True), "cpp",
                  recovered=True).verdict is None
    assert decide(None, [], other, "fortran").verdict == "build_error"
    assert decide(None, [], Alone(built=True), "fortran").verdict is None


def test_compiler_names_and_commands():
    out = ("k.cpp:3:5: error: ‘tmp’ was not declared in this scope\nk.cu(4): error: identifier \"blk\" is undefined\n"
           "Warning: Procedure ‘relax’ called with an implicit interface at (1)\n"
           "Fatal Error: Cannot open module file ‘sparse_mod.mod’ for reading\nNameError: name 'helper' is not defined")
    assert names_reported(out) == {"tmp", "blk", "relax", "sparse_mod", "helper"}
    gcc = alone_argv(["g++", "-O2", "-w", "-fopenmp", "driver.cpp", "-o", "prog", "-lm"], "alone.cpp", "cpp")
    assert gcc == ["g++", "-O2", "-w", "-fopenmp", "-fsyntax-only", "alone.cpp"]
    fortran = alone_argv(["gfortran", "-O2", "-w", "kernel.f90", "driver.f90", "rt.c", "-o", "prog"], "kernel.f90",
                         "fortran")
    assert fortran == ["gfortran", "-O2", "-Wimplicit-interface", "-fsyntax-only", "kernel.f90"]
    nvcc = alone_argv(["/usr/local/bin/nvcc", "-O3", "driver.cu", "-o", "prog", "-lcublas"], "alone.cu", "cpp")
    assert nvcc[-4:] == ["-c", "alone.cu", "-o", "alone.o"] and "-lcublas" not in nvcc


# ------------------------------------------------------------------------ CUDA: compile only (nvcc, no GPU needed)
CUDA_WITH_MAIN = """
#include <cstdio>
__global__ void saxpy(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
int main() {
  int n = 1 << 20;
  float *x, *y;
  cudaMallocManaged(&x, n * sizeof(float));
  cudaMallocManaged(&y, n * sizeof(float));
  saxpy<<<(n + 255) / 256, 256>>>(n, 2.0f, x, y);
  cudaDeviceSynchronize();
  printf("%f\\n", y[0]);
  return 0;
}
"""
CUDA_UNDECLARED = CUDA_WITH_MAIN.replace("if (i < n) y[i]", "if (i < n && i < blk_limit) y[i]")


@pytest.mark.parametrize("code,built", [(CUDA_WITH_MAIN, True), (CUDA_UNDECLARED, False)], ids=["fine", "undeclared"])
def test_cuda_unit_compiles_alone(code, built, catalog, evaluator):
    if not get_toolchain("cuda").detect().available:
        pytest.skip("nvcc not here")
    alone = evaluator._alone(code, catalog.kernels["axpy"], catalog.models["cpp-cuda"], whole=True)
    assert alone.built is built, alone
    if not built:
        assert "blk_limit" in alone.undeclared and "blk_limit" in alone.evidence


# ------------------------------------------------------------------------ mechanism 8: one not-the-kernel rule
# A GEMV without x is another operation in every language, but only for code that builds: a broken one is the
# build's verdict first (precedence), in C++, Fortran and Python alike.
NOT_THE_KERNEL = [
    ("cpp", "cpp-openmp", """
#include <vector>
void gemv(const std::vector<std::vector<double>> &A, std::vector<double> &y) {
  #pragma omp parallel for
  for (size_t i = 0; i < A.size(); ++i) { double s = 0; for (double v : A[i]) s += v; y[i] = s; }
}
""", V.wrong_result),
    ("cpp-broken", "cpp-openmp", """
void gemv(int m, int n, const double *A, double *y) {
  #pragma omp parallel for
  for (int i = 0; i < m; i++) { double s = 0; for (int j = 0; j < n; j++) s += A[i * n + j] * w[j]; y[i] = s; }
}
""", V.build_error),
    ("fortran", "fortran-openmp", """
subroutine dgemv_rows(m, n, alpha, A, lda, y)
  integer, intent(in) :: m, n, lda
  double precision, intent(in) :: alpha, A(lda, *)
  double precision, intent(inout) :: y(*)
  integer :: i, j
  !$omp parallel do private(j)
  do i = 1, m
    do j = 1, n
      y(i) = y(i) + alpha * A(i, j)
    end do
  end do
end subroutine dgemv_rows
""", V.wrong_result),
    ("fortran-broken", "fortran-openmp", """
subroutine gemv(A, y)
  real(8), intent(in) :: A(:, :)
  real(8), intent(out) :: y(:)
  integer :: i
  !$omp parallel do reduction(max:)
  do i = 1, size(y)
    y(i) = sum(A(i, :))
  end do
end subroutine gemv
""", V.build_error),
    ("python", "python-numpy", """
import numpy as np

def gemv(alpha, A, y):
    y += alpha * A.sum(axis=1)
""", V.wrong_result),
    ("python-broken", "python-numpy", """
import numpy as np

def gemv(A, y):
    y[:] = A.sum(axis=1))
    return y

def show(y):
    print(y)
""", V.build_error),
]


@pytest.mark.parametrize("case", NOT_THE_KERNEL, ids=[c[0] for c in NOT_THE_KERNEL])
def test_not_the_kernel_after_the_build_in_every_language(case, catalog, evaluator):
    _, model, code, verdict = case
    e = _evaluate(evaluator, catalog, code, "gemv", model)
    assert e.verdict == verdict, f"{e.verdict}: {e.evidence}"
    if verdict == V.wrong_result:
        assert "cannot compute" in e.evidence and "no parameter for x" in e.evidence


def test_julia_gemv_without_x_is_not_the_kernel(catalog):
    """Julia (no toolchain here): the binding decides, through the same language-independent rule."""
    from hpceval.bind.signature import infer_binding
    from hpceval.evaluate import _missing_data_inputs

    code = "function gemv!(y, A)\n    Threads.@threads for i in 1:size(A, 1)\n        y[i] = sum(A[i, :])\n" \
           "    end\n    return y\nend\n"
    m = catalog.models["julia-threads"]
    b = infer_binding(code, catalog.kernels["gemv"], catalog.languages[m.language], m)
    assert b.error and _missing_data_inputs(b.error, catalog.kernels["gemv"]) == ["x"], b.error
