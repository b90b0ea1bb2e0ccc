"""`hpceval report CPU_DIR GPU_DIR --merge`: one replayed evaluation split across a CPU and a GPU machine.

The CPU machine marks the GPU models' suggestions `infra_error` ("cannot run here"); the GPU machine executes
them. Merged, each suggestion has the row that was executed, under one LLM label; two executed rows that
disagree are two different evaluations and are refused rather than pooled.
"""

from __future__ import annotations

import pandas as pd
import pytest

from hpceval.report.load import ReportError, load_results
from hpceval.store import RESULT_COLUMNS


def _dir(tmp_path, name: str, run_id: str, rows: list[tuple[str, int, str]]):
    folder = tmp_path / name
    folder.mkdir()
    records = []
    for prompt, rank, verdict in rows:
        kernel, model = prompt.split("/")[:2]
        records.append({"run_id": run_id, "llm": "replay:study-llm", "language": model.split("-")[0], "model": model,
                        "kernel": kernel, "style": "paper", "hint": "none", "prompt_id": prompt, "rank": rank,
                        "verdict": verdict, "evidence": "", "device": "cpu"})
    pd.DataFrame(records).reindex(columns=RESULT_COLUMNS).to_csv(folder / "evaluations.csv", index=False)
    return folder


CPU = [("axpy/cpp-openmp/paper/none", 1, "correct"), ("axpy/cpp-openmp/paper/none", 2, "wrong_result"),
       ("axpy/cpp-cuda/paper/none", 1, "infra_error"), ("axpy/cpp-cuda/paper/none", 2, "no_code")]
GPU = [("axpy/cpp-cuda/paper/none", 1, "correct"), ("axpy/cpp-cuda/paper/none", 2, "no_code")]


def test_runs_of_one_llm_on_two_machines_merge_into_one_row_per_suggestion(tmp_path):
    cpu, gpu = _dir(tmp_path, "cpu", "aaaaaa1", CPU), _dir(tmp_path, "gpu", "bbbbbb2", GPU)
    apart = load_results([cpu, gpu])
    assert len(apart) == 6 and apart["llm"].nunique() == 2  # without --merge: two labelled runs, nothing pooled
    merged = load_results([cpu, gpu], merge=True)
    assert len(merged) == 4 and set(merged["llm"]) == {"replay:study-llm"}
    verdicts = {(r.prompt_id, r.rank): r.verdict for r in merged.itertuples()}
    assert verdicts[("axpy/cpp-cuda/paper/none", 1)] == "correct"  # the GPU machine's row replaced infra_error
    assert verdicts[("axpy/cpp-openmp/paper/none", 2)] == "wrong_result"
    assert set(merged["run_id"]) == {"aaaaaa1"}  # scored as one run: each prompt once
    assert set(merged["evaluated_in_run"]) == {"aaaaaa1", "bbbbbb2"}


def test_two_executed_rows_that_disagree_are_not_merged(tmp_path):
    other = [("axpy/cpp-openmp/paper/none", 1, "wrong_result")]  # another sample, or another harness version
    cpu, gpu = _dir(tmp_path, "cpu", "aaaaaa1", CPU), _dir(tmp_path, "gpu", "bbbbbb2", other)
    with pytest.raises(ReportError, match="cannot merge"):
        load_results([cpu, gpu], merge=True)


def test_a_merged_run_whose_rows_are_scored_under_another_keeps_its_llm_name():
    """With --merge, an LLM's prompts are scored under one of its runs; the other runs (a GPU machine's) hold no
    scored row, and the runs table still names their LLM (it printed `nan`)."""
    from hpceval.report.scores import _run_counts

    meta = {"created": "", "llm_identity": "{}", "config": "{}", "environment": "{}"}
    runs = pd.DataFrame([{"run_id": "cpu1", "llm_spec": "replay:llm-a", "run_dir": "a", **meta},
                         {"run_id": "gpu1", "llm_spec": "replay:llm-a", "run_dir": "b", **meta}])
    samples = pd.DataFrame({"run_id": ["cpu1", "cpu1"], "llm": ["llm-a", "llm-a"],
                            "verdict": ["correct", "wrong_result"]})
    out = _run_counts(runs, samples).set_index("run_id")
    assert out.loc["cpu1", "llm"] == "llm-a" and out.loc["cpu1", "suggestions"] == 2
    assert out.loc["gpu1", "llm"] == "replay:llm-a" and out.loc["gpu1", "suggestions"] == 0
