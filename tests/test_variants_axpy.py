"""AXPY free-form signatures (written as an unseen LLM would) through signature inference and the real evaluator:
BLAS strides, out-of-place results, double declared where the prompt pins single precision, returned arrays,
refusals (no kernel, complex) and wrong ones that must fail."""

from __future__ import annotations

import pytest

from variant_harness import GRADED, LANGS, check

CPP_LOOP = "#pragma omp parallel for\nfor (int i = 0; i < n; i++) "
FDO = "!$omp parallel do\n do i = 1, n\n  {stmt}\n end do\n!$omp end parallel do"


def f(name: str, sig: str, decl: str, stmt: str) -> str:
    return f"subroutine {name}({sig})\n{decl}\n integer :: i\n{FDO.format(stmt=stmt)}\nend subroutine\n"


CASES = [
    ("cpp-canonical", "cpp-openmp", "void saxpy(int n, float a, const float *x, float *y) {\n" + CPP_LOOP + "y[i] = a * x[i] + y[i]; }", "canonical", "correct"),
    ("cpp-double", "cpp-openmp", "void daxpy(int n, double alpha, const double *x, double *y) {\n" + CPP_LOOP + "y[i] += alpha * x[i]; }", "canonical", "correct"),
    ("cpp-strided", "cpp-openmp", "void saxpy(int n, float sa, const float *sx, int incx, float *sy, int incy) {\n" + CPP_LOOP + "sy[i*incy] += sa * sx[i*incx]; }", "strided", None),
    ("cpp-out-of-place", "cpp-openmp", "void axpy(int n, float a, const float *x, const float *y, float *z) {\n" + CPP_LOOP + "z[i] = a * x[i] + y[i]; }", "out_of_place", "correct"),
    ("cpp-vector", "cpp-openmp", "#include <vector>\nvoid saxpy(float a, const std::vector<float>& x, std::vector<float>& y) {\n#pragma omp parallel for\nfor (size_t i = 0; i < x.size(); i++) y[i] += a * x[i]; }", "canonical", None),
    # a class's or functor's naming (`x_`, `_y`, `m_a`) names the same parameters
    ("cpp-member-style-names", "cpp-openmp", "void saxpy(int n_, float m_a, const float *_x, float *y_) {\n#pragma omp parallel for\nfor (int i = 0; i < n_; i++) y_[i] = m_a * _x[i] + y_[i]; }", "canonical", "correct"),
    # a separate output whose name is on no list: the array the body writes and never reads is it
    ("cpp-out-of-place-unnamed-output", "cpp-openmp", "void axpy(int n, float a, const float *x, const float *y, float *acc) {\n" + CPP_LOOP + "acc[i] = a * x[i] + y[i]; }", "out_of_place", "correct"),
    # the scalar passed in a one-element array (read only at alpha[0])
    ("cpp-scalar-in-a-one-element-array", "cpp-openmp", "void saxpy(int n, const float *alpha, const float *x, float *y) {\n" + CPP_LOOP + "y[i] += alpha[0] * x[i]; }", "canonical", "correct"),
    # ... but not a scratch array written beside y (y is the output there: no out-of-place reading grades it)
    ("cpp-scratch-array-beside-y", "cpp-openmp", "void saxpy(int n, float a, const float *x, float *y, float *tmp) {\n" + CPP_LOOP + "{ tmp[i] = a * x[i]; y[i] += tmp[i]; } }", "scratch", "unbindable"),
    ("cpp-out-of-place-unnamed-forgets-y", "cpp-openmp", "void axpy(int n, float a, const float *x, const float *y, float *acc) {\n" + CPP_LOOP + "acc[i] = a * x[i]; }", "out_of_place", "wrong_result"),
    ("cpp-forgets-y", "cpp-openmp", "void saxpy(int n, float a, const float *x, float *y) {\n" + CPP_LOOP + "y[i] = a * x[i]; }", "canonical", "wrong_result"),
    ("cpp-half-range", "cpp-openmp", "void saxpy(int n, float a, const float *x, float *y) {\n#pragma omp parallel for\nfor (int i = 0; i < n / 2; i++) y[i] += a * x[i]; }", "canonical", "wrong_result"),
    ("cpp-missing-helper", "cpp-openmp", "void saxpy(int n, float a, const float *x, float *y) {\n" + CPP_LOOP + "y[i] = fma_scalar(a, x[i], y[i]); }", "fma_scalar", "incomplete"),
    ("cpp-bare-signature", "cpp-openmp", "void saxpy(int n, float a, const float *x, float *y);\n", "", "incomplete"),
    ("cpp-complex", "cpp-openmp", "#include <complex>\nvoid caxpy(int n, std::complex<float> a, const std::complex<float> *x, std::complex<float> *y) {\n" + CPP_LOOP + "y[i] += a * x[i]; }", "complex", "unbindable"),
    ("f-canonical", "fortran-openmp", f("saxpy", "n, a, x, y", " integer, intent(in) :: n\n real, intent(in) :: a, x(n)\n real, intent(inout) :: y(n)", "y(i) = a * x(i) + y(i)"), "canonical", "correct"),
    ("f-double", "fortran-openmp", f("daxpy", "n, da, dx, dy", " integer :: n\n double precision :: da, dx(n), dy(n)", "dy(i) = dy(i) + da * dx(i)"), "canonical", "correct"),
    ("f-assumed-shape", "fortran-openmp", "subroutine axpy(a, x, y)\n real, intent(in) :: a, x(:)\n real, intent(inout) :: y(:)\n y = a * x + y\nend subroutine\n", "canonical", None),
    ("f-strided", "fortran-openmp", f("saxpy", "n, sa, sx, incx, sy, incy", " integer :: n, incx, incy\n real :: sa, sx(*), sy(*)", "sy(1 + (i-1)*incy) = sy(1 + (i-1)*incy) + sa * sx(1 + (i-1)*incx)"), "strided", None),
    ("f-out-of-place", "fortran-openmp", f("axpy", "n, a, x, y, z", " integer, intent(in) :: n\n real, intent(in) :: a, x(n), y(n)\n real, intent(out) :: z(n)", "z(i) = a * x(i) + y(i)"), "out_of_place", None),
    ("f-out-of-place-unnamed", "fortran-openmp", f("axpy", "n, a, x, y, acc", " integer, intent(in) :: n\n real, intent(in) :: a, x(n), y(n)\n real, intent(out) :: acc(n)", "acc(i) = a * x(i) + y(i)"), "out_of_place", "correct"),
    ("f-sign-wrong", "fortran-openmp", f("saxpy", "n, a, x, y", " integer, intent(in) :: n\n real, intent(in) :: a, x(n)\n real, intent(inout) :: y(n)", "y(i) = y(i) - a * x(i)"), "canonical", "wrong_result"),
    ("f-intent-out-y", "fortran-openmp", f("saxpy", "n, a, x, y", " integer, intent(in) :: n\n real, intent(in) :: a, x(n)\n real, intent(out) :: y(n)", "y(i) = a * x(i)"), "canonical", "wrong_result"),
    ("f-declarations-only", "fortran-openmp", "subroutine saxpy(n, a, x, y)\n integer :: n\n real :: a, x(n), y(n)\nend subroutine\n", "declarations only", "incomplete"),
    ("f-cut-off", "fortran-openmp", "subroutine saxpy(n, a, x, y)\n integer :: n, i\n real :: a, x(n), y(n)\n do i = 1, n\n", "cut off", "incomplete"),
    ("f-complex", "fortran-openmp", f("caxpy", "n, a, x, y", " integer :: n\n complex :: a, x(n), y(n)", "y(i) = y(i) + a * x(i)"), "complex", "unbindable"),
    ("py-numpy-inplace", "python-numpy", "import numpy as np\ndef saxpy(a, x, y):\n    y += a * x\n", "canonical", "correct"),
    ("py-returns", "python-numpy", "import numpy as np\ndef axpy(alpha, x, y):\n    return alpha * x + y\n", "canonical", "correct"),
    ("py-numba", "python-numba", "from numba import njit, prange\n@njit(parallel=True)\ndef saxpy(n, a, x, y):\n    for i in prange(n):\n        y[i] = a * x[i] + y[i]\n", "canonical", "correct"),
    ("py-rebinds-y", "python-numpy", "import numpy as np\ndef saxpy(n, a, x, y):\n    y = a * x + y\n", "canonical", "wrong_result"),
    ("py-out-of-place", "python-numpy", "import numpy as np\ndef axpy(a, x, y, out):\n    np.add(a * x, y, out=out)\n", "out_of_place", None),
    ("py-underscore-out-of-place", "python-numpy", "import numpy as np\ndef axpy(_a, _x, _y, _acc):\n    _acc[:] = _a * _x + _y\n", "out_of_place", "correct"),
    ("py-float32-cast", "python-numpy", "import numpy as np\ndef saxpy(a, x, y):\n    y[:] = np.float32(a) * x.astype(np.float32) + y\n", "canonical", None),
    ("py-keyword-defaults", "python-numpy", "import numpy as np\ndef saxpy(x, y, a=2.0, copy=False):\n    y += a * x\n", "canonical", None),
    ("py-no-params", "python-numpy", "import numpy as np\ndef saxpy():\n    x = np.ones(8)\n    return 2 * x\n", "takes no parameters", "unbindable"),
    ("py-cut-off", "python-numpy", "import numpy as np\ndef saxpy(a, x, y):\n    y[:] = a * (x +\n", "", "incomplete"),
    ("py-undefined-helper", "python-numpy", "def saxpy(a, x, y):\n    return fused_axpy(a, x, y)\n", "fused_axpy", "incomplete"),
    ("jl-canonical", "julia-threads", "function saxpy!(a, x, y)\n    Threads.@threads for i in eachindex(x)\n        y[i] += a * x[i]\n    end\nend\n", "canonical", None),
    ("jl-complex", "julia-threads", "function caxpy!(a::ComplexF32, x::Vector{ComplexF32}, y::Vector{ComplexF32})\n    y .+= a .* x\nend\n", "complex", "unbindable"),
]


@pytest.mark.parametrize("lang", LANGS)
def test_axpy_bindings(catalog, evaluator, lang):
    check(catalog, evaluator, "axpy", CASES, lang, grade=False)


@pytest.mark.parametrize("lang", GRADED)
def test_axpy_signatures(catalog, evaluator, lang):
    check(catalog, evaluator, "axpy", CASES, lang, grade=True)
