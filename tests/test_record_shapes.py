"""Records that carry a matrix and its shape: each record's size fields are extents of its own arrays.

A GEMM written over three objects of one Matrix class (rows, cols, data) has six size fields for three sizes:
A.cols is k, B.rows is k, B.cols is n. Read by name, `cols` is the kernel's n, so every mapping contradicted itself
and the suggestion was `unbindable` (outside the score); reading the three records as square matrices (one size
for all) would pass a kernel that takes its inner bound from the wrong matrix. The mapping now requires each record
size field to be an extent of an array its own record carries, two fields of one record to be two extents, and a
merged size (a square implementation) never mixed with its parts (bind.mapping.record_extents). An output whose
elements a class keeps private without an accessor (only `operator()(i, j)`) is read back through a pointer to the
member taken in an explicit instantiation (bind.adapt.cpp.private_member). Written as unseen answers before the
change: right but unusual, subtly wrong, wrong model, and one that must stay build_error.
"""

from __future__ import annotations

import pytest

from hpceval.contracts import Verdict

V = Verdict

STRUCT = """
#include <vector>

struct Mat {
    int nrows;
    int ncols;
    std::vector<double> v;
};
"""

STRUCT_GEMM = """
void multiply(const Mat& a, const Mat& b, Mat& c) {
    #pragma omp parallel for
    for (int i = 0; i < a.nrows; ++i) {
        for (int j = 0; j < b.ncols; ++j) {
            double acc = 0.0;
            for (int p = 0; p < a.ncols; ++p) acc += a.v[i * a.ncols + p] * b.v[p * b.ncols + j];
            c.v[i * c.ncols + j] = acc;
        }
    }
}
"""

CLASS = """
#include <vector>
#include <cstddef>

class Matrix {
public:
    Matrix(std::size_t r, std::size_t c, std::vector<double> d) : r_(r), c_(c), d_(std::move(d)) {}
    std::size_t rows() const { return r_; }
    std::size_t cols() const { return c_; }
    double operator()(std::size_t i, std::size_t j) const { return d_[i * c_ + j]; }
    double& operator()(std::size_t i, std::size_t j) { return d_[i * c_ + j]; }
private:
    std::size_t r_, c_;
    std::vector<double> d_;
};
"""

CLASS_GEMM = """
void gemm(const Matrix& A, const Matrix& B, Matrix& C) {
    #pragma omp parallel for collapse(2)
    for (std::size_t i = 0; i < C.rows(); ++i)
        for (std::size_t j = 0; j < C.cols(); ++j) {
            double s = 0;
            for (std::size_t p = 0; p < A.cols(); ++p) s += A(i, p) * B(p, j);
            C(i, j) = s;
        }
}
"""

GEMV_STRUCT = """
#include <vector>

struct Dense { int rows; int cols; const double* a; };

void gemv(const Dense& M, const double* x, double* y) {
    #pragma omp parallel for
    for (int i = 0; i < M.rows; ++i) {
        double s = 0.0;
        for (int j = 0; j < M.cols; ++j) s += M.a[i * M.cols + j] * x[j];
        y[i] = s;
    }
}
"""

SQUARE_CLASS_GEMM = """
#include <vector>

struct Square { int n; std::vector<double> e; };

void gemm(const Square& A, const Square& B, Square& C) {
    #pragma omp parallel for
    for (int i = 0; i < A.n; ++i)
        for (int j = 0; j < A.n; ++j) {
            double s = 0.0;
            for (int p = 0; p < A.n; ++p) s += A.e[i * A.n + p] * B.e[p * A.n + j];
            C.e[i * A.n + j] = s;
        }
}
"""

CASES = [
    ("struct-gemm", "gemm", "cpp-openmp", STRUCT + STRUCT_GEMM, V.correct),
    ("struct-gemm-c-stride-from-a", "gemm", "cpp-openmp",
     # where k > n the rows of C are written past its end: the driver sees it
     STRUCT + STRUCT_GEMM.replace("c.v[i * c.ncols + j]", "c.v[i * a.ncols + j]"), V.runtime_error),
    ("struct-gemm-serial", "gemm", "cpp-openmp", STRUCT + STRUCT_GEMM.replace("    #pragma omp parallel for\n", ""),
     V.wrong_model),
    ("struct-gemm-openacc-asked", "gemm", "cpp-openacc", STRUCT + STRUCT_GEMM, V.wrong_model),
    ("class-call-operator-gemm", "gemm", "cpp-openmp", CLASS + CLASS_GEMM, V.correct),
    ("class-call-operator-gemm-loops-c-cols-as-inner", "gemm", "cpp-openmp",
     CLASS + CLASS_GEMM.replace("p < A.cols()", "p < C.cols()"), V.wrong_result),
    ("struct-gemv-shape-fields", "gemv", "cpp-openmp", GEMV_STRUCT, V.correct),
    ("square-struct-gemm", "gemm", "cpp-openmp", SQUARE_CLASS_GEMM, V.correct),
    ("struct-gemm-undeclared-accumulator", "gemm", "cpp-openmp",
     STRUCT + STRUCT_GEMM.replace("double acc = 0.0;", ""), V.build_error),
]


@pytest.mark.parametrize("name,kernel,model,code,verdict", CASES, ids=[c[0] for c in CASES])
def test_records_carry_their_own_shape(name, kernel, model, code, verdict, paper_verdict):
    paper_verdict(code, kernel, model, verdict)


PY_MATRIX = """
from dataclasses import dataclass
import numpy as np

@dataclass
class Matrix:
    rows: int
    cols: int
    data: np.ndarray
"""

PY_CASES = [
    ("returns-a-new-matrix", PY_MATRIX + """
def matmul(A: Matrix, B: Matrix) -> Matrix:
    a = np.asarray(A.data).reshape(A.rows, A.cols)
    b = np.asarray(B.data).reshape(B.rows, B.cols)
    return Matrix(A.rows, B.cols, (a @ b).ravel())
"""),
    ("writes-into-c", PY_MATRIX + """
def matmul(A: Matrix, B: Matrix, C: Matrix) -> None:
    a = np.asarray(A.data).reshape(A.rows, A.cols)
    b = np.asarray(B.data).reshape(B.rows, B.cols)
    C.data[:] = (a @ b).ravel()
"""),
]


@pytest.mark.parametrize("name,code", PY_CASES, ids=[c[0] for c in PY_CASES])
def test_python_matrix_objects_are_never_charged_for_the_glue(name, code, paper_evaluate):
    """Three objects of a Python Matrix class in a GEMM, each with its own extents, taken in and returned: built
    from the mapped fields (bind.adapt.python_records), and a returned Matrix read back through its one array of
    the output's size; right code is `correct`, never a NumPy array in the object's place and a `runtime_error`
    ('numpy.ndarray' object has no attribute 'rows') charged to the LLM."""
    e = paper_evaluate(code, "gemm", "python-numpy")
    assert e.verdict == V.correct, f"{e.verdict}: {e.evidence}"
    if e.verdict == V.unbindable:
        assert "own Matrix(rows, cols, data)" in e.evidence


def test_a_broken_matrix_object_gemm_stays_in_the_score(paper_evaluate):
    """The unbindable rule for the suggestion's own class must not take a failure out of the score: code that does
    not import is graded before binding (compile first), so it stays `build_error`, never `unbindable`."""
    broken = PY_CASES[1][1].replace("reshape(A.rows, A.cols)", "reshape(A.rows A.cols)")  # a syntax error mid-body
    e = paper_evaluate(broken, "gemm", "python-numpy")
    assert e.verdict == V.build_error, f"{e.verdict}: {e.evidence}"
    cut = PY_CASES[1][1].replace("C.data[:] = (a @ b).ravel()", "C.data[:] = (a @ b).ravel(")  # cut off at the end
    e = paper_evaluate(cut, "gemm", "python-numpy")
    assert e.verdict == V.incomplete, f"{e.verdict}: {e.evidence}"
