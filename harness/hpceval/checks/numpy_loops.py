"""NumPy: no Python-level loops over elements in the bound function (`analysis.pyloops`).

`import numpy` satisfies the usage check, so a suggestion that loops over elements in Python gave the right
numbers and passed as NumPy; the NumPy prompt asks for array operations. A loop whose trip count scales with the
problem and whose body does scalar element work is `wrong_model`; loops over vectorised bodies pass.
"""

from __future__ import annotations

from hpceval.analysis.pyloops import element_loop_problem
from hpceval.checks.base import Job, check
from hpceval.contracts import Evaluation, Verdict

MODELS = ("python-numpy",)


@check("vectorised")
def vectorised(job: Job) -> Evaluation | None:
    if job.model.id not in MODELS:
        return None
    dims = {p.name: len(p.shape) for p in job.spec.params if p.is_array}
    if job.mapping:
        dims = {mine: dims[theirs] for mine, theirs in job.mapping.items() if theirs in dims}
    problem = element_loop_problem(job.code, (job.function or job.spec.function).split(".")[-1], dims)
    return job.verdict(Verdict.wrong_model, problem) if problem else None
