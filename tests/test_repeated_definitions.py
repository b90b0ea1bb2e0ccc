"""Identical repeated definitions (functions, structs, classes, functor templates, typedefs) are built once.

Completions repeat themselves: the study's `axpy/cpp-kokkos/paper/none` r8 is the same `saxpy_functor` template
written three times, and was `build_error` ("redefinition of struct saxpy_functor") although a repeated *function*
was already built once. A repetition with the same text (whitespace aside) is the LLM saying one thing twice; one
with different text is two conflicting definitions and stays the compiler's `build_error`. Cases as an unseen LLM
might write them, in the C++ models the pruning serves (OpenMP, Kokkos).
"""

from __future__ import annotations

import pytest

from hpceval.contracts import Verdict

V = Verdict

FUNCTOR = """
// saxpy Kokkos
template <class Device> struct saxpy_functor {
  typedef Device device_type;
  float *y;
  const float *x;
  float a;
  saxpy_functor(float *y_, const float *x_, const float a_) : y(y_), x(x_), a(a_) {}
  KOKKOS_INLINE_FUNCTION
  void operator()(const int i) const { y[i] = %s; }
};
"""
LAUNCH = """
void saxpy(int n, float a, float *x, float *y) {
  Kokkos::parallel_for(Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, n),
                       saxpy_functor<Kokkos::DefaultHostExecutionSpace>(y, x, a));
  Kokkos::fence();
}
"""
CSR = """
struct CsrMatrix {
    int nrows;
    const int *row_ptr;
    const int *col_idx;
    const double *vals;
};
"""
SPMV = """
void spmv(const CsrMatrix &A, const double *x, double *y) {
  %s
  for (int i = 0; i < A.nrows; ++i) {
    double t = 0.0;
    for (int k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k) t += A.vals[k] * x[A.col_idx[k]];
    y[i] = t;
  }
}
"""
AXPY = """
void axpy(int n, double a, const double *x, double *y) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) y[i] = a * x[i] + y[i];
}
"""

CASES = [
    ("kokkos-functor-three-times-nothing-launches", "axpy", "cpp-kokkos",
     "#include <Kokkos_Core.hpp>\n" + (FUNCTOR % "a * x[i] + y[i]") * 3, V.correct),  # launched (bind.functor)
    ("kokkos-functor-twice-then-launcher", "axpy", "cpp-kokkos",
     "#include <Kokkos_Core.hpp>\n" + (FUNCTOR % "a * x[i] + y[i]") * 2 + LAUNCH, V.correct),
    ("kokkos-functor-reindented-repeat-then-launcher", "axpy", "cpp-kokkos",
     "#include <Kokkos_Core.hpp>\n" + FUNCTOR % "a * x[i] + y[i]" + (FUNCTOR % "a * x[i] + y[i]").replace("\n  ", "\n    ")
     + LAUNCH, V.correct),
    ("kokkos-functor-twice-drops-y", "axpy", "cpp-kokkos",
     "#include <Kokkos_Core.hpp>\n" + (FUNCTOR % "a * x[i]") * 2 + LAUNCH, V.wrong_result),
    ("kokkos-two-different-functors-same-name", "axpy", "cpp-kokkos",
     "#include <Kokkos_Core.hpp>\n" + FUNCTOR % "a * x[i] + y[i]" + FUNCTOR % "a * x[i] - y[i]" + LAUNCH,
     V.build_error),
    ("openmp-csr-struct-twice-parallel", "spmv", "cpp-openmp",
     "#include <omp.h>\n" + CSR + CSR + SPMV % "#pragma omp parallel for", V.correct),
    ("openmp-csr-struct-twice-serial", "spmv", "cpp-openmp",
     CSR + SPMV % "" + CSR, V.wrong_model),
    ("openmp-typedef-struct-twice-and-function-three-times", "axpy", "cpp-openmp",
     "typedef struct { int n; } dims_t;\n" * 2 + AXPY * 3, V.correct),
    ("openmp-struct-twice-then-cut-kernel", "spmv", "cpp-openmp",
     CSR + CSR + "void spmv(const CsrMatrix &A, const double *x, double *y) {\n#pragma omp parallel for\n"
     "  for (int i = 0; i < A.nrows; ++i) {\n    double t = 0.0;\n    for (int k = A.row_ptr[i]; k <", V.incomplete),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_identical_repeats_build_once(case, paper_verdict):
    _, kernel, model, code, verdict = case
    paper_verdict(code, kernel, model, verdict)


def test_unit_alone_keeps_one_of_identical_types_and_every_different_one():
    from hpceval.bind.prune import unit_alone

    same = unit_alone("#include <vector>\n" + CSR + CSR.replace("    ", "  ") + SPMV % "", "cpp")
    assert same.count("struct CsrMatrix") == 1 and same.count("void spmv") == 1
    alone = unit_alone(CSR + CSR.replace("nrows", "rows") + SPMV % "", "cpp")
    assert alone.count("struct CsrMatrix") == 2  # two different definitions: the compiler's to reject
    repeated = unit_alone(AXPY * 3, "cpp")
    assert repeated.count("void axpy") == 1
