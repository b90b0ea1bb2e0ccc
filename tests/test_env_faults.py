"""Harness and environment faults are never the LLM's verdict (issue 28, mechanism 4).

(i) every run-time dependency the drivers need is declared (SciPy: Numba's np.dot); (ii) the sandbox's process
limit hit during a build ("sh: 1: Cannot fork", EAGAIN) is retried, then `infra_error`, never `build_error`, while
a real compiler error stays `build_error`; (iii) environment canaries: a model's reference solution runs once per
(kernel, model, toolchain version) before its suggestions; where it fails, the suggestions are `infra_error` with
the reference's error, and `hpceval doctor` says so.
"""

from __future__ import annotations

import shutil
import textwrap
import tomllib
from pathlib import Path

import pytest

from hpceval.checks.base import Job
from hpceval.checks.build import builds, sandbox_limit
from hpceval.contracts import ProcResult
from hpceval.evaluate import Evaluator
from hpceval.executors import Limits, SandboxError
from hpceval.executors.local import LocalExecutor
from hpceval.spec import load_catalog

REPO = Path(__file__).resolve().parents[1]


# ------------------------------------------------------------------------------------------------ (i) dependencies


def test_scipy_is_a_declared_dependency():
    """Numba compiles np.dot / np.linalg through SciPy's BLAS: without SciPy a right suggestion fails at run time."""
    deps = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]
    assert any(d.split(">")[0].split("=")[0].strip() == "scipy" for d in deps)


def test_gpu_wheels_list_carries_scipy():
    """The GPU machine installs what it lacks from the wheels bench/gpu_selftest.sh lists: SciPy among them."""
    header = (REPO / "bench" / "gpu_selftest.sh").read_text()
    download = header[header.index("pip download --no-deps --only-binary"):header.index("mkdir -p .gpu-carry")]
    assert " scipy" in download


NUMBA_DOT_GEMV = """
import numpy as np
from numba import njit, prange

@njit(parallel=True)
def gemv(m, n, A, x, y):
    for i in prange(m):
        y[i] = np.dot(A[i, :], x)
"""


def test_numba_np_dot_runs(catalog, evaluator):
    """Right-but-unusual: np.dot inside a jitted prange loop (needs SciPy at run time)."""
    model = catalog.models["python-numba"]
    e = evaluator.evaluate(NUMBA_DOT_GEMV, catalog.kernels["gemv"], model)
    assert e.verdict.value == "correct", e.evidence


# ------------------------------------------------------------------------------ (ii) sandbox limits during a build


class _StubToolchain:
    """Two build steps; the runner decides what each returns. A C compiler: no newer language standard to retry
    with (Toolchain.standards), so every call the runner sees is the sandbox-limit logic's."""

    standards: tuple[str, ...] = ()

    def build_steps(self, model):
        return [["cc", "-c", "kernel.c"], ["cc", "-o", "prog", "kernel.o"]]


def _job(catalog, tmp_path, results: list[ProcResult]) -> tuple[Job, list]:
    calls: list = []

    def runner(argv, workdir, env, limits):
        calls.append(argv)
        return results.pop(0) if results else ProcResult(argv=argv, returncode=0, stdout="", stderr="", seconds=0.1)

    spec, model = catalog.kernels["axpy"], catalog.models["cpp-openmp"]
    job = Job(workdir=tmp_path, spec=spec, model=model, lang=catalog.languages["cpp"], toolchain=_StubToolchain(),
              code="", mapping={}, env={}, build_limits=Limits(), run_limits=Limits(), seed=1, timing_wanted=False,
              runner=runner, base={"toolchain": "gcc"})
    return job, calls


def _failed(stderr: str) -> ProcResult:
    return ProcResult(argv=["cc"], returncode=1, stdout="", stderr=stderr, seconds=0.1)


SANDBOX_LIMIT_MESSAGES = [
    "sh: 1: Cannot fork",
    "g++: fatal error: cannot execute '/usr/lib/gcc/x86_64-linux-gnu/13/cc1plus': vfork: Resource temporarily unavailable",
    "/bin/sh: fork: retry: Resource temporarily unavailable",
    "OSError: [Errno 11] Resource temporarily unavailable",
    "BlockingIOError: [Errno 11] Resource temporarily unavailable",
    "terminate called after throwing an instance of 'std::system_error'\n  what():  Resource temporarily unavailable",
    "nvcc fatal   : Could not fork: Resource temporarily unavailable",
    "error: could not create thread: pthread_create failed: EAGAIN",
]


@pytest.mark.parametrize("stderr", SANDBOX_LIMIT_MESSAGES)
def test_sandbox_limit_is_recognised(stderr):
    assert sandbox_limit(_failed(stderr))


@pytest.mark.parametrize("stderr", [
    "kernel.cpp:3:5: error: 'fork_count' was not declared in this scope",
    "kernel.cpp:5:3: error: expected ';' before '}' token\n    5 |   puts(\"sh: 1: Cannot fork\")\n      |   ^",
    "kernel.cpp:9:1: error: 'EAGAIN' was not declared in this scope",
    "kernel.f90:4:7: Error: Symbol 'resource' at (1) has no IMPLICIT type",
])
def test_compiler_errors_are_not_sandbox_limits(stderr):
    """A compiler error that merely mentions fork/EAGAIN, or echoes such a source line, stays the suggestion's."""
    assert not sandbox_limit(_failed(stderr))


def test_cannot_fork_once_is_retried(catalog, tmp_path):
    job, calls = _job(catalog, tmp_path, [_failed("sh: 1: Cannot fork")])
    assert builds(job) is None
    assert len(calls) == 3  # the first step twice, then the second


def test_cannot_fork_persistently_is_a_harness_fault(catalog, tmp_path):
    job, _ = _job(catalog, tmp_path, [_failed("sh: 1: Cannot fork")] * 5)
    with pytest.raises(SandboxError, match="process limit"):
        builds(job)


def test_compiler_error_stays_build_error(catalog, tmp_path):
    job, calls = _job(catalog, tmp_path, [_failed("kernel.cpp:3:5: error: 'z' was not declared in this scope")])
    e = builds(job)
    assert e is not None and e.verdict.value == "build_error"
    assert len(calls) == 1  # no retry for the suggestion's own error


def test_real_build_error_end_to_end(catalog, evaluator):
    code = "void saxpy(int n, float a, const float *x, float *y) {\n  for (int i = 0; i < n; i++) y[i] += a * z[i];\n}\n"
    e = evaluator.evaluate(code, catalog.kernels["axpy"], catalog.models["cpp-openmp"])
    assert e.verdict.value == "build_error", e.evidence


# ------------------------------------------------------------------------------------------ (iii) environment canaries


def _kernels_copy(tmp_path: Path, broken: dict[str, str] | None = None) -> Path:
    """A kernels folder with AXPY only; `broken`: solution file name -> replacement text (a broken environment
    looks the same to the harness as a reference that cannot run there)."""
    root = tmp_path / "kernels"
    root.mkdir()
    shutil.copy(REPO / "kernels_spec" / "models.toml", root / "models.toml")
    shutil.copytree(REPO / "kernels_spec" / "axpy", root / "axpy")
    for name, text in (broken or {}).items():
        (root / "axpy" / "solutions" / name).write_text(text)
    return root


BROKEN_NUMPY = "import numpy as np\nimport hpceval_module_that_is_not_installed\n\ndef saxpy(n, a, x, y):\n    y[:n] += np.float32(a) * x[:n]\n"

GOOD_NUMPY = "import numpy as np\n\ndef saxpy(n, a, x, y):\n    y[:] = np.float32(a) * x + y\n"
WRONG_NUMPY = "import numpy as np\n\ndef saxpy(n, a, x, y):\n    y[:] = np.float32(a) * x\n"
GOOD_CPP = textwrap.dedent("""
    void saxpy(int n, float a, const float *x, float *y) {
    #pragma omp parallel for
      for (int i = 0; i < n; i++) y[i] = y[i] + x[i] * a;
    }
""")


def _evaluator(root: Path, tmp_path: Path, monkeypatch) -> Evaluator:
    monkeypatch.setenv("HPCEVAL_CANARY_CACHE", str(tmp_path / "canaries.json"))
    return Evaluator(load_catalog(root), LocalExecutor(), timing=False, canaries=True)


def test_failing_reference_makes_rows_infra_error(tmp_path, monkeypatch):
    ev = _evaluator(_kernels_copy(tmp_path, {"python-numpy.py": BROKEN_NUMPY}), tmp_path, monkeypatch)
    spec, model = ev.catalog.kernels["axpy"], ev.catalog.models["python-numpy"]
    for code in (GOOD_NUMPY, WRONG_NUMPY):  # right or wrong, the environment cannot tell: no verdict against the LLM
        e = ev.evaluate(code, spec, model)
        assert e.verdict.value == "infra_error", e.evidence
        assert "reference solution" in e.evidence and "hpceval_module_that_is_not_installed" in e.evidence


def test_passing_reference_leaves_verdicts_alone(tmp_path, monkeypatch):
    ev = _evaluator(_kernels_copy(tmp_path), tmp_path, monkeypatch)
    spec, model = ev.catalog.kernels["axpy"], ev.catalog.models["python-numpy"]
    assert ev.evaluate(GOOD_NUMPY, spec, model).verdict.value == "correct"
    assert ev.evaluate(WRONG_NUMPY, spec, model).verdict.value == "wrong_result"


def test_canary_fails_only_its_model(tmp_path, monkeypatch):
    ev = _evaluator(_kernels_copy(tmp_path, {"python-numpy.py": BROKEN_NUMPY}), tmp_path, monkeypatch)
    e = ev.evaluate(GOOD_CPP, ev.catalog.kernels["axpy"], ev.catalog.models["cpp-openmp"])
    assert e.verdict.value == "correct", e.evidence


def test_canary_runs_once_and_is_cached_with_the_toolchain_version(tmp_path, monkeypatch):
    root = _kernels_copy(tmp_path)
    ev = _evaluator(root, tmp_path, monkeypatch)
    spec, model = ev.catalog.kernels["axpy"], ev.catalog.models["python-numpy"]
    runs: list[str] = []
    original = Evaluator._evaluate

    def counting(self, code, *args, **kwargs):
        runs.append(code)
        return original(self, code, *args, **kwargs)

    monkeypatch.setattr(Evaluator, "_evaluate", counting)
    reference = spec.solution_path(model, ev.catalog).read_text()
    for _ in range(3):
        ev.evaluate(GOOD_NUMPY, spec, model)
    assert runs.count(reference) == 1
    cached = (tmp_path / "canaries.json").read_text()
    assert "axpy" in cached and "python-numpy" in cached
    info = ev.executor.toolchain_info(__import__("hpceval.toolchains", fromlist=["x"]).get_toolchain(model.toolchain))
    assert str(info.version) in cached
    runs.clear()  # a new process (a new Evaluator) reuses the cached pass
    ev2 = _evaluator(root, tmp_path, monkeypatch)
    ev2.evaluate(GOOD_NUMPY, ev2.catalog.kernels["axpy"], ev2.catalog.models["python-numpy"])
    assert runs.count(reference) == 0


def test_doctor_reports_failing_canary(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from hpceval.cli import app

    ev = _evaluator(_kernels_copy(tmp_path, {"python-numpy.py": BROKEN_NUMPY}), tmp_path, monkeypatch)
    ev.evaluate(GOOD_NUMPY, ev.catalog.kernels["axpy"], ev.catalog.models["python-numpy"])
    out = CliRunner().invoke(app, ["doctor", "--format", "markdown"])
    assert "canar" in out.output.lower() and "axpy" in out.output and "python-numpy" in out.output, out.output


def test_dask_workers_run_their_own_canaries():
    """The canary tests the environment the job runs in: a Dask worker rebuilds the evaluator with canaries on."""
    from hpceval.dispatch.worker import evaluator_settings, worker_evaluator

    ev = Evaluator(load_catalog(), LocalExecutor(), timing=False, canaries=True)
    settings = evaluator_settings(ev)
    assert settings["canaries"] is True
    assert worker_evaluator(settings).canaries is True


def test_canary_cache_lies_in_the_harness_cache(tmp_path, monkeypatch):
    """One cache folder for the harness: $HPCEVAL_CACHE moves the canaries with the other caches."""
    from hpceval import canary

    monkeypatch.delenv("HPCEVAL_CANARY_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("HPCEVAL_CACHE", str(tmp_path / "mine"))
    assert canary.cache_path() == tmp_path / "mine" / "canaries.json"
