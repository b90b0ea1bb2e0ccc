"""Timing of a kernel that passed every check: warm-up, then the median of repeated calls at the timing size.

One timing run at a time per process: concurrent builds still load the machine, but two timed kernels never
compete for the same cores. On a GPU the toolchain's kernel-only times (`Toolchain.kernel_times`, from CUPTI)
replace the whole call's wall time, which would count allocation and copies. A failure of the timing run is the
suggestion's verdict (it ran at a size the validation did not).
"""

from __future__ import annotations

import statistics
import threading

from hpceval.cases.generate import timing_case
from hpceval.cases.io import read_times
from hpceval.checks.base import Job, check, only_case
from hpceval.contracts import Evaluation

TIMING_LOCK = threading.Lock()


@check("timing")
def timed(job: Job) -> Evaluation | None:
    if not (job.timing_wanted and job.can_time):
        return None
    case = timing_case(job.spec, job.seed)
    only_case(job, case)
    with TIMING_LOCK:
        result = job.exec(job.toolchain.run_argv(job.model))
    job.timed = True
    failure = job.run_failure(result, 1, f"timing at {case.label}")
    if failure:
        return failure
    times = read_times(job.workdir, 0)
    if not times:
        return None
    per_call, how = job.toolchain.kernel_times(job.workdir, job.model, case.warmup + case.reps, case.warmup, job.code)
    if per_call:  # GPU: the kernels' own device time per call, not allocation and copies
        job.timing_note = (f"timed: GPU kernels only ({how}); whole call incl. transfers median "
                           f"{statistics.median(times):.3e} s")
        times = list(per_call)
    times.sort()
    median = statistics.median(times)
    q = statistics.quantiles(times, n=4) if len(times) >= 2 else [median, median, median]
    scalars = {p.name: case.inputs[p.name] for p in job.spec.params if not p.is_array}
    flops = job.spec.metric(job.spec.flops, {**case.size, **scalars})
    nbytes = job.spec.metric(job.spec.bytes, {**case.size, **scalars})
    job.timing = {"time_median_s": median, "time_min_s": times[0], "time_iqr_s": q[2] - q[0],
                  "gflops": flops / median / 1e9 if median > 0 else None,
                  "gbytes_per_s": nbytes / median / 1e9 if median > 0 else None}
    return None
