"""The OpenAI-compatible backend against a real local HTTP server of the tests' own.

The server speaks the OpenAI completions/chat protocol and injects faults chosen by the prompt text:
429 with Retry-After, 500, answers slower than the client's timeout, malformed JSON and dropped connections.
Every run must complete with each failure recorded (with its retries) and no suggestion lost or duplicated.
"""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from hpceval.contracts import Prompt
from hpceval.llm import BackendError, GenerationParams, get_backend, load_price_table, usage_summary
from hpceval.llm.openai_compat import OpenAICompatBackend, _retry_after
from hpceval.pipeline import Progress, generate_missing
from hpceval.store import Store

FAULT = re.compile(r"FAULT=(\w+):(\d+)")


class FakeServer:
    """An OpenAI-compatible server on 127.0.0.1 with scripted faults, recording every request it gets."""

    def __init__(self, honour_n: bool = True, completions: bool = True, logprobs: bool | str = True,
                 status_for_all: int | None = None):
        self.honour_n = honour_n
        self.completions = completions
        self.logprobs = logprobs
        self.status_for_all = status_for_all
        self.requests: list[dict] = []
        self.seen: dict[tuple, int] = {}
        self.lock = threading.Lock()
        self.in_flight = 0
        self.max_in_flight = 0
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # keep pytest output clean
                pass

            def do_GET(self):
                if self.path.endswith("/models"):
                    self._json(200, {"object": "list", "data": [{"id": "fake", "object": "model"}]})
                else:
                    self._json(404, {"error": {"message": "not found"}})

            def do_POST(self):
                length = int(self.headers.get("content-length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                with server.lock:
                    server.in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server.in_flight)
                try:
                    server.handle(self, body)
                finally:
                    with server.lock:
                        server.in_flight -= 1

            def _json(self, status, obj, headers=None):
                data = json.dumps(obj).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()

    # ------------------------------------------------------------------ behaviour
    def handle(self, h, body):
        api = "completions" if h.path.endswith("/v1/completions") else "chat"
        text = body.get("prompt") if api == "completions" else body["messages"][-1]["content"]
        seed = body.get("seed")
        key = (text, seed, body.get("n", 1))
        with self.lock:
            count = self.seen.get(key, 0)
            self.seen[key] = count + 1
        record = {"api": api, "text": text, "seed": seed, "n": body.get("n", 1), "time": time.monotonic(),
                  "body": body}
        self.requests.append(record)
        if api == "completions" and not self.completions:
            record["outcome"] = "404"
            return h._json(404, {"error": {"message": "This is a chat model and not supported in the v1/completions "
                                                      "endpoint. Did you mean to use v1/chat/completions?"}})
        if self.status_for_all:
            record["outcome"] = str(self.status_for_all)
            return h._json(self.status_for_all, {"error": {"message": "Incorrect API key provided"}})
        if self.logprobs == "reject" and body.get("logprobs"):
            record["outcome"] = "no-logprobs"  # what llama.cpp's server answers when started without logits_all
            return h._json(500, {"error": {"message": "logprobs is not supported for models created with "
                                                      "logits_all=False"}})
        fault = FAULT.search(text or "")
        kind, times = (fault.group(1), int(fault.group(2))) if fault else ("ok", 0)
        if kind == "always500" or count < times:
            record["outcome"] = kind
            if kind == "429":
                return h._json(429, {"error": {"message": "Rate limit reached"}}, {"retry-after": "1"})
            if kind in ("500", "always500"):
                return h._json(500, {"error": {"message": "internal error"}})
            if kind == "slow":
                time.sleep(1.5)
            elif kind == "badjson":
                data = b'{"id": "x", "choices": [{"text": "unterminated'
                h.send_response(200)
                h.send_header("content-type", "application/json")
                h.send_header("content-length", str(len(data)))
                h.end_headers()
                h.wfile.write(data)
                return None
            elif kind == "drop":
                h.close_connection = True
                h.connection.shutdown(socket.SHUT_RDWR)
                return None
        record["outcome"] = "ok"
        n = body.get("n", 1) if self.honour_n else 1
        choices = []
        for i in range(n):
            sample = f"s{seed}-c{i}"
            content = f"```cpp\n// {sample}\nvoid saxpy(int n, float a, const float *x, float *y) {{ }}\n```"
            lp = -0.1 * (1 + (hash(sample) % 7))
            if api == "completions":
                choice = {"index": i, "text": content, "finish_reason": "stop"}
                if body.get("logprobs") and self.logprobs:
                    choice["logprobs"] = {"tokens": ["a", "b"], "token_logprobs": [lp, lp], "top_logprobs": None,
                                          "text_offset": [0, 1]}
            else:
                choice = {"index": i, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
                if body.get("logprobs") and self.logprobs:
                    choice["logprobs"] = {"content": [{"token": "a", "logprob": lp, "bytes": None, "top_logprobs": []}]}
            choices.append(choice)
        usage = {"prompt_tokens": 11, "completion_tokens": 7 * n, "total_tokens": 11 + 7 * n}
        obj = {"id": "cmpl-1", "object": "text_completion" if api == "completions" else "chat.completion",
               "created": 0, "model": body.get("model"), "choices": choices, "usage": usage}
        return h._json(200, obj)


@pytest.fixture
def server():
    s = FakeServer()
    yield s
    s.close()


def prompt(pid: str, text: str, style: str = "chat") -> Prompt:
    return Prompt(prompt_id=pid, kernel="axpy", model="cpp-openmp", language="cpp", style=style, hint="none",
                  text=text)


def backend(url: str, **kw) -> OpenAICompatBackend:
    kw.setdefault("timeout", 0.5)
    kw.setdefault("backoff", 0.02)
    kw.setdefault("retries", 4)
    kw.setdefault("logprobs", True)  # these tests exercise the ranking; the default for local URLs is off
    return OpenAICompatBackend(model="fake-model", base_url=url, api_key="test", **kw)


def run_all(b, prompts, params):
    try:
        return list(b.generate(prompts, params, None))
    finally:
        b.close()


def by_prompt(suggestions):
    out: dict[str, list] = {}
    for s in suggestions:
        out.setdefault(s.prompt_id, []).append(s)
    return out


# ---------------------------------------------------------------------------------------------- faults
FAULTS = {"429": "HTTP 429", "500": "HTTP 500", "slow": "timeout", "badjson": "malformed response",
          "drop": "connection error"}


@pytest.mark.parametrize("honour_n", [True, False], ids=["n-honoured", "n-ignored"])
def test_faults_recorded_nothing_lost_or_duplicated(honour_n):
    server = FakeServer(honour_n=honour_n)
    try:
        prompts = [prompt(f"p/{k}", f"write saxpy FAULT={k}:2") for k in FAULTS]
        prompts += [prompt("p/ok", "write saxpy"), prompt("p/dead", "write saxpy FAULT=always500:0")]
        started = time.monotonic()
        out = by_prompt(run_all(backend(server.url, concurrency=3), prompts, GenerationParams(n=3, seed=7)))
        assert time.monotonic() - started < 60
    finally:
        server.close()
    assert set(out) == {p.prompt_id for p in prompts}, "every prompt is answered"
    for pid, suggestions in out.items():
        assert [s.rank for s in suggestions] == [1, 2, 3], pid
        assert sorted(s.meta["sample"] for s in suggestions) == [0, 1, 2], pid
        if pid == "p/dead":
            assert all(s.error and s.error.startswith("HTTP 500") for s in suggestions)
            for s in suggestions:
                attempts = s.meta["request"]["attempts"]
                assert len(attempts) == 5 and all(a["status"] == 500 for a in attempts)  # 1 try + 4 retries
            continue
        assert all(s.error is None for s in suggestions), pid
        texts = [s.text for s in suggestions]
        assert len(set(texts)) == 3, f"{pid}: duplicated suggestions {texts}"
        kind = pid.split("/")[1]
        requests = {s.meta["request"]["id"]: s.meta["request"] for s in suggestions}
        for req in requests.values():
            if kind == "ok":
                assert req["attempts"] == []
            else:
                errors = [a["error"] for a in req["attempts"]]
                assert len(errors) == 2 and all(e.startswith(FAULTS[kind]) for e in errors), (pid, errors)
                if kind == "429":
                    assert all(a["retry_after_s"] == 1.0 and a["wait_s"] == 1.0 for a in req["attempts"])
            assert req["prompt_tokens"] == 11 and req["completion_tokens"] >= 7 and req["latency_s"] > 0
    # the samples came from distinct seeds when the server ignored n, from one n=3 request otherwise
    seeds = {s.meta["request"]["seed"] for s in out["p/ok"]}
    assert seeds == ({7} if honour_n else {7, 8, 9})


def test_retry_after_is_honoured(server):
    run_all(backend(server.url), [prompt("p/1", "saxpy FAULT=429:1")], GenerationParams(n=1, seed=1))
    times = [r["time"] for r in server.requests]
    assert [r["outcome"] for r in server.requests] == ["429", "ok"]
    assert times[1] - times[0] >= 0.95


def test_bounded_concurrency():
    server = FakeServer(honour_n=False)
    try:
        prompts = [prompt(f"p/{i}", f"saxpy {i} FAULT=slow:0") for i in range(6)]
        run_all(backend(server.url, concurrency=2), prompts, GenerationParams(n=2))
    finally:
        server.close()
    assert len(server.requests) >= 12
    assert 1 <= server.max_in_flight <= 2


def test_refused_key_stops_the_run():
    server = FakeServer(status_for_all=401)
    try:
        with pytest.raises(BackendError, match="check OPENAI_API_KEY"):
            run_all(backend(server.url), [prompt("p/1", "saxpy")], GenerationParams(n=1))
    finally:
        server.close()


# ---------------------------------------------------------------------------------------------- protocol
def test_ranked_by_mean_logprob(server):
    out = run_all(backend(server.url), [prompt("p/1", "saxpy")], GenerationParams(n=4, seed=3))
    lps = [s.meta["mean_logprob"] for s in out]
    assert None not in lps and lps == sorted(lps, reverse=True)
    assert all(s.meta["ranked_by"] == "mean_logprob" for s in out)


def test_ranked_by_order_without_logprobs():
    server = FakeServer(logprobs=False)
    try:
        out = run_all(backend(server.url), [prompt("p/1", "saxpy")], GenerationParams(n=3, seed=3))
    finally:
        server.close()
    assert [s.meta["sample"] for s in out] == [0, 1, 2]
    assert all(s.meta["ranked_by"] == "order" and s.meta["mean_logprob"] is None for s in out)


def test_logprobs_default_only_where_cheap_and_recorded(server):
    """On for OpenAI's API, off for other servers (llama.cpp slows down 2.2x); the ranking used is recorded."""
    assert OpenAICompatBackend(model="m", api_key="k").logprobs is True
    local = OpenAICompatBackend(model="m", base_url=server.url, api_key="k", timeout=0.5)
    assert local.logprobs is False and local.describe()["ranking"] == "order"
    assert "ranking" not in backend(server.url).describe(), "runs ranked by logprobs keep their old run ids"
    out = run_all(local, [prompt("p/1", "saxpy")], GenerationParams(n=3, seed=3))
    assert "logprobs" not in server.requests[0]["body"], "nothing asked for"
    assert [s.meta["sample"] for s in out] == [0, 1, 2]
    assert all(s.meta["ranked_by"] == "order" and s.meta["logprobs"] is False for s in out)
    out = run_all(backend(server.url), [prompt("p/2", "gemv")], GenerationParams(n=2, seed=3))
    assert all(s.meta["ranked_by"] == "mean_logprob" and s.meta["logprobs"] is True for s in out)
    assert get_backend("openai:m", base_url=server.url, logprobs=True).logprobs is True


def test_endpoint_check_fails_fast_when_unreachable(server):
    backend(server.url).check()  # reachable: nothing raised
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        closed = s.getsockname()[1]  # bound, never listening: connections are refused
        started = time.monotonic()
        with pytest.raises(BackendError, match=r"cannot reach http://127.0.0.1:\d+/v1 .*start the server"):
            backend(f"http://127.0.0.1:{closed}/v1").check()
    assert time.monotonic() - started < 5


def test_server_rejecting_logprobs_is_asked_without():
    server = FakeServer(logprobs="reject")
    try:
        out = run_all(backend(server.url, concurrency=1), [prompt("p/1", "saxpy"), prompt("p/2", "gemv")],
                      GenerationParams(n=2))
    finally:
        server.close()
    assert all(s.error is None for s in out) and len(out) == 4
    assert [r["outcome"] for r in server.requests] == ["no-logprobs", "ok", "ok"], "switched once, for good"
    assert out[0].meta["request"]["attempts"][0]["switch"] is True


def test_paper_prompts_use_completions_and_fall_back_to_chat():
    with_completions = FakeServer()
    chat_only = FakeServer(completions=False)
    try:
        params = GenerationParams(n=1, temperature=0.0, max_tokens=33, top_p=0.9, seed=5)
        run_all(backend(with_completions.url), [prompt("p/1", "// saxpy OpenMP\n", style="paper")], params)
        out = run_all(backend(chat_only.url, concurrency=1), [prompt("p/1", "// saxpy OpenMP\n", style="paper"),
                                                prompt("p/2", "// gemv OpenMP\n", style="paper")], params)
    finally:
        with_completions.close()
        chat_only.close()
    first = with_completions.requests[0]
    assert first["api"] == "completions" and first["body"]["prompt"] == "// saxpy OpenMP\n"
    body = first["body"]
    assert (body["temperature"], body["max_tokens"], body["top_p"], body["seed"]) == (0.0, 33, 0.9, 5)
    assert body["stop"][0] == "\nint main", "language stop sequences for completion prompts"
    assert [r["api"] for r in chat_only.requests][-1] == "chat"
    assert sum(r["api"] == "completions" for r in chat_only.requests) == 1, "switches once, then stays on chat"
    assert all(s.error is None and s.meta["request"]["api"] == "chat" for s in out)
    assert out[0].meta["request"]["params"]["stop"] == body["stop"]


def test_user_stop_sequences_are_sent_and_recorded(server):
    out = run_all(backend(server.url), [prompt("p/1", "saxpy")], GenerationParams(n=1, stop=["\n\n\n", "END"]))
    assert server.requests[0]["body"]["stop"] == ["\n\n\n", "END"]
    assert out[0].meta["request"]["params"]["stop"] == ["\n\n\n", "END"]


def test_retry_after_header_forms():
    assert _retry_after({"retry-after": "2"}) == 2.0
    assert _retry_after({"retry-after-ms": "250"}) == 0.25
    assert _retry_after({}) is None
    assert 0 <= _retry_after({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) < 1


def test_factory_options_and_errors(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(BackendError, match="OPENAI_API_KEY"):
        get_backend("openai:gpt-4o-mini")
    b = get_backend("openai:m", base_url="http://127.0.0.1:9/v1", concurrency=3, fresh=True, unknown_option=1)
    assert (b.concurrency, b.fresh, b.base_url) == (3, True, "http://127.0.0.1:9/v1")
    assert get_backend("reference", concurrency=2).name == "reference"


# ---------------------------------------------------------------------------------------------- store, cache, cost
def test_cache_resume_and_fresh(server, tmp_path):
    store = Store(tmp_path)
    prompts = [prompt("p/ok", "saxpy"), prompt("p/flaky", "saxpy FAULT=always500:0")]
    params = GenerationParams(n=2, seed=11)
    generate_missing(store, "run1", prompts, backend(server.url, retries=1), params, Progress())
    rows = store.generations("run1")
    assert len(rows) == 4 and sum(r["error"] is not None for r in rows) == 2
    first = len(server.requests)

    # the same request in another run (or after a crash) is answered from the generation cache
    generate_missing(store, "run2", prompts[:1], backend(server.url), params, Progress())
    assert len(server.requests) == first
    cached = [json.loads(r["meta"]) for r in store.generations("run2")]
    assert all(m["cached"] for m in cached) and len(cached) == 2

    # a rerun retries the prompt whose generation failed; the other is already stored
    server_prompts = [r["text"] for r in server.requests[first:]]
    generate_missing(store, "run1", prompts, backend(server.url, retries=0), params, Progress())
    server_prompts = [r["text"] for r in server.requests[first:]]
    assert server_prompts and all("always500" in t for t in server_prompts)
    assert len(store.generations("run1")) == 4

    # more suggestions later: only the missing samples are asked for
    before = len(server.requests)
    generate_missing(store, "run3", prompts[:1], backend(server.url), GenerationParams(n=3, seed=11), Progress())
    assert len(server.requests) == before + 1 and server.requests[-1]["seed"] == 13
    assert len(store.generations("run3")) == 3

    # --fresh asks again
    before = len(server.requests)
    generate_missing(store, "run4", prompts[:1], backend(server.url, fresh=True), params, Progress())
    assert len(server.requests) > before

    usage = store.usage("run1")
    assert set(usage.columns) >= {"prompt_tokens", "completion_tokens", "latency_s", "attempts", "error", "cached"}
    assert (usage["error"].notna()).sum() >= 1 and usage["attempts"].max() >= 2
    store.close()


def test_usage_summary_with_price_table(server, tmp_path):
    store = Store(tmp_path)
    generate_missing(store, "r", [prompt("p/1", "saxpy"), prompt("p/2", "gemv")], backend(server.url),
                     GenerationParams(n=2), Progress())
    table = tmp_path / "prices.toml"
    table.write_text('["fake-model"]\nprompt = 1000.0\ncompletion = 2000.0\n')
    line = usage_summary(store.usage("r"), "fake-model", load_price_table(table))
    # 2 requests x (11 prompt + 14 completion tokens): (22 * 1000 + 28 * 2000) / 1e6 = $0.078
    assert "2 requests" in line and "22 prompt + 28 completion tokens" in line and "cost $0.0780" in line
    assert "not in the price table" in usage_summary(store.usage("r"), "other", load_price_table(table))
    store.close()
