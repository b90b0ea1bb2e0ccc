"""Static usage: the requested programming model's construct appears in the code, outside comments.

The cheapest evidence that a suggestion used the model at all (a plain serial loop under `cpp-openmp` gives
right numbers); the patterns are the model's `usage` in models.toml. Missing is `wrong_model`.

NumPy work need not name NumPy: an operator or array method on a parameter the adapter passes as a NumPy array or
a SciPy sparse matrix (`return A * x` on the CSR matrix of a CSR SpMV) is array code (analysis.array_ops), noted
in the evidence; a pure-Python loop over elements has none and stays `wrong_model`.
"""

from __future__ import annotations

import re

from hpceval.analysis.array_ops import array_operation
from hpceval.analysis.source import usage_text
from hpceval.checks.base import Job, check
from hpceval.contracts import Evaluation, Verdict
from hpceval.spec import Language, ProgrammingModel


def usage_problem(code: str, model: ProgrammingModel, lang: Language) -> str | None:
    """None when the code uses the requested model; else what is missing (the wrong_model evidence)."""
    clean = usage_text(code, lang)
    missing = [pattern for pattern in model.usage if not re.search(pattern, clean)]
    if missing:
        return f"no {model.name} construct found (needs /{missing[0]}/ outside comments)"
    return None


ARRAY_MODELS = ("python-numpy",)  # models whose arrays the driver passes as NumPy arrays / SciPy sparse matrices


def array_parameters(job: Job) -> set[str]:
    """The bound function's parameters that the driver passes as arrays (a record of arrays: a sparse matrix)."""
    arrays = {p.name for p in job.spec.params if p.is_array}
    return {mine for mine, role in job.mapping.items()
            if "{" in role or role.split("=")[0] in arrays}


@check("model usage")
def uses_model(job: Job) -> Evaluation | None:
    problem = usage_problem(job.code, job.model, job.lang)
    if problem and job.model.id in ARRAY_MODELS:
        found = array_operation(job.code, (job.function or job.spec.function).split(".")[-1], array_parameters(job))
        if found:
            job.note(f"array code without the word {job.model.name}: `{found}` on the arrays the driver passes")
            return None
    return job.verdict(Verdict.wrong_model, problem) if problem else None
