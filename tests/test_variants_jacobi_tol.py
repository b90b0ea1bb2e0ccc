"""3D Jacobi as a tolerance loop (variants.toml `tol`): sweeps until the change of a sweep is below tol, at most
max_iter, the iteration count returned or not. Graded at a random tol per case against the same iteration stopped
at tol (reference.check_tol: a bound derived from tol and the grid's rate, not the machine epsilon). `max_iter` is
also a sweep-count name: only the body's convergence test (bind.structure.convergence_test) makes it a cap."""

from __future__ import annotations

import pytest

from variant_harness import GRADED, LANGS, check

STENCIL = "(u[(i-1)*n*n+j*n+k] + u[(i+1)*n*n+j*n+k] + u[i*n*n+(j-1)*n+k] + u[i*n*n+(j+1)*n+k] + u[i*n*n+j*n+k-1] + u[i*n*n+j*n+k+1]) / 6.0"
LOOPS = "for (int i = 1; i < n-1; i++) for (int j = 1; j < n-1; j++) for (int k = 1; k < n-1; k++) "
NP = "unew[1:-1,1:-1,1:-1] = (u[:-2,1:-1,1:-1]+u[2:,1:-1,1:-1]+u[1:-1,:-2,1:-1]+u[1:-1,2:,1:-1]+u[1:-1,1:-1,:-2]+u[1:-1,1:-1,2:])/6"


def cpp(test: str, ret: str = "int", tail: str = "return it + 1;", head: str = "double tol, int max_iter") -> str:
    return ("#include <cmath>\n#include <cstring>\n" + ret + " jacobi(int n, double *u, double *unew, " + head + ") {\n"
            " int it = 0;\n for (; it < max_iter; it++) {\n  double diff = 0.0;\n"
            "#pragma omp parallel for collapse(2) reduction(max:diff)\n  " + LOOPS + "{ unew[i*n*n+j*n+k] = " + STENCIL
            + "; diff = std::fmax(diff, std::fabs(unew[i*n*n+j*n+k] - u[i*n*n+j*n+k])); }\n"
            "  std::memcpy(u, unew, sizeof(double)*n*n*n);\n  " + test + "\n }\n " + tail + "\n}")


def f(test: str, args: str = "nx, ny, nz, u, unew, tol, maxiter") -> str:
    return f"""subroutine jacobi({args})
  integer, intent(in) :: nx, ny, nz, maxiter
  real(8), intent(in) :: tol
  real(8), intent(inout) :: u(nx,ny,nz), unew(nx,ny,nz)
  integer :: i, j, k, it
  real(8) :: diff
  do it = 1, maxiter
    diff = 0.0d0
    !$omp parallel do private(i, j) reduction(max:diff)
    do k = 2, nz-1
      do j = 2, ny-1
        do i = 2, nx-1
          unew(i,j,k) = (u(i-1,j,k) + u(i+1,j,k) + u(i,j-1,k) + u(i,j+1,k) + u(i,j,k-1) + u(i,j,k+1)) / 6.0d0
          diff = max(diff, abs(unew(i,j,k) - u(i,j,k)))
        end do
      end do
    end do
    !$omp parallel workshare
    u = unew
    !$omp end parallel workshare
    {test}
  end do
end subroutine
"""


CASES = [
    ("cpp-tol-returns-count", "cpp-openmp", cpp("if (diff < tol) break;"), "tol", "correct"),
    ("cpp-tol-void", "cpp-openmp", cpp("if (diff < tol) return;", "void", ""), "tol", "correct"),
    ("cpp-tol-stops-early", "cpp-openmp", cpp("if (diff < 1000*tol) break;"), "tol", "wrong_result"),
    ("cpp-fixed-count-max-iter", "cpp-openmp", "#include <cstring>\nvoid jacobi(int n, double *u, double *unew, int max_iter) {\n for (int t = 0; t < max_iter; t++) {\n#pragma omp parallel for collapse(2)\n" + LOOPS + "unew[i*n*n+j*n+k] = " + STENCIL + ";\n std::memcpy(u, unew, sizeof(double)*n*n*n); } }", "sweeps", "correct"),
    ("f-tol", "fortran-openmp", f("if (diff < tol) exit"), "tol", "correct"),
    ("f-tol-ignored", "fortran-openmp", f("exit"), "tol", "wrong_result"),
    ("f-tol-l2", "fortran-openmp", f("if (sqrt(sum((u - unew)**2)) + diff .lt. tol) exit"), "tol", "correct"),
    ("py-tol-returns-count", "python-numpy", "import numpy as np\ndef jacobi(u, unew, tol, max_iter):\n    for it in range(max_iter):\n        " + NP + "\n        diff = np.max(np.abs(unew - u))\n        u[...] = unew\n        if diff < tol:\n            return it + 1\n    return max_iter\n", "tol", "correct"),
    ("py-tol-while-l2", "python-numpy", "import numpy as np\ndef jacobi(u, unew, tol=1e-6, max_iter=1000):\n    err = tol + 1.0\n    it = 0\n    while err > tol and it < max_iter:\n        " + NP + "\n        err = np.linalg.norm(unew - u)\n        u[:] = unew\n        it += 1\n", "tol", "correct"),
    ("py-tol-one-sweep", "python-numpy", "import numpy as np\ndef jacobi(u, unew, tol, max_iter):\n    " + NP + "\n    if np.max(np.abs(unew - u)) < tol:\n        return 1\n    return 1\n", "tol", "wrong_result"),
    ("py-max-iter-sweeps", "python-numpy", "import numpy as np\ndef jacobi(u, unew, max_iter):\n    for _ in range(max_iter):\n        " + NP + "\n        u[...] = unew\n", "sweeps", "correct"),
]


@pytest.mark.parametrize("lang", [x for x in LANGS if x != "julia"])
def test_jacobi_tol_bindings(catalog, evaluator, lang):
    check(catalog, evaluator, "jacobi", CASES, lang, grade=False)


@pytest.mark.parametrize("lang", GRADED)
def test_jacobi_tol_signatures(catalog, evaluator, lang):
    check(catalog, evaluator, "jacobi", CASES, lang, grade=True)
