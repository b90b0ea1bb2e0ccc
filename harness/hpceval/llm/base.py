"""What every LLM backend shares: the protocol, generation parameters, request keys, prices and usage lines.

Separate from the factory in `hpceval.llm` so that the backends can import these without importing the package
that imports them (no cycle).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel, Field

from hpceval.contracts import Prompt, Suggestion

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]


class GenerationParams(BaseModel):
    """Sampling parameters; recorded with every generation and part of the generation cache key."""

    n: int = 10
    temperature: float = 0.2
    top_p: float = 0.95
    max_tokens: int = 1024
    seed: int | None = 1234
    stop: list[str] = Field(default_factory=list)


class BackendError(RuntimeError):
    """The backend cannot work at all (bad name, unreachable endpoint); the message says what to do."""


class LLMBackend(Protocol):
    name: str

    def describe(self) -> dict[str, Any]:
        """Identity recorded with the run: backend, model, endpoint, versions."""

    def generate(self, prompts: list[Prompt], params: GenerationParams,
                 on_done: Callable[[Suggestion], None] | None) -> Iterator[Suggestion]:
        """Yield up to params.n ranked suggestions per prompt (rank 1 = best); errors as Suggestion.error.

        All suggestions of one prompt are yielded one after the other (never interleaved with another prompt's),
        so the caller can store a prompt's answers in one transaction.
        """

    def close(self) -> None: ...


class GenerationCache(Protocol):
    """Where backends look up and store answered requests (implemented by hpceval.store.Store)."""

    def cached_generation(self, request_key: str, sample: int) -> tuple[str, dict[str, Any]] | None: ...

    def put_cached_generation(self, request_key: str, sample: int, text: str, meta: dict[str, Any]) -> None: ...


# Paper-style prompts are raw completions: without stop sequences a base model writes a test program and then
# the next file. These end the suggestion where the kernel's source usually ends. At most 4 each (OpenAI's limit).
DEFAULT_STOP: dict[str, list[str]] = {
    "cpp": ["\nint main", "\n```", "\n// Example", "\n// Test"],
    "fortran": ["\nprogram ", "\nPROGRAM ", "\n```", "\n! Example"],
    "python": ["\nif __name__", "\n```", "\n# Example", "\nprint("],
    "julia": ["\n```", "\n# Example", "\nprintln(", "\n@time"],
}


def stop_sequences(prompt: Prompt, params: GenerationParams) -> list[str]:
    """User stop sequences win; else the prompt's own; else the language defaults for completion prompts."""
    if params.stop:
        return list(params.stop)
    if prompt.stop:
        return list(prompt.stop)
    if prompt.style == "paper":
        return list(DEFAULT_STOP.get(prompt.language, []))
    return []


def request_key(endpoint: str, model: str, prompt: Prompt, params: GenerationParams, stop: list[str]) -> str:
    """Cache key of one logical request (the sample index is the second half of the key).

    n is left out on purpose: asking for 5 suggestions after 3 reuses the first 3.
    """
    payload = {"endpoint": endpoint, "model": model, "style": prompt.style, "language": prompt.language,
               "prompt": prompt.text, "temperature": params.temperature, "top_p": params.top_p,
               "max_tokens": params.max_tokens, "seed": params.seed, "stop": stop}
    if prompt.messages:  # a feedback round: the conversation is the request (first-round keys are unchanged)
        payload["messages"] = prompt.messages
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


# ---------------------------------------------------------------------------------------------- price table
class Price(BaseModel):
    """US dollars per million tokens."""

    prompt: float = 0.0
    completion: float = 0.0


def load_price_table(path: str | Path) -> dict[str, Price]:
    """A TOML or JSON file: model name -> {prompt = $/Mtok, completion = $/Mtok}; "*" is the fallback.

        ["gpt-4o-mini"]
        prompt = 0.15
        completion = 0.60
    """
    path = Path(path)
    if not path.is_file():
        raise BackendError(f"price table {path} not found")
    try:
        raw = json.loads(path.read_text()) if path.suffix == ".json" else tomllib.loads(path.read_text())
        return {str(k): Price.model_validate(v) for k, v in raw.items()}
    except (ValueError, tomllib.TOMLDecodeError) as exc:
        raise BackendError(f"price table {path}: {exc}") from None


def cost_usd(model: str, prompt_tokens: int, completion_tokens: int, table: dict[str, Price]) -> float | None:
    """Cost of some tokens of one model, None when the table has neither the model nor a "*" entry."""
    model = model.split(":", 1)[1] if model.startswith("openai:") else model
    price = table.get(model) or table.get("*")
    if price is None:
        return None
    return (prompt_tokens * price.prompt + completion_tokens * price.completion) / 1e6


def usage_summary(usage: Any, model: str, prices: dict[str, Price] | None = None, label: str = "LLM") -> str | None:
    """One line for the run summary from Store.usage(): requests, tokens, latency, retries, failures and cost.

    Requests answered from the generation cache are counted apart and cost nothing in this run. The CLI passes
    this invocation's requests and the whole run's separately (`label` says which), so a resumed run does not
    report the retries and failures of earlier invocations as its own.
    """
    if usage is None or len(usage) == 0:
        return None
    new = usage[usage["cached"] == 0]
    cached = int((usage["cached"] != 0).sum())
    failed = int(new["error"].notna().sum())
    prompt_tokens = int(new["prompt_tokens"].fillna(0).sum())
    completion_tokens = int(new["completion_tokens"].fillna(0).sum())
    retries = int((new["attempts"] - 1).clip(lower=0).sum())
    latency = new["latency_s"].dropna()
    parts = [f"{label}: {len(new)} requests" + (f" (+{cached} answered from the cache)" if cached else ""),
             f"{prompt_tokens} prompt + {completion_tokens} completion tokens"]
    if len(latency):
        parts.append(f"latency mean {latency.mean():.2f} s, max {latency.max():.2f} s")
    if retries or failed:
        parts.append(f"{retries} retries, {failed} failed")
    if prices is not None:
        cost = cost_usd(model, prompt_tokens, completion_tokens, prices)
        parts.append(f"cost ${cost:.4f}" if cost is not None else f"cost: {model} not in the price table")
    return "; ".join(parts)
