"""LLM backends behind one protocol, created by name (`--llm`): a provider factory.

    reference           the kernel specs' known-correct solutions (no LLM; exercises the whole pipeline)
    openai:MODEL        any OpenAI-compatible endpoint (OpenAI, vLLM, llama.cpp server, Ollama)
    local               the embedded small model served by llama-cpp-python (offline default)
    replay:FILE.jsonl   stored generations (see README: replay schema)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, Protocol

from pydantic import BaseModel, Field

from hpceval.contracts import Prompt, Suggestion


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
                 on_done: Callable[[Suggestion], None]) -> Iterator[Suggestion]:
        """Yield up to params.n ranked suggestions per prompt (rank 1 = best); errors as Suggestion.error."""

    def close(self) -> None: ...


def get_backend(spec: str, **options: Any) -> LLMBackend:
    """Create a backend from its command-line name."""
    kind, _, arg = spec.partition(":")
    if kind == "reference":
        from hpceval.llm.reference import ReferenceBackend

        return ReferenceBackend()
    if kind == "openai":
        from hpceval.llm.openai_compat import OpenAICompatBackend

        if not arg:
            raise BackendError("--llm openai:MODEL needs a model name, e.g. openai:gpt-4o-mini")
        return OpenAICompatBackend(model=arg, **options)
    if kind == "local":
        from hpceval.llm.local import LocalBackend

        return LocalBackend(**options)
    if kind == "replay":
        from hpceval.llm.replay import ReplayBackend

        if not arg:
            raise BackendError("--llm replay:FILE.jsonl needs a file")
        return ReplayBackend(arg)
    raise BackendError(f"unknown LLM backend {spec!r}; valid: reference, local, openai:MODEL, replay:FILE.jsonl")
