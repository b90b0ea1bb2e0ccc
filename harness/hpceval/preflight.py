"""Checks a run makes before it creates anything, and the verdict on its generations after.

Why a module of its own: every bad input used to be found late (after the progress bars, with an empty store
and a results directory left behind, or after a minute of retries against a closed port) or not at all (`-n 0`
quietly ran with 1, a replay file that matched nothing ended "no results" with exit 0). The CLI calls these in
order, before it takes the directory lock or opens the store; each failure is one BadInput line (exit 2) that
says what to do. Kept out of cli.py so the command module stays a thin layer over them.
"""

from __future__ import annotations

from typing import Any

from hpceval.contracts import Prompt
from hpceval.llm import Price, usage_summary
from hpceval.store import Store


class BadInput(ValueError):
    """A command-line value that cannot work; the message names the option and what to give instead."""


def check_numbers(n: int, concurrency: int, jobs: int, max_tokens: int, temperature: float, top_p: float,
                  request_timeout: float | None) -> None:
    """Numeric options the run would otherwise silently clamp or pass on to fail later."""
    if n < 1:
        raise BadInput(f"-n {n}: give the number of suggestions per prompt, 1 or more (e.g. -n 10)")
    if concurrency < 1:
        raise BadInput(f"--concurrency {concurrency}: give the number of concurrent LLM requests, 1 or more")
    if jobs < 0:
        raise BadInput(f"--jobs {jobs}: give the number of concurrent build/run jobs, or 0 for the CPU count")
    if max_tokens < 1:
        raise BadInput(f"--max-tokens {max_tokens}: give the token limit per suggestion, 1 or more")
    if not 0 <= temperature <= 2:
        raise BadInput(f"--temperature {temperature:g}: give a sampling temperature from 0 to 2")
    if not 0 < top_p <= 1:
        raise BadInput(f"--top-p {top_p:g}: give a nucleus probability above 0 and at most 1")
    if request_timeout is not None and request_timeout <= 0:
        raise BadInput(f"--request-timeout {request_timeout:g}: give seconds, more than 0")


def check_prompts(prompts: list[Prompt]) -> None:
    if not prompts:
        raise BadInput("the selection plans no prompt (e.g. --hints keyword with only languages that have no "
                       "keyword hint); see `hpceval list prompts` with the same options")


def check_replay(backend: Any, prompts: list[Prompt], n: int) -> str:
    """For a replay backend: BadInput when no record matches a planned prompt; else a note on unused records ("")."""
    plan_match = getattr(backend, "plan_match", None)
    if plan_match is None:
        return ""
    used, note = plan_match(prompts, n)
    if used == 0:
        raise BadInput(f"nothing to evaluate: {note}; give the options the file was made with "
                       "(e.g. --style all --hints all --models all --kernels all)")
    return note


def check_endpoint(backend: Any) -> None:
    """One GET /models for backends that talk to a server (BackendError from the backend when unreachable)."""
    check = getattr(backend, "check", None)
    if check is not None:
        check()


def generation_outcome(store: Store, run_id: str) -> tuple[str | None, bool]:
    """(a line about failed generations or None, whether every generation of the run failed)."""
    total, failed, example = store.generation_counts(run_id)
    if not failed:
        return None, False
    if failed == total:
        return (f"every generation of this run failed ({total}; e.g. {example}): nothing was evaluated; fix the "
                "endpoint or the options and rerun the same command (failed prompts are asked again)"), True
    return (f"{failed} of {total} generations failed (e.g. {example}); rerun the same command to ask for them "
            "again"), False


def usage_lines(store: Store, run_id: str, before: set[str], model: str,
                prices: dict[str, Price] | None) -> list[str]:
    """The LLM usage of this invocation, and of the whole run when earlier invocations of it made requests."""
    usage = store.usage(run_id)
    if usage is None or usage.empty:
        return []
    now = usage[~usage["request_id"].isin(before)]
    if not before:
        line = usage_summary(now, model, prices)
        return [line] if line else []
    lines = [usage_summary(now, model, prices, label="LLM, this invocation")
             or "LLM, this invocation: no requests (every prompt was answered before)"]
    total = usage_summary(usage, model, prices, label=f"LLM, all invocations of run {run_id}")
    if total:
        lines.append(total)
    return lines
