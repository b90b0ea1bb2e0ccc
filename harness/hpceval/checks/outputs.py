"""Numeric validation: run every validation case once and compare each output with the reference.

This is the check that decides whether the numbers are right; all later checks ask whether they were obtained
the way the requested programming model demands. The first case that fails gives the evidence (size, how many
elements, the worst one); the worst relative error over all cases is kept for the report.
"""

from __future__ import annotations

from hpceval.cases.compare import compare
from hpceval.cases.generate import make_case, validation_cases
from hpceval.cases.io import Case, MissingOutput, read_arrays, write_cases
from hpceval.checks.base import Job, check
from hpceval.contracts import Evaluation, Verdict


@check("validation")
def validates(job: Job) -> Evaluation | None:
    job.cases = job_cases(job)
    write_cases(job.workdir, job.spec, job.lang, job.cases)
    result = job.exec(job.toolchain.run_argv(job.model))
    job.run_s = result.seconds
    failure = job.run_failure(result, len(job.cases), "validation")
    if failure:
        return failure
    bad, job.worst = first_bad_case(job)
    if bad:
        verdict, case, detail, error = bad
        return job.verdict(verdict, f"size {case.label}: {detail}", max_rel_error=error, failed_size=case.label)
    return None


def job_cases(job: Job) -> list[Case]:
    """The spec's validation cases, or the toolchain's own sizes for this job (e.g. under a simulator)."""
    if job.adjust and job.adjust.sizes is not None:
        return [make_case(job.spec, size, job.seed) for size in job.adjust.sizes]
    return validation_cases(job.spec, job.seed)


def first_bad_case(job: Job) -> tuple[tuple | None, float]:
    """((verdict, case, detail, error) of the first bad case, or None; the worst relative error seen)."""
    worst = 0.0
    for i, case in enumerate(job.cases):
        try:
            outputs = read_arrays(job.workdir, i, job.spec, job.lang, case)
        except MissingOutput as exc:
            return (Verdict.runtime_error, case, str(exc), None), worst
        result = compare(job.spec, case, outputs)
        worst = max(worst, result.max_rel_error)
        if not result.ok:
            return (Verdict.wrong_result, case, result.detail, result.max_rel_error), worst
    return None, worst
