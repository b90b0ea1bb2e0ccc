"""Static usage: the requested programming model's construct appears in the code, outside comments.

The cheapest evidence that a suggestion used the model at all (a plain serial loop under `cpp-openmp` gives
right numbers); the patterns are the model's `usage` in models.toml. Missing is `wrong_model`.
"""

from __future__ import annotations

import re

from hpceval.analysis.source import strip_comments
from hpceval.checks.base import Job, check
from hpceval.contracts import Evaluation, Verdict
from hpceval.spec import Language, ProgrammingModel


def usage_problem(code: str, model: ProgrammingModel, lang: Language) -> str | None:
    """None when the code uses the requested model; else what is missing (the wrong_model evidence)."""
    clean = strip_comments(code, lang)
    missing = [pattern for pattern in model.usage if not re.search(pattern, clean)]
    if missing:
        return f"no {model.name} construct found (needs /{missing[0]}/ outside comments)"
    return None


@check("model usage")
def uses_model(job: Job) -> Evaluation | None:
    problem = usage_problem(job.code, job.model, job.lang)
    return job.verdict(Verdict.wrong_model, problem) if problem else None
