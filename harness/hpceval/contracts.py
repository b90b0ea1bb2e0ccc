"""The data that flows between pipeline stages: prompt, suggestion, build unit, job result, evaluation.

Every stage takes and returns these typed records, so a stage can be replaced (another LLM backend, another
executor) without the others noticing, and every record can be stored and replayed.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class Verdict(StrEnum):
    """Ordered outcomes; each suggestion gets exactly one. infra_error and unbindable are never the LLM's fault
    (UNSCORED: left out of every score and always reported); incomplete is (no complete kernel: level 0)."""

    no_code = "no_code"
    incomplete = "incomplete"
    unbindable = "unbindable"
    build_error = "build_error"
    runtime_error = "runtime_error"
    timeout = "timeout"
    wrong_result = "wrong_result"
    wrong_model = "wrong_model"
    correct = "correct"
    infra_error = "infra_error"

    def __str__(self) -> str:
        return self.value


# Outside the LLM's score: a missing toolchain or harness fault, and a complete function the harness could not map.
UNSCORED = frozenset({Verdict.infra_error.value, Verdict.unbindable.value})


class Prompt(BaseModel):
    """One cell of the plan: a kernel x programming model x style x hint, rendered to text."""

    model_config = ConfigDict(frozen=True)
    prompt_id: str
    kernel: str
    model: str
    language: str
    style: str
    hint: str
    text: str
    stop: list[str] = Field(default_factory=list)
    # A follow-up of a feedback round (hpceval.rounds): the whole conversation to send, the last message being the
    # harness's feedback (`text`); empty for a first-round prompt, which is sent as `text` alone.
    messages: list[dict[str, str]] = Field(default_factory=list)


class Suggestion(BaseModel):
    """One answer of an LLM to a prompt, raw and extracted."""

    prompt_id: str
    rank: int
    text: str
    code: str = ""
    meta: dict[str, Any] = Field(default_factory=dict)
    error: str | None = None


class Binding(BaseModel):
    """How the driver calls the suggested function: argument expressions in the driver's variable names."""

    function: str
    args: list[str]
    returns: str | None = None
    variant: str = "canonical"
    evidence: str = ""
    error: str | None = Field(None, description="why no consistent mapping exists (verdict unbindable)")
    files: dict[str, str] = Field(default_factory=dict, description="source files of the build unit")
    # Glue from signature inference (hpceval.bind.signature); all empty for the canonical binding.
    mapping: dict[str, str] = Field(default_factory=dict, description="suggestion parameter -> canonical parameter or value")
    call: str | None = Field(None, description="complete call replacing function(args), e.g. to receive a returned array")
    setup: list[str] = Field(default_factory=list, description="driver statements before the timed calls (temporaries)")
    teardown: list[str] = Field(default_factory=list, description="driver statements after the timed calls (copy back)")
    decls: list[str] = Field(default_factory=list, description="Fortran declarations of the glue's temporaries")
    source: str | None = Field(None, description="the suggestion pruned to the bound function and what it needs")
    module: str | None = Field(None, description="Fortran module holding the function, with `source`")
    alternatives: list[Binding] = Field(default_factory=list, description="equally plausible bindings (at most 3) the "
                                        "evaluator probes on one small case before the full run (hpceval.probe)")


class ProcResult(BaseModel):
    """What one sandboxed command did."""

    argv: list[str]
    returncode: int
    stdout: str
    stderr: str
    seconds: float
    timed_out: bool = False
    killed_by: str | None = None

    @property
    def tail(self) -> str:
        text = (self.stderr.strip() or self.stdout.strip())
        return text[-1500:]


class Evaluation(BaseModel):
    """The verdict on one suggestion with its evidence, timings and the environment that produced it."""

    verdict: Verdict
    evidence: str = ""
    max_rel_error: float | None = None
    failed_size: str | None = None
    time_median_s: float | None = None
    time_min_s: float | None = None
    time_iqr_s: float | None = None
    gflops: float | None = None
    gbytes_per_s: float | None = None
    # the median is below the machine's physical lower bound (checks/timing.py): never a speedup; None: not timed
    timing_implausible: bool | None = None
    variant: str | None = None
    toolchain: str = ""
    toolchain_version: str = ""
    image: str = ""
    device: str = ""
    build_s: float | None = None
    run_s: float | None = None
