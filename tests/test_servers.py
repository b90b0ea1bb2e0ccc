"""Use of servers through the real CLI: logprobs only when asked (and recorded), this invocation's usage apart
from the whole run's, a run whose every generation failed exits non-zero, one run per results directory, and
evaluations.csv holding every run of the store."""

from __future__ import annotations

import fcntl
import json
import os
import sqlite3
import subprocess

import pandas as pd
import pytest

from test_bad_input import REFERENCE, hpceval, one_line_error, snapshot
from test_llm_openai import FakeServer

ENDPOINT = ["--models", "cpp-openmp", "--kernels", "axpy", "--no-timing", "--style", "chat"]


@pytest.fixture
def fake():
    server = FakeServer()
    yield server
    server.close()


def openai_run(url: str, out, *extra: str):
    # the model the fake server's /v1/models lists: another name adds the (right) unlisted-model warning to stderr
    return hpceval("run", "--llm", "openai:fake", "--base-url", url, *ENDPOINT, *extra, "--out", str(out),
                   env={"OPENAI_API_KEY": "test"})


def generation_meta(out) -> list[dict]:
    with sqlite3.connect(out / "results.sqlite") as con:
        return [json.loads(m) for (m,) in con.execute("SELECT meta FROM generations ORDER BY created, rank")]


def test_logprobs_off_by_default_on_when_asked_and_recorded(fake, tmp_path):
    out = tmp_path / "run"
    first = openai_run(fake.url, out, "-n", "2")
    assert first.returncode == 0, first.stderr + first.stdout
    assert fake.requests and not any("logprobs" in r["body"] for r in fake.requests), "not asked of a local server"
    assert {(m["ranked_by"], m["logprobs"]) for m in generation_meta(out)} == {("order", False)}
    asked = len(fake.requests)
    second = openai_run(fake.url, out, "-n", "2", "--logprobs")
    assert second.returncode == 0, second.stderr + second.stdout
    assert all(r["body"].get("logprobs") for r in fake.requests[asked:]) and len(fake.requests) > asked, \
        "answers cached without logprobs are asked again by a run that ranks by them"
    ranked = [m for m in generation_meta(out) if m["ranked_by"] == "mean_logprob"]
    assert len(ranked) == 2 and all(m["logprobs"] is True for m in ranked)
    frame = pd.read_csv(out / "evaluations.csv")
    assert frame["run_id"].nunique() == 2, "--logprobs is another run (its ranking differs)"


def _without_live_retries(result):
    """The live `retry:` lines (one per prompt that gave up, each saying why) precede the one error line."""
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    retries = [line for line in lines if line.startswith("retry: ")]
    assert retries and all("HTTP 400" in line and "gave up" in line for line in retries), lines
    kept = "\n".join(line for line in lines if line not in retries)
    return subprocess.CompletedProcess(result.args, result.returncode, result.stdout, kept)


def test_every_generation_failed_exits_nonzero_and_usage_is_per_invocation(tmp_path):
    server = FakeServer(status_for_all=400)
    try:
        out = tmp_path / "run"
        first = _without_live_retries(openai_run(server.url, out, "-n", "1"))
        line = one_line_error(first, "every generation of this run failed", "rerun the same command", code=1)
        assert "HTTP 400" in line
        assert "LLM: 1 requests" in first.stdout and "1 failed" in first.stdout
        second = _without_live_retries(openai_run(server.url, out, "-n", "1"))
        one_line_error(second, "every generation of this run failed", code=1)
    finally:
        server.close()
    assert "LLM, this invocation: 1 requests" in second.stdout
    assert "LLM, all invocations of run" in second.stdout and ": 2 requests" in second.stdout
    with sqlite3.connect(out / "results.sqlite") as con:
        assert con.execute("SELECT COUNT(*) FROM generations").fetchone()[0] == 1, "the failed prompt was asked again"


def test_second_run_on_the_same_out_is_refused(tmp_path):
    out = tmp_path / "run"
    out.mkdir()
    (out / "notes.txt").write_text("keep me")
    with open(out / ".hpceval.lock", "a+") as held:  # what a running `hpceval run` holds
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        held.truncate(0)
        held.write(f"{os.getpid()}\n")
        held.flush()
        before = snapshot(out)
        one_line_error(hpceval("run", *REFERENCE, "--out", str(out)),
                       f"{out} is in use by pid {os.getpid()}; wait or use another --out")
        assert snapshot(out) == before
        one_line_error(hpceval("recover", str(out)), "no results.sqlite")


def test_csv_holds_every_run_of_the_store(tmp_path):
    out = tmp_path / "run"
    for style in ("chat", "paper"):
        result = hpceval("run", *REFERENCE, "-n", "1", "--style", style, "--out", str(out))
        assert result.returncode == 0, result.stderr + result.stdout
    frame = pd.read_csv(out / "evaluations.csv")
    assert frame["run_id"].nunique() == 2 and sorted(frame["style"]) == ["chat", "paper"]
    assert (frame["verdict"] == "correct").all()
