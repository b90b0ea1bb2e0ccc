"""`openai:MODEL`: any OpenAI-compatible endpoint (OpenAI, vLLM, llama.cpp server, Ollama) through the `openai` client.

- Paper-style prompts go to the completions endpoint where the server has it (a 404/405 or "not supported"
  answer switches this backend to chat for the rest of the run); chat-style prompts go to chat.
- `n` suggestions per prompt: one request with `n`; where the server ignores `n` (llama.cpp, some proxies) the
  missing samples are asked for one request each, sample i with seed + i, so they differ at temperature > 0.
- Log-probabilities are asked for only where they are cheap: by default on for OpenAI's own API, off for every
  other endpoint (a llama.cpp server then has to keep the logits of every token: 2.2x slower generation);
  `logprobs=True/False` (--logprobs/--no-logprobs) decides instead. Suggestions are ranked by mean token
  log-probability when they were asked for and every sample of the prompt has one, else by order (the server's
  sample order); each suggestion records how (meta.ranked_by) and whether its request asked for them
  (meta.logprobs). A cached answer that was asked for without them is asked again by a run that ranks by them.
- Before a run, check() asks GET /models once with a short timeout, so that an endpoint that cannot be reached
  stops the run with one line instead of a minute of retries and a run of failed generations; the model ids it
  lists are kept (`listed_models`) so the CLI can warn about a model the endpoint does not serve.
- Retries are told as they happen (`on_event`, one line each: the prompt, what failed, the wait, the attempt),
  not only in the final error: a bar frozen for a minute of backoff says why.
- Requests run concurrently (asyncio, at most `concurrency` in flight). 408/409/429/5xx, timeouts, dropped
  connections and malformed responses are retried with exponential backoff and jitter, honouring Retry-After;
  a request that still fails becomes a generation error for its samples (with every attempt recorded) and the
  run goes on. A refused API key or an unknown model stops the run with one line that says what to do.
- Every request records its token usage, latency and attempts in the suggestions' meta["request"].
- With a cache attached (the Store), a request already answered (same endpoint, model, prompt, parameters and
  sample index) is answered from it; `fresh=True` skips the lookups (answers are still stored).
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import os
import random
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from hpceval.contracts import Prompt, Suggestion
from hpceval.llm.base import BackendError, GenerationCache, GenerationParams, request_key, stop_sequences

OPENAI_URL = "https://api.openai.com/v1"
RETRY_STATUS = {408, 409, 425, 429}
PAPER_SYSTEM = ("You are a code completion engine. Continue the source file the user gives you. "
                "Reply with the continuation as code only.")


class MalformedResponse(ValueError):
    """The server answered 200 with something that is not a completion."""


@dataclass
class Sample:
    index: int
    text: str
    meta: dict[str, Any]

    @property
    def mean_logprob(self) -> float | None:
        return self.meta.get("mean_logprob")


@dataclass
class Job:
    """One prompt's samples: those answered (from the cache or a request) and those that failed."""

    prompt: Prompt
    key: str
    stop: list[str]
    n: int
    samples: dict[int, Sample] = field(default_factory=dict)
    errors: dict[int, tuple[str, dict[str, Any]]] = field(default_factory=dict)

    def missing(self) -> list[int]:
        return [i for i in range(self.n) if i not in self.samples and i not in self.errors]


class OpenAICompatBackend:
    name = "openai"

    def __init__(self, model: str, base_url: str | None = None, api_key: str | None = None, concurrency: int = 4,
                 fresh: bool = False, timeout: float = 300.0, retries: int = 6, backoff: float = 1.0,
                 max_backoff: float = 60.0, max_retry_after: float = 300.0, api: str = "auto",
                 logprobs: bool | None = None, cache: GenerationCache | None = None):
        if api not in ("auto", "chat", "completions"):
            raise BackendError(f"unknown api {api!r}; valid: auto, chat, completions")
        self.model = model
        self.base_url = (base_url or os.environ.get("OPENAI_BASE_URL") or OPENAI_URL).rstrip("/")
        self.api_key = api_key or os.environ.get("OPENAI_API_KEY")
        if not self.api_key and self.base_url == OPENAI_URL:
            raise BackendError("openai backend: set OPENAI_API_KEY (or --base-url for a local server such as "
                               "vLLM, llama.cpp or Ollama, or use --llm local for the embedded model)")
        self.endpoint_id = self.base_url
        self.concurrency = max(1, int(concurrency))
        self.fresh = fresh
        self.timeout = float(timeout)
        self.retries = max(0, int(retries))
        self.backoff = float(backoff)
        self.max_backoff = float(max_backoff)
        self.max_retry_after = float(max_retry_after)
        self.api = api
        self.logprobs = cheap_logprobs(self.base_url) if logprobs is None else bool(logprobs)
        self.logprobs_requested = self.logprobs  # self.logprobs may be switched off by a server that rejects them
        self.cache = cache
        self._completions_ok: bool | None = None if api == "auto" else api == "completions"
        self._n_support: bool | None = None
        self._probe_lock: asyncio.Lock | None = None
        self.listed_models: list[str] | None = None
        self.on_event: Callable[[str], None] | None = None

    # ------------------------------------------------------------------------------------------ protocol
    def describe(self) -> dict[str, Any]:
        """Stable identity (part of the run id): no ports, no timestamps.

        Runs made before logprobs were optional always asked for them; "ranking" is added only when they are off,
        so those runs keep their ids and resume, and a run ranked by order gets an id of its own.
        """
        identity = {"backend": self.name, "model": self.model, "endpoint": self.endpoint_id, "api": self.api,
                    "client": f"openai {_version('openai')}"}
        if not self.logprobs_requested:
            identity["ranking"] = "order"
        return identity

    def check(self, timeout: float = 5.0) -> None:
        """GET {base_url}/models once: BackendError (one line) when the endpoint cannot be reached or refuses the key.

        Any other HTTP answer means the server is there (some have no /models); the requests deal with the rest.
        """
        request = urllib.request.Request(f"{self.base_url}/models",
                                         headers={"Authorization": f"Bearer {self.api_key or 'EMPTY'}"})
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310 - the user's endpoint
                self.listed_models = _model_ids(response.read(1 << 20))
        except urllib.error.HTTPError as exc:
            if exc.code in (401, 403):
                raise BackendError(f"{self.base_url} refused the API key ({exc.code}); check OPENAI_API_KEY") from None
        except (urllib.error.URLError, OSError, ValueError) as exc:
            reason = getattr(exc, "reason", exc)
            reason = "no answer" if isinstance(reason, TimeoutError) else reason
            raise BackendError(f"cannot reach {self.base_url} ({reason} on GET /models within {timeout:g} s); start "
                               "the server or fix --base-url / OPENAI_BASE_URL") from None

    def attach_cache(self, cache: GenerationCache | None) -> None:
        self.cache = cache

    def close(self) -> None:
        pass

    def generate(self, prompts: list[Prompt], params: GenerationParams,
                 on_done: Callable[[Suggestion], None] | None = None) -> Iterator[Suggestion]:
        jobs = [self._job(p, params) for p in prompts]
        for job in jobs:
            if not job.missing():
                yield from self._finish(job, on_done)
        todo = [job for job in jobs if job.missing()]
        if not todo:
            return
        self._ensure_ready()
        loop = asyncio.new_event_loop()
        tasks: dict[asyncio.Task, Job] = {}
        client = None
        try:
            client = self._client()
            semaphore = asyncio.Semaphore(self.concurrency)
            self._probe_lock = asyncio.Lock()
            tasks = {loop.create_task(self._run_job(client, semaphore, job, params)): job for job in todo}
            pending = set(tasks)
            while pending:
                done, pending = loop.run_until_complete(asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED))
                for task in done:
                    task.result()  # a BackendError (refused key, unknown model) stops the run here
                    yield from self._finish(tasks[task], on_done)
        finally:
            for task in tasks:
                task.cancel()
            if tasks:
                loop.run_until_complete(asyncio.gather(*tasks, return_exceptions=True))
            if client is not None:
                loop.run_until_complete(client.close())
            loop.close()

    # ------------------------------------------------------------------------------------------ hooks
    def _ensure_ready(self) -> None:
        """Called once before the first request of a generate() call (the local backend starts its server)."""

    def _client(self):
        import openai

        return openai.AsyncOpenAI(api_key=self.api_key or "EMPTY", base_url=self.base_url, timeout=self.timeout,
                                  max_retries=0)

    # ------------------------------------------------------------------------------------------ planning
    def _job(self, prompt: Prompt, params: GenerationParams) -> Job:
        stop = stop_sequences(prompt, params)
        job = Job(prompt=prompt, key=request_key(self.endpoint_id, self.model, prompt, params, stop), stop=stop,
                  n=max(1, params.n))
        if self.cache is not None and not self.fresh:
            for i in range(job.n):
                hit = self.cache.cached_generation(job.key, i)
                if hit is not None and self.logprobs_requested and hit[1].get("logprobs") is False:
                    hit = None  # answered without log-probabilities, which this run ranks by: ask again
                if hit is not None:
                    text, meta = hit
                    job.samples[i] = Sample(i, text, {**meta, "cached": True})
        return job

    def _api_for(self, prompt: Prompt) -> str:
        if self.api != "auto":
            return self.api
        if prompt.messages:  # a conversation (feedback rounds) needs the chat API
            return "chat"
        if prompt.style == "paper" and self._completions_ok is not False:
            return "completions"
        return "chat"

    def _payload(self, api: str, prompt: Prompt, params: GenerationParams, stop: list[str], n: int,
                 seed: int | None) -> dict[str, Any]:
        payload: dict[str, Any] = {"model": self.model, "max_tokens": params.max_tokens,
                                   "temperature": params.temperature, "top_p": params.top_p}
        if n != 1:
            payload["n"] = n
        if seed is not None:
            payload["seed"] = seed
        if stop:
            payload["stop"] = stop
        if api == "completions":
            payload["prompt"] = prompt.text
            if self.logprobs:
                payload["logprobs"] = 1
        else:
            payload["messages"] = self._messages(prompt)
            if self.logprobs:
                payload["logprobs"] = True
                payload["top_logprobs"] = 1
        return payload

    @staticmethod
    def _messages(prompt: Prompt) -> list[dict[str, str]]:
        if prompt.messages:  # a feedback round (hpceval.rounds): the conversation so far and the feedback
            return [dict(m) for m in prompt.messages]
        if prompt.style == "paper":
            fence = {"cpp": "cpp", "fortran": "fortran", "python": "python", "julia": "julia"}.get(prompt.language, "")
            return [{"role": "system", "content": PAPER_SYSTEM},
                    {"role": "user", "content": f"```{fence}\n{prompt.text}"}]
        return [{"role": "user", "content": prompt.text}]

    # ------------------------------------------------------------------------------------------ requests
    async def _run_job(self, client, semaphore: asyncio.Semaphore, job: Job, params: GenerationParams) -> None:
        missing = job.missing()
        if len(missing) > 1 and missing == list(range(job.n)) and self._n_support is not False:
            if self._n_support is None:
                assert self._probe_lock is not None
                async with self._probe_lock:  # the first n>1 request finds out whether the server honours n
                    if self._n_support is None:
                        got = await self._request(client, semaphore, job, params, missing, params.seed)
                        if got is not None:
                            self._n_support = got >= len(missing)
                        missing = []
            if missing and self._n_support:
                await self._request(client, semaphore, job, params, missing, params.seed)
        rest = job.missing()
        if rest:
            await asyncio.gather(*(self._request(client, semaphore, job, params, [i], _seed(params.seed, i))
                                   for i in rest))

    async def _request(self, client, semaphore: asyncio.Semaphore, job: Job, params: GenerationParams,
                       indices: list[int], seed: int | None) -> int | None:
        """One request for the samples `indices` with retries; returns how many choices came back (None: failed)."""
        import openai

        attempts: list[dict[str, Any]] = []
        request_id = uuid.uuid4().hex[:16]
        while True:
            api = self._api_for(job.prompt)
            started = time.monotonic()
            retry_after: float | None = None
            status: int | None = None
            try:
                async with semaphore:
                    # decided once a slot is free: an earlier request may have switched api or logprobs off
                    api = self._api_for(job.prompt)
                    payload = self._payload(api, job.prompt, params, job.stop, len(indices), seed)
                    started = time.monotonic()
                    if api == "completions":
                        response = await client.completions.create(**payload)
                    else:
                        response = await client.chat.completions.create(**payload)
                    latency = time.monotonic() - started
                choices, usage, response_model = _parse(response, api)
            except openai.APIStatusError as exc:
                status = exc.status_code
                message = _error_message(exc)
                if api == "completions" and self.api == "auto" and _completions_unsupported(status, message):
                    self._completions_ok = False
                    attempts.append(_attempt(len(attempts), f"completions endpoint unavailable ({status}); "
                                             "switching to chat", status, started, switch=True))
                    continue
                if self.logprobs and "logprob" in message.lower() and status not in (401, 403, 429):
                    # e.g. vLLM without --max-logprobs (400), llama.cpp without logits_all (500)
                    self.logprobs = False
                    attempts.append(_attempt(len(attempts), "server rejects logprobs; asking without", status, started,
                                             switch=True))
                    continue
                if status in (401, 403):
                    raise BackendError(f"{self.base_url} refused the request ({status}: {message}); "
                                       "check OPENAI_API_KEY") from None
                if status == 404 and "model" in message.lower():
                    raise BackendError(f"{self.base_url} has no model {self.model!r} ({message})") from None
                error = f"HTTP {status}: {message}"
                retryable = status in RETRY_STATUS or status >= 500
                retry_after = _retry_after(exc.response.headers)
            except openai.APITimeoutError:
                error, retryable = f"timeout: no answer within {self.timeout:g}s", True
            except openai.APIConnectionError as exc:
                error, retryable = f"connection error: {_cause(exc)}", True
            except (MalformedResponse, openai.APIResponseValidationError, ValueError) as exc:
                error, retryable = f"malformed response: {str(exc)[:200]}", True
            else:
                self._accept(job, indices, choices, {
                    "id": request_id, "api": api, "samples": indices, "n": len(indices), "seed": seed,
                    "prompt_tokens": usage.get("prompt_tokens"), "completion_tokens": usage.get("completion_tokens"),
                    "latency_s": round(latency, 4), "attempts": attempts, "response_model": response_model,
                    "params": _recorded(params, job.stop)})
                return len(choices)
            attempt = _attempt(len(attempts), error, status, started)
            attempts.append(attempt)
            failures = sum(1 for a in attempts if not a.get("switch"))
            if not retryable or failures > self.retries:
                self._tell(f"{job.prompt.prompt_id}: {error}; gave up after {failures} attempt(s)")
                self._fail(job, indices, error, {
                    "id": request_id, "api": api, "samples": indices, "n": len(indices), "seed": seed,
                    "prompt_tokens": None, "completion_tokens": None, "latency_s": None, "attempts": attempts,
                    "params": _recorded(params, job.stop)})
                return None
            wait = (min(retry_after, self.max_retry_after) if retry_after is not None
                    else min(self.max_backoff, self.backoff * 2 ** (failures - 1)) * random.uniform(0.5, 1.0))
            attempt["retry_after_s"] = retry_after
            attempt["wait_s"] = round(wait, 3)
            self._tell(f"{job.prompt.prompt_id}: {error}; waiting {wait:.1f} s"
                       + (" (Retry-After)" if retry_after is not None else "")
                       + f", then attempt {failures + 1} of {self.retries + 1}")
            await asyncio.sleep(wait)

    def _tell(self, line: str) -> None:
        if self.on_event is not None:
            self.on_event(line)

    def _accept(self, job: Job, indices: list[int], choices: list[dict[str, Any]], request: dict[str, Any]) -> None:
        for index, choice in zip(indices, choices, strict=False):
            meta = {"backend": self.name, "model": self.model, "endpoint": self.endpoint_id, "sample": index,
                    "request_key": job.key, "finish_reason": choice["finish_reason"],
                    "truncated": choice["finish_reason"] == "length", "mean_logprob": choice["mean_logprob"],
                    "tokens": choice["tokens"], "request": request, "cached": False, "logprobs": self.logprobs}
            job.samples[index] = Sample(index, choice["text"], meta)
            if self.cache is not None:
                self.cache.put_cached_generation(job.key, index, choice["text"], meta)

    def _fail(self, job: Job, indices: list[int], error: str, request: dict[str, Any]) -> None:
        for index in indices:
            if index not in job.samples:
                job.errors[index] = (error, {"backend": self.name, "model": self.model, "endpoint": self.endpoint_id,
                                             "sample": index, "request_key": job.key, "request": request})

    # ------------------------------------------------------------------------------------------ results
    def _finish(self, job: Job, on_done: Callable[[Suggestion], None] | None) -> Iterator[Suggestion]:
        samples = [job.samples[i] for i in sorted(job.samples)]
        by_logprob = self.logprobs_requested and bool(samples) and all(s.mean_logprob is not None for s in samples)
        if by_logprob:
            samples.sort(key=lambda s: (-s.mean_logprob, s.index))
        out = [Suggestion(prompt_id=job.prompt.prompt_id, rank=rank, text=s.text,
                          meta={**s.meta, "ranked_by": "mean_logprob" if by_logprob else "order"})
               for rank, s in enumerate(samples, 1)]
        for index in sorted(job.errors):
            error, meta = job.errors[index]
            out.append(Suggestion(prompt_id=job.prompt.prompt_id, rank=len(out) + 1, text="", error=error, meta=meta))
        for suggestion in out:
            if on_done is not None:
                on_done(suggestion)
            yield suggestion


# ---------------------------------------------------------------------------------------------- helpers
def cheap_logprobs(base_url: str) -> bool:
    """The --logprobs default: on where log-probabilities cost nothing extra (OpenAI's API), off elsewhere."""
    host = urllib.parse.urlparse(base_url).hostname or ""
    return host == "api.openai.com"


def _model_ids(body: bytes) -> list[str] | None:
    """The model ids of a GET /models answer ({"data": [{"id": ...}]}), None where it is not one."""
    try:
        data = json.loads(body).get("data")
    except (ValueError, AttributeError):
        return None
    if not isinstance(data, list):
        return None
    ids = [m.get("id") for m in data if isinstance(m, dict)]
    return [i for i in ids if isinstance(i, str)] or None


def _seed(seed: int | None, index: int) -> int | None:
    return None if seed is None else seed + index


def _recorded(params: GenerationParams, stop: list[str]) -> dict[str, Any]:
    return {"temperature": params.temperature, "top_p": params.top_p, "max_tokens": params.max_tokens,
            "seed": params.seed, "stop": stop, "n": params.n}


def _attempt(number: int, error: str, status: int | None, started: float, switch: bool = False) -> dict[str, Any]:
    """One failed try; `switch` marks a change of endpoint or parameters (not counted as a retry)."""
    return {"attempt": number + 1, "error": error, "status": status,
            "elapsed_s": round(time.monotonic() - started, 3), "switch": switch}


def _get(obj: Any, name: str, default: Any = None) -> Any:
    if isinstance(obj, dict):
        return obj.get(name, default)
    value = getattr(obj, name, default)
    if value is default and hasattr(obj, "model_extra") and obj.model_extra:
        return obj.model_extra.get(name, default)
    return value


def _parse(response: Any, api: str) -> tuple[list[dict[str, Any]], dict[str, Any], str | None]:
    """Choices (ordered by index), usage and the answering model of a completions/chat response."""
    if isinstance(response, (str, bytes)) or response is None:
        raise MalformedResponse(f"not a JSON completion: {str(response)[:120]!r}")
    raw_choices = _get(response, "choices")
    if not isinstance(raw_choices, list) or not raw_choices:
        raise MalformedResponse("no choices in the response")
    choices = []
    for position, choice in enumerate(raw_choices):
        if api == "completions":
            text = _get(choice, "text")
            logprobs = _get(_get(choice, "logprobs"), "token_logprobs")
            values = [v for v in (logprobs or []) if isinstance(v, (int, float))]
        else:
            message = _get(choice, "message")
            if message is None:
                raise MalformedResponse("chat choice without a message")
            text = _get(message, "content")
            text = "" if text is None else text
            content = _get(_get(choice, "logprobs"), "content")
            values = [v for v in (_get(t, "logprob") for t in (content or [])) if isinstance(v, (int, float))]
        if not isinstance(text, str):
            raise MalformedResponse("choice without text")
        index = _get(choice, "index")
        choices.append({"index": index if isinstance(index, int) else position, "text": text,
                        "finish_reason": _get(choice, "finish_reason"),
                        "mean_logprob": round(sum(values) / len(values), 6) if values else None,
                        "tokens": len(values) if values else None})
    choices.sort(key=lambda c: c["index"])
    usage_obj = _get(response, "usage")
    usage = {k: _get(usage_obj, k) for k in ("prompt_tokens", "completion_tokens", "total_tokens")} if usage_obj else {}
    model = _get(response, "model")
    return choices, usage, model if isinstance(model, str) else None


def _error_message(exc: Any) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        message = inner.get("message") if isinstance(inner, dict) else inner
        if message:
            return str(message)[:300]
    return str(getattr(exc, "message", exc))[:300]


def _completions_unsupported(status: int, message: str) -> bool:
    text = message.lower()
    return status in (404, 405, 501) or (status == 400 and ("not supported" in text or "chat model" in text
                                                             or "v1/completions" in text))


def _retry_after(headers: Any) -> float | None:
    """Seconds to wait from `retry-after-ms` or `retry-after` (seconds or an HTTP date)."""
    if headers is None:
        return None
    value = headers.get("retry-after-ms")
    if value:
        try:
            return max(0.0, float(value) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        return max(0.0, when.timestamp() - time.time())


def _cause(exc: BaseException) -> str:
    cause = exc.__cause__ or exc.__context__
    return f"{type(cause).__name__}: {cause}"[:200] if cause else str(exc)[:200]


def _version(dist: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(dist)
    except PackageNotFoundError:
        return "?"
