"""3D Jacobi free-form signatures (no sample data: written as an unseen LLM would): a cube with one size n, a sweep
count graded at a random count per case (a kernel that ignores it fails), refusals."""

from __future__ import annotations

import pytest

from variant_harness import bind_and_grade

STENCIL = "(u[(i-1)*n*n+j*n+k] + u[(i+1)*n*n+j*n+k] + u[i*n*n+(j-1)*n+k] + u[i*n*n+(j+1)*n+k] + u[i*n*n+j*n+k-1] + u[i*n*n+j*n+k+1]) / 6.0"
LOOPS = "for (int i = 1; i < n-1; i++) for (int j = 1; j < n-1; j++) for (int k = 1; k < n-1; k++) "
NP = "unew[1:-1,1:-1,1:-1] = (u[:-2,1:-1,1:-1]+u[2:,1:-1,1:-1]+u[1:-1,:-2,1:-1]+u[1:-1,2:,1:-1]+u[1:-1,1:-1,:-2]+u[1:-1,1:-1,2:])/6"
CASES = [
    ("cpp-cube", "cpp-openmp", "void jacobi(int n, const double *u, double *unew) {\n#pragma omp parallel for collapse(2)\n" + LOOPS + "unew[i*n*n+j*n+k] = " + STENCIL + "; }", "square", "correct"),
    ("cpp-sweeps", "cpp-openmp", "#include <cstring>\nvoid jacobi(int n, int iters, double *u, double *unew) {\n for (int t = 0; t < iters; t++) {\n#pragma omp parallel for collapse(2)\n" + LOOPS + "unew[i*n*n+j*n+k] = " + STENCIL + ";\n std::memcpy(u, unew, sizeof(double)*n*n*n); } }", "sweeps", "correct"),
    ("cpp-ignores-sweeps", "cpp-openmp", "void jacobi(int n, int iters, double *u, double *unew) {\n#pragma omp parallel for collapse(2)\n" + LOOPS + "unew[i*n*n+j*n+k] = " + STENCIL + "; }", "sweeps", "wrong_result"),
    ("cpp-one-array", "cpp-openmp", "void jacobi(double *u) { }", "no parameter", "unbindable"),
    ("f-3d", "fortran-openmp", """
     subroutine jacobi(nx, ny, nz, u, unew)
       integer :: nx, ny, nz, i, j, k
       real(8) :: u(nx,ny,nz), unew(nx,ny,nz)
       !$omp parallel do private(i, j)
       do k = 2, nz-1
         do j = 2, ny-1
           do i = 2, nx-1
             unew(i,j,k) = (u(i-1,j,k) + u(i+1,j,k) + u(i,j-1,k) + u(i,j+1,k) + u(i,j,k-1) + u(i,j,k+1)) / 6.0d0
           end do
         end do
       end do
     end subroutine
     """, "canonical", "correct"),
    ("py-3d", "python-numpy", "import numpy as np\ndef jacobi(u, unew):\n    " + NP + "\n", "canonical", "correct"),
    ("py-sweeps", "python-numpy", "import numpy as np\ndef jacobi(u, unew, n, iters):\n    for _ in range(iters):\n        " + NP + "\n        u[...] = unew\n", "sweeps", "correct"),
    ("py-ignores-sweeps", "python-numpy", "import numpy as np\ndef jacobi(u, unew, n, iters):\n    " + NP + "\n", "sweeps", "wrong_result"),
]


@pytest.mark.parametrize("lang", ["cpp", "fortran", "python"])
def test_jacobi_signatures(catalog, evaluator, lang):
    prefix = {"cpp": "cpp-", "fortran": "f-", "python": "py-"}[lang]
    assert bind_and_grade(catalog, evaluator, "jacobi", [c for c in CASES if c[0].startswith(prefix)]) == []
