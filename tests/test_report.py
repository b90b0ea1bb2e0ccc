"""`hpceval report` over a real reference run and a second run: CSVs (documented schema), HTML, Markdown, PNGs.

The helpers at the top (reference_run, synthetic_run, report_inputs) are shared with test_notebooks.py and
test_html_browser.py, which import them from here; they are cached for the whole pytest session.
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
from functools import cache
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from hpceval.cli import app
from hpceval.contracts import Evaluation, Prompt, Suggestion, Verdict
from hpceval.metrics import Rubric, pass_at_k
from hpceval.report import SCHEMA_VERSION, build_report, load_results, score
from hpceval.store import Store, write_csv_atomic

REPO = Path(__file__).resolve().parents[1]
SCHEMA_DOC = REPO / "docs" / "leaderboard-schema.md"
REFERENCE_MODELS = "cpp-openmp,python-numpy"
SYNTHETIC_LLM = "openai:synthetic-coder"


# ---------------------------------------------------------------------------------------------- shared inputs
@cache
def reference_run(base: Path) -> Path:
    """A real run: `hpceval run --llm reference` over axpy x {cpp-openmp, python-numpy}, timed (both styles)."""
    out = base / "reference"
    result = CliRunner().invoke(app, ["run", "--llm", "reference", "--models", REFERENCE_MODELS, "--kernels",
                                      "axpy", "--style", "all", "--hints", "none", "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out


def synthetic_run(out: Path, reference: Path, llm: str = SYNTHETIC_LLM, n: int = 6, seed: int = 0) -> Path:
    """A second LLM's run written through Store: the reference run's prompts, n suggestions each, mixed verdicts,
    timings scattered around the reference's, one generation failure and one harness fault (infra_error)."""
    ref = Store(reference)
    prompts = [Prompt(prompt_id=r[0], kernel=r[1], model=r[2], language=r[3], style=r[4], hint=r[5], text=r[6])
               for r in ref.db.execute("SELECT prompt_id, kernel, model, language, style, hint, text FROM prompts")]
    timed = ref.results().dropna(subset=["time_median_s"]).drop_duplicates("prompt_id").set_index("prompt_id")
    ref.close()
    rng = np.random.default_rng(seed)
    store = Store(out)
    run_id = f"synthetic{seed:03d}"
    store.add_run(run_id, llm, {"llm": llm, "seed": 1234, "llm_identity": {"backend": "openai",
                                                                            "model": "synthetic-coder"}}, {})
    store.add_prompts(run_id, prompts)
    verdicts = [Verdict.correct, Verdict.correct, Verdict.correct, Verdict.wrong_result, Verdict.build_error,
                Verdict.wrong_model, Verdict.no_code, Verdict.runtime_error]
    for i, p in enumerate(prompts):
        base = timed.loc[p.prompt_id] if p.prompt_id in timed.index else None
        for rank in range(1, n + 1):
            if i == 0 and rank == 2:
                store.add_generation(run_id, Suggestion(prompt_id=p.prompt_id, rank=rank, text="",
                                                        error="endpoint timed out"))
                continue
            code = f"// suggestion {rank} for {p.prompt_id}"
            store.add_generation(run_id, Suggestion(prompt_id=p.prompt_id, rank=rank, text=code, code=code))
            key = f"{run_id}-{p.prompt_id}-{rank}"
            store.link(run_id, p.prompt_id, rank, code, key, "")
            verdict = Verdict.infra_error if (i == 1 and rank == 1) else verdicts[int(rng.integers(len(verdicts)))]
            ev = Evaluation(verdict=verdict, evidence=f"synthetic {verdict.value}", device="cpu", toolchain="synthetic")
            if verdict == Verdict.correct and base is not None:
                factor = float(rng.lognormal(0.0, 0.5))
                ev = ev.model_copy(update={"time_median_s": base.time_median_s * factor,
                                           "gflops": base.gflops / factor, "gbytes_per_s": base.gbytes_per_s / factor,
                                           "device": base.device})
            store.put_evaluation(key, ev)
    store.export_csv(run_id)
    store.close()
    return out


@cache
def report_inputs(base: Path) -> tuple[Path, Path]:
    ref = reference_run(base)
    return ref, synthetic_run(base / "synthetic", ref)


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> tuple[Path, Path]:
    return report_inputs(tmp_path_factory.getbasetemp() / "report-inputs")


@pytest.fixture(scope="module")
def report_dir(inputs, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("report")
    result = CliRunner().invoke(app, ["report", str(inputs[0]), str(inputs[1]), "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out


# ---------------------------------------------------------------------------------------------- the command
def test_report_command_writes_csv_html_markdown_and_png(report_dir: Path):
    for name in ("leaderboard.csv", "summary.csv", "prompts.csv", "verdicts.csv", "comparisons.csv",
                 "suggestions.csv", "pass_at_k.csv", "runs.csv", "index.html", "summary.md", "manifest.json"):
        assert (report_dir / name).is_file(), name
    pngs = sorted((report_dir / "figures").glob("*.png"))
    stems = {p.stem for p in pngs}
    assert {"pass_at_k", "speedup", "verdicts", "heatmap_reference", "heatmap_openai-synthetic-coder"} <= stems
    for png in pngs:
        data = png.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5000, png
    html = (report_dir / "index.html").read_text()
    for png in pngs:
        assert f'src="figures/{png.name}"' in html
    assert 'class="sortable"' in html and "infra_error: 2" in html
    md = (report_dir / "summary.md").read_text()
    assert "openai:synthetic-coder" in md and "figures/pass_at_k.png" in md and "infra_error: 2" in md
    manifest = json.loads((report_dir / "manifest.json").read_text())
    assert manifest["schema_version"] == SCHEMA_VERSION and manifest["infra_error"] == 2


def test_every_csv_column_is_documented_in_the_versioned_schema(report_dir: Path):
    doc = SCHEMA_DOC.read_text()
    assert f"Schema version: **{SCHEMA_VERSION}**" in doc
    documented = set(re.findall(r"^\|\s*`([^`]+)`", doc, flags=re.M))
    for csv in sorted(report_dir.glob("*.csv")):
        frame = pd.read_csv(csv)
        assert (frame["schema_version"].astype(str) == SCHEMA_VERSION).all(), csv.name
        patterns = {c.replace("{k}", "1").replace("{verdict}", "correct") for c in documented}
        generic = [re.compile("^" + re.escape(c).replace(r"\{k\}", r"\d+").replace(r"\{verdict\}", r"[a-z_]+") + "$")
                   for c in documented]
        missing = [c for c in frame.columns if c not in patterns and not any(g.match(c) for g in generic)]
        assert not missing, f"{csv.name}: columns not in {SCHEMA_DOC.name}: {missing}"
        assert f"`{csv.name}`" in doc, f"{csv.name} not described in {SCHEMA_DOC.name}"


def test_leaderboard_numbers(report_dir: Path, inputs):
    board = pd.read_csv(report_dir / "leaderboard.csv")
    ref = board[board["llm"] == "reference"]
    assert len(ref) == 2 and set(ref["model"]) == set(REFERENCE_MODELS.split(","))
    assert (ref["proficiency"] == 1.0).all() and (ref["pass_at_1"] == 1.0).all()
    # the baseline is the median of the reference run's own timings of the cell: its speedups scatter around 1
    assert ((ref["speedup_at_1"] > 0.5) & (ref["speedup_at_1"] < 2)).all()
    samples = pd.read_csv(report_dir / "suggestions.csv")
    ref_samples = samples[samples["llm"] == "reference"]
    for (_, _), g in ref_samples.groupby(["kernel", "model"]):
        assert g["baseline_time_s"].to_numpy() == pytest.approx(np.median(g["time_median_s"]), rel=1e-5)
        assert g["speedup"].to_numpy() == pytest.approx(g["baseline_time_s"] / g["time_median_s"], rel=1e-5)
    assert ref["pass_at_5"].isna().all() and (ref["pass_at_5_prompts"] == 0).all()   # N = 1 < 5: undefined
    syn = board[board["llm"] == SYNTHETIC_LLM]
    assert syn["infra_error"].sum() == 2
    assert (syn["suggestions"] == syn["scored"] + syn["infra_error"]).all()
    # the leaderboard's means are the per-prompt scores recomputed from the raw verdicts
    frame = load_results(inputs)
    rubric = Rubric.load()
    for row in syn.itertuples():
        sub = frame[(frame["llm"] == SYNTHETIC_LLM) & (frame["model"] == row.model)]
        per_prompt = [g.sort_values("rank")["verdict"].tolist() for _, g in sub.groupby("prompt_id")]
        assert row.proficiency == pytest.approx(np.mean([rubric.score(v) for v in per_prompt]), abs=1e-5)
        scored = [[v for v in vs if v != "infra_error"] for vs in per_prompt]
        expect = np.mean([pass_at_k(len(v), v.count("correct"), 1) for v in scored])
        assert row.pass_at_1 == pytest.approx(expect, abs=1e-5)
        assert row.proficiency_lo <= row.proficiency <= row.proficiency_hi
    summary = pd.read_csv(report_dir / "summary.csv")
    assert set(zip(summary["llm"], summary["model"], strict=True)) == set(zip(board["llm"], board["model"], strict=True))
    comp = pd.read_csv(report_dir / "comparisons.csv")
    overall = comp[(comp["model"] == "*") & (comp["metric"] == "proficiency")]
    assert len(overall) == 1 and overall["prompts"].iloc[0] == 4        # 2 models x 2 styles, paired


def test_speedups_are_nan_without_a_reference_run_and_efficiency_needs_ceilings(inputs, tmp_path: Path):
    scores = score([inputs[1]], n_boot=200)
    assert scores.leaderboard["speedup_at_1"].isna().all()
    assert scores.samples["speedup"].isna().all()
    assert any("speedups are NaN" in n for n in scores.notes)
    assert scores.leaderboard["roofline_efficiency"].isna().all()
    ceilings = tmp_path / "ceilings.json"
    ceilings.write_text(json.dumps({"cpu": {"gflops": 50.0, "gbytes_per_s": 20.0}}))
    with_ceil = score(list(inputs), ceilings=ceilings, n_boot=200)
    ok = with_ceil.samples[(with_ceil.samples["verdict"] == "correct") & with_ceil.samples["gflops"].notna()]
    assert not ok.empty
    expect = np.maximum(ok["gflops"] / 50.0, ok["gbytes_per_s"] / 20.0)
    assert ok["roofline_efficiency"].to_numpy() == pytest.approx(expect.to_numpy())
    assert with_ceil.leaderboard["roofline_efficiency"].notna().any()
    sp = with_ceil.samples
    incorrect = sp[sp["verdict"] != "correct"]
    assert incorrect["speedup"].isna().all()          # not 0: speedup@k alone counts them as 0


def test_speedup_at_k_per_prompt_uses_zero_for_incorrect(inputs):
    scores = score(list(inputs), n_boot=100, ks=(1, 2))
    prompts = scores.prompts[scores.prompts["llm"] == SYNTHETIC_LLM]
    samples = scores.samples
    for row in prompts.itertuples():
        sub = samples[(samples["llm"] == SYNTHETIC_LLM) & (samples["prompt_id"] == row.prompt_id)
                      & (samples["verdict"] != "infra_error")]
        vals = np.where(sub["verdict"] == "correct", sub["speedup"], 0.0)
        if np.isnan(vals).any():
            assert math.isnan(row.speedup_at_1)
        else:
            assert row.speedup_at_1 == pytest.approx(vals.mean())


def test_report_of_a_missing_directory_is_one_line(tmp_path: Path):
    result = CliRunner().invoke(app, ["report", str(tmp_path / "nope"), "--out", str(tmp_path / "r")])
    assert result.exit_code == 2
    assert "not a results directory" in result.output and "Traceback" not in result.output


def test_build_report_with_a_swapped_rubric(inputs, tmp_path: Path):
    rubric = tmp_path / "strict.toml"
    rubric.write_text('name = "strict"\n[[levels]]\nscore = 1\nname = "all"\nwhen = "c == N"\n'
                      '[[levels]]\nscore = 0\nname = "else"\nwhen = "c < N"\n')
    build_report([inputs[1]], tmp_path / "out", rubric=rubric, n_boot=100)
    prompts = pd.read_csv(tmp_path / "out" / "prompts.csv")
    assert set(prompts["level"]) <= {"all", "else"}
    assert json.loads((tmp_path / "out" / "manifest.json").read_text())["rubric"]["name"] == "strict"


def test_all_infra_error_run_is_reported_not_scored(tmp_path: Path):
    store = Store(tmp_path / "infra")
    store.add_run("infra1", "local", {"llm_identity": {"model": "tiny-model"}}, {})
    prompts = [Prompt(prompt_id=f"axpy/cpp-openmp/chat/{h}", kernel="axpy", model="cpp-openmp", language="cpp",
                      style="chat", hint=h, text="x") for h in ("none", "keyword")]
    store.add_prompts("infra1", prompts)
    for p in prompts:
        for rank in (1, 2):
            store.add_generation("infra1", Suggestion(prompt_id=p.prompt_id, rank=rank, text="x", code="x"))
            store.link("infra1", p.prompt_id, rank, "x", f"{p.prompt_id}-{rank}", "")
            store.put_evaluation(f"{p.prompt_id}-{rank}", Evaluation(verdict=Verdict.infra_error,
                                                                     evidence="toolchain gcc missing"))
    store.close()
    build_report([tmp_path / "infra"], tmp_path / "out", n_boot=50)
    board = pd.read_csv(tmp_path / "out" / "leaderboard.csv")
    assert board["llm"].tolist() == ["local:tiny-model"]
    assert board["infra_error"].tolist() == [4] and board["scored"].tolist() == [0]
    assert board["proficiency"].isna().all() and board["pass_at_1"].isna().all()
    assert "infra_error: 4" in (tmp_path / "out" / "index.html").read_text()


def test_report_of_an_empty_results_directory_is_one_line(tmp_path: Path):
    Store(tmp_path / "empty").close()
    result = CliRunner().invoke(app, ["report", str(tmp_path / "empty"), "--out", str(tmp_path / "r")])
    assert result.exit_code == 2
    assert "no evaluated suggestion" in result.output and "Traceback" not in result.output


def test_a_prompt_with_nothing_correct_has_speedup_zero_when_its_cell_has_a_baseline(inputs):
    frame = load_results(inputs)
    target = frame[frame["llm"] == SYNTHETIC_LLM]["prompt_id"].iloc[-1]
    rows = (frame["llm"] == SYNTHETIC_LLM) & (frame["prompt_id"] == target)
    frame.loc[rows, "verdict"] = "build_error"
    frame.loc[rows, "device"] = ""                 # never ran
    frame.loc[rows, ["time_median_s", "gflops", "gbytes_per_s"]] = np.nan
    prompts = score(frame, n_boot=50).prompts
    row = prompts[(prompts["llm"] == SYNTHETIC_LLM) & (prompts["prompt_id"] == target)].iloc[0]
    assert row["speedup_at_1"] == 0.0 and row["pass_at_1"] == 0.0 and row["proficiency"] == 0.0
    assert row["baseline_time_s"] > 0


def test_csvs_are_written_atomically_with_the_mode_the_umask_gives(tmp_path: Path):
    """evaluations.csv and the report's CSVs are 0666 less the umask, like any file open() creates (not the 0600
    of a mkstemp file renamed into place), and no temporary file is left behind."""
    store = Store(tmp_path / "run")
    store.add_run("perm1", "local", {"llm_identity": {"model": "tiny-model"}}, {})
    prompt = Prompt(prompt_id="axpy/cpp-openmp/chat/none", kernel="axpy", model="cpp-openmp", language="cpp",
                    style="chat", hint="none", text="x")
    store.add_prompts("perm1", [prompt])
    store.add_generation("perm1", Suggestion(prompt_id=prompt.prompt_id, rank=1, text="x", code="x"))
    store.link("perm1", prompt.prompt_id, 1, "x", "perm1-1", "")
    store.put_evaluation("perm1-1", Evaluation(verdict=Verdict.build_error, evidence="no"))
    old = os.umask(0o022)
    try:
        evaluations = store.export_csv("perm1")
        store.close()
        written = build_report([tmp_path / "run"], tmp_path / "out", n_boot=20)
        os.umask(0o027)
        again = write_csv_atomic(pd.read_csv(evaluations), evaluations)        # replacing a 0644 file
    finally:
        os.umask(old)
    csvs = [p for p in written if p.suffix == ".csv"]
    assert len(csvs) == 10 and pd.read_csv(tmp_path / "out" / "leaderboard.csv")["correct"].tolist() == [0]
    assert {p.name: stat.S_IMODE(p.stat().st_mode) for p in csvs} == {p.name: 0o644 for p in csvs}
    assert again == evaluations and stat.S_IMODE(evaluations.stat().st_mode) == 0o640
    assert pd.read_csv(evaluations)["verdict"].tolist() == ["build_error"]
    leftovers = [p.name for d in (tmp_path / "run", tmp_path / "out") for p in d.iterdir() if p.name.startswith(".")]
    assert leftovers == []
