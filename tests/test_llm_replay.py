"""Replay backend and `hpceval export-generations`: generation and evaluation on different machines."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from typer.testing import CliRunner

from hpceval.cli import app
from hpceval.llm import BackendError, GenerationParams, get_backend
from hpceval.llm.replay import SCHEMA, ReplayBackend, export_generations
from hpceval.pipeline import Progress, generate_missing
from hpceval.prompts import plan
from hpceval.store import Store

runner = CliRunner()


def prompts_for(catalog, models=("cpp-openmp",), kernels=("axpy",), styles=("chat",), hints=("none",)):
    return plan(catalog, catalog.select_kernels(list(kernels)), catalog.select_models(list(models)), styles, hints)


def write_jsonl(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_replay_ranks_top_n_and_metadata(tmp_path, catalog):
    prompts = prompts_for(catalog, styles=("chat", "paper"))
    chat, paper = prompts[0].prompt_id, prompts[1].prompt_id
    records = [
        {"prompt_id": chat, "language": "cpp", "model": "cpp-openmp", "kernel": "axpy", "style": "chat",
         "rank": 3, "text": "third", "meta": {"mean_logprob": -3}},
        {"prompt_id": chat, "language": "cpp", "model": "cpp-openmp", "kernel": "axpy", "style": "chat",
         "rank": 1, "text": "first", "llm": "openai:some-model", "meta": {"finish_reason": "stop"}},
        {"prompt_id": chat, "rank": 2, "text": "", "error": "HTTP 500: internal error"},
        # no prompt_id: derived from kernel/model/style/hint
        {"kernel": "axpy", "model": "cpp-openmp", "style": "paper", "hint": "none", "language": "cpp", "rank": 1,
         "text": "void saxpy() {}"},
        {"prompt_id": "gemv/cpp-cuda/chat/none", "rank": 1, "text": "not planned"},
    ]
    backend = ReplayBackend(write_jsonl(tmp_path / "g.jsonl", records))
    out = list(backend.generate(prompts, GenerationParams(n=2), None))
    assert [(s.prompt_id, s.rank, s.text) for s in out] == [(chat, 1, "first"), (chat, 2, ""), (paper, 1, "void saxpy() {}")]
    assert out[0].meta["llm"] == "openai:some-model" and out[0].meta["finish_reason"] == "stop"
    assert out[0].meta["replay_line"] == 2 and out[1].error == "HTTP 500: internal error"
    assert backend.unmatched == ["gemv/cpp-cuda/chat/none"]
    assert backend.describe()["records"] == 5


@pytest.mark.parametrize("line, message", [
    ("{not json", "g.jsonl:1: not JSON"),
    ('{"prompt_id": "a/b/chat/none", "text": "x"}', "missing rank"),
    ('{"rank": 1, "text": "x"}', "missing prompt_id"),
    ('{"prompt_id": "a/b/chat/none", "rank": "1", "text": "x"}', "rank an integer"),
])
def test_replay_schema_errors_name_the_line(tmp_path, line, message):
    path = tmp_path / "g.jsonl"
    path.write_text(line + "\n")
    with pytest.raises(BackendError, match=message):
        get_backend(f"replay:{path}")


def test_replay_missing_file():
    with pytest.raises(BackendError, match="not found"):
        get_backend("replay:/nonexistent/file.jsonl")


class ScriptedBackend:
    """Answers every prompt with n distinct texts and some metadata (no LLM needed)."""

    name = "scripted"

    def describe(self):
        return {"backend": "scripted"}

    def generate(self, prompts, params, on_done=None):
        from hpceval.contracts import Suggestion

        for p in prompts:
            for rank in range(1, params.n + 1):
                yield Suggestion(prompt_id=p.prompt_id, rank=rank, text=f"```cpp\n// {p.prompt_id} #{rank}\n```",
                                 meta={"request": {"id": f"{p.prompt_id}-{rank}", "prompt_tokens": 5,
                                                   "completion_tokens": 3, "latency_s": 0.1, "attempts": [],
                                                   "samples": [rank - 1]},
                                       "model": "scripted-1", "sample": rank - 1})

    def close(self):
        pass


def test_export_then_replay_round_trip(tmp_path, catalog):
    prompts = prompts_for(catalog, models=("cpp-openmp", "python-numpy"), styles=("chat", "paper"))
    store = Store(tmp_path / "a")
    store.add_run("r1", "scripted", {}, {})
    store.add_prompts("r1", prompts)
    generate_missing(store, "r1", prompts, ScriptedBackend(), GenerationParams(n=3), Progress(), catalog)
    original = [(r["prompt_id"], r["rank"], r["text"]) for r in store.generations("r1")]
    store.close()

    out = tmp_path / "gen.jsonl"
    assert export_generations(tmp_path / "a", out) == len(prompts) * 3
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert all(r["schema"] == SCHEMA and r["llm"] == "scripted" for r in records)
    assert {"prompt_id", "language", "model", "kernel", "style", "hint", "rank", "text", "meta"} <= set(records[0])
    assert records[0]["meta"]["request"]["prompt_tokens"] == 5 and records[0]["meta"]["run_id"] == "r1"
    assert "extract" in records[0]["meta"], "the extraction outcome is recorded with each generation"

    store = Store(tmp_path / "b")
    generate_missing(store, "r2", prompts, get_backend(f"replay:{out}"), GenerationParams(n=10), Progress(), catalog)
    replayed = [(r["prompt_id"], r["rank"], r["text"]) for r in store.generations("r2")]
    store.close()
    assert replayed == original


def test_cli_export_and_replay_run(tmp_path):
    """hpceval run (reference) -> hpceval export-generations -> hpceval run --llm replay: same verdicts."""
    args = ["--models", "cpp-openmp", "--kernels", "axpy", "--style", "all", "-n", "1", "--no-timing"]
    first = runner.invoke(app, ["run", "--llm", "reference", *args, "--out", str(tmp_path / "gen")])
    assert first.exit_code == 0, first.output
    exported = runner.invoke(app, ["export-generations", str(tmp_path / "gen"), "--out", str(tmp_path / "g.jsonl")])
    assert exported.exit_code == 0 and "wrote 2 generations" in exported.output
    second = runner.invoke(app, ["run", "--llm", f"replay:{tmp_path / 'g.jsonl'}", *args,
                                 "--out", str(tmp_path / "eval")])
    assert second.exit_code == 0, second.output
    a = pd.read_csv(tmp_path / "gen" / "evaluations.csv")
    b = pd.read_csv(tmp_path / "eval" / "evaluations.csv")
    assert list(a["verdict"]) == list(b["verdict"]) == ["correct", "correct"]
    assert list(a["prompt_id"]) == list(b["prompt_id"])


def test_export_errors(tmp_path):
    result = runner.invoke(app, ["export-generations", str(tmp_path)])
    assert result.exit_code == 2 and "no results.sqlite" in result.output
    Store(tmp_path).close()
    result = runner.invoke(app, ["export-generations", str(tmp_path), "--run-id", "nope"])
    assert result.exit_code == 2 and "has no run nope" in result.output
