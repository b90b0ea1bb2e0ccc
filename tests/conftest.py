"""Shared fixtures: the catalog, an evaluator without timing, and the ../shared corpus when present."""

import os
from pathlib import Path

import pytest

from hpceval.evaluate import Evaluator
from hpceval.executors.local import LocalExecutor
from hpceval.spec import catalog as load_catalog

REPO = Path(__file__).resolve().parents[1]
# ../shared beside the checkout; HPCEVAL_SHARED for a git worktree elsewhere (the corpus tests skip without it)
SHARED = Path(os.environ.get("HPCEVAL_SHARED") or REPO.parent / "shared")
CPU_MODELS = ["cpp-openmp", "cpp-openmp-offload", "cpp-openacc", "fortran-openmp", "fortran-openmp-offload",
              "fortran-openacc", "python-numpy", "python-numba"]


@pytest.fixture(scope="session")
def catalog():
    return load_catalog()


@pytest.fixture(scope="session")
def evaluator(catalog):
    """Evaluations without the timing run: verdict tests do not need times."""
    return Evaluator(catalog, LocalExecutor(), timing=False)


@pytest.fixture(scope="session")
def copilot_sample() -> Path:
    path = SHARED / "corpus" / "copilot-sample"
    if not path.is_dir():
        pytest.skip("../shared/corpus/copilot-sample not present")
    return path


@pytest.fixture(scope="session")
def paper_evaluate(catalog, evaluator):
    """Evaluate a paper-style (free-form) suggestion as the pipeline does: its binding chosen, then graded."""
    from hpceval.bind import choose_binding

    def run(code: str, kernel: str, model: str):
        spec, m = catalog.kernels[kernel], catalog.models[model]
        return evaluator.evaluate(code, spec, m, choose_binding(code, spec, catalog.languages[m.language], "paper", m))

    return run


@pytest.fixture(scope="session")
def paper_verdict(paper_evaluate):
    """paper_evaluate, then the verdict asserted (skipped where the model's toolchain is missing); the evaluation."""
    from hpceval.contracts import Verdict

    def check(code: str, kernel: str, model: str, verdict: Verdict):
        e = paper_evaluate(code, kernel, model)
        if e.verdict == Verdict.infra_error and "toolchain unavailable" in e.evidence:
            pytest.skip(e.evidence)
        assert e.verdict == verdict, f"{e.verdict}: {e.evidence}"
        return e

    return check
