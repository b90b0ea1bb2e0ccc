"""What a run will do, shown before it does anything: the LLM and where that choice came from, the prompt matrix,
the requests, an estimate of the tokens and their cost.

Why a module of its own: a bare `hpceval run` used to start the whole matrix with a bar at "0/?", and with
OPENAI_API_KEY set it silently called a default model. `run --dry-run` prints this plan and stops before any
request and before anything is created; every real run prints the same header first, so what is spent is
never a surprise. Nothing here talks to a server or touches the disk.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass

from rich.table import Table

from hpceval.contracts import Prompt
from hpceval.llm import Price, cost_usd

DEFAULT_MODEL_ENV = "HPCEVAL_OPENAI_MODEL"
DEFAULT_OPENAI_MODEL = "gpt-4o-mini"
OPENAI_URL = "https://api.openai.com/v1"
# US$ per million tokens of a few hosted models, as their provider listed them (2024-07); --price-table overrides.
KNOWN_PRICES = {"gpt-4o-mini": Price(prompt=0.15, completion=0.60), "gpt-4o": Price(prompt=2.50, completion=10.00)}
CHARS_PER_TOKEN = 4  # the usual rule of thumb for code and English; the estimate says it is one


@dataclass(frozen=True)
class LLMChoice:
    """The --llm value a run uses, the endpoint it talks to, and where each came from (for the header)."""

    spec: str
    source: str
    endpoint: str
    endpoint_source: str

    @property
    def kind(self) -> str:
        return self.spec.partition(":")[0]

    @property
    def model(self) -> str:
        return self.spec.partition(":")[2] or self.spec

    def lines(self) -> list[str]:
        return [f"LLM: {self.spec} ({self.source})", f"endpoint: {self.endpoint} ({self.endpoint_source})"]


def choose_llm(flag: str | None, base_url: str | None = None, env: Mapping[str, str] | None = None) -> LLMChoice:
    """The LLM of a run: --llm, else openai when OPENAI_API_KEY or OPENAI_BASE_URL is set, else the local model."""
    env = os.environ if env is None else env
    if flag:
        spec, source = flag, "--llm"
    elif env.get("OPENAI_API_KEY") or env.get("OPENAI_BASE_URL"):
        why = "OPENAI_API_KEY" if env.get("OPENAI_API_KEY") else "OPENAI_BASE_URL"
        if env.get(DEFAULT_MODEL_ENV):
            spec, source = f"openai:{env[DEFAULT_MODEL_ENV]}", f"{DEFAULT_MODEL_ENV}, because {why} is set and no --llm"
        else:
            spec = f"openai:{DEFAULT_OPENAI_MODEL}"
            source = (f"default model chosen because {why} is set and no --llm was given; --llm openai:MODEL or "
                      f"{DEFAULT_MODEL_ENV} picks another")
    else:
        spec, source = "local", "default: no --llm and no OPENAI_API_KEY; the embedded small model scores near zero"
    kind, _, arg = spec.partition(":")
    if kind in ("openai",):
        if base_url:
            endpoint, where = base_url, "--base-url"
        elif env.get("OPENAI_BASE_URL"):
            endpoint, where = env["OPENAI_BASE_URL"], "OPENAI_BASE_URL"
        else:
            endpoint, where = OPENAI_URL, "default: OpenAI's API"
    elif kind == "local":
        endpoint, where = "embedded llama.cpp server", "started on the first request the cache cannot answer"
    elif kind == "replay":
        endpoint, where = arg or "?", "stored generations: no requests"
    else:
        endpoint, where = "none", "no requests"
    return LLMChoice(spec, source, endpoint.rstrip("/"), where)


def requests_range(choice: LLMChoice, prompts: int, n: int) -> tuple[int, int]:
    """(fewest, most) requests: one per prompt where the server honours n, n per prompt where it does not."""
    if choice.kind in ("reference", "replay"):
        return 0, 0
    if choice.kind == "local":  # llama.cpp answers one sample per request
        return prompts * n, prompts * n
    return prompts, prompts * n


def price_of(choice: LLMChoice, prices: dict[str, Price] | None) -> Price | None:
    """The LLM's price: the --price-table entry, else a known one; free where no request is paid for."""
    if choice.kind in ("reference", "replay", "local"):
        return Price()
    table = prices or KNOWN_PRICES
    model = choice.model
    return table.get(model) or (table.get("*") if prices else None)


@dataclass
class PlanRow:
    kernel: str
    style: str
    hint: str
    models: list[str]
    prompts: int
    suggestions: int
    requests: tuple[int, int]
    prompt_tokens: int
    completion_tokens: int
    cost: float | None


def plan_rows(prompts: list[Prompt], choice: LLMChoice, n: int, max_tokens: int,
              prices: dict[str, Price] | None) -> list[PlanRow]:
    """One row per kernel x style x hint (its models listed), in plan order; estimates are upper bounds."""
    groups: dict[tuple[str, str, str], list[Prompt]] = {}
    for p in prompts:
        groups.setdefault((p.kernel, p.style, p.hint), []).append(p)
    price = price_of(choice, prices)
    paid = choice.kind not in ("reference", "replay")
    rows = []
    for (kernel, style, hint), group in groups.items():
        lo, hi = requests_range(choice, len(group), n)
        prompt_tokens = sum(math.ceil(len(p.text) / CHARS_PER_TOKEN) for p in group) * (hi // max(1, len(group)))
        completion = len(group) * n * max_tokens if paid else 0
        cost = None if price is None else cost_usd("m", prompt_tokens, completion, {"m": price})
        rows.append(PlanRow(kernel, style, hint, list(dict.fromkeys(p.model for p in group)), len(group),
                            len(group) * n, (lo, hi), prompt_tokens if paid else 0, completion, cost))
    return rows


def _range(lo: int, hi: int) -> str:
    return str(lo) if lo == hi else f"{lo}–{hi}"


def _cost(value: float | None) -> str:
    if value is None:
        return "unknown"
    return "$0" if value == 0 else f"≤ ${value:.4f}"


def plan_table(rows: list[PlanRow]) -> Table:
    table = Table(title="plan (tokens and cost: upper bounds, ~4 characters a token, every answer max-tokens long)")
    for header in ("kernel", "style", "hint", "models", "prompts", "suggestions", "requests", "prompt tok",
                   "completion tok", "cost"):
        table.add_column(header, justify="right" if header in ("prompts", "suggestions", "requests", "prompt tok",
                                                               "completion tok", "cost") else "left",
                         overflow="fold")
    for r in rows:
        models = ", ".join(r.models) if len(r.models) <= 4 else f"{len(r.models)} models"
        table.add_row(r.kernel, r.style, r.hint, models, str(r.prompts), str(r.suggestions), _range(*r.requests),
                      str(r.prompt_tokens), str(r.completion_tokens), _cost(r.cost))
    costs = [r.cost for r in rows]
    total = None if any(c is None for c in costs) else sum(c for c in costs if c is not None)
    table.add_section()
    table.add_row("total", "", "", "", str(sum(r.prompts for r in rows)), str(sum(r.suggestions for r in rows)),
                  _range(sum(r.requests[0] for r in rows), sum(r.requests[1] for r in rows)),
                  str(sum(r.prompt_tokens for r in rows)), str(sum(r.completion_tokens for r in rows)), _cost(total))
    return table


def header_lines(choice: LLMChoice, prompts: list[Prompt], n: int, price_known: bool) -> list[str]:
    """The lines every run prints first (and `--dry-run` prints with the plan table)."""
    kernels = len({p.kernel for p in prompts})
    models = len({p.model for p in prompts})
    lines = choice.lines()
    lines.append(f"matrix: {len(prompts)} prompts ({kernels} kernels × {models} programming models × "
                 f"{len({p.style for p in prompts})} styles × {len({p.hint for p in prompts})} hints), "
                 f"{len(prompts) * n} suggestions (-n {n})")
    if not price_known:
        lines.append(f"cost: no price known for {choice.model}; give --price-table FILE for an estimate")
    return lines


def unlisted_model(listed: list[str] | None, model: str, endpoint: str) -> str | None:
    """The warning for a model the endpoint's /models does not list (None where it lists it, or lists nothing)."""
    if not listed or model in listed:
        return None
    shown = ", ".join(listed[:8]) + (f" and {len(listed) - 8} more" if len(listed) > 8 else "")
    return f"{endpoint}/models does not list {model!r} (it lists {shown}); give --llm openai:MODEL with one of them"
