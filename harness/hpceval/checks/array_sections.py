"""Offload models: the array sections of data clauses cover what the kernel reads and writes.

`copyin(x[0:n-1])` drops the last element on a GPU, but on a CPU route in shared memory the kernel still sees it.
The sections are evaluated with each validation case's sizes against the spec's read/write footprints
(analysis.datamap.section_problem); a section that misses elements is `wrong_result`.
"""

from __future__ import annotations

from hpceval.analysis.datamap import section_problem
from hpceval.analysis.source import strip_comments
from hpceval.checks.base import Job, check
from hpceval.contracts import Evaluation, Verdict


@check("array sections")
def covers_footprint(job: Job) -> Evaluation | None:
    if not job.model.mapping_check:
        return None
    problem = section_problem(strip_comments(job.code, job.lang), job.lang, job.spec, job.cases, job.mapping)
    return job.verdict(Verdict.wrong_result, f"data mapping: {problem}") if problem else None
