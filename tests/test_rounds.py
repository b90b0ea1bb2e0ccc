"""Feedback rounds (`hpceval run --rounds R`) against a scripted OpenAI-compatible server on 127.0.0.1.

The server answers round 1 with planted faults (an off-by-one, a build error, a serial loop, a slow kernel) and
answers a follow-up only by what the harness's feedback told it, so a fix in round 2 proves the feedback reached
the conversation. pass@k after 1 and 2 rounds is checked against numbers computed by hand; a SIGKILL in the
middle of round 2 is resumed with the requests counted at the server.
"""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pandas as pd
import pytest

from hpceval.feedback import render, worst_element
from hpceval.report import score
from hpceval.report.rounds import after_round, annotate
from hpceval.rounds import followup_id, parent_of, position
from test_llm_openai import FakeServer

HPCEVAL = [sys.executable, "-m", "hpceval.cli"]
SIGNATURE = "void saxpy(int n, float a, const float *x, float *y)"


def kernel(tag: str, body: str, pragma: bool = True) -> str:
    return (f"Here it is:\n```cpp\n{SIGNATURE} {{\n  // {tag}\n" + ("#pragma omp parallel for\n" if pragma else "")
            + f"{body}\n}}\n```\n")


GOOD = "  for (int i = 0; i < n; ++i) y[i] = a * x[i] + y[i];"
OFF_BY_ONE = "  for (int i = 0; i < n - 1; ++i) y[i] = a * x[i] + y[i];"
NO_SEMICOLON = "  for (int i = 0; i < n; ++i) y[i] = a * x[i] + y[i]"
SLOW = ("  for (int i = 0; i < n; ++i) { volatile float t = 0.0f;\n"
        "    for (int r = 0; r < 24; ++r) t = a * x[i];\n    y[i] = t + y[i]; }")
CHAIN = re.compile(r"// (chain\d+)")


class ScriptedServer(FakeServer):
    """Round 1: `first[i]` for choice i. A follow-up: `reply(chain tag, feedback text)` (None: answer as before).

    Records every request's conversation; `answered` counts the answers sent per conversation, so a request
    repeated after a resume shows as a count of 2.
    """

    def __init__(self, first: list[str], reply, delay_followups: float = 0.0):
        super().__init__()
        self.first, self.reply, self.delay = first, reply, delay_followups
        self.answered: dict[str, int] = {}
        self.followups_answered = 0
        self.answered_event = threading.Event()

    def handle(self, h, body):
        messages = body["messages"]
        self.requests.append({"messages": messages, "n": body.get("n", 1), "time": time.monotonic()})
        if len(messages) == 1:
            texts = [self.first[i] for i in range(body.get("n", 1))]
        else:
            time.sleep(self.delay)
            previous = messages[-2]["content"]
            tag = CHAIN.search(previous).group(1)
            texts = [self.reply(tag, messages[-1]["content"]) or previous]
        choices = [{"index": i, "message": {"role": "assistant", "content": t}, "finish_reason": "stop"}
                   for i, t in enumerate(texts)]
        usage = {"prompt_tokens": 10 * len(messages), "completion_tokens": 20 * len(texts),
                 "total_tokens": 10 * len(messages) + 20 * len(texts)}
        h._json(200, {"id": "x", "object": "chat.completion", "created": 0, "model": body.get("model"),
                      "choices": choices, "usage": usage})
        key = json.dumps(messages, sort_keys=True)
        with self.lock:
            self.answered[key] = self.answered.get(key, 0) + 1
            if len(messages) > 1:
                self.followups_answered += 1
        self.answered_event.set()


def hpceval_args(server: ScriptedServer, out: Path, *extra: str) -> list[str]:
    return ["run", "--llm", "openai:fake-model", "--base-url", server.url, "--models", "cpp-openmp", "--kernels",
            "axpy", "--style", "chat", "--temperature", "0", "--out", str(out), *extra]


def run_cli(args: list[str], timeout: float = 900) -> subprocess.CompletedProcess:
    env = {**os.environ, "OPENAI_API_KEY": "test"}
    return subprocess.run([*HPCEVAL, *args], capture_output=True, text=True, timeout=timeout, env=env)


def followups(out: Path) -> pd.DataFrame:
    with sqlite3.connect(out / "results.sqlite") as con:
        return pd.read_sql_query("SELECT * FROM lineage ORDER BY round, chain", con)


# ---------------------------------------------------------------------------------------------- units
def test_ids_and_parents():
    assert followup_id("axpy/cpp-openmp/chat/none", 2, 3) == "axpy/cpp-openmp/chat/none#r2.3"
    assert position("axpy/cpp-openmp/chat/none", 3) == ("axpy/cpp-openmp/chat/none", 1, 3)
    assert position("axpy/cpp-openmp/chat/none#r3.2", 1) == ("axpy/cpp-openmp/chat/none", 3, 2)
    assert parent_of("a/b/chat/none", 2) is None
    assert parent_of("a/b/chat/none#r2.4", 1) == ("a/b/chat/none", 4)
    assert parent_of("a/b/chat/none#r3.4", 1) == ("a/b/chat/none#r2.4", 1)


def test_wrong_result_feedback_has_size_and_worst_element():
    evaluation = {"verdict": "wrong_result", "failed_size": "n=7", "max_rel_error": 0.5,
                  "evidence": "size n=7: y: 1 of 7 elements wrong; at (6,) got 0.5 expected 1.25"}
    text = render("wrong_result", evaluation, function="saxpy", model_name="OpenMP", model_hint="", fence="cpp",
                  summary="y = a*x + y", round_=2)
    assert "Failing size: n=7" in text and "Worst element: index (6): got 0.5 expected 1.25" in text
    assert "```cpp" in text and "corrected saxpy" in text
    assert worst_element("no element") is None


def test_chain_keeps_its_best_suggestion():
    rows = [("p", 1, "wrong_result", None), ("p", 2, "correct", 1.0), ("p#r2.1", 1, "correct", 0.5),
            ("p#r2.2", 1, "wrong_result", None), ("p#r3.2", 1, "correct", 3.0)]
    frame = pd.DataFrame([{"run_id": "r", "prompt_id": p, "rank": k, "verdict": v, "speedup": s}
                          for p, k, v, s in rows])
    frame["speedup"] = frame["speedup"].astype(float)
    frame = annotate(frame)
    one, two, three = (after_round(frame, r) for r in (1, 2, 3))
    assert list(one["verdict"]) == ["wrong_result", "correct"]
    assert list(two["verdict"]) == ["correct", "correct"] and list(two["speedup"]) == [0.5, 1.0]  # the correct kept
    assert list(three["speedup"]) == [0.5, 3.0] and list(three["final_round"]) == [2, 3]
    assert set(three["prompt_id"]) == {"p"} and list(three["rank"]) == [1, 2]


@pytest.mark.parametrize("extra, message", [
    (["--llm", "reference"], "needs a backend that holds a conversation"),
    (["--style", "paper"], "--style paper prompts are raw completions"),
    (["--optimize", "--no-timing"], "--optimize needs timings"),
])
def test_rounds_refused_in_one_line(tmp_path, extra, message):
    server = ScriptedServer([kernel("chain1", GOOD)], lambda tag, fb: None)
    try:
        args = hpceval_args(server, tmp_path / "x", "--rounds", "2", "-n", "1")
        args += extra
        result = run_cli(args, timeout=120)
    finally:
        server.close()
    assert result.returncode == 2, result.stdout + result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:") and message in lines[0]
    assert not (tmp_path / "x" / "results.sqlite").exists()


# ---------------------------------------------------------------------------------------------- repair
def test_repair_round_fixes_off_by_one_and_build_error(tmp_path):
    first = [kernel("chain1", OFF_BY_ONE), kernel("chain2", NO_SEMICOLON), kernel("chain3", GOOD, pragma=False),
             kernel("chain4", GOOD)]
    seen: dict[str, str] = {}

    def reply(tag: str, feedback: str) -> str | None:
        seen[tag] = feedback
        if tag == "chain1" and "Failing size" in feedback:
            return kernel("chain1", GOOD)
        if tag == "chain2" and "did not compile" in feedback and "error" in feedback:
            return kernel("chain2", GOOD)
        return None  # chain3 stays serial whatever it is told

    server = ScriptedServer(first, reply)
    out = tmp_path / "repair"
    try:
        result = run_cli(hpceval_args(server, out, "-n", "4", "--rounds", "2", "--no-timing", "--jobs", "2"))
    finally:
        server.close()
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    frame = annotate(pd.read_csv(out / "evaluations.csv"))
    r1 = frame[frame["round"] == 1].set_index("chain")["verdict"].to_dict()
    assert r1 == {1: "wrong_result", 2: "build_error", 3: "wrong_model", 4: "correct"}
    r1_rows = frame[frame["round"] == 1].set_index("chain")
    # the wrong-result feedback names the failing size and the worst element; the build error its compiler line
    size = r1_rows.loc[1, "failed_size"]
    assert f"Failing size: {size}" in seen["chain1"] and "Worst element: index (" in seen["chain1"]
    compiler_line = next(line for line in r1_rows.loc[2, "evidence"].splitlines() if "error" in line)
    assert compiler_line.strip() in seen["chain2"]
    assert "does not use" in seen["chain3"] and "chain4" not in seen  # a correct chain is left alone
    r2 = frame[frame["round"] == 2].set_index("chain")["verdict"].to_dict()
    assert r2 == {1: "correct", 2: "correct", 3: "wrong_model"}
    lineage = followups(out)
    assert list(lineage["kind"]) == ["wrong_result", "build_error", "wrong_model"]
    assert list(lineage["parent_prompt_id"]) == ["axpy/cpp-openmp/chat/none"] * 3
    assert list(lineage["parent_rank"]) == [1, 2, 3]
    # requests: one for round 1 (n=4), one per repaired chain in round 2, each with the whole conversation
    assert len(server.requests) == 4
    assert [len(r["messages"]) for r in server.requests[1:]] == [3, 3, 3]
    # pass@k by hand: round 1 c=1 of N=4 -> pass@1 = 1/4, pass@2 = 1 - C(3,2)/C(4,2) = 1/2;
    # round 2 c=3 of N=4 -> pass@1 = 3/4, pass@2 = 1 - C(1,2)/C(4,2) = 1
    scores = score([out], ks=(1, 2))
    board = scores.leaderboard_rounds.set_index("round")
    assert board.loc[1, "pass_at_1"] == pytest.approx(0.25) and board.loc[1, "pass_at_2"] == pytest.approx(0.5)
    assert board.loc[2, "pass_at_1"] == pytest.approx(0.75) and board.loc[2, "pass_at_2"] == pytest.approx(1.0)
    curves = scores.round_curves.set_index("round")
    assert curves.loc[1, "requests"] == 1 and curves.loc[2, "requests"] == 3
    assert curves.loc[2, "prompt_tokens"] == 3 * 30  # the fake server's usage: 10 per message
    # the replay export carries the conversation of each follow-up
    export = tmp_path / "gen.jsonl"
    assert run_cli(["export-generations", str(out), "--out", str(export)]).returncode == 0
    records = [json.loads(line) for line in export.read_text().splitlines()]
    follow = [r for r in records if "#r2." in r["prompt_id"]]
    assert len(follow) == 3 and all(len(r["meta"]["conversation"]) == 3 for r in follow)
    # ... so round 2 can be evaluated again offline, with the same verdicts
    replay = run_cli(["run", "--llm", f"replay:{export}", "--models", "cpp-openmp", "--kernels", "axpy", "-n", "4",
                      "--rounds", "2", "--no-timing", "--jobs", "2", "--out", str(tmp_path / "replayed")])
    assert replay.returncode == 0, replay.stdout[-2000:] + replay.stderr[-2000:]
    again = annotate(pd.read_csv(tmp_path / "replayed" / "evaluations.csv"))
    assert again[again["round"] == 2].set_index("chain")["verdict"].to_dict() == r2


# ---------------------------------------------------------------------------------------------- optimise
def test_optimisation_round_speeds_up_a_correct_slow_kernel(tmp_path):
    seen: list[str] = []

    def reply(tag: str, feedback: str) -> str | None:
        seen.append(feedback)
        return kernel(tag, GOOD) if "slow" in feedback else None

    server = ScriptedServer([kernel("chain1", SLOW)], reply)
    out = tmp_path / "optimise"
    try:
        result = run_cli(hpceval_args(server, out, "-n", "1", "--rounds", "2", "--optimize", "--jobs", "1"))
    finally:
        server.close()
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    frame = annotate(pd.read_csv(out / "evaluations.csv")).set_index("round")
    assert list(frame["verdict"]) == ["correct", "correct"]
    assert len(seen) == 1 and "GB/s" in seen[0] and ("roofline" in seen[0] or "reference solution" in seen[0])
    assert frame.loc[2, "time_median_s"] < frame.loc[1, "time_median_s"] / 3
    assert frame.loc[2, "gbytes_per_s"] > 3 * frame.loc[1, "gbytes_per_s"]
    assert list(followups(out)["kind"]) == ["timing"]


# ---------------------------------------------------------------------------------------------- kill and resume
def test_kill_mid_round_two_resumes_without_losses_or_repeated_requests(tmp_path):
    first = [kernel(f"chain{i}", OFF_BY_ONE) for i in range(1, 5)]
    server = ScriptedServer(first, lambda tag, fb: kernel(tag, GOOD), delay_followups=1.5)
    out = tmp_path / "killed"
    args = hpceval_args(server, out, "-n", "4", "--rounds", "2", "--no-timing", "--jobs", "2", "--concurrency", "1")
    env = {**os.environ, "OPENAI_API_KEY": "test"}
    try:
        proc = subprocess.Popen([*HPCEVAL, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
                                start_new_session=True)
        deadline = time.time() + 600
        while server.followups_answered < 2 and time.time() < deadline and proc.poll() is None:
            time.sleep(0.05)
        assert proc.poll() is None, "the run ended before round 2 was half answered"
        time.sleep(0.3)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        answered_before = dict(server.answered)
        assert 3 <= len(answered_before) < 5  # round 1 and some, not all, of round 2
        result = run_cli(args)
    finally:
        server.close()
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    # no answered request was asked again: every conversation was answered exactly once over both invocations
    assert all(count == 1 for count in server.answered.values()), server.answered
    assert len(server.answered) == 5
    frame = annotate(pd.read_csv(out / "evaluations.csv"))
    assert len(frame) == 8 and not frame.duplicated(["prompt_id", "rank"]).any()
    assert (frame[frame["round"] == 2]["verdict"] == "correct").all()
    assert len(followups(out)) == 4


def test_one_shot_runs_keep_their_run_ids():
    import hashlib

    from hpceval.pipeline import RunConfig

    config = RunConfig(llm="local", kernels=["axpy"], models=["cpp-openmp"])
    payload = config.model_dump(mode="json")
    for name in ("rounds", "optimize", "optimize_below"):
        payload.pop(name)
    assert config.run_id() == hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:12]
    assert RunConfig(llm="local", kernels=["axpy"], models=["cpp-openmp"], rounds=3).run_id() != config.run_id()
