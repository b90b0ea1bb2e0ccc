"""Dynamic usage: at run time, the requested model did the work (a GPU kernel ran, a Kokkos dispatch happened).

A token construct passes the static check; only the run shows whether the kernels that ran came from it. The
toolchain reads its own probe (`Toolchain.dynamic_check`: CUPTI on the GPU, the Kokkos tool); what it finds
missing is `wrong_model`.
"""

from __future__ import annotations

from hpceval.checks.base import Job, check
from hpceval.contracts import Evaluation, Verdict


@check("dynamic usage")
def ran_with_model(job: Job) -> Evaluation | None:
    problem, seen = job.toolchain.dynamic_check(job.workdir, job.model, len(job.cases), job.code)
    if problem:
        return job.verdict(Verdict.wrong_model, f"dynamic check: {problem}")
    job.note(seen)
    return None
