"""The C++ glue builds the suggestion's own parameter types (bind.adapt.cpp), whatever shape an unseen LLM gives them.

Each case is a whole suggestion as an LLM we have never seen might write it, evaluated end to end (infer_binding +
evaluator.evaluate, no timing). Families:

* standard containers: std::vector inputs and outputs (by const&, by &, returned, resized or filled by push_back,
  nested), the out-of-place AXPY of ParEval's prompts (`std::vector<double> &z` must be the vector, not `.data()`);
* the suggestion's own structs and classes (a CSR struct of pointers or of vectors, by reference or by pointer, a
  Matrix class with a constructor, a struct of scalars), built by their fields;
* Kokkos Views behind `using`/`typedef`, function templates, context parameters (Kokkos execution spaces,
  `sycl::queue`).

Right-but-unusual cases must be `correct`; subtly wrong ones `wrong_result`; a serial one `wrong_model`; code that does
not compile `build_error`, never `unbindable`.
"""

from __future__ import annotations

import pytest

from hpceval.contracts import Verdict

V = Verdict

# ------------------------------------------------------------------------------------------------ standard containers

VECTORS = [
    ("pareval-axpy-out-of-place", "axpy", "cpp-openmp", """
#include <omp.h>
#include <vector>
void axpy(double alpha, std::vector<double> const& x, std::vector<double> const& y, std::vector<double> &z) {
    #pragma omp parallel for
    for (int i = 0; i < x.size(); ++i) {
        z[i] = alpha * x[i] + y[i];
    }
}
""", V.correct),
    ("axpy-output-filled-by-push-back", "axpy", "cpp-openmp", """
#include <vector>
#include <omp.h>
void axpy(float a, const std::vector<float> &x, const std::vector<float> &y, std::vector<float> &out) {
  std::vector<float> tmp(x.size());
#pragma omp parallel for
  for (size_t i = 0; i < x.size(); i++) tmp[i] = a * x[i] + y[i];
  out.clear();
  for (float v : tmp) out.push_back(v);
}
""", V.correct),
    ("axpy-returns-a-vector", "axpy", "cpp-openmp", """
#include <vector>
std::vector<float> saxpy(float a, const std::vector<float> &x, const std::vector<float> &y) {
  std::vector<float> z(x.size());
#pragma omp parallel for
  for (long i = 0; i < (long)x.size(); ++i) z[i] = a * x[i] + y[i];
  return z;
}
""", V.correct),
    ("pareval-gemv-vectors", "gemv", "cpp-openmp", """
#include <omp.h>
#include <vector>
void gemv(std::vector<double> const& A, std::vector<double> const& x, std::vector<double> &y, size_t M, size_t N) {
    #pragma omp parallel for
    for (size_t i = 0; i < M; ++i) {
        double sum = 0;
        for (size_t j = 0; j < N; ++j) sum += A[i * N + j] * x[j];
        y[i] = sum;
    }
}
""", V.correct),
    ("gemv-nested-vector-matrix", "gemv", "cpp-openmp", """
#include <vector>
void gemv(const std::vector<std::vector<double>> &A, const std::vector<double> &x, std::vector<double> &y) {
  #pragma omp parallel for
  for (int i = 0; i < (int)A.size(); i++) {
    double s = 0.0;
    for (int j = 0; j < (int)x.size(); j++) s += A[i][j] * x[j];
    y[i] = s;
  }
}
""", V.correct),
    ("axpy-out-of-place-skips-last", "axpy", "cpp-openmp", """
#include <vector>
void axpy(double alpha, std::vector<double> const& x, std::vector<double> const& y, std::vector<double> &z) {
  #pragma omp parallel for
  for (int i = 0; i < (int)x.size() - 1; ++i) z[i] = alpha * x[i] + y[i];
}
""", V.wrong_result),
    ("axpy-out-of-place-swaps-roles", "axpy", "cpp-openmp", """
#include <vector>
void axpy(double alpha, std::vector<double> const& x, std::vector<double> const& y, std::vector<double> &z) {
  #pragma omp parallel for
  for (int i = 0; i < (int)x.size(); ++i) z[i] = x[i] + alpha * y[i];
}
""", V.wrong_result),
    # the output taken by value: the caller never sees it
    ("axpy-output-by-value", "axpy", "cpp-openmp", """
#include <vector>
void axpy(double alpha, std::vector<double> const& x, std::vector<double> const& y, std::vector<double> z) {
  #pragma omp parallel for
  for (int i = 0; i < (int)x.size(); ++i) z[i] = alpha * x[i] + y[i];
}
""", V.wrong_result),
    ("axpy-vectors-serial", "axpy", "cpp-openmp", """
#include <vector>
void axpy(double alpha, std::vector<double> const& x, std::vector<double> const& y, std::vector<double> &z) {
  for (size_t i = 0; i < x.size(); ++i) z[i] = alpha * x[i] + y[i];
}
""", V.wrong_model),
    # `n` is declared nowhere: the suggestion does not compile, whatever its types
    ("axpy-vectors-undeclared-size", "axpy", "cpp-openmp", """
#include <vector>
void axpy(double alpha, std::vector<double> const& x, std::vector<double> const& y, std::vector<double> &z) {
  #pragma omp parallel for
  for (int i = 0; i < n; ++i) z[i] = alpha * x[i] + y[i];
}
""", V.build_error),
]

# ------------------------------------------------------------------------------------------- the suggestion's own types

CSR_POINTERS = """
#include <omp.h>
struct CSRMatrix {
  int n;
  int nnz;
  int *row_ptr;
  int *col_idx;
  double *values;
};
"""
CSR_SPMV = CSR_POINTERS + """
void spmv(const CSRMatrix &A, const double *x, double *y) {
#pragma omp parallel for
  for (int i = 0; i < A.n; i++) {
    double sum = 0.0;
    for (int k = A.row_ptr[i]; k < A.row_ptr[i + 1]; k++) sum += A.values[k] * x[A.col_idx[k]];
    y[i] = sum;
  }
}
"""
MATRIX_GEMV = """
class Matrix {
 public:
  int rows, cols;
  const double *data;
  Matrix(int r, int c, const double *d) : rows(r), cols(c), data(d) {}
  double at(int i, int j) const { return data[i * cols + j]; }
};

void gemv(const Matrix &A, const double *x, double *y) {
#pragma omp parallel for
  for (int i = 0; i < A.rows; ++i) {
    double s = 0.0;
    for (int j = 0; j < A.cols; ++j) s += A.data[i * A.cols + j] * x[j];
    y[i] = s;
  }
}
"""

STRUCTS = [
    ("csr-struct-of-pointers", "spmv", "cpp-openmp", CSR_SPMV, V.correct),
    ("csr-struct-by-pointer", "spmv", "cpp-openmp", """
typedef struct {
  int nrows;
  int *rowptr;
  int *colind;
  double *val;
} csr_t;

void spmv(const csr_t *mat, const double *x, double *y) {
  #pragma omp parallel for schedule(dynamic, 64)
  for (int i = 0; i < mat->nrows; ++i) {
    double t = 0;
    for (int j = mat->rowptr[i]; j < mat->rowptr[i + 1]; ++j) t += mat->val[j] * x[mat->colind[j]];
    y[i] = t;
  }
}
""", V.correct),
    ("csr-struct-of-vectors", "spmv", "cpp-openmp", """
#include <vector>
struct SparseMatrix {
  int rows;
  std::vector<int> rowPtr;
  std::vector<int> colInd;
  std::vector<double> vals;
};

void spmv(const SparseMatrix &M, const std::vector<double> &x, std::vector<double> &y) {
#pragma omp parallel for
  for (int r = 0; r < M.rows; ++r) {
    double acc = 0;
    for (int k = M.rowPtr[r]; k < M.rowPtr[r + 1]; ++k) acc += M.vals[k] * x[M.colInd[k]];
    y[r] = acc;
  }
}
""", V.correct),
    ("matrix-class-with-constructor", "gemv", "cpp-openmp", MATRIX_GEMV, V.correct),
    # the scale factor and the length in a struct of scalars
    ("axpy-params-struct", "axpy", "cpp-openmp", """
struct Params { float a; int n; };
void saxpy(const Params &p, const float *x, float *y) {
#pragma omp parallel for
  for (int i = 0; i < p.n; i++) y[i] = p.a * x[i] + y[i];
}
""", V.correct),
    # row_ptr[i+1] - 1: the last entry of every row is dropped
    ("csr-struct-drops-last-entry", "spmv", "cpp-openmp", CSR_SPMV.replace("k < A.row_ptr[i + 1]; k++", "k < A.row_ptr[i + 1] - 1; k++"), V.wrong_result),
    # x read at the row index
    ("matrix-class-reads-x-by-row", "gemv", "cpp-openmp", MATRIX_GEMV.replace("* x[j]", "* x[i]"), V.wrong_result),
    ("csr-struct-serial", "spmv", "cpp-openmp", CSR_SPMV.replace("#pragma omp parallel for\n", ""), V.wrong_model),
    # a field the struct does not have
    ("csr-struct-unknown-field", "spmv", "cpp-openmp", CSR_SPMV.replace("i < A.n;", "i < A.num_rows;"), V.build_error),
]

# ------------------------------------------------------------------------- aliases, templates and context parameters

CONTEXT = [
    ("kokkos-view-using-alias", "axpy", "cpp-kokkos", """
#include <Kokkos_Core.hpp>
using Vec = Kokkos::View<float*>;
void axpy(int n, float a, Vec x, Vec y) {
  Kokkos::parallel_for("axpy", n, KOKKOS_LAMBDA(const int i) { y(i) = a * x(i) + y(i); });
  Kokkos::fence();
}
""", V.correct),
    ("kokkos-view-typedefs-gemv", "gemv", "cpp-kokkos", """
#include <Kokkos_Core.hpp>
typedef Kokkos::View<const double**, Kokkos::LayoutRight> ConstMatrix;
typedef Kokkos::View<const double*> ConstVector;
typedef Kokkos::View<double*> Vector;
void gemv(ConstMatrix A, ConstVector x, Vector y, int m, int n) {
  Kokkos::parallel_for("gemv", m, KOKKOS_LAMBDA(const int i) {
    double s = 0.0;
    for (int j = 0; j < n; ++j) s += A(i, j) * x(j);
    y(i) = s;
  });
}
""", V.correct),
    ("kokkos-alias-pareval-out-of-place", "axpy", "cpp-kokkos", """
#include <Kokkos_Core.hpp>
using cview = Kokkos::View<const double*>;
using view = Kokkos::View<double*>;
void axpy(double alpha, cview &x, cview &y, view &z) {
  Kokkos::parallel_for("axpy", z.extent(0), KOKKOS_LAMBDA(const int i) { z(i) = alpha * x(i) + y(i); });
  Kokkos::fence();
}
""", V.correct),
    ("kokkos-execution-space-parameter", "axpy", "cpp-kokkos", """
#include <Kokkos_Core.hpp>
void axpy(const Kokkos::DefaultExecutionSpace &space, int n, float a, Kokkos::View<const float*> x,
          Kokkos::View<float*> y) {
  Kokkos::parallel_for("axpy", Kokkos::RangePolicy<>(space, 0, n), KOKKOS_LAMBDA(int i) { y(i) += a * x(i); });
  space.fence();
}
""", V.correct),
    ("template-axpy-openmp", "axpy", "cpp-openmp", """
#include <cstddef>
template <typename T>
void axpy(std::size_t n, T a, const T *x, T *y) {
#pragma omp parallel for
  for (std::size_t i = 0; i < n; ++i) y[i] = a * x[i] + y[i];
}
""", V.correct),
    ("template-gemv-deduced-from-precision", "gemv", "cpp-openmp", """
template <class Real>
void gemv(int m, int n, const Real *A, const Real *x, Real *y) {
#pragma omp parallel for
  for (int i = 0; i < m; ++i) {
    Real s = 0;
    for (int j = 0; j < n; ++j) s += A[i * n + j] * x[j];
    y[i] = s;
  }
}
""", V.correct),
    ("kokkos-alias-reads-y-for-x", "axpy", "cpp-kokkos", """
#include <Kokkos_Core.hpp>
using Vec = Kokkos::View<float*>;
void axpy(int n, float a, Vec x, Vec y) {
  Kokkos::parallel_for("axpy", n, KOKKOS_LAMBDA(const int i) { y(i) = a * y(i) + x(i); });
}
""", V.wrong_result),
    ("template-axpy-off-by-one", "axpy", "cpp-openmp", """
template <typename T>
void axpy(int n, T a, const T *x, T *y) {
#pragma omp parallel for
  for (int i = 1; i < n; ++i) y[i] = a * x[i] + y[i];
}
""", V.wrong_result),
    ("kokkos-alias-host-loop", "axpy", "cpp-kokkos", """
#include <Kokkos_Core.hpp>
using Vec = Kokkos::View<float*, Kokkos::HostSpace>;
void axpy(int n, float a, Vec x, Vec y) {
  for (int i = 0; i < n; ++i) y(i) = a * x(i) + y(i);
}
""", V.wrong_model),
    ("kokkos-alias-extent-without-rank", "axpy", "cpp-kokkos", """
#include <Kokkos_Core.hpp>
using Vec = Kokkos::View<float*>;
void axpy(float a, Vec x, Vec y) {
  Kokkos::parallel_for("axpy", x.extent(), KOKKOS_LAMBDA(const int i) { y(i) = a * x(i) + y(i); });
}
""", V.build_error),
]

# SYCL functions that take the queue (a context parameter the harness creates and passes); run where the SYCL
# toolchain is installed, their binding checked everywhere
SYCL = [
    ("sycl-queue-usm", "axpy", """
#include <sycl/sycl.hpp>
void axpy(sycl::queue &q, int n, float a, const float *x, float *y) {
  float *dx = sycl::malloc_device<float>(n, q);
  float *dy = sycl::malloc_device<float>(n, q);
  q.memcpy(dx, x, n * sizeof(float));
  q.memcpy(dy, y, n * sizeof(float)).wait();
  q.parallel_for(sycl::range<1>(n), [=](sycl::id<1> i) { dy[i] = a * dx[i] + dy[i]; }).wait();
  q.memcpy(y, dy, n * sizeof(float)).wait();
  sycl::free(dx, q);
  sycl::free(dy, q);
}
""", V.correct),
    ("sycl-queue-buffers-wrong", "axpy", """
#include <sycl/sycl.hpp>
using namespace sycl;
void saxpy(queue &Q, float a, const float *x, float *y, int n) {
  buffer<float, 1> bx(x, range<1>(n)), by(y, range<1>(n));
  Q.submit([&](handler &h) {
    auto X = bx.get_access<access::mode::read>(h);
    auto Y = by.get_access<access::mode::read_write>(h);
    h.parallel_for(range<1>(n), [=](id<1> i) { Y[i] = a * X[i]; });
  });
  Q.wait();
}
""", V.wrong_result),
]


def _evaluate(catalog, evaluator, code, kernel, model):
    from hpceval.bind.signature import infer_binding

    m = catalog.models[model]
    binding = infer_binding(code, catalog.kernels[kernel], catalog.languages[m.language], m)
    return binding, evaluator.evaluate(code, catalog.kernels[kernel], m, binding=binding)


def _check(case, catalog, evaluator):
    _, kernel, model, code, verdict = case
    binding, e = _evaluate(catalog, evaluator, code, kernel, model)
    if e.verdict == V.infra_error and "toolchain unavailable" in e.evidence:
        pytest.skip(e.evidence)
    assert e.verdict == verdict, f"{e.verdict}: {e.evidence}\nbinding: {binding.evidence}"


@pytest.mark.parametrize("case", VECTORS, ids=[c[0] for c in VECTORS])
def test_standard_containers(case, catalog, evaluator):
    _check(case, catalog, evaluator)


@pytest.mark.parametrize("case", STRUCTS, ids=[c[0] for c in STRUCTS])
def test_the_suggestions_own_types(case, catalog, evaluator):
    _check(case, catalog, evaluator)


@pytest.mark.parametrize("case", CONTEXT, ids=[c[0] for c in CONTEXT])
def test_aliases_templates_and_context(case, catalog, evaluator):
    _check(case, catalog, evaluator)


@pytest.mark.parametrize("case", SYCL, ids=[c[0] for c in SYCL])
def test_sycl_queue_is_created_and_passed(case, catalog, evaluator):
    from hpceval.bind.signature import infer_binding

    _, kernel, code, verdict = case
    m = catalog.models["cpp-sycl"]
    binding = infer_binding(code, catalog.kernels[kernel], catalog.languages[m.language], m)
    assert binding.error is None, binding.error
    assert any("sycl::queue" in line for line in binding.setup), binding.setup
    _check((case[0], kernel, "cpp-sycl", code, verdict), catalog, evaluator)


def test_struct_glue_builds_the_struct_by_its_fields(catalog):
    """The binding names each field's role, and the struct is built once in the setup (not per field)."""
    from hpceval.bind.signature import infer_binding

    code = STRUCTS[0][3]
    m = catalog.models["cpp-openmp"]
    b = infer_binding(code, catalog.kernels["spmv"], catalog.languages[m.language], m)
    assert b.error is None, b.error
    assert b.mapping.get("A.row_ptr") == "row_ptr" and b.mapping.get("A.values") == "values", b.mapping
    assert sum("CSRMatrix" in line for line in b.setup) == 1, b.setup
    assert len(b.args) == 3, b.args
