"""Feedback messages of repair and optimisation rounds, rendered from the harness's evidence by Jinja2 templates.

Why a template per kind (prompts/feedback/<kind>.j2): what helps an LLM fix a build error (the compiler's lines)
differs from what helps it fix a wrong result (the failing size and the worst element) or a slow kernel (the
measured GB/s or GFLOP/s against the roofline); researchers change the wording without touching code, and the
rendered text is part of the conversation, so of the generation cache key and the replay file.

Kinds: build_error, runtime_error, wrong_result, wrong_model, timeout, incomplete (also no_code) and timing (a
correct kernel below the efficiency threshold). infra_error and unbindable get no feedback: they are not the
LLM's fault, so there is nothing for it to repair.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined

from hpceval.paths import prompts_dir

KINDS = ("build_error", "runtime_error", "wrong_result", "wrong_model", "timeout", "incomplete", "timing")
REPAIR = {"build_error": "build_error", "runtime_error": "runtime_error", "wrong_result": "wrong_result",
          "wrong_model": "wrong_model", "timeout": "timeout", "incomplete": "incomplete", "no_code": "incomplete"}
WORST = re.compile(r"at \(([^)]*)\) got (\S+) expected (\S+)")


@dataclass(frozen=True)
class Efficiency:
    """How fast a correct suggestion is: a fraction of the roofline, or a speedup over the reference solution."""

    value: float
    how: str                      # "roofline" or "reference"
    peak_gbytes_per_s: float = math.nan
    peak_gflops: float = math.nan
    reference_time_s: float = math.nan


def repair_kind(verdict: str) -> str | None:
    """The feedback kind for a verdict that is not correct (None: nothing the LLM can repair)."""
    return REPAIR.get(verdict)


def worst_element(evidence: str) -> str | None:
    """'index (6,): got 7 expected 8' from validation evidence ('... at (6,) got 7 expected 8 ...')."""
    found = WORST.search(evidence or "")
    if not found:
        return None
    index = found.group(1).rstrip(",").strip()
    return f"index ({index}): got {found.group(2)} expected {found.group(3)}"


def _env() -> Environment:
    return Environment(loader=FileSystemLoader(prompts_dir()), undefined=StrictUndefined, trim_blocks=True,
                       lstrip_blocks=True, keep_trailing_newline=False)


def render(kind: str, evaluation: dict[str, Any], *, function: str, model_name: str, model_hint: str, fence: str,
           summary: str, round_: int, efficiency: Efficiency | None = None, threshold: float = 0.5) -> str:
    """The user message asking for round `round_` after a suggestion whose stored evaluation is `evaluation`."""
    if kind not in KINDS:
        raise ValueError(f"unknown feedback kind {kind!r}; known: {', '.join(KINDS)}")
    evidence = str(evaluation.get("evidence") or "").strip()
    context = {
        "kind": kind, "round": round_, "verdict": evaluation.get("verdict"), "evidence": evidence,
        "failed_size": evaluation.get("failed_size"), "max_rel_error": _num(evaluation.get("max_rel_error")),
        "worst": worst_element(evidence), "toolchain": evaluation.get("toolchain") or "",
        "time_median_s": _num(evaluation.get("time_median_s")) or 0.0,
        "gbytes_per_s": _num(evaluation.get("gbytes_per_s")), "gflops": _num(evaluation.get("gflops")),
        "function": function, "model_name": model_name, "model_hint": model_hint or "", "fence": fence,
        "summary": summary, "threshold": threshold,
        "efficiency": efficiency.value if efficiency else math.nan, "how": efficiency.how if efficiency else "",
        "peak_gbytes_per_s": efficiency.peak_gbytes_per_s if efficiency else math.nan,
        "peak_gflops": efficiency.peak_gflops if efficiency else math.nan,
        "reference_time_s": efficiency.reference_time_s if efficiency else math.nan,
    }
    return _env().get_template(f"feedback/{kind}.j2").render(**context).strip() + "\n"


def _num(value: Any) -> float | None:
    try:
        out = float(value)
    except (TypeError, ValueError):
        return None
    return out if math.isfinite(out) else None
