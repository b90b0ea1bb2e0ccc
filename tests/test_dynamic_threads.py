"""The dynamic thread check of the CPU threading models (cpp-openmp, fortran-openmp, python-numba).

A directive that is there but does not parallelize (an orphaned worksharing directive, num_threads(1), numba without
parallel=True) passes validation and the static usage check; the driver's thread evidence must make it wrong_model
(Numba: reported as "parallel: no" beside a correct verdict; the rubric decides).
A kernel that is serial only below a size threshold of its own is judged by the run at the timing size. Each plant
runs through the real pipeline (bind, build, sandboxed run, validation, checks); they are evaluated concurrently.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import pytest

from hpceval.bind import canonical_binding, render_unit
from hpceval.contracts import Evaluation, Verdict
from hpceval.evaluate import Evaluator
from hpceval.executors.local import LocalExecutor
from hpceval.spec import catalog as load_catalog
from hpceval.toolchains import get_toolchain, threads

V = Verdict
needs_threads = pytest.mark.skipif(threads() < 2, reason="jobs get one thread here (HPCEVAL_THREADS / one core)")

CPP_AXPY = """\
void saxpy(int n, float a, const float *x, float *y) {{
#pragma omp {directive}
  for (int i = 0; i < n; ++i) y[i] = a * x[i] + y[i];
}}
"""

F_AXPY = """\
subroutine saxpy(n, a, x, y)
  implicit none
  integer, intent(in) :: n
  real(4), intent(in) :: a
  real(4), intent(in) :: x(n)
  real(4), intent(inout) :: y(n)
  integer :: i
  !$omp {directive}
  do i = 1, n
    y(i) = a * x(i) + y(i)
  end do
  !$omp end {end}
end subroutine saxpy
"""

# @numba.njit satisfies the python-numba usage regex; without parallel=True, prange is a plain range: one thread
NUMBA_AXPY = """\
import numba


@numba.njit{options}
def saxpy(n, a, x, y):
    for i in numba.prange(n):
        y[i] = a * x[i] + y[i]
"""


def solution(model: str) -> str:
    cat = load_catalog()
    return cat.kernels["axpy"].solution_path(cat.models[model], cat).read_text()


@dataclass(frozen=True)
class Plant:
    id: str
    model: str
    code: str
    verdict: Verdict
    evidence: tuple[str, ...]
    timing: bool = False  # evaluate with the timing run (else timing off: the check runs the timing size itself)


SERIAL_ALL = "at the 6 validation sizes and the timing size n=8388608"

PLANTS = [
    # references: parallel at every size
    Plant("cpp-reference", "cpp-openmp", solution("cpp-openmp"), V.correct, ("2 OpenMP threads ran",)),
    Plant("fortran-reference", "fortran-openmp", solution("fortran-openmp"), V.correct, ("2 OpenMP threads ran",)),
    Plant("numba-reference", "python-numba", solution("python-numba"), V.correct,
          ("2 Numba threads ran", "1 parallel loop (parfor) compiled")),
    # a directive that never starts a team
    Plant("cpp-orphaned-omp-for", "cpp-openmp", CPP_AXPY.format(directive="for"), V.wrong_model,
          ("dynamic check: only 1 thread ran the OpenMP kernel", SERIAL_ALL, "OMP_NUM_THREADS=2")),
    Plant("cpp-num-threads-1", "cpp-openmp", CPP_AXPY.format(directive="parallel for num_threads(1)"), V.wrong_model,
          ("dynamic check: only 1 thread ran", SERIAL_ALL)),
    Plant("cpp-if-false", "cpp-openmp", CPP_AXPY.format(directive="parallel for if(0)"), V.wrong_model,
          ("dynamic check: only 1 thread ran",)),
    Plant("fortran-orphaned-omp-do", "fortran-openmp", F_AXPY.format(directive="do", end="do"), V.wrong_model,
          ("dynamic check: only 1 thread ran the OpenMP kernel", SERIAL_ALL, "!$omp parallel")),
    # any Numba JIT is Numba (the study's grading): serial Numba is correct, with "parallel: no" beside it
    Plant("numba-njit-without-parallel", "python-numba", NUMBA_AXPY.format(options=""), V.correct,
          ("parallel: no (dynamic check: only 1 thread ran the Numba kernel", SERIAL_ALL,
           "no parallel loop (parfor) compiled")),
    # serial below its own threshold (every validation size), parallel at the timing size: correct
    Plant("cpp-if-threshold", "cpp-openmp", CPP_AXPY.format(directive="parallel for if(n > 100000)"), V.correct,
          ("2 OpenMP threads ran (at the timing size n=8388608; 1 thread at the 6 validation sizes)",)),
    Plant("cpp-if-threshold-timed", "cpp-openmp", CPP_AXPY.format(directive="parallel for if(n > 100000)"),
          V.correct, ("2 OpenMP threads ran (at the timing size n=8388608",), timing=True),
    Plant("fortran-if-threshold", "fortran-openmp",
          F_AXPY.format(directive="parallel do if(n > 100000)", end="parallel do"), V.correct,
          ("2 OpenMP threads ran (at the timing size n=8388608",)),
    Plant("numba-parallel-above-threshold", "python-numba",
          NUMBA_AXPY.format(options="(parallel=True)").replace("def saxpy(", "def _par(")
          + "\n\n@numba.njit\ndef _ser(n, a, x, y):\n    for i in range(n):\n        y[i] = a * x[i] + y[i]\n"
          + "\n\ndef saxpy(n, a, x, y):\n    (_par if n > 100000 else _ser)(n, a, x, y)\n",
          V.correct, ("2 Numba threads ran", "at the timing size n=8388608")),
]


@pytest.fixture(scope="module")
def results(catalog) -> dict[str, Evaluation | BaseException]:
    catalog.kernels["axpy"].module  # noqa: B018 - import reference.py once, before the threads
    untimed = Evaluator(catalog, LocalExecutor(), timing=False)
    timed = Evaluator(catalog, LocalExecutor(), timing=True)

    def one(plant: Plant) -> Evaluation | BaseException:
        try:
            evaluator = timed if plant.timing else untimed
            return evaluator.evaluate(plant.code, catalog.kernels["axpy"], catalog.models[plant.model])
        except BaseException as exc:  # noqa: BLE001 - reported by the plant's own test
            return exc

    with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        return dict(zip([p.id for p in PLANTS], pool.map(one, PLANTS), strict=True))


@needs_threads
@pytest.mark.parametrize("plant", PLANTS, ids=lambda p: p.id)
def test_thread_check(plant: Plant, results):
    e = results[plant.id]
    if isinstance(e, BaseException):
        raise e
    assert e.verdict == plant.verdict, f"{plant.id}: got {e.verdict}: {e.evidence}"
    for text in plant.evidence:
        assert text in e.evidence, f"{plant.id}: {text!r} not in evidence {e.evidence!r}"
    if plant.verdict == V.wrong_model:
        assert e.max_rel_error is not None and e.max_rel_error < 1e-5  # the math was right: only the model was not


def test_one_thread_per_job_skips_the_check(catalog, monkeypatch):
    """With one thread per job (HPCEVAL_THREADS=1, a one-core machine) one thread is all there can be."""
    monkeypatch.setenv("HPCEVAL_THREADS", "1")
    e = Evaluator(catalog, LocalExecutor(), timing=False).evaluate(
        CPP_AXPY.format(directive="for"), catalog.kernels["axpy"], catalog.models["cpp-openmp"])
    assert e.verdict == V.correct, e.evidence
    assert "threads ran" not in e.evidence


def test_only_threading_models_get_the_probe(catalog):
    """The probe is in the drivers of the three threading models only; other models' drivers are unchanged."""
    spec = catalog.kernels["axpy"]
    for model in catalog.models.values():
        lang = catalog.languages[model.language]
        toolchain = get_toolchain(model.toolchain)
        files = render_unit("", spec, lang, canonical_binding(spec, lang), toolchain.hooks(model), toolchain.driver_ext)
        driver = next(text for name, text in files.items() if name.startswith("driver"))
        probed = model.id in ("cpp-openmp", "fortran-openmp", "python-numba")
        assert ("threads.txt" in driver) == probed, model.id
