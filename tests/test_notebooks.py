"""The notebooks in notebooks/ run top to bottom (nbclient) on a results directory made here.

Each reads the results through hpceval.report's loaders (HPCEVAL_RESULTS names the directories); the executed
copies are kept under results/notebooks/ as CI artifacts.
"""

from __future__ import annotations

import os
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from test_report import report_inputs

REPO = Path(__file__).resolve().parents[1]
STUDY = REPO / "notebooks" / "study_2023.ipynb"  # reads the published study CSVs, not HPCEVAL_RESULTS
COMBINED = REPO / "notebooks" / "leaderboard_combined.ipynb"  # reads combined.csv: tests/test_report_combined.py
NOTEBOOKS = sorted(p for p in (REPO / "notebooks").glob("*.ipynb") if p not in (STUDY, COMBINED))
EXECUTED = REPO / "results" / "notebooks"


def test_there_are_notebooks():
    names = {p.name for p in NOTEBOOKS}
    assert {"proficiency_heatmaps.ipynb", "failure_analysis.ipynb"} <= names


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs_top_to_bottom(path: Path, tmp_path_factory, monkeypatch):
    ref, synthetic = report_inputs(tmp_path_factory.getbasetemp() / "report-inputs")
    monkeypatch.setenv("HPCEVAL_RESULTS", os.pathsep.join([str(ref), str(synthetic)]))
    monkeypatch.setenv("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    nb = nbformat.read(path, as_version=4)
    assert not any(c.get("outputs") for c in nb.cells if c.cell_type == "code"), \
        f"{path.name} is committed with outputs; clear them"
    client = NotebookClient(nb, timeout=300, kernel_name="python3", allow_errors=False,
                            resources={"metadata": {"path": str(path.parent)}})
    client.execute()          # raises CellExecutionError with the failing cell and traceback
    EXECUTED.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, EXECUTED / path.name)
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    images = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(images) >= 2, f"{path.name} drew {len(images)} figures"
    text = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    assert "2 results directories" in text and "openai:synthetic-coder" in text


def _execute(path: Path) -> nbformat.NotebookNode:
    nb = nbformat.read(path, as_version=4)
    assert not any(c.get("outputs") for c in nb.cells if c.cell_type == "code"), \
        f"{path.name} is committed with outputs; clear them"
    client = NotebookClient(nb, timeout=300, kernel_name="python3", allow_errors=False,
                            resources={"metadata": {"path": str(path.parent)}})
    client.execute()
    EXECUTED.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, EXECUTED / path.name)
    return nb


def test_study_notebook_redraws_the_published_results_from_their_csvs(monkeypatch):
    """results/copilot-2023 and results/llama2-2023 are committed: the notebook recomputes their leaderboards from
    the per-suggestion CSVs (it asserts equality itself) and draws every report figure of both."""
    if not (REPO / "results" / "copilot-2023" / "evaluations.csv").is_file():
        pytest.skip("the study results are not published in this checkout")
    monkeypatch.setenv("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    nb = _execute(STUDY)
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    text = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    assert "copilot: " in text and "same numbers: True" in text and "same numbers: False" not in text
    images = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(images) >= 8, f"drew {len(images)} figures"
