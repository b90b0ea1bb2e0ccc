"""The mutation self-test end to end on AXPY: the references pass, and the validator kills >= 90% of the mutants."""

from __future__ import annotations

import os

import pytest

from hpceval.contracts import Evaluation, Verdict
from hpceval.mutants import generate_mutants
from hpceval.selftest import Cell, MutantOutcome, SelftestReport, run_selftest

MODELS = ["cpp-openmp", "fortran-openmp", "python-numpy"]


@pytest.fixture(scope="module")
def report(catalog, evaluator):
    kernels = catalog.select_kernels(["axpy"])
    models = catalog.select_models(MODELS)
    return run_selftest(catalog, evaluator, kernels, models, jobs=os.cpu_count() or 2, progress=False)


@pytest.mark.parametrize("model", MODELS)
def test_axpy_reference_passes_and_mutants_die(report, model):
    cell = report.cells[("axpy", model)]
    assert cell.status == "ok", cell.reference.evidence if cell.reference else cell.note
    assert cell.reference.verdict == Verdict.correct
    assert cell.total >= 5
    assert cell.kill_ratio >= 0.9, [s.description for s in report.survivors if s.model == model]


def test_removed_parallel_is_wrong_model(report):
    for model in ("cpp-openmp", "fortran-openmp"):
        removed = [o for o in report.cells[("axpy", model)].outcomes if o.mutant.kind == "removed-parallel"]
        assert [o.verdict for o in removed] == [Verdict.wrong_model]


def test_report_renders(report):
    assert report.ok(0.85)
    markdown = report.to_markdown()
    assert "| axpy |" in markdown and "cpp-openmp" in markdown
    table = report.to_table()
    assert table.row_count == 1 and len(table.columns) == 1 + len(MODELS)


def test_missing_and_infra_cells_render_distinctly():
    code = "void f() {}\n"
    mutant = generate_mutants("void k(int n, double *y) {\n  for (int i = 0; i < n; ++i) y[i] = 1.0;\n}\n", "cpp")[0]
    cells = {
        ("k", "a"): Cell("k", "a", "missing"),
        ("k", "b"): Cell("k", "b", "infra_error",
                         Evaluation(verdict=Verdict.infra_error, evidence="toolchain unavailable: nvc")),
        ("k", "c"): Cell("k", "c", "reference_failed", Evaluation(verdict=Verdict.wrong_result, evidence="bad")),
        ("k", "d"): Cell("k", "d", "ok", Evaluation(verdict=Verdict.correct), original=code,
                         outcomes=[MutantOutcome(mutant, Verdict.correct), MutantOutcome(mutant, Verdict.build_error)]),
    }
    report = SelftestReport(["k"], ["a", "b", "c", "d"], cells)
    row = report.to_markdown().split("| k |")[1].splitlines()[0]
    assert [c.strip() for c in row.split("|")[:4]] == ["–", "infra_error", "REF FAIL wrong_result", "**✓ 1/2 50%**"]
    assert len(report.survivors) == 1 and "off-by-one" in str(report.survivors[0])
    assert not report.ok()
    del cells[("k", "c")], cells[("k", "d")]
    assert report.ok() and not report.ok(strict=True)
