"""The build: every build step of the toolchain must succeed within the build limits.

A compiler error is the suggestion's `build_error` (with the compiler's first error lines as evidence), a build
that runs past its limit a `timeout`; the build time is kept for the report either way.
"""

from __future__ import annotations

from hpceval.checks.base import Job, check, first_errors
from hpceval.contracts import Evaluation, Verdict


@check("build")
def builds(job: Job) -> Evaluation | None:
    for step in job.toolchain.build_steps(job.model):
        result = job.exec(step, limits=job.build_limits)
        job.build_s += result.seconds
        if result.timed_out:
            return job.verdict(Verdict.timeout, f"build exceeded {job.build_limits.wall_s:.0f} s")
        if result.returncode != 0:
            return job.verdict(Verdict.build_error, first_errors(result))
    return None
