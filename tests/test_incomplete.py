"""The `incomplete` verdict: no complete kernel in a suggestion (cut off, signature or declarations only, helpers
or types never defined), written as an unseen LLM would answer; complete-but-odd kernels must never be incomplete.
Also the build-unit repairs that make complete kernels build (Fortran `use omp_lib`, missing project headers) and
the cuBLAS/cuSPARSE link flags."""

from __future__ import annotations

import pytest

from hpceval.analysis.completeness import drop_local_headers, incomplete_reason, local_headers

CPP_INCOMPLETE = {
    "cut_off": "void gemm(int n, const double *A, const double *B, double *C) {\n  for (int i = 0; i < n; i++) {\n",
    "cut_mid_loop": "#include <omp.h>\nvoid axpy(int n, float a, float *x, float *y) {\n#pragma omp parallel for\n"
                    "  for (int i = 0; i < n; i++) {\n    y[i] = a * x[i]",
    "signature_only": "void spmv(int nrows, const int *rowptr, const int *col, const double *val, const double *x, "
                      "double *y);\n",
    "declarations_only": "#include <vector>\nconst int N = 1024;\nstd::vector<double> A(N * N);\n",
    "empty_body": "void jacobi(int n, double *u, double *unew) {}\n",
    "undefined_helper": "void cg(int n, const double *A, const double *b, double *x) {\n  double r[64];\n"
                        "  matvec_csr_blocked(n, A, x, r);\n  for (int i = 0; i < n; i++) x[i] += r[i];\n}\n",
    "undefined_struct": "void spmv(const CsrMatrixHandle &A, const double *x, double *y) {\n"
                        "  for (int i = 0; i < A.rows; i++) y[i] = x[i];\n}\n",
    "undefined_type_ptr": "void gemv(const DenseMatrixBlock *A, const double *x, double *y, int n) {\n"
                          "  for (int i = 0; i < n; i++) y[i] = x[i];\n}\n",
    "two_missing_helpers": "void jacobi(double *u, double *v, int n) {\n  init_boundary_layer(u, n);\n"
                           "  for (int s = 0; s < 10; s++) relax_sweep_interior(u, v, n);\n}\n",
    "comments_only": "// TODO: implement saxpy with OpenMP\n/* y = a*x + y */\n",
    "prototype_and_main": "void gemm(int n, double *A, double *B, double *C);\nint main() { return 0; }\n",
}
CPP_COMPLETE = {
    "plain": "void axpy(int n, float a, const float *x, float *y) {\n  for (int i = 0; i < n; ++i) y[i] += a * x[i];\n}",
    "helper_defined_after": "static double dot(const double*, const double*, int);\nvoid gemv(int n, const double *A,"
                            " const double *x, double *y) { for (int i = 0; i < n; i++) y[i] = dot(A + i*n, x, n); }\n"
                            "static double dot(const double *a, const double *b, int n) { double s = 0; for (int i = 0;"
                            " i < n; i++) s += a[i]*b[i]; return s; }\n",
    "struct_defined": "struct CSR { int n; const int *rp; };\nvoid spmv(CSR A, const double *x, double *y) {"
                      " for (int i = 0; i < A.n; i++) y[i] = x[i]; }\n",
    "template": "template <typename Real>\nvoid axpy(int n, Real a, const Real *x, Real *y) { for (int i = 0; i < n; i++)"
                " y[i] = a * x[i] + y[i]; }\n",
    "std_and_omp": "#include <cmath>\n#include <omp.h>\nvoid f(int n, double *y) {\n#pragma omp parallel for\n"
                   " for (int i = 0; i < n; i++) y[i] = std::sqrt(fabs(y[i])) + omp_get_thread_num() * 0; }\n",
    "typo_of_real_function": "#include <cmath>\nvoid f(int n, double *y) { for (int i = 0; i < n; i++) y[i] = sqr(y[i]);"
                             " }\n",
    "lambda_call": "void f(int n, double *y) { auto g = [](double v) { return 2 * v; }; for (int i = 0; i < n; i++)"
                   " y[i] = g(y[i]); }\n",
    "cuda_kernel": "__global__ void k(int n, float a, const float *x, float *y) { int i = blockIdx.x * blockDim.x +"
                   " threadIdx.x; if (i < n) y[i] = a * x[i] + y[i]; }\nvoid axpy(int n, float a, const float *x, "
                   "float *y) { k<<<(n + 255) / 256, 256>>>(n, a, x, y); cudaDeviceSynchronize(); }\n",
    "kokkos": "#include <Kokkos_Core.hpp>\nvoid axpy(int n, double a, Kokkos::View<double*> x, Kokkos::View<double*> y)"
              " { Kokkos::parallel_for(n, KOKKOS_LAMBDA(int i) { y(i) += a * x(i); }); }\n",
    "unknown_library_header": "#include <Eigen/Dense>\nvoid f(int n, double *y) { eigen_helper(y, n); }\n",
    "size_t_and_braces_in_string": "void f(size_t n, double *y) { const char *s = \"{{{\"; for (size_t i = 0; i < n;"
                                   " i++) y[i] = 0; (void)s; }\n",
}

FORTRAN_INCOMPLETE = {
    "cut_off": "subroutine gemm(n, A, B, C)\n  integer :: n\n  real(8) :: A(n,n), B(n,n), C(n,n)\n  integer :: i\n"
               "  do i = 1, n\n     C(i,i) = 0\n",
    "no_end_subroutine": "subroutine axpy(n, a, x, y)\ninteger :: n\nreal :: a, x(n), y(n)\ny = a*x + y\n",
    "declarations_only": "subroutine spmv(n, rowptr, col, val, x, y)\n  integer, intent(in) :: n\n"
                         "  real(8), intent(out) :: y(n)\nend subroutine spmv\n",
    "interface_only": "interface\n  subroutine jacobi(n, u)\n    integer :: n\n    real(8) :: u(n,n,n)\n"
                      "  end subroutine\nend interface\n",
    "only_variables": "integer, parameter :: n = 100\nreal(8) :: a(n)\n",
    "undefined_helper": "subroutine cg(n, A, b, x)\n  integer :: n\n  real(8) :: A(n,n), b(n), x(n)\n"
                        "  call apply_preconditioner_ilu(n, A, b, x)\nend subroutine cg\n",
    "undefined_type": "subroutine spmv(A, x, y)\n  type(csr_matrix_t), intent(in) :: A\n  real(8) :: x(:), y(:)\n"
                      "  y = x\nend subroutine spmv\n",
    "undefined_module": "subroutine spmv(n, x, y)\n  use sparse_kernels_mod\n  integer :: n\n  real(8) :: x(n), y(n)\n"
                        "  y = x\nend subroutine spmv\n",
    "two_missing_calls": "subroutine jacobi(n, u, v)\n integer :: n\n real(8) :: u(n,n,n), v(n,n,n)\n"
                         " call set_halo_faces(u, n)\n call sweep_once_interior(u, v, n)\nend subroutine\n",
    "comments_only": "! gemv OpenACC subroutine\n! y = A*x\n",
    "cut_function": "function dot(n, x, y) result(s)\n  integer :: n\n  real :: x(n), y(n), s\n  s = sum(x*y)\n",
}
FORTRAN_COMPLETE = {
    "plain": "subroutine axpy(n, a, x, y)\n  integer :: n\n  real :: a, x(n), y(n)\n  integer :: i\n  do i = 1, n\n"
             "    y(i) = a*x(i) + y(i)\n  end do\nend subroutine axpy\n",
    "bare_end": "subroutine axpy(n, a, x, y)\ninteger n\nreal a, x(n), y(n)\ny = a*x + y\nend\n",
    "with_omp": "subroutine f(n, y)\n  use omp_lib\n  integer :: n\n  real(8) :: y(n)\n  y = omp_get_num_threads()\n"
                "end subroutine f\n",
    "module_helper": "module m\ncontains\nsubroutine helper(n, y)\ninteger :: n\nreal(8) :: y(n)\ny = 0\nend subroutine\n"
                     "subroutine gemv(n, y)\ninteger :: n\nreal(8) :: y(n)\ncall helper(n, y)\nend subroutine\nend module\n",
    "derived_type_defined": "module m\n type csr\n  integer :: n\n end type csr\ncontains\nsubroutine s(A, y)\n"
                            " type(csr) :: A\n real(8) :: y(:)\n y = A%n\nend subroutine\nend module m\n",
    "blas_call": "subroutine gemv(n, A, x, y)\ninteger :: n\nreal(8) :: A(n,n), x(n), y(n)\n"
                 "call dgemv('N', n, n, 1d0, A, n, x, 1, 0d0, y, 1)\nend subroutine\n",
    "intrinsic_calls": "subroutine s(n, y)\ninteger :: n\nreal(8) :: y(n)\ncall random_number(y)\n"
                       "call cpu_time(y(1))\nend subroutine\n",
    "function_result": "real(8) function dot(n, x, y)\ninteger :: n\nreal(8) :: x(n), y(n)\ndot = sum(x*y)\n"
                       "end function dot\n",
    "openacc": "subroutine s(n, y)\ninteger :: n\nreal :: y(n)\n!$acc parallel loop\ndo i = 1, n\n y(i) = 0\nend do\n"
               "end subroutine s\n",
    "continuation": "subroutine s(n, a, &\n   x, y)\ninteger :: n\nreal :: a, x(n), y(n)\ny = a*x &\n  + y\n"
                    "end subroutine s\n",
    "external_declared": "subroutine s(n, y)\ninteger :: n\nreal :: y(n)\nexternal fill_values\n"
                         "call fill_values(y, n)\nend subroutine\n",
}

PYTHON_INCOMPLETE = {
    "cut_off": "import numpy as np\n\ndef gemm(A, B, C):\n    n = A.shape[0]\n    for i in range(n):\n",
    "cut_expression": "def axpy(a, x, y):\n    return a * (x +",
    "signature_only": "def spmv(rowptr, col, val, x, y):\n    pass\n",
    "docstring_only": "def jacobi(u, n):\n    \"\"\"One Jacobi sweep on a cube.\"\"\"\n",
    "ellipsis_only": "def cg(A, b, x):\n    ...\n",
    "declarations_only": "import numpy as np\nN = 1024\nA = np.zeros((N, N))\n",
    "undefined_helper": "import numpy as np\n\ndef cg(A, b, x):\n    r = b - A @ x\n"
                        "    return solve_with_preconditioner(A, r, x)\n",
    "undefined_class": "def spmv(A, x):\n    M = CompressedRowMatrix(A)\n    return M.dot(x)\n",
    "two_missing": "def jacobi(u):\n    apply_boundary(u)\n    return relax_interior(u)\n",
    "comments_only": "# gemv numpy\n# y = A x\n",
    "cut_in_call": "import numpy as np\ndef gemv(A, x, y):\n    y[:] = np.dot(A,\n",
}
PYTHON_COMPLETE = {
    "plain": "def axpy(a, x, y):\n    return a * x + y\n",
    "numpy": "import numpy as np\ndef gemv(A, x):\n    return np.dot(A, x)\n",
    "helper_defined_later": "def gemm(A, B):\n    return _mm(A, B)\n\ndef _mm(A, B):\n    return A @ B\n",
    "numba": "from numba import njit, prange\n@njit(parallel=True)\ndef axpy(a, x, y):\n    for i in prange(len(x)):\n"
             "        y[i] += a * x[i]\n",
    "builtins": "def f(x):\n    return sum(abs(v) for v in x) + len(x) + max(x)\n",
    "star_import": "from mylib import *\ndef f(x):\n    return fancy(x)\n",
    "callable_param": "def f(op, x):\n    return op(x)\n",
    "nested_def": "def f(x):\n    def g(v):\n        return 2 * v\n    return [g(v) for v in x]\n",
    "typo_of_builtin": "def f(x):\n    return lenn(x)\n",
    "class_method": "class K:\n    def run(self, x):\n        return x\ndef f(x):\n    return K().run(x)\n",
    "mid_syntax_error": "def f(x):\n    return x +* 2\n\ndef g(y):\n    return y\n\n\nz = 1\n",
}

JULIA_INCOMPLETE = {
    "cut_off": "function gemm!(C, A, B)\n    for i in 1:size(A, 1)\n        C[i, i] = 0\n",
    "missing_end": "function axpy!(a, x, y)\n    @. y = a * x + y\n",
    "signature_only": "function spmv end\n",
    "declarations_only": "using LinearAlgebra\nconst N = 100\nA = zeros(N, N)\n",
    "undefined_helper": "function cg!(x, A, b)\n    r = b - A * x\n    precondition_ilu!(r, A)\n    return x\nend\n",
    "undefined_two": "function jacobi!(u, v)\n    set_halo!(u)\n    relax_interior!(u, v)\nend\n",
    "undefined_type_ctor": "function spmv(A, x)\n    M = CsrMatrixWrapper(A)\n    return M * x\nend\n",
    "comments_only": "# gemv Threads\n# y = A*x\n",
    "cut_loop": "function gemv!(y, A, x)\n    Threads.@threads for i in 1:length(y)\n        y[i] = 0\n    end\n",
    "cut_nested": "function f(x)\n    if length(x) > 0\n        for i in eachindex(x)\n            x[i] = 1\n        end\n",
    "only_struct": "struct Csr\n    n::Int\nend\n",
}
JULIA_COMPLETE = {
    "plain": "function axpy!(a, x, y)\n    for i in eachindex(x)\n        y[i] += a * x[i]\n    end\n    return y\nend\n",
    "short_form": "axpy(a, x, y) = a .* x .+ y\n",
    "end_index": "function f(x)\n    x[end] = x[end-1]\n    return x\nend\n",
    "threads": "function gemv!(y, A, x)\n    Threads.@threads for i in 1:size(A, 1)\n        y[i] = sum(A[i, j] * x[j]"
               " for j in 1:size(A, 2))\n    end\nend\n",
    "helper_defined": "dotrow(A, x, i) = sum(A[i, :] .* x)\nfunction gemv(A, x)\n    [dotrow(A, x, i) for i in"
                      " 1:size(A, 1)]\nend\n",
    "linear_algebra": "using LinearAlgebra\nfunction gemv!(y, A, x)\n    mul!(y, A, x)\nend\n",
    "unknown_package": "using FancyKernels\nfunction f(x)\n    fancy_kernel!(x)\nend\n",
    "cuda": "using CUDA\nfunction k!(y, x, a)\n    i = threadIdx().x + (blockIdx().x - 1) * blockDim().x\n"
            "    if i <= length(y)\n        @inbounds y[i] += a * x[i]\n    end\n    return nothing\nend\n",
    "do_block": "function f(x)\n    map(x) do v\n        2v\n    end\nend\n",
    "struct_and_fn": "struct Csr\n    n::Int\nend\nfunction f(A::Csr, x)\n    return x[1:A.n]\nend\n",
    "typo": "function f(x)\n    return lenght(x)\nend\n",
}

CASES = [(lang, name, code, True) for lang, table in (("cpp", CPP_INCOMPLETE), ("fortran", FORTRAN_INCOMPLETE),
                                                     ("python", PYTHON_INCOMPLETE), ("julia", JULIA_INCOMPLETE))
         for name, code in table.items()] + [
         (lang, name, code, False) for lang, table in (("cpp", CPP_COMPLETE), ("fortran", FORTRAN_COMPLETE),
                                                      ("python", PYTHON_COMPLETE), ("julia", JULIA_COMPLETE))
         for name, code in table.items()]


@pytest.mark.parametrize(("lang", "name", "code", "incomplete"), CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_completeness(lang, name, code, incomplete):
    reason = incomplete_reason(code, lang)
    if incomplete:
        assert reason and reason.startswith("incomplete"), (name, reason)
    else:
        assert reason is None, (name, reason)


def test_missing_names_are_in_the_evidence():
    assert "`matvec_csr_blocked`" in incomplete_reason(CPP_INCOMPLETE["undefined_helper"], "cpp")
    assert "`CsrMatrixHandle`" in incomplete_reason(CPP_INCOMPLETE["undefined_struct"], "cpp")
    assert "`apply_preconditioner_ilu`" in incomplete_reason(FORTRAN_INCOMPLETE["undefined_helper"], "fortran")
    assert "`csr_matrix_t`" in incomplete_reason(FORTRAN_INCOMPLETE["undefined_type"], "fortran")
    reason = incomplete_reason(PYTHON_INCOMPLETE["two_missing"], "python")
    assert "`apply_boundary`" in reason and "`relax_interior`" in reason
    assert "`precondition_ilu!`" in incomplete_reason(JULIA_INCOMPLETE["undefined_helper"], "julia")


def test_local_headers():
    code = '#include "spmv.h"\n#include <vector>\n#include "omp.h"\nvoid f() {}\n'
    assert local_headers(code) == ["spmv.h"]
    assert '"spmv.h"' not in drop_local_headers(code) and "<vector>" in drop_local_headers(code)
    assert drop_local_headers(code).count("\n") == code.count("\n")


# ---------------------------------------------------------------------------------------------- through the Evaluator
SPMV_NEEDS_HEADER = """#include "spmv.h"
void axpy(int n, float a, const float *x, float *y) {
  CsrWorkspace ws = make_workspace(n);
  for (int i = 0; i < n; i++) y[i] = a * x[i] + y[i];
}
"""
AXPY_WITH_HEADER = """#include "axpy.h"
#include <omp.h>
void axpy(int n, float a, const float *x, float *y) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) y[i] = a * x[i] + y[i];
}
"""
FORTRAN_OMP = """subroutine axpy(n, a, x, y)
  integer, intent(in) :: n
  real, intent(in) :: a, x(n)
  real, intent(inout) :: y(n)
  integer :: i, nt
  nt = omp_get_max_threads()
  !$omp parallel do
  do i = 1, n
    y(i) = a * x(i) + y(i)
  end do
  !$omp end parallel do
end subroutine axpy
"""


def _evaluate(evaluator, catalog, code, model, style="paper"):
    from hpceval.bind import choose_binding

    spec, m = catalog.kernels["axpy"], catalog.models[model]
    lang = catalog.languages[m.language]
    return evaluator.evaluate(code, spec, m, choose_binding(code, spec, lang, style, m))


def test_missing_header_dropped_then_incomplete(evaluator, catalog):
    ev = _evaluate(evaluator, catalog, SPMV_NEEDS_HEADER, "cpp-openmp")
    assert ev.verdict == "incomplete", ev.evidence
    assert "CsrWorkspace" in ev.evidence and "spmv.h" in ev.evidence


def test_missing_header_dropped_complete_kernel_builds(evaluator, catalog):
    ev = _evaluate(evaluator, catalog, AXPY_WITH_HEADER, "cpp-openmp")
    assert ev.verdict == "correct", ev.evidence


def test_fortran_omp_routines_get_omp_lib(evaluator, catalog):
    ev = _evaluate(evaluator, catalog, FORTRAN_OMP, "fortran-openmp")
    assert ev.verdict == "correct", ev.evidence


def test_cut_off_suggestion_is_incomplete_not_unbindable(evaluator, catalog):
    code = "void axpy(int n, float a, const float *x, float *y) {\n#pragma omp parallel for\n  for (int i = 0; i < n; i++) {"
    ev = _evaluate(evaluator, catalog, code, "cpp-openmp")
    assert ev.verdict == "incomplete", ev.evidence


def test_undefined_helper_is_incomplete_typo_is_build_error(evaluator, catalog):
    helper = ("#include <omp.h>\nvoid axpy(int n, float a, const float *x, float *y) {\n#pragma omp parallel for\n"
              "  for (int i = 0; i < n; i++) y[i] = fused_multiply_accumulate(a, x[i], y[i]);\n}\n")
    assert _evaluate(evaluator, catalog, helper, "cpp-openmp").verdict == "incomplete"
    typo = ("#include <omp.h>\n#include <cmath>\nvoid axpy(int n, float a, const float *x, float *y) {\n"
            "#pragma omp parallel for\n  for (int i = 0; i < n; i++) y[i] = fmaff(a, x[i], y[i]);\n}\n")
    assert _evaluate(evaluator, catalog, typo, "cpp-openmp").verdict == "build_error"


# ---------------------------------------------------------------------------------------------- CUDA vendor libraries
def test_cuda_vendor_library_link_flags(catalog):
    from hpceval.toolchains.cuda import CudaToolchain, vendor_libraries

    code = "#include <cublas_v2.h>\nvoid axpy(int n, float a, const float *x, float *y) {\n  cublasHandle_t h;\n" \
           "  cublasCreate(&h);\n  cublasSaxpy(h, n, &a, x, 1, y, 1);\n  cublasDestroy(h);\n}\n"
    tc, model = CudaToolchain(), catalog.models["cpp-cuda"]
    argv = tc.build_steps(model, code)[0]
    assert "-lcublas" in argv and "-lcusparse" not in argv
    assert vendor_libraries(code) == ["cuBLAS"]
    assert "-lcusparse" in tc.build_steps(model, "cusparseSpMV(h, op, &a, A, x, &b, y, t, alg, buf);")[0]
    assert not any(a.startswith("-lcu") for a in tc.build_steps(model, "__global__ void k() {}")[0])
    adjust = tc.job_adjustments(catalog.kernels["axpy"], model, code)
    assert "-lcublas" in adjust.env["NVCC_APPEND_FLAGS"] and "vendor library" in adjust.note


def test_rubric_vendor_option(tmp_path):
    from hpceval.metrics import Rubric

    assert Rubric.load().vendor_library_counts is True
    text = (Rubric.load().source and open(Rubric.load().source).read()).replace(
        "vendor_library_counts = true", "vendor_library_counts = false")
    path = tmp_path / "r.toml"
    path.write_text(text)
    assert Rubric.load(path).vendor_library_counts is False


@pytest.mark.parametrize("code,cut", [
    ("import numpy as np\ndef saxpy(n, a, x, y):\n    for i in range(n):\n", True),      # a loop with no body
    ("def saxpy(n, a, x, y):\n    y[:] = a * x +\n", True),                            # an expression cut short
    ("import numpy as np\ndef saxpy(n, a, x, y\n", True),                              # a parameter list unclosed
    ('def saxpy(n, a, x, y):\n    """y = a*x + y\n', True),                          # a docstring unclosed
    # a syntax error with code after it is the code's error, not a cut-off (build_error), however short the file
    ("import numpy as np\n\ndef saxpy(n, a, x, y)\n    y += a * x\n", False),
    ("def saxpy(n, a, x, y):\n    y += a * x)\n    return y\n", False),
])
def test_a_python_cut_off_ends_where_the_text_ends(code, cut):
    reason = incomplete_reason(code, "python")
    assert ("cut off" in (reason or "")) is cut, reason


@pytest.mark.parametrize(("code", "says"), [
    ("#include <vector>\nint main() {\n  std::vector<double> x(8, 1.0), y(8, 2.0);\n  for (int i = 0; i < 8; ++i)"
     " y[i] += 2.0 * x[i];\n  return 0;\n}\n", "only a main program"),
    ("void spmv(int n, const double *x, double *y) {\n}\nint main() { double x[2], y[2]; spmv(2, x, y); }\n",
     "empty body"),
    ("int main() {}\n", "empty body"),
])
def test_a_full_main_is_not_called_an_empty_body(code, says):
    """Evidence says what is missing: a file whose only function is a working `main` has no kernel function."""
    reason = incomplete_reason(code, "cpp")
    assert reason and reason.startswith("incomplete") and says in reason, reason
