"""3D Jacobi free-form signatures (no sample data: written as an unseen LLM would): a cube with one size n, a sweep
count graded at a random count per case (a kernel that ignores it fails), refusals."""

from __future__ import annotations

import pytest

from variant_harness import GRADED, LANGS, check

STENCIL = "(u[(i-1)*n*n+j*n+k] + u[(i+1)*n*n+j*n+k] + u[i*n*n+(j-1)*n+k] + u[i*n*n+(j+1)*n+k] + u[i*n*n+j*n+k-1] + u[i*n*n+j*n+k+1]) / 6.0"
LOOPS = "for (int i = 1; i < n-1; i++) for (int j = 1; j < n-1; j++) for (int k = 1; k < n-1; k++) "
NP = "unew[1:-1,1:-1,1:-1] = (u[:-2,1:-1,1:-1]+u[2:,1:-1,1:-1]+u[1:-1,:-2,1:-1]+u[1:-1,2:,1:-1]+u[1:-1,1:-1,:-2]+u[1:-1,1:-1,2:])/6"
CASES = [
    ("cpp-cube", "cpp-openmp", "void jacobi(int n, const double *u, double *unew) {\n#pragma omp parallel for collapse(2)\n" + LOOPS + "unew[i*n*n+j*n+k] = " + STENCIL + "; }", "square", "correct"),
    ("cpp-sweeps", "cpp-openmp", "#include <cstring>\nvoid jacobi(int n, int iters, double *u, double *unew) {\n for (int t = 0; t < iters; t++) {\n#pragma omp parallel for collapse(2)\n" + LOOPS + "unew[i*n*n+j*n+k] = " + STENCIL + ";\n std::memcpy(u, unew, sizeof(double)*n*n*n); } }", "sweeps", "correct"),
    ("cpp-ignores-sweeps", "cpp-openmp", "void jacobi(int n, int iters, double *u, double *unew) {\n#pragma omp parallel for collapse(2)\n" + LOOPS + "unew[i*n*n+j*n+k] = " + STENCIL + "; }", "sweeps", "wrong_result"),
    ("cpp-one-array", "cpp-openmp", "void jacobi(double *u) { u[0] = 0.0; }", "no parameter", "unbindable"),
    ("cpp-nx-ny-nz", "cpp-openmp", "void jacobi3d(int nx, int ny, int nz, const double *in, double *out) {\n#pragma omp parallel for collapse(2)\nfor (int i = 1; i < nx-1; i++) for (int j = 1; j < ny-1; j++) for (int k = 1; k < nz-1; k++) { int c = (i*ny + j)*nz + k; out[c] = (in[c-ny*nz] + in[c+ny*nz] + in[c-nz] + in[c+nz] + in[c-1] + in[c+1]) / 6.0; } }", "canonical", "correct"),
    ("cpp-wrong-divisor", "cpp-openmp", "void jacobi(int n, const double *u, double *unew) {\n#pragma omp parallel for collapse(2)\n" + LOOPS + "unew[i*n*n+j*n+k] = " + STENCIL.replace("/ 6.0", "/ 7.0") + "; }", "square", "wrong_result"),
    ("cpp-gauss-seidel", "cpp-openmp", "void jacobi(int n, double *u, double *unew) {\n" + LOOPS + "u[i*n*n+j*n+k] = " + STENCIL + ";\n#pragma omp parallel for\nfor (int i = 0; i < n*n*n; i++) unew[i] = u[i]; }", "square", "wrong_result"),
    ("cpp-triple-pointer", "cpp-openmp", "void jacobi(double ***u, double ***unew, int nx, int ny, int nz) {\n#pragma omp parallel for collapse(2)\nfor (int i = 1; i < nx-1; i++) for (int j = 1; j < ny-1; j++) for (int k = 1; k < nz-1; k++) unew[i][j][k] = (u[i-1][j][k] + u[i+1][j][k] + u[i][j-1][k] + u[i][j+1][k] + u[i][j][k-1] + u[i][j][k+1]) / 6.0; }", "canonical", "correct"),
    ("cpp-vector-3d", "cpp-openmp", "#include <vector>\nvoid jacobi(std::vector<double>& u, std::vector<double>& unew, int N) {\n#pragma omp parallel for\nfor (int i = 1; i < N-1; i++) for (int j = 1; j < N-1; j++) for (int k = 1; k < N-1; k++) unew[(i*N+j)*N+k] = (u[((i-1)*N+j)*N+k] + u[((i+1)*N+j)*N+k] + u[(i*N+j-1)*N+k] + u[(i*N+j+1)*N+k] + u[(i*N+j)*N+k-1] + u[(i*N+j)*N+k+1]) / 6.0; }", "square", None),
    ("cpp-undefined-idx", "cpp-openmp", "void jacobi(int n, const double *u, double *unew) {\n#pragma omp parallel for collapse(2)\n" + LOOPS + "unew[index3d(i,j,k,n)] = (u[index3d(i-1,j,k,n)] + u[index3d(i+1,j,k,n)]) / 2.0; }", "index3d", "incomplete"),
    ("cpp-signature-only", "cpp-openmp", "void jacobi(int nx, int ny, int nz, const double *u, double *unew);", "", "incomplete"),
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
    ("f-cube", "fortran-openmp", """
     subroutine jacobi_step(n, a, b)
       integer, intent(in) :: n
       real(8), intent(in) :: a(n,n,n)
       real(8), intent(inout) :: b(n,n,n)
       integer :: i, j, k
       !$omp parallel do collapse(2)
       do k = 2, n-1
         do j = 2, n-1
           do i = 2, n-1
             b(i,j,k) = (a(i-1,j,k) + a(i+1,j,k) + a(i,j-1,k) + a(i,j+1,k) + a(i,j,k-1) + a(i,j,k+1)) / 6.0d0
           end do
         end do
       end do
     end subroutine
     """, "square", "correct"),
    ("f-sweeps", "fortran-openmp", """
     subroutine jacobi(nx, ny, nz, niter, u, unew)
       integer, intent(in) :: nx, ny, nz, niter
       real(8), intent(inout) :: u(nx,ny,nz), unew(nx,ny,nz)
       integer :: i, j, k, it
       do it = 1, niter
         !$omp parallel do private(i, j)
         do k = 2, nz-1
           do j = 2, ny-1
             do i = 2, nx-1
               unew(i,j,k) = (u(i-1,j,k) + u(i+1,j,k) + u(i,j-1,k) + u(i,j+1,k) + u(i,j,k-1) + u(i,j,k+1)) / 6.0d0
             end do
           end do
         end do
         !$omp parallel workshare
         u(2:nx-1,2:ny-1,2:nz-1) = unew(2:nx-1,2:ny-1,2:nz-1)
         !$omp end parallel workshare
       end do
     end subroutine
     """, "sweeps", "correct"),
    ("f-boundary-overwritten", "fortran-openmp", """
     subroutine jacobi(nx, ny, nz, u, unew)
       integer :: nx, ny, nz, i, j, k
       real(8) :: u(nx,ny,nz), unew(nx,ny,nz)
       unew = 0.0d0
       !$omp parallel do private(i, j)
       do k = 2, nz-1
         do j = 2, ny-1
           do i = 2, nx-1
             unew(i,j,k) = (u(i-1,j,k) + u(i+1,j,k) + u(i,j-1,k) + u(i,j+1,k) + u(i,j,k-1) + u(i,j,k+1)) / 6.0d0
           end do
         end do
       end do
     end subroutine
     """, "canonical", "wrong_result"),
    ("f-wrong-neighbour", "fortran-openmp", "subroutine jacobi(nx, ny, nz, u, unew)\n integer :: nx, ny, nz, i, j, k\n real(8) :: u(nx,ny,nz), unew(nx,ny,nz)\n!$omp parallel do private(i, j)\n do k = 2, nz-1\n  do j = 2, ny-1\n   do i = 2, nx-1\n    unew(i,j,k) = (u(i-1,j,k) + u(i+1,j,k) + u(i,j-1,k) + u(i,j+1,k) + u(i,j,k-1) + u(i,j,k-1)) / 6.0d0\n   end do\n  end do\n end do\nend subroutine\n", "canonical", "wrong_result"),
    ("f-assumed-shape", "fortran-openmp", "subroutine jacobi(u, unew)\n real(8), intent(in) :: u(:,:,:)\n real(8), intent(inout) :: unew(:,:,:)\n integer :: i, j, k\n!$omp parallel do private(i, j)\n do k = 2, size(u,3)-1\n  do j = 2, size(u,2)-1\n   do i = 2, size(u,1)-1\n    unew(i,j,k) = (u(i-1,j,k) + u(i+1,j,k) + u(i,j-1,k) + u(i,j+1,k) + u(i,j,k-1) + u(i,j,k+1)) / 6.0d0\n   end do\n  end do\n end do\nend subroutine\n", "canonical", None),
    ("f-real4", "fortran-openmp", "subroutine jacobi(nx, ny, nz, u, unew)\n integer :: nx, ny, nz, i, j, k\n real :: u(nx,ny,nz), unew(nx,ny,nz)\n!$omp parallel do private(i, j)\n do k = 2, nz-1\n  do j = 2, ny-1\n   do i = 2, nx-1\n    unew(i,j,k) = (u(i-1,j,k) + u(i+1,j,k) + u(i,j-1,k) + u(i,j+1,k) + u(i,j,k-1) + u(i,j,k+1)) / 6.0\n   end do\n  end do\n end do\nend subroutine\n", "canonical", None),
    ("f-cut-off", "fortran-openmp", "subroutine jacobi(nx, ny, nz, u, unew)\n integer :: nx, ny, nz, i, j, k\n real(8) :: u(nx,ny,nz), unew(nx,ny,nz)\n!$omp parallel do private(i, j)\n do k = 2, nz-1\n  do j = 2, ny-1\n", "cut off", "incomplete"),
    ("f-complex", "fortran-openmp", "subroutine jacobi(n, u, unew)\n integer :: n, i, j, k\n complex(8) :: u(n,n,n), unew(n,n,n)\n do k = 2, n-1\n  do j = 2, n-1\n   do i = 2, n-1\n    unew(i,j,k) = (u(i-1,j,k) + u(i+1,j,k)) / 2\n   end do\n  end do\n end do\nend subroutine\n", "complex", "unbindable"),
    ("f-ignores-sweeps", "fortran-openmp", "subroutine jacobi(nx, ny, nz, nsteps, u, unew)\n integer :: nx, ny, nz, nsteps, i, j, k\n real(8) :: u(nx,ny,nz), unew(nx,ny,nz)\n!$omp parallel do private(i, j)\n do k = 2, nz-1\n  do j = 2, ny-1\n   do i = 2, nx-1\n    unew(i,j,k) = (u(i-1,j,k) + u(i+1,j,k) + u(i,j-1,k) + u(i,j+1,k) + u(i,j,k-1) + u(i,j,k+1)) / 6.0d0\n   end do\n  end do\n end do\nend subroutine\n", "sweeps", "wrong_result"),
    ("py-3d", "python-numpy", "import numpy as np\ndef jacobi(u, unew):\n    " + NP + "\n", "canonical", "correct"),
    ("py-sweeps", "python-numpy", "import numpy as np\ndef jacobi(u, unew, n, iters):\n    for _ in range(iters):\n        " + NP + "\n        u[...] = unew\n", "sweeps", "correct"),
    ("py-ignores-sweeps", "python-numpy", "import numpy as np\ndef jacobi(u, unew, n, iters):\n    " + NP + "\n", "sweeps", "wrong_result"),
    ("py-loops-numba", "python-numba", "import numba\n@numba.njit(parallel=True)\ndef jacobi_3d(u, u_new):\n    nx, ny, nz = u.shape\n    for i in numba.prange(1, nx - 1):\n        for j in range(1, ny - 1):\n            for k in range(1, nz - 1):\n                u_new[i, j, k] = (u[i-1, j, k] + u[i+1, j, k] + u[i, j-1, k] + u[i, j+1, k] + u[i, j, k-1] + u[i, j, k+1]) / 6.0\n", "canonical", "correct"),
    ("py-returns-new", "python-numpy", "import numpy as np\ndef jacobi(u):\n    v = u.copy()\n    v[1:-1,1:-1,1:-1] = (u[:-2,1:-1,1:-1]+u[2:,1:-1,1:-1]+u[1:-1,:-2,1:-1]+u[1:-1,2:,1:-1]+u[1:-1,1:-1,:-2]+u[1:-1,1:-1,2:])/6\n    return v\n", "canonical", "correct"),
    ("py-missing-axis", "python-numpy", "import numpy as np\ndef jacobi(u, unew):\n    unew[1:-1,1:-1,1:-1] = (u[:-2,1:-1,1:-1]+u[2:,1:-1,1:-1]+u[1:-1,:-2,1:-1]+u[1:-1,2:,1:-1])/6\n", "canonical", "wrong_result"),
    ("py-returns-zeros-boundary", "python-numpy", "import numpy as np\ndef jacobi(u):\n    v = np.zeros_like(u)\n    v[1:-1,1:-1,1:-1] = (u[:-2,1:-1,1:-1]+u[2:,1:-1,1:-1]+u[1:-1,:-2,1:-1]+u[1:-1,2:,1:-1]+u[1:-1,1:-1,:-2]+u[1:-1,1:-1,2:])/6\n    return v\n", "canonical", "wrong_result"),
    ("py-nx-ny-nz", "python-numba", "from numba import njit, prange\n@njit(parallel=True)\ndef jacobi(nx, ny, nz, u, unew):\n    for i in prange(1, nx-1):\n        for j in range(1, ny-1):\n            for k in range(1, nz-1):\n                unew[i,j,k] = (u[i-1,j,k]+u[i+1,j,k]+u[i,j-1,k]+u[i,j+1,k]+u[i,j,k-1]+u[i,j,k+1])/6.0\n", "canonical", None),
    # no grid at all: it prints indices, another operation
    ("py-no-arrays", "python-numpy", "def jacobi(n, iters):\n    for it in range(iters):\n        for i in range(n):\n            print(i)\n", "cannot compute", "wrong_result"),
    ("py-cut-off", "python-numpy", "import numpy as np\ndef jacobi(u, unew):\n    unew[1:-1,1:-1,1:-1] = (u[:-2,1:-1,1:-1] +\n", "", "incomplete"),
    # in place through the suggestion's own temporary (one grid array, read and written): graded as unew = J(u) by
    # handing it a copy of u; updating the grid without a temporary is Gauss-Seidel, another operation
    ("cpp-in-place-temp", "cpp-openmp", "#include <vector>\nvoid jacobi(double *u, int n) {\n std::vector<double> tmp(u, u + (size_t)n*n*n);\n#pragma omp parallel for collapse(2)\n" + LOOPS + "tmp[i*n*n+j*n+k] = " + STENCIL + ";\n#pragma omp parallel for\n for (int i = 0; i < n*n*n; i++) u[i] = tmp[i];\n}", "in_place", "correct"),
    ("cpp-in-place-sweeps", "cpp-openmp", "#include <cstdlib>\n#include <cstring>\nvoid jacobi_iterate(double *grid, int nx, int ny, int nz, int nsweeps) {\n double *next = (double *)std::malloc(sizeof(double) * nx * ny * nz);\n std::memcpy(next, grid, sizeof(double) * nx * ny * nz);\n for (int s = 0; s < nsweeps; ++s) {\n#pragma omp parallel for collapse(3)\n  for (int i = 1; i < nx - 1; ++i) for (int j = 1; j < ny - 1; ++j) for (int k = 1; k < nz - 1; ++k) {\n   int c = (i * ny + j) * nz + k;\n   next[c] = (grid[c - ny * nz] + grid[c + ny * nz] + grid[c - nz] + grid[c + nz] + grid[c - 1] + grid[c + 1]) / 6.0;\n  }\n  std::memcpy(grid, next, sizeof(double) * nx * ny * nz);\n }\n std::free(next);\n}", "sweeps", "correct"),
    ("cpp-in-place-gauss-seidel", "cpp-openmp", "void jacobi(double *u, int nx, int ny, int nz) {\n#pragma omp parallel for collapse(2)\n for (int i = 1; i < nx-1; i++) for (int j = 1; j < ny-1; j++) for (int k = 1; k < nz-1; k++) { int c = (i*ny + j)*nz + k; u[c] = (u[c-ny*nz] + u[c+ny*nz] + u[c-nz] + u[c+nz] + u[c-1] + u[c+1]) / 6.0; } }", "in_place", "wrong_result"),
    ("f-in-place-temp", "fortran-openmp", """
     subroutine jacobi(n, u)
       integer, intent(in) :: n
       real(8), intent(inout) :: u(n,n,n)
       real(8), allocatable :: tmp(:,:,:)
       integer :: i, j, k
       allocate(tmp(n,n,n))
       tmp = u
       !$omp parallel do collapse(2)
       do k = 2, n-1
         do j = 2, n-1
           do i = 2, n-1
             tmp(i,j,k) = (u(i-1,j,k) + u(i+1,j,k) + u(i,j-1,k) + u(i,j+1,k) + u(i,j,k-1) + u(i,j,k+1)) / 6.0d0
           end do
         end do
       end do
       u = tmp
       deallocate(tmp)
     end subroutine
     """, "in_place", "correct"),
    ("py-in-place-slices", "python-numpy", "import numpy as np\ndef jacobi(u):\n    u[1:-1,1:-1,1:-1] = (u[:-2,1:-1,1:-1]+u[2:,1:-1,1:-1]+u[1:-1,:-2,1:-1]+u[1:-1,2:,1:-1]+u[1:-1,1:-1,:-2]+u[1:-1,1:-1,2:])/6\n", "in_place", "correct"),
    ("py-in-place-gauss-seidel", "python-numba", "from numba import njit, prange\n@njit(parallel=True)\ndef jacobi(grid):\n    nx, ny, nz = grid.shape\n    for i in prange(1, nx-1):\n        for j in range(1, ny-1):\n            for k in range(1, nz-1):\n                grid[i,j,k] = (grid[i-1,j,k]+grid[i+1,j,k]+grid[i,j-1,k]+grid[i,j+1,k]+grid[i,j,k-1]+grid[i,j,k+1])/6.0\n", "in_place", "wrong_result"),
    ("py-in-place-returned", "python-numpy", "import numpy as np\ndef jacobi(u):\n    u[1:-1,1:-1,1:-1] = (u[:-2,1:-1,1:-1]+u[2:,1:-1,1:-1]+u[1:-1,:-2,1:-1]+u[1:-1,2:,1:-1]+u[1:-1,1:-1,:-2]+u[1:-1,1:-1,2:])/6\n    return u\n", "in_place", "correct"),
    ("py-in-place-sweeps", "python-numpy", "import numpy as np\ndef jacobi(u, iters=10):\n    for _ in range(iters):\n        u[1:-1,1:-1,1:-1] = (u[:-2,1:-1,1:-1]+u[2:,1:-1,1:-1]+u[1:-1,:-2,1:-1]+u[1:-1,2:,1:-1]+u[1:-1,1:-1,:-2]+u[1:-1,1:-1,2:])/6\n", "sweeps", "correct"),
    # a tolerance loop in place that returns the sweeps it took (a count, not the grid)
    ("py-in-place-tol-count", "python-numpy", "import numpy as np\ndef jacobi(u, tol=1e-6, max_iter=1000):\n    for it in range(max_iter):\n        old = u.copy()\n        u[1:-1,1:-1,1:-1] = (old[:-2,1:-1,1:-1]+old[2:,1:-1,1:-1]+old[1:-1,:-2,1:-1]+old[1:-1,2:,1:-1]+old[1:-1,1:-1,:-2]+old[1:-1,1:-1,2:])/6\n        if np.max(np.abs(u - old)) < tol:\n            break\n    return it\n", "tol", "correct"),
    ("jl-in-place-temp", "julia-threads", "function jacobi!(u)\n    tmp = copy(u)\n    nx, ny, nz = size(u)\n    Threads.@threads for k in 2:nz-1\n        for j in 2:ny-1, i in 2:nx-1\n            tmp[i,j,k] = (u[i-1,j,k] + u[i+1,j,k] + u[i,j-1,k] + u[i,j+1,k] + u[i,j,k-1] + u[i,j,k+1]) / 6\n        end\n    end\n    u .= tmp\nend\n", "in_place", None),
    ("jl-3d", "julia-threads", "function jacobi!(unew, u)\n    nx, ny, nz = size(u)\n    Threads.@threads for k in 2:nz-1\n        for j in 2:ny-1, i in 2:nx-1\n            unew[i,j,k] = (u[i-1,j,k] + u[i+1,j,k] + u[i,j-1,k] + u[i,j+1,k] + u[i,j,k-1] + u[i,j,k+1]) / 6\n        end\n    end\nend\n", "canonical", None),
    ("jl-sweeps", "julia-threads", "function jacobi(u, unew, niter)\n    for it in 1:niter\n        Threads.@threads for k in 2:size(u,3)-1\n            for j in 2:size(u,2)-1, i in 2:size(u,1)-1\n                unew[i,j,k] = (u[i-1,j,k] + u[i+1,j,k] + u[i,j-1,k] + u[i,j+1,k] + u[i,j,k-1] + u[i,j,k+1]) / 6\n            end\n        end\n        u .= unew\n    end\nend\n", "sweeps", None),
]


@pytest.mark.parametrize("lang", LANGS)
def test_jacobi_bindings(catalog, evaluator, lang):
    check(catalog, evaluator, "jacobi", CASES, lang, grade=False)


@pytest.mark.parametrize("lang", GRADED)
def test_jacobi_signatures(catalog, evaluator, lang):
    check(catalog, evaluator, "jacobi", CASES, lang, grade=True)
