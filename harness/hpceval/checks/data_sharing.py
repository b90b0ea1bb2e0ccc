"""OpenMP/OpenACC in C/C++ and Fortran: no data race on a shared scalar, reductions that match their updates.

gcc's OpenACC host fallback runs on one thread and gfortran keeps a shared scalar in a register, so a race can
give the right numbers on this machine; the static analysis (analysis.sharing) finds it instead: `wrong_result`.
"""

from __future__ import annotations

from hpceval.analysis.sharing import sharing_problem
from hpceval.analysis.source import strip_comments
from hpceval.checks.base import Job, check
from hpceval.contracts import Evaluation, Verdict

LANGUAGES = ("cpp", "fortran")


@check("data sharing")
def shares_correctly(job: Job) -> Evaluation | None:
    if job.lang.id not in LANGUAGES:
        return None
    problem = sharing_problem(strip_comments(job.code, job.lang), job.lang)
    return job.verdict(Verdict.wrong_result, f"data sharing: {problem}") if problem else None
