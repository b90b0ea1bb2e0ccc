"""`hpceval report DIR... --combined`: one leaderboard of LLMs from different publications on what they share.

Why: the study's Copilot and Llama-2 and ParEval's four LLMs answered different prompt texts; what they share is
the kernel × programming model. The combined leaderboard scores every LLM on exactly the cells every LLM answered
(never on cells only some answered), keeps the rows the score does not see beside the score, and carries the
caveat (the prompts differ between publications) on the page and in every CSV row. The notebook
notebooks/leaderboard_combined.ipynb redraws it from combined.csv alone.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import nbformat
import pandas as pd
import pytest
from nbclient import NotebookClient
from typer.testing import CliRunner

from hpceval.cli import app
from hpceval.report import SCHEMA_VERSION, build_report
from test_report_unscored import C, U, W, X, write_run, write_runs

REPO = Path(__file__).resolve().parents[1]
NOTEBOOK = REPO / "notebooks" / "leaderboard_combined.ipynb"
COPILOT, LLAMA2 = REPO / "results" / "copilot-2023", REPO / "results" / "llama2-2023"
COMMITTED = REPO / "results" / "leaderboard-combined"
HOSTILE = "</script><script>alert('pwned')</script><img src=x onerror=alert(1)>"
CAVEAT = "ParEval's prompts are not the study's: same kernel and model, different prompt texts."

STUDY = {("axpy", "cpp-openmp"): [[C, W, C], [C, C, C]], ("gemv", "cpp-openmp"): [[C, U, W]],
         ("axpy", "python-numpy"): [[C, C, C]]}                    # python-numpy: only this LLM
PAREVAL = {("axpy", "cpp-openmp"): [[C, C, C, C]], ("gemv", "cpp-openmp"): [[U, U, U, C]],
           ("gemm", "cpp-openmp"): [[W, W, W, W]]}                 # gemm: only this LLM
THIRD = {("axpy", "cpp-openmp"): [[W, W]], ("gemv", "cpp-openmp"): [[C, X]], ("axpy", "cpp-cuda"): [[X, X]]}


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> list[Path]:
    return write_runs(tmp_path_factory.mktemp("combined-runs"), {"replay:study-llm": STUDY,
                                                                 "replay:pareval-llm": PAREVAL,
                                                                 "replay:third-llm": THIRD})


@pytest.fixture(scope="module")
def combined(runs, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("combined")
    result = CliRunner().invoke(app, ["report", *map(str, runs), "--combined", "--caveat", CAVEAT, "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out


def test_combined_scores_only_the_cells_every_llm_answered(combined: Path):
    frame = pd.read_csv(combined / "combined.csv")
    assert (frame["schema_version"].astype(str) == SCHEMA_VERSION).all()
    assert set(frame["llm"]) == {"replay:study-llm", "replay:pareval-llm", "replay:third-llm"}
    overall = frame[frame["model"] == "*"].set_index("llm")
    assert len(overall) == 3 and (overall["cells"] == 2).all()   # axpy and gemv x cpp-openmp
    # study's python-numpy cell (3 correct) and pareval's gemm cell (4 wrong) are left out
    assert overall.loc["replay:study-llm", "suggestions"] == 9
    assert overall.loc["replay:study-llm", "correct"] == 6
    assert overall.loc["replay:pareval-llm", "suggestions"] == 8
    assert set(frame["model"]) == {"*", "cpp-openmp"}               # no per-model row for an unshared model
    assert set(frame.loc[frame["model"] == "*", "kernels"]) == {2}


def test_combined_keeps_the_unscored_rows_beside_the_score(combined: Path):
    frame = pd.read_csv(combined / "combined.csv")
    row = frame[(frame["model"] == "*") & (frame["llm"] == "replay:pareval-llm")].iloc[0]
    assert row["unbindable"] == 3 and row["unbindable_rate"] == pytest.approx(3 / 8) and bool(row["unbindable_flag"])
    third = frame[(frame["model"] == "*") & (frame["llm"] == "replay:third-llm")].iloc[0]
    assert third["infra_error"] == 1 and third["infra_error_rate"] == pytest.approx(0.25)


def test_the_caveat_is_in_every_csv_row_and_visible_on_the_page(combined: Path):
    frame = pd.read_csv(combined / "combined.csv")
    assert (frame["caveat"] == CAVEAT).all()
    html = (combined / "index.html").read_text()
    section = re.search(r'<section id="combined">(.*?)</section>', html, re.S)
    assert section, "no combined section on the page"
    assert re.search(r'<div class="note caveat">[^<]*ParEval&#39;s prompts are not the study&#39;s', section.group(1))
    assert "axpy × cpp-openmp" in section.group(1) and "python-numpy" not in section.group(1)
    assert html.index('id="combined"') < html.index('id="summary"')  # the combined board comes first
    assert 'src="figures/combined.png"' in html and (combined / "figures" / "combined.png").is_file()


def test_caveat_file_and_default_caveat(runs, tmp_path: Path):
    note = tmp_path / "caveat.md"
    note.write_text("Read this first: prompts differ.\n")
    out = tmp_path / "from-file"
    result = CliRunner().invoke(app, ["report", *map(str, runs[:2]), "--caveat-file", str(note), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert (pd.read_csv(out / "combined.csv")["caveat"] == "Read this first: prompts differ.").all()
    out = tmp_path / "default"
    build_report(runs[:2], out, n_boot=20, combined=True)
    caveat = pd.read_csv(out / "combined.csv")["caveat"].iloc[0]
    assert "prompt" in caveat and "kernel × programming model" in caveat


def test_without_combined_nothing_changes(runs, tmp_path: Path):
    build_report(runs[:2], tmp_path, n_boot=20)
    assert not (tmp_path / "combined.csv").exists()
    assert 'id="combined"' not in (tmp_path / "index.html").read_text()


def test_hostile_llm_names_and_caveats_are_escaped(tmp_path: Path):
    a = write_run(tmp_path / "a", f"replay:{HOSTILE}", "evil001", {("axpy", "cpp-openmp"): [[C, U]]})
    b = write_run(tmp_path / "b", "replay:plain", "plain01", {("axpy", "cpp-openmp"): [[W, C]]})
    out = tmp_path / "out"
    build_report([a, b], out, n_boot=20, combined=True, caveat=HOSTILE)
    html = (out / "index.html").read_text()
    assert HOSTILE not in html and "<script>alert" not in html
    assert html.count("&lt;/script&gt;&lt;script&gt;alert(") >= 3   # caveat, combined row, summary row
    assert (pd.read_csv(out / "combined.csv")["caveat"] == HOSTILE).all()


def test_a_report_without_shared_cells_says_so(tmp_path: Path):
    a = write_run(tmp_path / "a", "replay:one", "one0001", {("axpy", "cpp-openmp"): [[C]]})
    b = write_run(tmp_path / "b", "replay:two", "two0001", {("gemv", "cpp-openmp"): [[C]]})
    out = tmp_path / "out"
    build_report([a, b], out, n_boot=20, combined=True)
    assert pd.read_csv(out / "combined.csv").empty
    assert "no kernel × programming model that every LLM answered" in (out / "index.html").read_text()


# ---------------------------------------------------------------------------------------------- the notebook
@pytest.fixture(scope="module")
def study_combined(tmp_path_factory) -> Path:
    if not (COPILOT / "evaluations.csv").is_file() or not (LLAMA2 / "evaluations.csv").is_file():
        pytest.skip("the study results are not published in this checkout")
    out = tmp_path_factory.mktemp("study-combined")
    build_report([COPILOT, LLAMA2], out, merge=True, combined=True, caveat=CAVEAT, n_boot=100)
    return out


def test_combined_study_board_from_the_committed_results(study_combined: Path):
    frame = pd.read_csv(study_combined / "combined.csv")
    overall = frame[frame["model"] == "*"].set_index("llm")
    assert set(overall.index) == {"github-copilot-2023", "llama-2-70b-2023"}
    assert (overall["kernels"] == 1).all()                 # Llama-2 answered AXPY only: the shared kernel
    # rows the score does not see (its GPU and Julia rows cannot run on a CPU machine): counted and flagged
    assert overall.loc["llama-2-70b-2023", "unbindable"] + overall.loc["llama-2-70b-2023", "infra_error"] > 0


def test_committed_combined_board_has_the_current_columns(study_combined: Path):
    if not (COMMITTED / "combined.csv").is_file():
        pytest.skip("no combined leaderboard committed in this checkout")
    def fixed(frame: pd.DataFrame) -> list[str]:  # the pass@k / speedup@k columns depend on --ks
        return [c for c in frame.columns if not re.search(r"_at_\d+", c)]

    committed = pd.read_csv(COMMITTED / "combined.csv")
    assert fixed(committed) == fixed(pd.read_csv(study_combined / "combined.csv"))
    assert (committed["schema_version"].astype(str) == SCHEMA_VERSION).all()


def test_notebook_redraws_the_combined_board_from_its_csv(study_combined: Path, monkeypatch):
    monkeypatch.setenv("HPCEVAL_COMBINED", str(study_combined))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(REPO / "harness"), os.environ.get("PYTHONPATH", "")]))
    monkeypatch.setenv("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    nb = nbformat.read(NOTEBOOK, as_version=4)
    assert not any(c.get("outputs") for c in nb.cells if c.cell_type == "code"), "committed with outputs"
    NotebookClient(nb, timeout=120, kernel_name="python3", allow_errors=False,
                   resources={"metadata": {"path": str(NOTEBOOK.parent)}}).execute()
    executed = REPO / "results" / "notebooks"
    executed.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, executed / NOTEBOOK.name)
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    text = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    assert CAVEAT in text and "2 LLMs" in text and os.fspath(study_combined) not in text
    assert "flagged: llama-2-70b-2023" in text and "infra_error" in text
    images = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(images) >= 2, f"drew {len(images)} figures"


def test_a_folder_to_publish_can_leave_out_the_drill_down_pages(runs, tmp_path: Path):
    result = CliRunner().invoke(app, ["report", *map(str, runs[:2]), "--combined", "--no-pages", "--out",
                                      str(tmp_path)])
    assert result.exit_code == 0, result.output
    html = (tmp_path / "index.html").read_text()
    assert not (tmp_path / "cells").exists() and not (tmp_path / "suggestions").exists()
    assert 'href="cells/' not in html and 'id="combined"' in html
