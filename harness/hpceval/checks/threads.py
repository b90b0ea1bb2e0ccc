"""CPU threading models: more than one thread ran the kernel (`toolchains.ThreadCheck`).

The static check only sees that a directive is there; an orphaned `omp for`, `num_threads(1)`, a false `if` or an
`@njit` without `parallel=True` run serially. The drivers record the threads they saw per case. One thread at the
validation sizes is not yet a verdict, since a kernel may stay serial below a size threshold of its own: the run
at the timing size decides (the timing run's record, or one untimed call when timing is off). Two checks, one
before and one after timing, read the two records.

For the models in `ThreadCheck.serial_allowed` (Numba: the study counted any Numba JIT as Numba) one thread is not
`wrong_model`: the evidence says "parallel: no" (or "parallel: yes"), and the rubric option
`numba_requires_parallel` decides at scoring time whether such a row counts.
"""

from __future__ import annotations

from hpceval.cases.generate import make_case, size_label
from hpceval.checks.base import Job, check, only_case
from hpceval.contracts import Evaluation, Verdict


def _allows_serial(job: Job) -> bool:
    return job.model.id in getattr(job.toolchain, "serial_allowed", frozenset())


def _serial(job: Job, problem: str) -> Evaluation | None:
    if _allows_serial(job):
        job.note(f"parallel: no (dynamic check: {problem})")
        return None
    return job.verdict(Verdict.wrong_model, f"dynamic check: {problem}")


def _parallel(job: Job, seen: str | None) -> None:
    job.note(seen)
    if seen and _allows_serial(job):
        job.note("parallel: yes")


@check("threads at the validation sizes")
def threads_at_validation(job: Job) -> Evaluation | None:
    problem, seen = job.toolchain.thread_check(job.workdir, job.model, [case.label for case in job.cases], job.code)
    _parallel(job, seen)
    job.serial = bool(problem)
    if job.serial and not job.can_time:  # no run at the timing size will come: the validation sizes decide
        job.serial = False
        return _serial(job, problem)
    return None


@check("threads at the timing size")
def threads_at_timing_size(job: Job) -> Evaluation | None:
    if not job.serial:
        return None
    if not job.timed:  # one untimed call at the timing size
        case = make_case(job.spec, job.spec.sizes.timing, job.seed, write_outputs=False)
        only_case(job, case)
        result = job.exec(job.toolchain.run_argv(job.model))
        failure = job.run_failure(result, 1, f"run at the timing size {case.label}")
        if failure:
            return failure
    problem, seen = job.toolchain.thread_check(job.workdir, job.model, [size_label(job.spec.sizes.timing)], job.code,
                                               earlier=len(job.cases))
    _parallel(job, seen)
    return _serial(job, problem) if problem else None
