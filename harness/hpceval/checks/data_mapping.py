"""Offload models: every pointer the kernel uses is mapped, results come back, inputs go in.

The CPU routes of the offload models share memory with the host, so an unmapped pointer or a result mapped only
`to` the device gives the right numbers here and garbage on a GPU. The static analysis (analysis.datamap) sees
what the run cannot; what it finds is `wrong_result`.
"""

from __future__ import annotations

from hpceval.analysis.datamap import data_mapping_problem
from hpceval.analysis.source import strip_comments
from hpceval.checks.base import Job, check
from hpceval.contracts import Evaluation, Verdict


@check("data mapping")
def maps_data(job: Job) -> Evaluation | None:
    if not job.model.mapping_check:
        return None
    problem = data_mapping_problem(strip_comments(job.code, job.lang), job.lang)
    return job.verdict(Verdict.wrong_result, f"data mapping: {problem}") if problem else None
