"""A newcomer's first hour (issue 31): the plan before any request, the LLM named with where it came from, warnings
a user can act on, drill-down pages that show hostile LLM output as text, and the small things a user notices."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hpceval.cli import app
from hpceval.contracts import Evaluation, Prompt, Suggestion, Verdict
from hpceval.store import Store

REPO = Path(__file__).resolve().parent.parent
HOSTILE = "</script><script>alert('pwned')</script><img src=x onerror=alert(1)>"


class FakeEndpoint:
    """An OpenAI-compatible server on the loopback that counts every request; /models lists `listed`, chat
    completions fail with HTTP 500 `fail_first` times, then answer one code block."""

    def __init__(self, listed: list[str], fail_first: int = 0):
        self.requests: list[str] = []
        self.listed = listed
        self.fail_first = fail_first
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _send(self, code: int, body: dict) -> None:
                data = json.dumps(body).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                outer.requests.append(f"GET {self.path}")
                self._send(200, {"object": "list", "data": [{"id": m, "object": "model"} for m in outer.listed]})

            def do_POST(self):
                outer.requests.append(f"POST {self.path}")
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                if outer.fail_first > 0:
                    outer.fail_first -= 1
                    self._send(500, {"error": {"message": "overloaded"}})
                    return
                self._send(200, {"id": "x", "object": "chat.completion", "model": outer.listed[0], "choices": [
                    {"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": "```cpp\nvoid saxpy(int n, float a, const float *x,"
                                 " float *y) { for (int i = 0; i < n; ++i) y[i] += a * x[i]; }\n```"}}],
                    "usage": {"prompt_tokens": 10, "completion_tokens": 20, "total_tokens": 30}})

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> FakeEndpoint:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()


def invoke(*args: str):
    return CliRunner().invoke(app, list(args))


def tree(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


# ---------------------------------------------------------------------------------------------- the plan
def test_dry_run_makes_no_request_and_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.delenv("HPCEVAL_OPENAI_MODEL", raising=False)
    monkeypatch.chdir(tmp_path)
    with FakeEndpoint(["served-model"]) as endpoint:
        monkeypatch.setenv("OPENAI_BASE_URL", endpoint.url)
        result = invoke("run", "--dry-run", "--kernels", "axpy,gemv", "--models", "openmp", "-n", "3",
                        "--out", str(tmp_path / "out"))
    assert result.exit_code == 0, result.output
    assert endpoint.requests == []
    assert tree(tmp_path) == []  # no results dir, no store, no lock, nothing in the working directory
    out = result.output
    assert "LLM: openai:gpt-4o-mini (default model chosen because OPENAI_API_KEY is set and no --llm" in out
    assert f"endpoint: {endpoint.url} (OPENAI_BASE_URL)" in out
    assert "4 prompts (2 kernels × 2 programming models × 1 styles × 1 hints), 12 suggestions (-n 3)" in out
    assert "4–12" in out  # requests: one per prompt where the server honours n, n per prompt where it does not
    assert "nothing was asked and nothing was written" in out


def test_header_names_the_llm_and_its_source(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    bare = invoke("run", "--dry-run", "--kernels", "saxpy", "--models", "cpp-openmp")
    assert "LLM: local (default: no --llm and no OPENAI_API_KEY" in bare.output
    flag = invoke("run", "--dry-run", "--llm", "openai:my-model", "--base-url", "http://127.0.0.1:9/v1",
                  "--kernels", "saxpy", "--models", "cpp-openmp")
    assert "LLM: openai:my-model (--llm)" in flag.output
    assert "endpoint: http://127.0.0.1:9/v1 (--base-url)" in flag.output
    assert "cost: no price known for my-model; give --price-table FILE" in flag.output
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("HPCEVAL_OPENAI_MODEL", "gpt-4o")
    env = invoke("run", "--dry-run", "--kernels", "saxpy", "--models", "cpp-openmp", "-n", "2")
    assert "LLM: openai:gpt-4o (HPCEVAL_OPENAI_MODEL, because OPENAI_API_KEY is set and no --llm)" in env.output
    assert "endpoint: https://api.openai.com/v1 (default: OpenAI's API)" in env.output
    assert "$0.0" in env.output and "unknown" not in env.output  # a known price: the estimate is in dollars


def test_price_table_gives_the_cost_of_an_unknown_model(tmp_path):
    prices = tmp_path / "prices.toml"
    prices.write_text('["my-model"]\nprompt = 1000.0\ncompletion = 1000.0\n')
    result = invoke("run", "--dry-run", "--llm", "openai:my-model", "--base-url", "http://127.0.0.1:9/v1",
                    "--kernels", "saxpy", "--models", "cpp-openmp", "-n", "1", "--max-tokens", "100",
                    "--price-table", str(prices))
    assert "no price known" not in result.output
    cost = re.search(r"total.*≤ \$(\d+\.\d+)", result.output)
    assert cost and 0.1 < float(cost.group(1)) < 1.0, result.output  # 100 + the prompt's tokens at $1000/M


def test_unlisted_model_is_a_warning_and_an_error_with_strict(tmp_path):
    from hpceval.llm.openai_compat import OpenAICompatBackend
    from hpceval.runplan import unlisted_model

    with FakeEndpoint(["llama-3-8b", "qwen-coder"]) as endpoint:
        backend = OpenAICompatBackend("gpt-4o-mini", base_url=endpoint.url, api_key="k")
        backend.check()
        assert backend.listed_models == ["llama-3-8b", "qwen-coder"]
        warning = unlisted_model(backend.listed_models, "gpt-4o-mini", endpoint.url)
        assert warning and "does not list 'gpt-4o-mini'" in warning and "llama-3-8b, qwen-coder" in warning
        assert "\n" not in warning
        assert unlisted_model(backend.listed_models, "qwen-coder", endpoint.url) is None
        assert unlisted_model(None, "anything", endpoint.url) is None  # a server without /models: no warning
        out = tmp_path / "out"
        strict = subprocess.run([sys.executable, "-c", "from hpceval.cli import main; main()", "run", "--llm",
                                 "openai:gpt-4o-mini", "--base-url", endpoint.url, "--kernels", "axpy", "--models",
                                 "cpp-openmp", "-n", "1", "--strict", "--out", str(out)],
                                capture_output=True, text=True, timeout=120,
                                env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO / "harness"),
                                     "OPENAI_API_KEY": "k"})
        assert strict.returncode == 2, strict.stdout + strict.stderr
        lines = [line for line in strict.stderr.splitlines() if line.strip()]
        assert len(lines) == 1 and "does not list 'gpt-4o-mini'" in lines[0] and "--strict" in lines[0]
        assert not out.exists()
        assert [r for r in endpoint.requests if r.startswith("POST")] == []


def test_retries_are_told_as_they_happen():
    from hpceval.llm import GenerationParams
    from hpceval.llm.openai_compat import OpenAICompatBackend

    prompt = Prompt(prompt_id="axpy/cpp-openmp/chat/none", kernel="axpy", model="cpp-openmp", language="cpp",
                    style="chat", hint="none", text="write saxpy")
    with FakeEndpoint(["m"], fail_first=2) as endpoint:
        backend = OpenAICompatBackend("m", base_url=endpoint.url, api_key="k", backoff=0.01, retries=3)
        events: list[str] = []
        backend.on_event = events.append
        out = list(backend.generate([prompt], GenerationParams(n=1)))
    assert out and out[0].error is None
    assert len(events) == 2, events
    assert "axpy/cpp-openmp/chat/none: HTTP 500: overloaded; waiting" in events[0]
    assert events[0].endswith("then attempt 2 of 4") and events[1].endswith("then attempt 3 of 4")


# ---------------------------------------------------------------------------------------------- names
@pytest.mark.parametrize(("option", "value", "suggestion"), [
    ("--models", "opnmp", "did you mean 'openmp'"),
    ("--kernels", "gemmm", "did you mean 'gemm'"),
    ("--style", "caht", "did you mean 'chat'"),
    ("--hints", "keywrd", "did you mean 'keyword'"),
])
def test_unknown_names_suggest_the_closest(option, value, suggestion):
    result = invoke("run", "--dry-run", option, value)
    assert result.exit_code == 2
    assert suggestion in result.output and "valid:" in result.output


def test_kernel_aliases_are_accepted_everywhere():
    listed = invoke("list", "prompts", "--kernels", "saxpy,DGEMM", "--models", "cpp-openmp")
    assert listed.exit_code == 0, listed.output
    assert "axpy/cpp-openmp/chat/none" in listed.output and "gemm/cpp-openmp/chat/none" in listed.output
    dry = invoke("run", "--dry-run", "--kernels", "saxpy", "--models", "cpp-openmp")
    assert dry.exit_code == 0 and "1 prompts (1 kernels" in dry.output


def test_keyword_hint_is_right_for_each_language():
    from hpceval.prompts import plan
    from hpceval.spec import catalog

    cat = catalog()
    texts = {m: plan(cat, cat.select_kernels(["axpy"]), cat.select_models([m]), ["chat"], ["keyword"])[0].text
             for m in ("cpp-openmp", "fortran-openmp", "python-numpy")}
    assert "`function` keyword" not in texts["cpp-openmp"]  # C++ has no such keyword
    assert "Write it as a free function" in texts["cpp-openmp"]
    assert "Define it with the `subroutine` keyword." in texts["fortran-openmp"]
    assert "Define it with the `def` keyword." in texts["python-numpy"]


def test_list_and_run_share_the_default_selection():
    listed = invoke("list", "prompts", "--format", "csv")
    dry = invoke("run", "--dry-run")
    count = len(listed.output.strip().splitlines()) - 1
    assert f"matrix: {count} prompts" in dry.output
    assert all(",chat,none" in line for line in listed.output.strip().splitlines()[1:])


def test_version_and_piped_help():
    from hpceval import __version__

    assert invoke("--version").output.strip() == f"hpceval {__version__}"
    help_text = subprocess.run([sys.executable, "-c", "from hpceval.cli import main; main()", "run", "--help"],
                               capture_output=True, text=True, env={"PATH": "/usr/bin:/bin", "COLUMNS": "80",
                                                                     "PYTHONPATH": str(REPO / "harness")}).stdout
    assert "╭" not in help_text  # plain text when piped, not boxes
    words = " ".join(help_text.split())
    assert "print the plan (LLM, endpoint, prompts, requests, estimated tokens and cost) and exit" in words
    wrapped = [len(line.strip()) for line in help_text.splitlines() if line.startswith(" " * 20) and line.strip()]
    assert sum(wrapped) / len(wrapped) > 30, wrapped  # help text is not squeezed into a 22-column strip


# ---------------------------------------------------------------------------------------------- a real run
def test_finished_and_resumed_run_say_what_they_did(tmp_path):
    out = tmp_path / "ref"
    args = ("run", "--llm", "reference", "--kernels", "axpy", "--models", "cpp-openmp", "-n", "1", "--no-timing",
            "--out", str(out))
    first = invoke(*args)
    assert first.exit_code == 0, first.output
    assert first.output.startswith("LLM: reference (--llm)")
    assert f"next: hpceval report {out}" in first.output
    assert "resuming" not in first.output
    again = invoke(*args)
    assert again.exit_code == 0, again.output
    assert "1 of 1 suggestions done, 0 to go" in again.output


# ---------------------------------------------------------------------------------------------- drill-down
def hostile_run(out: Path) -> Path:
    store = Store(out)
    run_id = "hostile0001"
    store.add_run(run_id, "openai:evil", {"llm": "openai:evil", "seed": 1}, {})
    prompt = Prompt(prompt_id="axpy/cpp-openmp/chat/none", kernel="axpy", model="cpp-openmp", language="cpp",
                    style="chat", hint="none", text=f"write saxpy {HOSTILE}")
    store.add_prompts(run_id, [prompt])
    for rank, verdict in ((1, Verdict.correct), (2, Verdict.wrong_result)):
        code = f"// {HOSTILE}\nvoid saxpy() {{}}"
        store.add_generation(run_id, Suggestion(prompt_id=prompt.prompt_id, rank=rank, text=code, code=code))
        key = f"{run_id}-{rank}"
        store.link(run_id, prompt.prompt_id, rank, code, key, json.dumps({"variant": HOSTILE}))
        store.put_evaluation(key, Evaluation(verdict=verdict, evidence=f"max error at {HOSTILE}", device="cpu",
                                             toolchain="gcc", time_median_s=0.001 if rank == 1 else None))
    store.export_csv(run_id)
    store.close()
    return out


def test_drill_down_pages_escape_hostile_suggestions(tmp_path):
    from hpceval.report import build_report

    run = hostile_run(tmp_path / "run")
    report = tmp_path / "report"
    build_report([run], report, n_boot=50)
    index = (report / "index.html").read_text()
    assert HOSTILE not in index
    cells = sorted((report / "cells").glob("*.html"))
    pages = sorted((report / "suggestions").glob("*.html"))
    assert len(pages) == 2 and len(cells) == 2  # one per suggestion; one per summary row and per kernel row
    for cell in cells:
        assert f'href="cells/{cell.name}"' in index
        text = cell.read_text()
        assert HOSTILE not in text
        assert all(f'href="../suggestions/{p.name}"' in text for p in pages)
    for page in pages:
        html = page.read_text()
        assert HOSTILE not in html and "<script>" not in html
        assert "&lt;/script&gt;&lt;script&gt;alert(" in html  # shown as text: code, prompt, evidence, binding
        for section in ('id="code"', 'id="prompt"', 'id="evidence"', 'id="binding"', 'id="timings"'):
            assert section in html
    assert any("wrong_result" in p.read_text() for p in pages)


def test_timed_run_records_its_ceilings_for_the_report(tmp_path, monkeypatch):
    from hpceval.ceilings import write_run_ceilings
    from hpceval.report import build_report

    cache = tmp_path / "ceilings-cache.json"
    cache.write_text(json.dumps({"cpu": {"copy_gbs": 20.0, "dgemm_gflops": 100.0, "measured": "today"}}))
    monkeypatch.setenv("HPCEVAL_CEILINGS", str(cache))
    run = hostile_run(tmp_path / "run")
    assert write_run_ceilings(run, {"gpu"}) is None  # no GPU entry measured: nothing claimed
    path = write_run_ceilings(run, {"cpu"})
    assert path == run / "ceilings.json"
    build_report([run], tmp_path / "report", n_boot=50)
    summary = (tmp_path / "report" / "summary.md").read_text()
    assert "were not measured" not in summary
    index = (tmp_path / "report" / "index.html").read_text()
    assert "No ceilings were measured" not in index and "100" in index


# ---------------------------------------------------------------------------------------------- libs
def test_model_libs_are_linked_after_the_sources():
    from hpceval.spec import ProgrammingModel
    from hpceval.toolchains import get_toolchain

    model = ProgrammingModel(id="cpp-tbb", language="cpp", words="TBB", name="oneTBB", toolchain="gcc",
                             device="cpu", libs=["tbb", "-Wl,--as-needed"])
    argv = get_toolchain("gcc").build_steps(model)[0]
    assert argv[-2:] == ["-ltbb", "-Wl,--as-needed"]
    assert argv.index("-ltbb") > argv.index("prog")
    plain = ProgrammingModel(id="x", language="cpp", words="x", name="x", toolchain="gcc", device="cpu")
    assert not any(a.startswith("-l") for a in get_toolchain("gcc").build_steps(plain)[0])
