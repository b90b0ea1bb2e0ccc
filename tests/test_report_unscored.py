"""The rows the score does not see (`unbindable`, `infra_error`) stand beside the score in every per-LLM view.

Why: a leaderboard where an LLM's half-unbindable answers simply vanish from N reads as a good score. Every table
that ranks LLMs (llms.csv, summary.csv, leaderboard.csv, comparisons.csv, summary.md and index.html) carries both
counts and their rates over all suggestions, and a rate above UNSCORED_FLAG_RATE (5 %) is flagged where a reader
looks. The inputs are published-style evaluations.csv folders written here, with known verdict counts.
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

from hpceval.report import SCHEMA_VERSION, build_report, score
from hpceval.store import RESULT_COLUMNS

REPO = Path(__file__).resolve().parents[1]
SCHEMA_DOC = REPO / "docs" / "leaderboard-schema.md"


def write_run(folder: Path, llm: str, run_id: str, cells: dict[tuple[str, str], list[list[str]]]) -> Path:
    """An evaluations.csv: per (kernel, model) a list of prompts, each a list of verdicts by rank; the prompts of a
    cell differ in style/hint so they are distinct prompts."""
    folder.mkdir(parents=True)
    styles = [("paper", "none"), ("paper", "keyword"), ("chat", "none"), ("chat", "keyword")]
    records = []
    for (kernel, model), prompts in cells.items():
        for (style, hint), verdicts in zip(styles, prompts, strict=False):
            prompt = f"{kernel}/{model}/{style}/{hint}"
            for rank, verdict in enumerate(verdicts, start=1):
                records.append({"run_id": run_id, "llm": llm, "language": model.split("-")[0], "model": model,
                                "kernel": kernel, "style": style, "hint": hint, "prompt_id": prompt, "rank": rank,
                                "verdict": verdict, "evidence": f"synthetic {verdict}", "device": "cpu"})
    pd.DataFrame(records).reindex(columns=RESULT_COLUMNS).to_csv(folder / "evaluations.csv", index=False)
    return folder


C, W, U, X = "correct", "wrong_result", "unbindable", "infra_error"  # X: not run (infra_error)
# "binder-gap": 10 suggestions in cpp-openmp, 6 of them unbindable (60 %): its 4 scored ones are all correct, so
# its score alone (proficiency 1 where it has one) would look perfect
GAP = {("axpy", "cpp-openmp"): [[C, U, U], [U, U, U], [C, C, C, U][:1]],
       ("gemv", "cpp-openmp"): [[C, U, C]]}
# "steady": 20 suggestions, exactly one unbindable (5 %, not above the flag) and one infra_error (5 %)
STEADY = {("axpy", "cpp-openmp"): [[C, W, C, C, C], [C, C, W, C, U]],
          ("gemv", "cpp-openmp"): [[C, C, C, C, C], [C, W, C, C, X]]}
# "gpu-only-here": an LLM whose whole python-numpy cell is infra_error (not run on this machine)
GPUISH = {("axpy", "cpp-openmp"): [[C, W, C, C, C], [C, C, C, C, C], [C, C, C, C, C], [C, C, C, C, C]],
          ("axpy", "python-numpy"): [[X, X, X, X]]}


def write_runs(base: Path, llms: dict[str, dict]) -> list[Path]:
    """One evaluations.csv folder per LLM (`replay:NAME` -> cells), run ids derived from the names."""
    return [write_run(base / llm.split(":")[-1], llm, f"{llm.split(':')[-1][:5]}01", cells)
            for llm, cells in llms.items()]


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> list[Path]:
    return write_runs(tmp_path_factory.mktemp("unscored"), {"replay:binder-gap": GAP, "replay:steady": STEADY,
                                                            "replay:gpu-only-here": GPUISH})


@pytest.fixture(scope="module")
def report(runs, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("unscored-report")
    build_report(runs, out, n_boot=50)
    return out


def test_schema_version_is_bumped_and_the_new_columns_are_documented():
    assert SCHEMA_VERSION == "1.2"
    doc = SCHEMA_DOC.read_text()
    for col in ("unbindable_rate", "infra_error_rate", "unscored_rate", "unbindable_flag", "infra_error_flag",
                "unbindable_a", "unbindable_rate_b", "llms.csv"):
        assert f"`{col}`" in doc, col


def test_one_row_per_llm_with_counts_and_rates_of_all_suggestions(report: Path):
    llms = pd.read_csv(report / "llms.csv").set_index("llm")
    assert set(llms.index) == {"replay:binder-gap", "replay:steady", "replay:gpu-only-here"}
    gap = llms.loc["replay:binder-gap"]
    assert (gap["suggestions"], gap["unbindable"], gap["infra_error"], gap["scored"]) == (10, 6, 0, 4)
    assert gap["unbindable_rate"] == pytest.approx(0.6) and gap["infra_error_rate"] == 0
    assert gap["unscored"] == 6 and gap["unscored_rate"] == pytest.approx(0.6)
    steady = llms.loc["replay:steady"]
    assert steady["unbindable_rate"] == pytest.approx(0.05) and steady["infra_error_rate"] == pytest.approx(0.05)
    gpu = llms.loc["replay:gpu-only-here"]
    # the denominator is every suggestion, infra_error included: 4 of 24
    assert gpu["infra_error"] == 4 and gpu["infra_error_rate"] == pytest.approx(4 / 24, abs=1e-6)


def test_the_flag_is_strictly_above_five_percent(report: Path):
    llms = pd.read_csv(report / "llms.csv").set_index("llm")
    assert bool(llms.loc["replay:binder-gap", "unbindable_flag"]) is True
    assert bool(llms.loc["replay:steady", "unbindable_flag"]) is False     # 1 of 20 = 5 %: not above
    assert bool(llms.loc["replay:steady", "infra_error_flag"]) is False
    assert bool(llms.loc["replay:gpu-only-here", "infra_error_flag"]) is True
    assert bool(llms.loc["replay:gpu-only-here", "unbindable_flag"]) is False


def test_summary_and_leaderboard_carry_the_rates_per_model_and_kernel(report: Path):
    summary = pd.read_csv(report / "summary.csv")
    row = summary[(summary["llm"] == "replay:gpu-only-here") & (summary["model"] == "python-numpy")].iloc[0]
    # a cell the score never sees at all (no scored prompt) is still a row, 100 % infra_error, flagged
    assert row["infra_error_rate"] == 1.0 and bool(row["infra_error_flag"]) and pd.isna(row["proficiency"])
    board = pd.read_csv(report / "leaderboard.csv")
    cell = board[(board["llm"] == "replay:binder-gap") & (board["kernel"] == "axpy")].iloc[0]
    assert (cell["suggestions"], cell["unbindable"]) == (7, 5)
    assert cell["unbindable_rate"] == pytest.approx(5 / 7, abs=1e-6) and bool(cell["unbindable_flag"])
    for frame in (summary, board):
        assert ((frame["unscored"] == frame["unbindable"] + frame["infra_error"])
                & (frame["suggestions"] == frame["scored"] + frame["unscored"])).all()


def test_paired_comparisons_show_what_each_side_left_out(report: Path):
    comp = pd.read_csv(report / "comparisons.csv")
    row = comp[(comp["llm_a"] == "replay:binder-gap") & (comp["llm_b"] == "replay:steady")
               & (comp["model"] == "*") & (comp["metric"] == "proficiency")].iloc[0]
    # over the 3 prompts both answered (axpy paper/none, axpy paper/keyword, gemv paper/none), the all-unbindable
    # one included although its proficiency is NaN and it drops out of the paired means
    assert row["unbindable_a"] == 6 and row["suggestions_a"] == 9
    assert row["unbindable_rate_a"] == pytest.approx(6 / 9, abs=1e-6)   # the CSVs keep 6 significant digits
    assert row["unbindable_b"] == 1 and row["infra_error_b"] == 0 and row["suggestions_b"] == 15


def test_html_puts_the_rates_beside_the_score_and_flags_the_high_one(report: Path):
    html = (report / "index.html").read_text()
    assert "rows the score does not see" in html
    table = re.search(r'<table class="sortable" id="llms">(.*?)</table>', html, re.S)
    assert table, "no per-LLM table on the page"
    headers = re.findall(r"<th[^>]*>(.*?)</th>", table.group(1))
    i_unb = next(i for i, h in enumerate(headers) if h.startswith("unbindable"))
    i_inf = next(i for i, h in enumerate(headers) if h.startswith("infra_error"))
    i_prof = next(i for i, h in enumerate(headers) if h.startswith("proficiency"))
    assert abs(i_unb - i_prof) <= 2 and abs(i_inf - i_prof) <= 2      # beside the score, not at the far end
    gap_row = next(r for r in re.findall(r"<tr>(.*?)</tr>", table.group(1), re.S) if "binder-gap" in r)
    assert re.search(r'class="num flag"[^>]*>(<a [^>]*>)?6 \(60\.0%\)', gap_row), gap_row
    steady_row = next(r for r in re.findall(r"<tr>(.*?)</tr>", table.group(1), re.S) if "replay:steady" in r)
    assert "flag" not in steady_row
    # and a note at the top names the LLM and its rate
    top = html.split("<h2>", 1)[0]
    assert re.search(r"replay:binder-gap.{0,80}60\.0%.{0,40}unbindable", top, re.S), top[-800:]
    for tid in ("summary", "leaderboard"):
        t = re.search(rf'<table class="sortable" id="{tid}">(.*?)</table>', html, re.S).group(1)
        assert "unbindable" in t and "infra_error" in t and 'class="num flag"' in t


def test_markdown_summary_has_the_per_llm_table_with_flags(report: Path):
    md = (report / "summary.md").read_text()
    assert "rows the score does not see" in md
    line = next(ln for ln in md.splitlines() if ln.startswith("| replay:binder-gap |"))
    assert "6 (60.0%) ⚠" in line
    steady = next(ln for ln in md.splitlines() if ln.startswith("| replay:steady |"))
    assert "⚠" not in steady and "1 (5.0%)" in steady


def test_scores_api_exposes_the_per_llm_table(runs):
    scores = score(runs, n_boot=20)
    assert list(scores.llms["llm"]) == sorted(scores.llms["llm"])
    assert {"unbindable_rate", "infra_error_rate", "unbindable_flag"} <= set(scores.llms.columns)
    runs_table = scores.runs.set_index("llm")
    assert runs_table.loc["replay:binder-gap", "unbindable"] == 6
