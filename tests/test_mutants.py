"""Mutation operators on small snippets: each operator gives the expected mutant text, comments and #include lines
are never touched, equivalent mutants are avoided, duplicates are dropped and the cap samples every kind."""

from __future__ import annotations

import ast
import re
import textwrap
from pathlib import Path

import pytest

from hpceval.mutants import KINDS, Mutant, UnsupportedLanguage, generate_mutants, sample

CPP = textwrap.dedent("""\
    #include <omp.h>
    // i < n in a comment; y[i] = a * x[i] + y[i];
    /* for (int i = 0; i < n; ++i) s = 0.0; */
    void k(int n, double a, const double *A, const double *x, double *y, double *out) {
      double s = 0.0;
    #pragma omp parallel for reduction(+ : s)
      for (int i = 0; i < n; ++i) {
        y[i] = a * x[i] + y[i];
        s += A[i * n + 1] * x[i];
      }
      *out = s;
    }
    """)

FORTRAN = textwrap.dedent("""\
    subroutine k(n, a, x, y, s)
      implicit none
      integer, intent(in) :: n
      real(8), intent(in) :: a, x(n)
      real(8), intent(inout) :: y(n)
      real(8), intent(out) :: s
      integer :: i
      ! do i = 1, n in a comment: y(i) = 0
      s = 0.0d0
      !$omp parallel do reduction(+:s)
      do i = 1, n
        y(i) = a * x(i) + y(i)
        s = s + x(i)
      end do
      !$omp end parallel do
    end subroutine k
    """)

PYTHON = textwrap.dedent("""\
    import numba
    import numpy as np


    @numba.njit(parallel=True)
    def k(n, a, x, y):
        # for i in range(n): y[i] = 0
        s = 0.0
        for i in numba.prange(n):
            y[i] = a * x[i] + y[i]
            s += x[i]
        return s
    """)


def texts(code: str, language: str, kind: str | None = None) -> list[str]:
    return [m.code for m in generate_mutants(code, language, cap=None) if kind is None or m.kind == kind]


def changed_lines(original: str, mutant: Mutant) -> list[str]:
    return [line[1:] for line in mutant.diff(original).splitlines() if line.startswith("+")]


def replaced(code: str, old: str, new: str) -> str:
    """`code` with the last occurrence of `old` replaced (earlier ones are in the snippets' comments)."""
    head, sep, tail = code.rpartition(old)
    assert sep, old
    return head + new + tail


# ---------------------------------------------------------------------------------------------- C++

@pytest.mark.parametrize("kind, old, new", [
    ("off-by-one", "i < n;", "i <= n;"),
    ("off-by-one", "i < n;", "i < n - 1;"),
    ("off-by-one", "int i = 0;", "int i = 1;"),
    ("dropped-term", "a * x[i] + y[i];", "y[i];"),
    ("dropped-term", "a * x[i] + y[i];", "a * x[i];"),
    ("arithmetic", "a * x[i] + y[i];", "a * x[i] - y[i];"),
    ("arithmetic", "a * x[i] + y[i];", "a / x[i] + y[i];"),
    ("arithmetic", "s += A", "s -= A"),
    ("zeroed-output", "y[i] = a * x[i] + y[i];", "y[i] = 0;"),
    ("zeroed-output", "*out = s;", "*out = 0;"),
    ("unwritten-output", "    y[i] = a * x[i] + y[i];\n", "    \n"),
    ("wrong-reduction", "#pragma omp parallel for reduction(+ : s)", "#pragma omp parallel for"),
    ("wrong-reduction", "reduction(+ : s)", "reduction(*: s)"),
    ("wrong-init", "double s = 0.0;", "double s = 1.0;"),
])
def test_cpp_operator(kind, old, new):
    assert replaced(CPP, old, new) in texts(CPP, "cpp", kind)


def test_cpp_removed_parallel_is_expected_wrong_model():
    (m,) = [m for m in generate_mutants(CPP, "cpp", cap=None) if m.kind == "removed-parallel"]
    assert "#pragma" not in m.code and m.expect == "wrong_model"
    assert m.code == CPP.replace("#pragma omp parallel for reduction(+ : s)\n", "")


def test_cpp_swapped_index():
    code = "void k(int n, const double *A, double *B) {\n  for (int i = 0; i < n; ++i)\n" \
           "    for (int j = 0; j < n; ++j) B[i * n + j] = A[i * n + j] + A[i + j];\n}\n"
    swaps = texts(code, "cpp", "swapped-index")
    assert code.replace("B[i * n + j]", "B[j * n + i]") in swaps
    assert code.replace("A[i * n + j]", "A[j * n + i]") in swaps
    assert not any("A[j + i]" in t for t in swaps)  # symmetric index: an equivalent mutant, not generated
    nested = "void k(int n, double **M) {\n  for (int i = 0; i < n; ++i)\n    for (int j = 0; j < n; ++j) M[i][j] = 1.0;\n}\n"
    assert nested.replace("M[i][j]", "M[j][i]") in texts(nested, "cpp", "swapped-index")


def test_cpp_comments_and_includes_untouched():
    for m in generate_mutants(CPP, "cpp", cap=None):
        assert m.code.splitlines()[:3] == CPP.splitlines()[:3], m.description


def test_cpp_data_clauses():
    code = textwrap.dedent("""\
        void k(int n, const float *x, float *y) {
        #pragma omp target teams distribute parallel for map(to : x[0:n]) map(tofrom : y[0:n])
          for (int i = 0; i < n; ++i) y[i] += x[i];
        }
        """)
    data = texts(code, "cpp", "data-clause")
    assert replaced(code, "map(to : x", "map(alloc : x") in data
    assert replaced(code, "map(tofrom : y", "map(to : y") in data
    assert replaced(code, "y[0:n]", "y[0:n - 1]") in data
    acc = "void k(int n, float *y) {\n#pragma acc enter data copyin(y[0:n])\n#pragma acc parallel loop present(y)\n" \
          "  for (int i = 0; i < n; ++i) y[i] *= 2;\n}\n"
    assert acc.replace("#pragma acc enter data copyin(y[0:n])\n", "") in texts(acc, "cpp", "data-clause")


def test_cpp_private_of_associated_loop_is_not_removed():
    code = textwrap.dedent("""\
        void k(int n, double *y) {
          int i, j;
        #pragma omp parallel for private(i, j)
          for (i = 0; i < n; ++i)
            for (j = 0; j < n; ++j) y[i] += j;
        }
        """)
    assert replaced(code, "private(i, j)", "private(i)") in texts(code, "cpp", "wrong-reduction")
    assert not any("private(j)" in t for t in texts(code, "cpp", "wrong-reduction"))


def test_cpp_convergence_loop_bound_left_alone():
    code = textwrap.dedent("""\
        void k(int n, int max_iter, double *x) {
          double r = 1.0;
          for (int it = 0; it < max_iter && r > 1e-8; ++it) r *= 0.5;
          for (int it = 0; it < max_iter; ++it) { if (r < 1e-8) break; r *= 0.5; }
          for (int i = 0; i < n; ++i) x[i] = r;
        }
        """)
    bounds = texts(code, "cpp", "off-by-one")
    assert all(t.count("it < max_iter") == 2 for t in bounds)
    assert replaced(code, "i < n", "i <= n") in bounds


# ---------------------------------------------------------------------------------------------- Fortran

@pytest.mark.parametrize("kind, old, new", [
    ("off-by-one", "do i = 1, n", "do i = 1, n - 1"),
    ("off-by-one", "do i = 1, n", "do i = 2, n"),
    ("dropped-term", "a * x(i) + y(i)", "y(i)"),
    ("arithmetic", "a * x(i) + y(i)", "a * x(i) - y(i)"),
    ("arithmetic", "a * x(i) + y(i)", "a / x(i) + y(i)"),
    ("zeroed-output", "y(i) = a * x(i) + y(i)", "y(i) = 0"),
    ("unwritten-output", "y(i) = a * x(i) + y(i)", "continue"),
    ("wrong-reduction", "!$omp parallel do reduction(+:s)", "!$omp parallel do"),
    ("wrong-reduction", "reduction(+:s)", "reduction(*:s)"),
    ("wrong-init", "s = 0.0d0", "s = 1.0d0"),
])
def test_fortran_operator(kind, old, new):
    assert replaced(FORTRAN, old, new) in texts(FORTRAN, "fortran", kind)


def test_fortran_removed_parallel_deletes_all_sentinels():
    (m,) = [m for m in generate_mutants(FORTRAN, "fortran", cap=None) if m.kind == "removed-parallel"]
    assert "!$omp" not in m.code and "do i = 1, n" in m.code and m.expect == "wrong_model"


def test_fortran_comment_lines_untouched():
    for m in generate_mutants(FORTRAN, "fortran", cap=None):
        assert "  ! do i = 1, n in a comment: y(i) = 0" in m.code, m.description


def test_fortran_swapped_index_and_sections():
    code = textwrap.dedent("""\
        subroutine t(n, A, B)
          integer :: n, i, j
          real(8) :: A(n, n), B(n, n)
          do j = 1, n
            do i = 1, n
              B(i, j) = A(i, j) * 2.0d0
            end do
          end do
          B(2:n, 1) = A(1:n-1, 1)
        end subroutine t
        """)
    swaps = texts(code, "fortran", "swapped-index")
    assert replaced(code, "A(i, j) *", "A(j, i) *") in swaps
    assert replaced(code, "B(i, j) =", "B(j, i) =") in swaps
    assert replaced(code, "A(1:n-1, 1)", "A(1, 1:n-1)") in swaps
    assert replaced(code, "B(2:n, 1)", "B(2:n - 1, 1)") in texts(code, "fortran", "off-by-one")
    assert not any("real(8) :: A(n - 1" in t for t in texts(code, "fortran"))  # declarations are not sites


def test_fortran_private_loop_variables_are_exempt():
    code = textwrap.dedent("""\
        subroutine t(n, y)
          integer :: n, i, j
          real(8) :: y(n), s
          !$omp parallel do private(j, s)
          do i = 1, n
            s = 0.0d0
            do j = 1, n
              s = s + j
            end do
            y(i) = s
          end do
        end subroutine t
        """)
    reductions = texts(code, "fortran", "wrong-reduction")
    assert replaced(code, "private(j, s)", "private(j)") in reductions
    assert len(reductions) == 1  # j is a do variable: private anyway, so removing it would be equivalent


def test_fortran_exit_loop_bound_left_alone():
    code = textwrap.dedent("""\
        subroutine t(n, max_iter, x)
          integer :: n, max_iter, it, i
          real(8) :: x(n), r
          r = 1.0d0
          do it = 1, max_iter
            if (r < 1.0d-8) exit
            r = r * 0.5d0
          end do
          do i = 1, n
            x(i) = r
          end do
        end subroutine t
        """)
    assert all("do it = 1, max_iter" in t for t in texts(code, "fortran", "off-by-one"))
    assert replaced(code, "do i = 1, n", "do i = 2, n") in texts(code, "fortran", "off-by-one")


# ---------------------------------------------------------------------------------------------- Python

@pytest.mark.parametrize("kind, old, new", [
    ("off-by-one", "numba.prange(n)", "numba.prange(n - 1)"),
    ("dropped-term", "a * x[i] + y[i]", "a * x[i]"),
    ("arithmetic", "a * x[i] + y[i]", "a * x[i] - y[i]"),
    ("arithmetic", "s += x[i]", "s -= x[i]"),
    ("zeroed-output", "y[i] = a * x[i] + y[i]", "y[i] = 0"),
    ("zeroed-output", "return s", "return 0"),
    ("unwritten-output", "y[i] = a * x[i] + y[i]", "pass"),
    ("removed-parallel", "@numba.njit(parallel=True)\n", ""),
    ("wrong-init", "s = 0.0", "s = 1.0"),
])
def test_python_operator(kind, old, new):
    assert replaced(PYTHON, old, new) in texts(PYTHON, "python", kind)


def test_python_comment_lines_untouched():
    for m in generate_mutants(PYTHON, "python", cap=None):
        assert "    # for i in range(n): y[i] = 0" in m.code, m.description


def test_python_slices_ranges_and_array_syntax():
    code = textwrap.dedent("""\
        import numpy as np


        def k(n, u, v, A, x, y):
            v[1:-1] = u[:-2] + u[2:]
            for i in range(1, n):
                y[i] = A[i, 0]
            t = np.zeros(n)
            np.dot(A[:n, :n], x[:n], out=y[:n])
        """)
    obo = texts(code, "python", "off-by-one")
    assert replaced(code, "v[1:-1]", "v[1:-2]") in obo
    assert replaced(code, "u[:-2]", "u[:-3]") in obo
    assert replaced(code, "u[2:]", "u[3:]") in obo
    assert replaced(code, "range(1, n)", "range(1, n - 1)") in obo
    assert replaced(code, "range(1, n)", "range(2, n)") in obo
    assert replaced(code, "np.zeros(n)", "np.ones(n)") in texts(code, "python", "wrong-init")
    assert replaced(code, "np.dot(A[:n, :n], x[:n], out=y[:n])", "pass") in texts(code, "python", "unwritten-output")
    swaps = texts(code, "python", "swapped-index")
    assert replaced(code, "A[i, 0]", "A[0, i]") not in swaps  # one loop variable: nothing to swap with
    loops = "def k(n, A, B):\n    for i in range(n):\n        for j in range(n):\n            B[i, j] = A[i][j]\n"
    swaps = texts(loops, "python", "swapped-index")
    assert loops.replace("B[i, j]", "B[j, i]") in swaps and loops.replace("A[i][j]", "A[j][i]") in swaps


def test_python_break_loop_bound_left_alone():
    code = "def k(n, x, max_iter):\n    for _ in range(max_iter):\n        if x[0] < 1:\n            break\n" \
           "        x[0] *= 0.5\n"
    assert texts(code, "python", "off-by-one") == []


# ---------------------------------------------------------------------------------------------- general

def test_mutants_differ_from_original_and_are_unique():
    for code, lang in ((CPP, "cpp"), (FORTRAN, "fortran"), (PYTHON, "python")):
        found = generate_mutants(code, lang, cap=None)
        normalized = [" ".join(m.code.split()) for m in found]
        assert len(set(normalized)) == len(normalized)
        assert " ".join(code.split()) not in normalized
        assert all(m.kind in KINDS and m.description and m.line >= 1 for m in found)


def test_dedup_of_identical_edits():
    # `x[i] + x[i]`: dropping either term gives the same text; only one mutant survives deduplication
    code = "void k(int n, const double *x, double *y) {\n  for (int i = 0; i < n; ++i) y[i] = x[i] + x[i];\n}\n"
    dropped = texts(code, "cpp", "dropped-term")
    assert dropped == [code.replace("x[i] + x[i]", "x[i]")]


def test_equivalent_arithmetic_is_skipped():
    code = "void k(int n, const double *x, double *y) {\n  for (int i = 0; i < n; ++i) y[i] = x[i] * 1.0 + 0.0;\n}\n"
    arithmetic = texts(code, "cpp", "arithmetic")
    assert not any("x[i] / 1.0" in t or "- 0.0" in t for t in arithmetic)


def test_cap_keeps_every_kind_and_is_deterministic():
    code = textwrap.dedent("""\
        void k(int n, double a, const double *A, const double *x, double *y) {
          double s = 0.0;
        #pragma omp parallel for reduction(+ : s)
          for (int i = 0; i < n; ++i) {
            double t = 0.0;
            for (int j = 0; j < n; ++j) t += A[i * n + j] * x[j] + a * x[i] - 2.0 * x[j];
            y[i] = t + a;
            s += t;
          }
        }
        """)
    every = generate_mutants(code, "cpp", cap=None)
    capped = generate_mutants(code, "cpp", cap=10)
    assert len(every) > 10 and len(capped) == 10
    assert {m.kind for m in capped} == {m.kind for m in every}
    assert capped == generate_mutants(code, "cpp", cap=10)
    assert [m for m in every if m in capped] == capped  # a subsequence: the generation order is kept
    assert sample(every, len(every) + 5) == every


def test_diff_snippet():
    m = next(m for m in generate_mutants(CPP, "cpp", cap=None) if m.kind == "zeroed-output")
    assert m.diff(CPP).splitlines() == ["-    y[i] = a * x[i] + y[i];", "+    y[i] = 0;"]
    assert changed_lines(CPP, m) == ["    y[i] = 0;"]


def test_unsupported_language():
    with pytest.raises(UnsupportedLanguage):
        generate_mutants("function f() end", "julia")


CPU_MODELS = {"cpp-openmp": "cpp", "cpp-openmp-offload": "cpp", "cpp-openacc": "cpp", "fortran-openmp": "fortran",
              "fortran-openmp-offload": "fortran", "fortran-openacc": "fortran", "python-numpy": "python",
              "python-numba": "python"}
KERNELS = Path(__file__).resolve().parents[1] / "kernels_spec"


@pytest.mark.parametrize("path", sorted(p for p in KERNELS.glob("*/solutions/*") if p.stem in CPU_MODELS),
                         ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_reference_solutions_give_mutants(path):
    lang = CPU_MODELS[path.stem]
    code = path.read_text()
    found = generate_mutants(code, lang)
    assert 3 <= len(found) <= 20
    kinds = {m.kind for m in generate_mutants(code, lang, cap=None)}
    assert {m.kind for m in found} == kinds


def test_degenerate_zero_branch_is_not_mutated():
    code = textwrap.dedent("""\
        void k(int n, double bnorm, double *x) {
          if (bnorm == 0.0) {
            for (int i = 0; i < n; ++i) x[i] = 2.0 * bnorm;
            return;
          }
          for (int i = 0; i < n; ++i) x[i] = 3.0 * x[i];
        }
        """)
    for m in generate_mutants(code, "cpp", cap=None):
        assert "x[i] = 2.0 * bnorm;" in m.code and "if (bnorm == 0.0)" in m.code, m.description
    assert any("x[i] = 3.0 / x[i]" in t for t in texts(code, "cpp", "arithmetic"))
    fortran = "subroutine t(n, b, x)\n  integer :: n\n  real(8) :: b, x(n)\n  if (b == 0.0d0) then\n" \
              "    x = 0.0d0\n  else\n    x = 2.0d0 * x\n  end if\nend subroutine t\n"
    assert all("x = 0.0d0" in t for t in texts(fortran, "fortran"))
    assert any("x = 2.0d0 / x" in t for t in texts(fortran, "fortran", "arithmetic"))


def test_bounds_fold_constants():
    code = "def k(n, x, y):\n    y[1 : n + 1] = x[0 : n]\n    for i in range(1, n - 1):\n        y[i] = 0.5\n"
    obo = texts(code, "python", "off-by-one")
    assert code.replace("y[1 : n + 1]", "y[1 : n]") in obo
    assert code.replace("range(1, n - 1)", "range(1, n - 2)") in obo


# ---------------------------------------------------------------------------------------------- GPU launches

CUDA_LAUNCH = textwrap.dedent("""\
    __global__ void k(int n, double *x) {
      int i = blockIdx.x * blockDim.x + threadIdx.x;
      if (i < n) x[i] = 2.0 * x[i];
    }
    void run(int m, int n, int nx, int ny, int nz, double *x) {
      const int grid = (n + 255) / 256;
      k<<<grid, 256>>>(n, x);
      const dim3 grid3((nz + 15) / 16, (ny + 7) / 8, nx);
      hipLaunchKernelGGL(k, grid3, dim3(16, 8, 1), 0, 0, n, x);
      const int rows_per_block = 8;
      const int rows = (m + rows_per_block - 1) / rows_per_block;
      hipLaunchKernelGGL(k, dim3(rows), dim3(256), 0, 0, m, x);
    }
    """)


def test_cuda_launch_overprovisioning_is_not_a_mutant():
    found = texts(CUDA_LAUNCH, "cpp")
    for bigger in ("(n + 255) * 256", "(nz + 15) * 16", "(ny + 7) * 8", "(m + rows_per_block - 1) * rows_per_block",
                   "(m + rows_per_block) / rows_per_block", "(m + rows_per_block + 1) / rows_per_block"):
        assert not any(bigger in t for t in found), bigger  # only more threads: equivalent (the kernel bound-checks)
    for smaller in ("(n) / 256", "(n - 255) / 256", "(255) / 256", "(nz - 15) / 16", "(ny) / 8",
                    "(m - 1) / rows_per_block", "(m - rows_per_block - 1) / rows_per_block"):
        assert any(smaller in t for t in found), smaller  # fewer threads for awkward sizes: a real bug, kept
    assert replaced(CUDA_LAUNCH, "2.0 * x[i]", "2.0 / x[i]") in found  # the kernel itself is mutated as before


def test_grid_variable_with_other_uses_is_mutated():
    # `blocks` also sizes an allocation: a bigger value is not known to be harmless, so the mutant stays
    code = textwrap.dedent("""\
        void run(int n, double *x, double *partial) {
          int blocks = (n + 255) / 256;
          cudaMalloc(&partial, blocks * sizeof(double));
          k<<<blocks, 256>>>(n, x, partial);
        }
        """)
    assert replaced(code, "(n + 255) / 256", "(n + 255) * 256") in texts(code, "cpp", "arithmetic")


NUMBA_LAUNCH = textwrap.dedent("""\
    from numba import cuda


    @cuda.jit
    def k(n, x):
        i = cuda.grid(1)
        if i < n:
            x[i] = 2.0 * x[i]


    def run(n, x):
        threads = 256
        blocks = (n + threads - 1) // threads
        k[blocks, threads](n, x)
    """)


def test_numba_swapped_launch_configuration_is_not_a_mutant():
    assert not any("k[threads, blocks]" in t for t in texts(NUMBA_LAUNCH, "python"))
    assert replaced(NUMBA_LAUNCH, "2.0 * x[i]", "2.0 / x[i]") in texts(NUMBA_LAUNCH, "python", "arithmetic")
    # a kernel that depends on its block's shape (shared memory, barriers): exchanging grid and block is a bug
    shaped = NUMBA_LAUNCH.replace("    i = cuda.grid(1)\n", "    i = cuda.grid(1)\n    cuda.syncthreads()\n")
    assert replaced(shaped, "k[blocks, threads]", "k[threads, blocks]") in texts(shaped, "python", "swapped-index")


def test_python_launch_extents():
    code = textwrap.dedent("""\
        import math

        import cupy as cp

        _k = cp.RawKernel("", "k")


        def run(n, x, d_x, f):
            blocks = math.ceil(n / 256)
            _k((blocks,), (256,), (n, d_x))
            threads = 128
            nb = (n + threads - 1) // threads
            f(x, block=(threads, 1, 1), grid=(nb, 1))
            other = math.ceil(n / 256)
            print(other)
        """)
    found = texts(code, "python")
    assert not any("math.ceil(n * 256)\n    _k" in t for t in found)  # CuPy RawKernel grid: only bigger
    assert replaced(code, "math.ceil(n / 256)", "math.ceil(n * 256)") in found  # not a launch: kept
    assert not any("nb = (n + threads) // threads" in t or "nb = (n + threads + 1) // threads" in t for t in found)
    assert any("nb = (n - 1) // threads" in t for t in found)  # pyCUDA grid=: fewer threads, kept
    assert any("nb = (n - threads - 1) // threads" in t for t in found)


@pytest.mark.parametrize("before, after, bigger", [
    ("(n + 255) / 256", "(n + 255) * 256", True),
    ("(m + b - 1) / b", "(m + b) / b", True),
    ("(m + b - 1) / b", "(m + b + 1) / b", True),
    ("(size_t)(n + 255u) / 256", "(size_t)(n + 255u) * 256", True),
    ("math.ceil(n / 256)", "math.ceil(n * 256)", True),
    ("(n + 255) / 256", "n / 256", False),
    ("(n + 255) / 256", "(n - 255) / 256", False),
    ("(n + 255) / 256", "(n + 255) - 256", False),  # more for large n, none at all for n = 1
    ("(m + t[0] - 1) // t[0]", "(m - 1) // t[0]", False),
    ("(n + 255) / 256", "f(n) / 256", False),  # unknown function: not analysed, kept
])
def test_only_enlarges(before, after, bigger):
    from hpceval.mutants.gpu_launch import only_enlarges as _only_enlarges

    assert _only_enlarges(before, after, c_division=True) is bigger


# ---------------------------------------------------------------------------------------------- CUDA C in Python strings

PYCUDA = textwrap.dedent('''\
    import numpy as np
    from pycuda.compiler import SourceModule

    _module = SourceModule("""
    __global__ void saxpy(int n, float a, const float *x, float *y) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) {
            y[i] = a * x[i] + y[i];
        }
    }
    """)
    _saxpy = _module.get_function("saxpy")


    def saxpy(n, a, x, y):
        _saxpy(np.int32(n), np.float32(a), x, y, block=(256, 1, 1), grid=((n + 255) // 256, 1))
    ''')


def test_pycuda_source_module_is_mutated():
    found = generate_mutants(PYCUDA, "python", cap=None)
    for kind, new in [("dropped-term", "y[i] = y[i];"), ("dropped-term", "y[i] = a * x[i];"),
                      ("arithmetic", "y[i] = a * x[i] - y[i];"), ("arithmetic", "y[i] = a / x[i] + y[i];"),
                      ("zeroed-output", "y[i] = 0;")]:
        assert replaced(PYCUDA, "y[i] = a * x[i] + y[i];", new) in texts(PYCUDA, "python", kind)
    m = next(m for m in found if m.kind == "zeroed-output")
    assert m.line == 8 and m.description == "zeroed output: `y[i] = a * x[i] + y[i];` -> `y[i] = 0;` at line 8"
    assert m.diff(PYCUDA).splitlines() == ["-        y[i] = a * x[i] + y[i];", "+        y[i] = 0;"]
    for m in found:
        ast.parse(m.code)  # still a Python file: only the string's contents changed
        head, _, tail = m.code.partition('"""')
        assert head == PYCUDA.partition('"""')[0] and tail.rpartition('"""')[2] == PYCUDA.rpartition('"""')[2]


def test_cuda_source_through_variable_and_elementwise_kernel():
    via_variable = textwrap.dedent('''\
        from pycuda.compiler import SourceModule

        _SRC = r"""
        __global__ void scale(int n, double *x) {
            for (int i = threadIdx.x; i < n; i += blockDim.x) x[i] = 2.0 * x[i];
        }
        """
        _mod = SourceModule(_SRC % (), options=["-O3"])
        ''')
    found = texts(via_variable, "python")
    assert replaced(via_variable, "i < n;", "i <= n;") in found
    assert replaced(via_variable, "2.0 * x[i]", "2.0 / x[i]") in found
    elementwise = textwrap.dedent('''\
        import cupy as cp

        _rows = cp.ElementwiseKernel(
            "raw int32 ptr, raw float64 v",
            "float64 y",
            """
            double s = 0.0;
            for (int k = ptr[i]; k < ptr[i + 1]; ++k) s += v[k];
            y = s;
            """,
            "rows",
        )
        ''')
    found = generate_mutants(elementwise, "python", cap=None)
    codes = [m.code for m in found]
    assert replaced(elementwise, "k < ptr[i + 1]", "k <= ptr[i + 1]") in codes
    assert replaced(elementwise, "y = s;", "y = 0;") in codes  # an output parameter, assigned by name
    assert replaced(elementwise, "double s = 0.0;", "double s = 1.0;") in codes
    assert all("__hpceval" not in c for c in codes) and all(ast.parse(c) for c in codes)
    assert {m.line for m in found if "y = 0;" in m.code} == {9}
    fstring = 'from pycuda.compiler import SourceModule\nm = SourceModule(f"__global__ void k(double *x) {{ x[0] = 2.0 * x[0]; }}")\n'
    assert texts(fstring, "python") == []  # interpolated: the C text is not known


GPU_MODELS = {"cpp-cuda": "cpp", "cpp-hip": "cpp", "python-cupy": "python", "python-pycuda": "python",
              "python-numba.cuda": "python"}


@pytest.mark.parametrize("path", sorted(p for p in KERNELS.glob("*/solutions/*") if p.stem in GPU_MODELS),
                         ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_gpu_reference_solutions(path):
    code = path.read_text()
    found = generate_mutants(code, GPU_MODELS[path.stem], cap=None)
    if path.stem == "python-pycuda":  # the kernel in the SourceModule string is mutated
        closing = code.count("\n", 0, code.rindex('"""')) + 1
        assert len(found) >= 6 and any(m.line < closing for m in found)
    for m in found:
        if path.suffix == ".py":
            ast.parse(m.code)
        assert not re.search(r"\[\s*threads\s*,\s*blocks\s*\]|\+ \d+\) \* \d+", "\n".join(changed_lines(code, m))), \
            m.description  # over-provisioned launches are equivalent mutants


def test_a_declared_equivalent_mutant_is_set_aside_with_its_reason_and_nothing_else_is():
    """Jacobi's folder declares the data-clause section shortened by one element equivalent (the last element is a
    boundary corner): the offload reference's mutant matches it; a section cut at the start, the same cut in
    another kernel's folder, and a different operator on the same line do not."""
    from hpceval.mutants.core import Mutant
    from hpceval.mutants.equivalent import declared, why_equivalent
    from hpceval.spec import catalog

    cat = catalog()
    jacobi, gemv = cat.kernels["jacobi"], cat.kernels["gemv"]
    original = "#pragma omp target teams distribute parallel for map(to : u[0:n]) map(tofrom : unew[0:n])\n"
    cut_end = Mutant("data-clause", "array section", original.replace("unew[0:n]", "unew[0:n - 1]"), 1,
                     operator="data-clause/array section")
    cut_start = Mutant("data-clause", "array section", original.replace("unew[0:n]", "unew[1:n]"), 1,
                       operator="data-clause/array section")
    other_op = Mutant("off-by-one", "bound", original.replace("unew[0:n]", "unew[0:n - 1]"), 1,
                      operator="off-by-one/end")
    entries = declared(str(jacobi.folder))
    assert "corner" in why_equivalent(cut_end, original, entries)
    assert why_equivalent(cut_start, original, entries) is None
    assert why_equivalent(other_op, original, entries) is None
    assert why_equivalent(cut_end, original, declared(str(gemv.folder))) is None
