"""The model did the kernel's work (issue 12, item 5), the rules decided from what ran: Kokkos and Numba.

3. Kokkos: the dispatches ran on the build's device execution space (Serial in an OpenMP or CUDA build is
   `wrong_model`); the CUDA decision is tested on a recorded tool file (there is no GPU here), and the static
   fallback on source text;
4. Numba: any Numba JIT counts (`correct`, evidence "parallel: no" when serial, "parallel: yes" when parallel);
   the rubric option `numba_requires_parallel` turns serial rows into `wrong_model` when scoring.

Helpers and the directive/NumPy rules: tests/test_model_work.py.
"""

from __future__ import annotations

import pandas as pd
import pytest

from hpceval.contracts import Evaluation
from hpceval.toolchains import get_toolchain, threads
from test_model_work import Plant, V, _check, _evaluate_all

# ------------------------------------------------------------------------------------------------ 4. Numba
NUMBA_SERIAL = [
    Plant("numba-serial-axpy", "axpy", "python-numba", """\
from numba import njit


@njit
def saxpy(n, a, x, y):
    for i in range(n):
        y[i] = a * x[i] + y[i]
""", V.correct, ("parallel: no",)),
    Plant("numba-serial-gemv", "gemv", "python-numba", """\
import numba


@numba.jit(nopython=True, cache=False)
def gemv(m, n, A, x, y):
    for i in range(m):
        s = 0.0
        for j in range(n):
            s += A[i, j] * x[j]
        y[i] = s
""", V.correct, ("parallel: no",)),
    Plant("numba-serial-spmv", "spmv", "python-numba", """\
from numba import njit


@njit(fastmath=True)
def spmv(n, nnz, row_ptr, col_idx, values, x, y):
    for i in range(n):
        acc = 0.0
        for k in range(row_ptr[i], row_ptr[i + 1]):
            acc += values[k] * x[col_idx[k]]
        y[i] = acc
""", V.correct, ("parallel: no",)),
    Plant("numba-serial-jacobi", "jacobi", "python-numba", """\
import numba


@numba.njit
def jacobi(nx, ny, nz, u, unew):
    for i in range(1, nx - 1):
        for j in range(1, ny - 1):
            for k in range(1, nz - 1):
                unew[i, j, k] = (u[i - 1, j, k] + u[i + 1, j, k] + u[i, j - 1, k] + u[i, j + 1, k]
                                 + u[i, j, k - 1] + u[i, j, k + 1]) / 6.0
""", V.correct, ("parallel: no",)),
    Plant("numba-serial-gemm-helper", "gemm", "python-numba", """\
import numba


@numba.njit
def _kernel(m, n, k, A, B, C):
    for i in range(m):
        for j in range(n):
            s = 0.0
            for p in range(k):
                s += A[i, p] * B[p, j]
            C[i, j] = s


def gemm(m, n, k, A, B, C):
    _kernel(m, n, k, A, B, C)
""", V.correct, ("parallel: no",)),
]

NUMBA_PARALLEL = [
    Plant("numba-parallel-axpy", "axpy", "python-numba", """\
import numba


@numba.njit(parallel=True)
def saxpy(n, a, x, y):
    for i in numba.prange(n):
        y[i] = a * x[i] + y[i]
""", V.correct, ("parallel: yes",)),
    Plant("numba-parallel-gemv", "gemv", "python-numba", """\
from numba import njit, prange


@njit(parallel=True)
def gemv(m, n, A, x, y):
    for i in prange(m):
        s = 0.0
        for j in range(n):
            s += A[i, j] * x[j]
        y[i] = s
""", V.correct, ("parallel: yes",)),
    Plant("numba-parallel-gemm", "gemm", "python-numba", """\
import numba


@numba.njit(parallel=True)
def gemm(m, n, k, A, B, C):
    for i in numba.prange(m):
        for j in range(n):
            s = 0.0
            for p in range(k):
                s += A[i, p] * B[p, j]
            C[i, j] = s
""", V.correct, ("parallel: yes",)),
    Plant("numba-parallel-jacobi", "jacobi", "python-numba", """\
import numba


@numba.njit(parallel=True)
def jacobi(nx, ny, nz, u, unew):
    for i in numba.prange(1, nx - 1):
        for j in range(1, ny - 1):
            for k in range(1, nz - 1):
                unew[i, j, k] = (u[i - 1, j, k] + u[i + 1, j, k] + u[i, j - 1, k] + u[i, j + 1, k]
                                 + u[i, j, k - 1] + u[i, j, k + 1]) / 6.0
""", V.correct, ("parallel: yes",)),
    Plant("numba-parallel-spmv", "spmv", "python-numba", """\
import numba


@numba.njit(parallel=True)
def spmv(n, nnz, row_ptr, col_idx, values, x, y):
    for i in numba.prange(n):
        s = 0.0
        for k in range(row_ptr[i], row_ptr[i + 1]):
            s += values[k] * x[col_idx[k]]
        y[i] = s
""", V.correct, ("parallel: yes",)),
]

NUMBA_NOT_JIT = Plant("numba-imported-but-never-jitted", "axpy", "python-numba", """\
import numba


def saxpy(n, a, x, y):
    for i in range(n):
        y[i] = a * x[i] + y[i]
""", V.wrong_model, ("no Numba construct",))

NUMBA = NUMBA_SERIAL + NUMBA_PARALLEL + [NUMBA_NOT_JIT]


@pytest.fixture(scope="module")
def results(catalog) -> dict[str, Evaluation | BaseException]:
    return _evaluate_all(catalog, NUMBA)


@pytest.mark.skipif(threads() < 2, reason="jobs get one thread here: parallelism cannot be seen")
@pytest.mark.parametrize("plant", NUMBA_SERIAL + NUMBA_PARALLEL + [NUMBA_NOT_JIT], ids=lambda p: p.id)
def test_any_numba_jit_counts_and_parallelism_is_reported(plant: Plant, results):
    _check(plant, results[plant.id])


def test_the_rubric_option_makes_serial_numba_wrong_model(results):
    """Default rubric: serial Numba stays correct; `numba_requires_parallel = true`: wrong_model when scoring."""
    from hpceval.metrics import Rubric

    rows = [{"model": p.model, "verdict": results[p.id].verdict.value, "evidence": results[p.id].evidence}
            for p in NUMBA_SERIAL + NUMBA_PARALLEL if not isinstance(results[p.id], BaseException)]
    frame = pd.DataFrame(rows)
    default = Rubric.load()
    assert default.numba_requires_parallel is False
    assert (default.apply_policies(frame)["verdict"] == "correct").all()
    strict = Rubric.from_dict({**_rubric_dict(default), "numba_requires_parallel": True})
    judged = strict.apply_policies(frame)
    serial = judged["evidence"].str.contains("parallel: no")
    if threads() >= 2:
        assert serial.sum() == len(NUMBA_SERIAL)
    assert (judged.loc[serial, "verdict"] == "wrong_model").all()
    assert (judged.loc[~serial, "verdict"] == "correct").all()
    assert (frame["verdict"] == "correct").all(), "apply_policies must not change its input"


def _rubric_dict(rubric) -> dict:
    return {"name": rubric.name, "levels": [{"score": lv.score, "name": lv.name, "when": lv.when}
                                            for lv in rubric.levels]}


def test_rubric_rejects_a_non_boolean_policy():
    from hpceval.metrics import Rubric, RubricError

    with pytest.raises(RubricError):
        Rubric.from_dict({**_rubric_dict(Rubric.load()), "numba_requires_parallel": "yes"})


# ------------------------------------------------------------------------------------------------ 3. Kokkos
KOKKOS_AXPY = """\
void saxpy(int n, float a, const float *x, float *y) {{
  Kokkos::View<const float *, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> xv(x, n);
  Kokkos::View<float *, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> yv(y, n);
  Kokkos::parallel_for("axpy", {policy}, KOKKOS_LAMBDA(const int i) {{ yv(i) = a * xv(i) + yv(i); }});
  Kokkos::fence();
}}
"""
KOKKOS_GEMV = """\
void gemv(int m, int n, const double *A, const double *x, double *y) {{
  Kokkos::parallel_for({policy}, [=](const int i) {{
    double s = 0.0;
    for (int j = 0; j < n; ++j) s += A[(long)i * n + j] * x[j];
    y[i] = s;
  }});
  Kokkos::fence();
}}
"""
KOKKOS_GEMM = """\
void gemm(int m, int n, int k, const double *A, const double *B, double *C) {{
  Kokkos::parallel_for("gemm", {policy}, KOKKOS_LAMBDA(const int i, const int j) {{
    double s = 0.0;
    for (int p = 0; p < k; ++p) s += A[i * k + p] * B[p * n + j];
    C[i * n + j] = s;
  }});
  Kokkos::fence();
}}
"""
KOKKOS_SPMV = """\
void spmv(int n, int nnz, const int *row_ptr, const int *col_idx, const double *values, const double *x,
          double *y) {{
  using Space = {space};
  Kokkos::parallel_for("spmv", Kokkos::RangePolicy<Space>(0, n), [=](const int i) {{
    double s = 0.0;
    for (int j = row_ptr[i]; j < row_ptr[i + 1]; ++j) s += values[j] * x[col_idx[j]];
    y[i] = s;
  }});
  Kokkos::fence();
}}
"""
KOKKOS_JACOBI = """\
void jacobi(int nx, int ny, int nz, const double *u, double *unew) {{
  Kokkos::parallel_for("jacobi", {policy}, KOKKOS_LAMBDA(const int i, const int j, const int k) {{
    const long c = ((long)i * ny + j) * nz + k;
    unew[c] = (u[c - (long)ny * nz] + u[c + (long)ny * nz] + u[c - nz] + u[c + nz] + u[c - 1] + u[c + 1]) / 6.0;
  }});
  Kokkos::fence();
}}
"""

KOKKOS = [
    Plant("kokkos-axpy-serial-range-policy", "axpy", "cpp-kokkos",
          KOKKOS_AXPY.format(policy="Kokkos::RangePolicy<Kokkos::Serial>(0, n)"), V.wrong_model, ("Serial",)),
    Plant("kokkos-gemv-serial-instance", "gemv", "cpp-kokkos",
          KOKKOS_GEMV.format(policy="Kokkos::RangePolicy<Kokkos::Serial>(Kokkos::Serial(), 0, m)"), V.wrong_model,
          ("Serial",)),
    Plant("kokkos-gemm-serial-mdrange", "gemm", "cpp-kokkos",
          KOKKOS_GEMM.format(policy="Kokkos::MDRangePolicy<Kokkos::Serial, Kokkos::Rank<2>>({0, 0}, {m, n})"),
          V.wrong_model, ("Serial",)),
    Plant("kokkos-spmv-serial-alias", "spmv", "cpp-kokkos", KOKKOS_SPMV.format(space="Kokkos::Serial"),
          V.wrong_model, ("Serial",)),
    Plant("kokkos-jacobi-serial-mdrange", "jacobi", "cpp-kokkos",
          KOKKOS_JACOBI.format(policy="Kokkos::MDRangePolicy<Kokkos::Serial, Kokkos::Rank<3>>({1, 1, 1}, "
                                      "{nx - 1, ny - 1, nz - 1})"), V.wrong_model, ("Serial",)),
    Plant("kokkos-axpy-default-policy", "axpy", "cpp-kokkos", KOKKOS_AXPY.format(policy="n"), V.correct,
          ("OpenMP",)),
    Plant("kokkos-gemv-openmp-range-policy", "gemv", "cpp-kokkos",
          KOKKOS_GEMV.format(policy="Kokkos::RangePolicy<Kokkos::OpenMP>(0, m)"), V.correct, ("OpenMP",)),
    Plant("kokkos-gemm-default-mdrange", "gemm", "cpp-kokkos",
          KOKKOS_GEMM.format(policy="Kokkos::MDRangePolicy<Kokkos::Rank<2>>({0, 0}, {m, n})"), V.correct),
    Plant("kokkos-spmv-default-execution-space", "spmv", "cpp-kokkos",
          KOKKOS_SPMV.format(space="Kokkos::DefaultExecutionSpace"), V.correct),
    Plant("kokkos-jacobi-default-host-space-on-openmp", "jacobi", "cpp-kokkos",
          KOKKOS_JACOBI.format(policy="Kokkos::MDRangePolicy<Kokkos::DefaultHostExecutionSpace, Kokkos::Rank<3>>("
                                      "{1, 1, 1}, {nx - 1, ny - 1, nz - 1})"), V.correct),
]


def _kokkos_openmp_ready(catalog) -> str | None:
    from hpceval.toolchains import kokkos

    toolchain = get_toolchain("kokkos")
    if toolchain.backend != "openmp":
        return "the Kokkos toolchain runs the CUDA backend here"
    if not kokkos._installed("openmp"):
        return "Kokkos OpenMP not built (python -m hpceval.toolchains.kokkos build openmp)"
    if kokkos.tool_library() is None:
        return "no Kokkos tool library"
    return None


@pytest.fixture(scope="module")
def kokkos_results(catalog) -> dict[str, Evaluation | BaseException]:
    why = _kokkos_openmp_ready(catalog)
    if why:
        pytest.skip(why)
    return _evaluate_all(catalog, KOKKOS)


@pytest.mark.skipif(threads() < 2, reason="jobs get one thread here")
@pytest.mark.parametrize("plant", KOKKOS, ids=lambda p: p.id)
def test_kokkos_dispatch_ran_on_the_device_space(plant: Plant, kokkos_results):
    _check(plant, kokkos_results[plant.id])


def _probe(tmp_path, *spaces: int) -> None:
    lines = ["hpceval-kokkos-probe 1", "threads 1"]
    lines += [f"D for {space << 24} user_kernel_{i}" for i, space in enumerate(spaces)]
    lines += [f"user {len(spaces)} internal 3"]
    (tmp_path / "kokkos_probe.txt").write_text("\n".join(lines) + "\n")


@pytest.mark.parametrize(("spaces", "problem"), [
    ((0, 0), "Serial"),               # Kokkos::Serial in a CUDA build: the subtle case of the issue
    ((1,), "OpenMP"),                 # DefaultHostExecutionSpace = OpenMP next to CUDA
    ((2, 2), None),                   # on the device
    ((0, 2), None),                   # a host fill of a mirror, the work on the device
])
def test_kokkos_cuda_decision_on_a_recorded_tool_file(tmp_path, catalog, monkeypatch, spaces, problem):
    from hpceval.toolchains import kokkos

    toolchain = kokkos.Kokkos(backend="cuda")
    monkeypatch.setattr(kokkos, "tool_library", lambda: tmp_path / "libtool.so")
    monkeypatch.setattr(kokkos.GpuProbeMixin, "dynamic_check", lambda self, *a, **k: (None, ""))
    _probe(tmp_path, *spaces)
    found, evidence = toolchain.dynamic_check(tmp_path, catalog.models["cpp-kokkos"], 6, "")
    if problem is None:
        assert found is None, found
        assert "Cuda" in evidence
    else:
        assert found is not None and problem in found and "Cuda" in found, found


def test_kokkos_static_fallback_without_a_tool_record(tmp_path, catalog, monkeypatch):
    """No tool record (a Kokkos without tools): an explicit host space for every dispatch in a device build."""
    from hpceval.toolchains import kokkos

    toolchain = kokkos.Kokkos(backend="cuda")
    monkeypatch.setattr(kokkos, "tool_library", lambda: tmp_path / "libtool.so")
    monkeypatch.setattr(kokkos.GpuProbeMixin, "dynamic_check", lambda self, *a, **k: (None, ""))
    model = catalog.models["cpp-kokkos"]
    serial = KOKKOS_AXPY.format(policy="Kokkos::RangePolicy<Kokkos::Serial>(0, n)")
    host = KOKKOS_GEMV.format(policy="Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, m)")
    device = KOKKOS_AXPY.format(policy="n")
    mixed = serial + KOKKOS_GEMV.format(policy="m")
    assert "Serial" in (toolchain.dynamic_check(tmp_path, model, 6, serial)[0] or "")
    assert "DefaultHostExecutionSpace" in (toolchain.dynamic_check(tmp_path, model, 6, host)[0] or "")
    assert toolchain.dynamic_check(tmp_path, model, 6, device)[0] is None
    assert toolchain.dynamic_check(tmp_path, model, 6, mixed)[0] is None
    openmp = kokkos.Kokkos(backend="openmp")
    assert openmp.dynamic_check(tmp_path, model, 6, host)[0] is None  # the host space is the device space there
