"""LLM backends behind one protocol, created by name (`--llm`): a provider factory.

    reference           the kernel specs' known-correct solutions (no LLM; exercises the whole pipeline)
    openai:MODEL        any OpenAI-compatible endpoint (OpenAI, vLLM, llama.cpp server, Ollama)
    local               the embedded small model served by llama-cpp-python (offline default)
    replay:FILE.jsonl   stored generations (docs/replay.md: the replay schema)

Optional parts of the protocol (a backend without them still works):

    attach_cache(cache)     a GenerationCache (the Store): identical requests are answered from it
    prepare(prompts)        called before generate(); a backend may load data or start a server there
"""

from __future__ import annotations

from typing import Any

from hpceval.llm.base import (
    BackendError,
    GenerationCache,
    GenerationParams,
    LLMBackend,
    Price,
    cost_usd,
    load_price_table,
    request_key,
    stop_sequences,
    usage_summary,
)

__all__ = ["BackendError", "GenerationCache", "GenerationParams", "LLMBackend", "Price", "cost_usd", "get_backend", "load_price_table", "request_key", "stop_sequences", "usage_summary"]


# ---------------------------------------------------------------------------------------------- factory
def get_backend(spec: str, **options: Any) -> LLMBackend:
    """Create a backend from its command-line name. Options a backend does not take are ignored."""
    kind, _, arg = spec.partition(":")
    options = {k: v for k, v in options.items() if v is not None}
    if kind == "reference":
        from hpceval.llm.reference import ReferenceBackend

        return ReferenceBackend()
    if kind == "openai":
        from hpceval.llm.openai_compat import OpenAICompatBackend

        if not arg:
            raise BackendError("--llm openai:MODEL needs a model name, e.g. openai:gpt-4o-mini")
        return OpenAICompatBackend(model=arg, **_accepted(OpenAICompatBackend, options))
    if kind == "local":
        from hpceval.llm.local import LocalBackend

        return LocalBackend(**_accepted(LocalBackend, options))
    if kind == "replay":
        from hpceval.llm.replay import ReplayBackend

        if not arg:
            raise BackendError("--llm replay:FILE.jsonl needs a file")
        return ReplayBackend(arg)
    raise BackendError(f"unknown LLM backend {spec!r}; valid: reference, local, openai:MODEL, replay:FILE.jsonl")


def _accepted(cls: type, options: dict[str, Any]) -> dict[str, Any]:
    import inspect

    names: set[str] = set()
    for klass in cls.__mro__:
        init = klass.__dict__.get("__init__")
        if init is not None:
            names |= set(inspect.signature(init).parameters)
    names.discard("self")
    return {k: v for k, v in options.items() if k in names}
