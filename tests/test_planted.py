"""Planted suggestions: known-bad (and a few known-good) kernels must get exactly the expected verdict.

Each case is a small hand-written suggestion evaluated through the real pipeline (bind, build, sandboxed run,
validation, usage check; no timing run). The test asserts the verdict and what its evidence says. All cases are
evaluated once, concurrently, by a module fixture, so the file stays fast on a small machine.
"""

from __future__ import annotations

import os
import textwrap
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import pytest

from hpceval.contracts import Evaluation, Verdict
from hpceval.spec import catalog as load_catalog

V = Verdict


@dataclass(frozen=True)
class Plant:
    id: str
    kernel: str
    model: str
    code: str | Callable[[], str]
    verdict: Verdict
    evidence: tuple[str, ...] = ()  # substrings the evidence must contain
    check: Callable[[Evaluation], object] | None = None  # further assertions

    def source(self) -> str:
        return textwrap.dedent(self.code() if callable(self.code) else self.code)


def size_of(label: str | None) -> dict[str, int]:
    assert label, "a wrong_result must name the failing size"
    return {k: int(v) for k, v in (part.split("=") for part in label.split(","))}


def solution(kernel: str, model: str) -> str:
    cat = load_catalog()
    return cat.kernels[kernel].solution_path(cat.models[model], cat).read_text()


def replaced(text: str, *pairs: tuple[str, str]) -> str:
    for old, new in pairs:
        assert old in text, f"planted mutation: {old!r} not found"
        text = text.replace(old, new)
    return text


def without_lines(text: str, marker: str) -> str:
    kept = [line for line in text.splitlines() if marker not in line.lower()]
    assert len(kept) < len(text.splitlines()), f"planted mutation: no line with {marker!r}"
    return "\n".join(kept) + "\n"


def crashed(e: Evaluation) -> None:
    # The program is not pid 1 of its jail (a shell is), so abort() is reported as what it is.
    assert "SIGABRT" in e.evidence, e.evidence


def correct_math(e: Evaluation) -> None:
    assert e.max_rel_error is not None and e.max_rel_error < 1e-5


# ------------------------------------------------------------------------------------------------ sources

CPP_SAXPY = """\
#include <cstdlib>
void saxpy(int n, float a, const float *x, float *y) {
#pragma omp parallel for
  for (int i = 0; i < n; ++i) y[i] = a * x[i] + y[i];
}
"""

CPP_UNROLLED_4 = """\
void saxpy(int n, float a, const float *x, float *y) {
#pragma omp parallel for
  for (int i = 0; i < n / 4 * 4; i += 4) {
    y[i] = a * x[i] + y[i];
    y[i + 1] = a * x[i + 1] + y[i + 1];
    y[i + 2] = a * x[i + 2] + y[i + 2];
    y[i + 3] = a * x[i + 3] + y[i + 3];
  }
}
"""

F_SAXPY = """\
subroutine saxpy(n, a, x, y)
  implicit none
  integer, intent(in) :: n
  real(4), intent(in) :: a
  real(4), intent(in) :: x(n)
  real(4), intent(inout) :: y(n)
  integer :: i
  !$omp parallel do
  do i = 1, n
    y(i) = a * x(i) + y(i)
  end do
  !$omp end parallel do
end subroutine saxpy
"""

PY_SAXPY = "import numpy as np\n\n\ndef saxpy(n, a, x, y):\n    {body}\n"
NUMBA_SAXPY = "import numba\n\n\n{decorator}def saxpy(n, a, x, y):\n    for i in numba.prange(n):\n" \
              "        y[i] = a * x[i] + y[i]\n"

CPP_JACOBI = """\
void jacobi(int nx, int ny, int nz, const double *u, double *unew) {
#pragma omp parallel for collapse(2)
  for (int i = 1; i < nx - 1; ++i)
    for (int j = 1; j < ny - 1; ++j)
      for (int k = 1; k < nz - 1; ++k)
        unew[(i * ny + j) * nz + k] = (u[((i - 1) * ny + j) * nz + k] + u[((i + 1) * ny + j) * nz + k]
                                     + u[(i * ny + j - 1) * nz + k] + u[(i * ny + j + 1) * nz + k]
                                     + u[(i * ny + j) * nz + k - 1] + u[(i * ny + j) * nz + k + 1]) / 6.0;
}
"""

# x fastest instead of z fastest: right on cubes, wrong on every non-cubic grid with an interior
CPP_JACOBI_SWAPPED = replaced(
    CPP_JACOBI,
    ("[(i * ny + j) * nz + k]", "[(k * ny + j) * nx + i]"),
    ("[((i - 1) * ny + j) * nz + k]", "[(k * ny + j) * nx + i - 1]"),
    ("[((i + 1) * ny + j) * nz + k]", "[(k * ny + j) * nx + i + 1]"),
    ("[(i * ny + j - 1) * nz + k]", "[(k * ny + j - 1) * nx + i]"),
    ("[(i * ny + j + 1) * nz + k]", "[(k * ny + j + 1) * nx + i]"),
    ("[(i * ny + j) * nz + k - 1]", "[((k - 1) * ny + j) * nx + i]"),
    ("[(i * ny + j) * nz + k + 1]", "[((k + 1) * ny + j) * nx + i]"),
)

CPP_JACOBI_OFFLOAD_NO_COPY_BACK = """\
void jacobi(int nx, int ny, int nz, const double *u, double *unew) {
  const long n = (long)nx * ny * nz;
#pragma omp target teams distribute parallel for collapse(3) map(to : u[0:n], unew[0:n])
  for (int i = 1; i < nx - 1; ++i)
    for (int j = 1; j < ny - 1; ++j)
      for (int k = 1; k < nz - 1; ++k) {
        const long c = ((long)i * ny + j) * nz + k;
        unew[c] = (u[c - (long)ny * nz] + u[c + (long)ny * nz] + u[c - nz] + u[c + nz] + u[c - 1] + u[c + 1]) / 6.0;
      }
}
"""

PY_JACOBI_ROLL = """\
import numpy as np


def jacobi(nx, ny, nz, u, unew):
    unew[...] = sum(np.roll(u, s, axis=a) for a in range(3) for s in (-1, 1)) / 6.0
"""

CPP_GEMV = """\
void gemv(int m, int n, const double *A, const double *x, double *y) {
#pragma omp parallel for
  for (int i = 0; i < m; ++i) {
    double s = 0.0;
    for (int j = 0; j < n; ++j) s += A[(long)i * n + j] * x[j];
    y[i] = s;
  }
}
"""


def fortran_jacobi_c_order() -> str:
    """A Fortran kernel that assumes the C order: u(nz,ny,nx) with matching, in-bounds loops."""
    return replaced(solution("jacobi", "fortran-openmp"),
                    ("u(nx, ny, nz)", "u(nz, ny, nx)"), ("unew(nx, ny, nz)", "unew(nz, ny, nx)"),
                    ("do k = 2, nz - 1", "do k = 2, nx - 1"), ("do i = 2, nx - 1", "do i = 2, nz - 1"))


def non_cubic_with_interior(e: Evaluation) -> None:
    size = size_of(e.failed_size)
    assert len(set(size.values())) > 1 and min(size.values()) >= 3, e.failed_size


# --------------------------------------------------------------------------------------------- the plants

PLANTS = [
    # controls: the same harness accepts the right code
    Plant("cpp-control", "axpy", "cpp-openmp", CPP_SAXPY, V.correct, ("within tolerance",)),
    Plant("fortran-control", "axpy", "fortran-openmp", F_SAXPY, V.correct),
    Plant("jacobi-cpp-control", "jacobi", "cpp-openmp", CPP_JACOBI, V.correct),
    # (a) only zeros
    Plant("cpp-zeros", "axpy", "cpp-openmp", replaced(CPP_SAXPY, ("a * x[i] + y[i]", "0.0f")), V.wrong_result,
          ("elements wrong", "got 0")),
    Plant("fortran-zeros", "axpy", "fortran-openmp", replaced(F_SAXPY, ("a * x(i) + y(i)", "0.0")),
          V.wrong_result, ("elements wrong", "got 0")),
    Plant("python-zeros", "axpy", "python-numpy", PY_SAXPY.format(body="y[:] = np.zeros(n)"), V.wrong_result,
          ("elements wrong", "got 0")),
    Plant("gemv-python-zeros", "gemv", "python-numpy",
          "import numpy as np\n\n\ndef gemv(m, n, A, x, y):\n    y[:] = np.zeros(m)\n", V.wrong_result, ("got 0",)),
    # (b) part of the output unwritten
    Plant("cpp-skips-last", "axpy", "cpp-openmp", replaced(CPP_SAXPY, ("i < n;", "i < n - 1;")), V.wrong_result,
          ("y: 1 of 1 elements wrong",), lambda e: e.failed_size == "n=1" or pytest.fail(e.failed_size)),
    Plant("jacobi-half-interior", "jacobi", "cpp-openmp", replaced(CPP_JACOBI, ("i < nx - 1", "i < nx / 2")),
          V.wrong_result, ("NaN", "unwritten")),
    Plant("gemv-last-row-unwritten", "gemv", "cpp-openmp", replaced(CPP_GEMV, ("i < m;", "i < m - 1;")),
          V.wrong_result, ("y:", "NaN", "unwritten")),
    Plant("python-rebinds-y", "axpy", "python-numpy", PY_SAXPY.format(body="y = np.float32(a) * x + y"),
          V.wrong_result),  # the caller's y is never updated
    # (c) right only for n % 4 == 0
    Plant("cpp-unrolled-4", "axpy", "cpp-openmp", CPP_UNROLLED_4, V.wrong_result, ("elements wrong",),
          lambda e: size_of(e.failed_size)["n"] % 4 != 0 or pytest.fail(e.failed_size)),
    # (d) serial code under a parallel-model prompt
    Plant("cpp-serial", "axpy", "cpp-openmp", replaced(CPP_SAXPY, ("#pragma omp parallel for\n", "")),
          V.wrong_model, ("no OpenMP construct found",), correct_math),
    Plant("fortran-serial", "axpy", "fortran-openmp", without_lines(F_SAXPY, "!$omp"), V.wrong_model,
          ("no OpenMP construct found",), correct_math),
    Plant("numba-no-decorator", "axpy", "python-numba", NUMBA_SAXPY.format(decorator=""), V.wrong_model,
          ("no Numba construct found",), correct_math),
    Plant("python-loop-under-numpy", "axpy", "python-numpy",
          "def saxpy(n, a, x, y):\n    for i in range(n):\n        y[i] = a * x[i] + y[i]\n", V.wrong_model,
          ("NumPy",)),
    Plant("cpp-openacc-under-openmp", "axpy", "cpp-openmp",
          replaced(CPP_SAXPY, ("#pragma omp parallel for", "#pragma acc parallel loop")), V.wrong_model),
    Plant("cpp-host-openmp-under-offload", "axpy", "cpp-openmp-offload", CPP_SAXPY, V.wrong_model,
          ("no OpenMP offload construct",)),
    Plant("jacobi-numba-solution-without-njit", "jacobi", "python-numba",
          lambda: replaced(solution("jacobi", "python-numba"), ("@numba.njit(parallel=True)\n", "")),
          V.wrong_model),
    Plant("jacobi-fortran-openacc-without-acc", "jacobi", "fortran-openacc",
          lambda: without_lines(solution("jacobi", "fortran-openacc"), "!$acc"), V.wrong_model, ("OpenACC",)),
    Plant("gemv-fortran-without-omp", "gemv", "fortran-openmp",
          lambda: without_lines(solution("gemv", "fortran-openmp"), "!$omp"), V.wrong_model),
    Plant("gemv-numba-without-decorator", "gemv", "python-numba",
          "import numba\n\n\ndef gemv(m, n, A, x, y):\n    for i in numba.prange(m):\n        y[i] = A[i, :] @ x\n",
          V.wrong_model),
    # (e) the directive is only in a comment
    Plant("cpp-line-commented-pragma", "axpy", "cpp-openmp",
          replaced(CPP_SAXPY, ("#pragma omp", "// #pragma omp")), V.wrong_model, ("OpenMP",)),
    Plant("cpp-block-commented-pragma", "axpy", "cpp-openmp",
          replaced(CPP_SAXPY, ("#pragma omp parallel for", "/*\n#pragma omp parallel for\n*/")), V.wrong_model),
    Plant("fortran-commented-directive", "axpy", "fortran-openmp", replaced(F_SAXPY, ("!$omp", "! !$omp")),
          V.wrong_model),
    Plant("numba-commented-decorator", "axpy", "python-numba",
          NUMBA_SAXPY.format(decorator="# @numba.njit(parallel=True)\n"), V.wrong_model),
    Plant("numba-decorator-in-docstring", "axpy", "python-numba",
          NUMBA_SAXPY.format(decorator='"""@numba.njit"""\n\n\n'), V.wrong_model),
    Plant("gemv-line-commented-pragma", "gemv", "cpp-openmp",
          lambda: replaced(solution("gemv", "cpp-openmp"), ("#pragma omp", "// #pragma omp")), V.wrong_model),
    # (f) syntax errors
    Plant("cpp-syntax", "axpy", "cpp-openmp", replaced(CPP_SAXPY, ("+ y[i];", "+ y[i]")), V.build_error,
          ("error", "kernel.cpp")),
    Plant("fortran-syntax", "axpy", "fortran-openmp", replaced(F_SAXPY, ("end do\n", "end dooo\n")),
          V.build_error, ("Error",)),
    Plant("python-syntax", "axpy", "python-numpy", "import numpy as np\n\ndef saxpy(n, a, x, y)\n    y += x\n",
          V.build_error, ("SyntaxError",)),
    # (g) crashes
    Plant("cpp-segfault", "axpy", "cpp-openmp",
          replaced(CPP_SAXPY, ("#pragma", "  volatile float *volatile p = nullptr;\n  *p = a;\n#pragma")),
          V.runtime_error, ("SIGSEGV", "0/6 cases finished")),
    Plant("cpp-abort", "axpy", "cpp-openmp", replaced(CPP_SAXPY, ("#pragma", "  std::abort();\n#pragma")),
          V.runtime_error, ("0/6 cases finished",), crashed),
    Plant("cpp-exit-at-n31", "axpy", "cpp-openmp",
          replaced(CPP_SAXPY, ("#pragma", "  if (n > 30) std::exit(7);\n#pragma")), V.runtime_error,
          ("exit 7", "2/6 cases finished")),
    Plant("fortran-error-stop", "axpy", "fortran-openmp",
          replaced(F_SAXPY, ("  integer :: i\n", "  integer :: i\n  error stop 3\n")), V.runtime_error, ("exit 3",)),
    Plant("python-index-error", "axpy", "python-numpy", PY_SAXPY.format(body="y[:] = x[n]"), V.runtime_error,
          ("IndexError",)),
    Plant("python-abort", "axpy", "python-numpy", "import os\n" + PY_SAXPY.format(body="os.abort()"),
          V.runtime_error, (), crashed),
    Plant("python-no-such-function", "axpy", "python-numpy",
          "import numpy as np\n\n\ndef axpy(n, a, x, y):\n    y += np.float32(a) * x\n", V.runtime_error,
          ("defines no function saxpy",)),
    # (h) nothing
    Plant("empty", "axpy", "cpp-openmp", "", V.no_code),
    Plant("whitespace", "axpy", "python-numpy", "  \n\t\n", V.no_code),
    # (i) the kernel overwrites an input
    Plant("cpp-clobbers-x", "axpy", "cpp-openmp", replaced(CPP_SAXPY, ("+ y[i];", "+ y[i], ((float *)x)[i] = 0;")),
          V.wrong_result, ("modified its input x",)),
    Plant("fortran-clobbers-x", "axpy", "fortran-openmp",
          replaced(F_SAXPY, ("real(4), intent(in) :: x(n)", "real(4) :: x(n)"),
                   ("    y(i) = a * x(i) + y(i)\n", "    y(i) = a * x(i) + y(i)\n    x(i) = -1.0\n")),
          V.wrong_result, ("modified its input x",)),
    Plant("python-clobbers-x", "axpy", "python-numpy", PY_SAXPY.format(body="x *= np.float32(a)\n    y += x"),
          V.wrong_result, ("modified its input x",)),
    # wrong stencils and layouts
    Plant("jacobi-swapped-axes", "jacobi", "cpp-openmp", CPP_JACOBI_SWAPPED, V.wrong_result, (),
          non_cubic_with_interior),
    Plant("jacobi-overwrites-boundary", "jacobi", "cpp-openmp",
          replaced(CPP_JACOBI, ("#pragma omp parallel for collapse(2)\n", "#pragma omp parallel for\n"
                                "  for (long p = 0; p < (long)nx * ny * nz; ++p) unew[p] = 0;\n")),
          V.wrong_result, ("elements wrong", "got 0")),
    Plant("jacobi-offload-without-copy-back", "jacobi", "cpp-openmp-offload", CPP_JACOBI_OFFLOAD_NO_COPY_BACK,
          V.wrong_result, ("NaN",)),  # the offload device has its own memory: unew comes back unchanged
    Plant("jacobi-numpy-periodic-roll", "jacobi", "python-numpy", PY_JACOBI_ROLL, V.wrong_result,
          ("elements wrong",)),
    Plant("jacobi-fortran-c-order", "jacobi", "fortran-openmp", fortran_jacobi_c_order, V.wrong_result, (),
          lambda e: size_of(e.failed_size)["nx"] != size_of(e.failed_size)["nz"] or pytest.fail(e.failed_size)),
    Plant("gemv-transposed", "gemv", "cpp-openmp", replaced(CPP_GEMV, ("A[(long)i * n + j]", "A[(long)j * m + i]")),
          V.wrong_result, (), lambda e: min(size_of(e.failed_size).values()) > 1 or pytest.fail(e.failed_size)),
]


@pytest.fixture(scope="module")
def results(request, evaluator, catalog) -> dict[str, Evaluation | BaseException]:
    """The selected plants whose kernel exists, evaluated concurrently (builds dominate; each uses one core)."""
    selected = {item.callspec.params["plant"].id for item in request.session.items
                if getattr(item, "callspec", None) and isinstance(item.callspec.params.get("plant"), Plant)}
    runnable = [p for p in PLANTS if p.kernel in catalog.kernels and p.id in selected]
    for kernel in {p.kernel for p in runnable}:
        catalog.kernels[kernel].module  # noqa: B018 - import reference.py once, before the threads

    def one(plant: Plant) -> Evaluation | BaseException:
        try:
            return evaluator.evaluate(plant.source(), catalog.kernels[plant.kernel], catalog.models[plant.model])
        except BaseException as exc:  # noqa: BLE001 - reported by the plant's own test
            return exc

    with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        return dict(zip([p.id for p in runnable], pool.map(one, runnable), strict=True))


def test_plant_ids_unique():
    assert len({p.id for p in PLANTS}) == len(PLANTS)


@pytest.mark.parametrize("plant", PLANTS, ids=lambda p: p.id)
def test_planted(plant: Plant, results, catalog):
    if plant.kernel not in catalog.kernels:
        pytest.skip(f"kernels_spec/{plant.kernel} not present")
    e = results[plant.id]
    if isinstance(e, BaseException):
        raise e
    assert e.verdict == plant.verdict, f"{plant.id}: got {e.verdict}: {e.evidence}"
    for text in plant.evidence:
        assert text in e.evidence, f"{plant.id}: {text!r} not in evidence {e.evidence!r}"
    if plant.check:
        plant.check(e)


# ------------------------------------------------------------------ clang offload: the shared-memory second run
def _offload_plant(catalog, kernel: str, old: str, new: str) -> tuple:
    spec, model = catalog.kernels[kernel], catalog.models["cpp-openmp-offload"]
    code = spec.solution_path(model, catalog).read_text()
    assert old in code
    return spec, model, code.replace(old, new)


@pytest.mark.parametrize(("kernel", "old", "new", "evidence"), [
    # one element past y on the offload device: the device copy's slack hides it, the host run's guard does not
    ("axpy", "i < n", "i <= n", "wrote past the end of y"),
    # one element past x (read): the host run reads the NaN guard
    ("gemv", "j < n", "j <= n", "size "),
])
def test_offload_access_past_the_end_is_found_by_the_shared_memory_run(catalog, evaluator, kernel, old, new, evidence):
    spec, model, code = _offload_plant(catalog, kernel, old, new)
    # the square GEMV case makes the device copy's slack visible in the numbers (validation fails first there,
    # rightly): the sizes without it show the second run finding what the device run hides
    spec = spec.model_copy(update={"structures": [s for s in spec.structures if s.name != "square"]})
    e = evaluator.evaluate(code, spec, model)
    assert e.verdict == Verdict.wrong_result, e.evidence
    assert e.evidence.startswith("memory check: shared-memory run") and evidence in e.evidence, e.evidence


def test_offload_reference_passes_the_shared_memory_run(catalog, evaluator):
    spec, model = catalog.kernels["axpy"], catalog.models["cpp-openmp-offload"]
    e = evaluator.evaluate(spec.solution_path(model, catalog).read_text(), spec, model)
    assert e.verdict == Verdict.correct, e.evidence
    assert "shared-memory run (g++, target regions on the host) clean" in e.evidence
