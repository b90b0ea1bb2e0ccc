"""A second validation run under a checker, for what the first run cannot show (`toolchains.SecondRun`).

GPU jobs run again under compute-sanitizer memcheck (an out-of-bounds device read gives plausible numbers);
clang x86-offload jobs run again built by g++ with target regions on the host, where an access past a mapped
array reaches the driver's guards; SYCL jobs (AdaptiveCpp's OpenMP host flow) run again built with
AddressSanitizer, which sees a kernel read past a `malloc_device` or buffer allocation. A finding is
`wrong_result`; a checker that cannot run leaves only a note.
"""

from __future__ import annotations

import dataclasses

from hpceval.checks.base import Job, check
from hpceval.checks.outputs import first_bad_case
from hpceval.contracts import Evaluation, Verdict


@check("second run")
def second_run_clean(job: Job) -> Evaluation | None:
    run = job.toolchain.second_run(job.model, job.code)
    if run is None:
        return None
    env = {**{k: v for k, v in job.env.items() if k not in run.drop_env}, **run.env}
    limits = job.run_limits
    if run.address_space_mb:
        limits = dataclasses.replace(limits, address_space_mb=max(limits.address_space_mb, run.address_space_mb))
    if run.wall_s:
        limits = dataclasses.replace(limits, wall_s=max(limits.wall_s, run.wall_s))
    result = job.exec(run.argv, env=env, limits=limits)
    problem = run.finding(result.returncode, result.stdout + "\n" + result.stderr)
    if problem:
        return job.verdict(Verdict.wrong_result, f"memory check: {problem}")
    if result.returncode != 0:
        why = "timed out" if result.timed_out else f"exit {result.returncode}"
        job.note(f"{run.what} inconclusive ({why})")
        return None
    bad = first_bad_case(job)[0] if run.validate else None
    if bad:
        _, case, detail, _ = bad
        return job.verdict(Verdict.wrong_result, f"memory check: {run.what}: size {case.label}: {detail}")
    job.note(f"{run.what} clean")
    return None
