"""Directive and dispatch models: the parallel (or offload) construct encloses the loop nest that writes the outputs.

A directive (or a `Kokkos::parallel_for`, a SYCL `parallel_for`) anywhere in the code satisfies the usage check,
and a parallel zeroing loop starts threads; neither shows that the model did the kernel's work. For Kokkos and
SYCL the constructs are the dispatches' argument lists (their lambdas); a copy out of a local temporary (a View, a
USM allocation) is followed to the loops that computed the temporary. `analysis.parallel_work` finds the loops writing the outputs (the
binding says which suggestion parameters those are) and reports a serial one as `wrong_model`. It says nothing
where the text does not show it plainly.
"""

from __future__ import annotations

from hpceval.analysis.parallel_work import family, serial_work_problem
from hpceval.analysis.source import strip_comments
from hpceval.checks.base import Job, check
from hpceval.contracts import Evaluation, Verdict


def output_names(job: Job) -> set[str]:
    """The suggestion's names of the kernel's array outputs (the spec's own names for a canonical binding)."""
    canonical = {p.name for p in job.spec.outputs if p.is_array}
    if not job.mapping:
        return canonical
    return {mine for mine, theirs in job.mapping.items() if theirs in canonical}


@check("work in the construct")
def work_in_construct(job: Job) -> Evaluation | None:
    kind = family(job.model.usage)
    if job.lang.id not in ("cpp", "fortran") or kind is None:
        return None
    problem = serial_work_problem(strip_comments(job.code, job.lang), job.lang.id == "fortran",
                                  job.function or job.spec.function, output_names(job), kind)
    return job.verdict(Verdict.wrong_model, problem) if problem else None
