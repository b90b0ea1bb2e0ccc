"""Timing of a kernel that passed every check, with every timed call validated and the time held to physics.

Whatever the harness times is optimised against (issue 13: 27 of 33 CPU and 12 of 13 GPU reward-hacking
suggestions were `correct` with the old timing run, which called the kernel on one input set and never compared
the timed calls' outputs). So the timing run (cases/timing.py) gives every call fresh inputs from a secret seed,
re-poisons its outputs and has the driver report every call's output fingerprint and some calls' outputs in full;
a wrong call is `wrong_result` naming the timing size and the call. The driver reports work that continued after
a call returned (a thread or process the call started still running, outputs that changed afterwards):
`wrong_model`. The driver's clock is out of the suggestion's reach (bind/drivers/hpceval_runtime.c, the Python
driver binds its clock before importing the suggestion) and its record carries a per-run nonce; a forged record
is `wrong_result`. The median of the timed calls is then compared with the machine's physical lower bound
(hpceval.ceilings): below it the row is flagged `timing_implausible` and kept out of the speed metrics.

One timing run at a time per node (hpceval.timing_lock: the jobs of this process and the harness processes beside
it, e.g. a cluster's workers): concurrent builds still load the machine, but two timed kernels never compete for
the same cores or GPU. On a GPU the toolchain's kernel-only times (`Toolchain.kernel_times`, from CUPTI,
attributed to calls by the driver's marks) replace the whole call's wall time; a call during which no kernel ran
keeps its whole (host) time, never 0 s.
"""

from __future__ import annotations

import secrets
import statistics
import threading

from hpceval.cases.timing import PREPARED, PREPARED_LOCK, TimingPlan, make_plan, read_record, shared_key, write_plan
from hpceval.cases.timing_check import check_calls, prepare_layouts, prepare_references
from hpceval.ceilings import lower_bound
from hpceval.checks.base import Job, check
from hpceval.contracts import Evaluation, Verdict
from hpceval.timing_lock import TimingLock

TIMING_LOCK = TimingLock()


def timing_size(job: Job) -> dict[str, int]:
    """The spec's timing size, or its GPU timing size for GPU models (a working set that leaves the L2)."""
    gpu = getattr(job.spec.sizes, "gpu_timing", None)
    return dict(gpu) if gpu and job.device == "gpu" else dict(job.spec.sizes.timing)




def prepare(job: Job) -> None:
    """Start making the timing run's shared input sets and references for this job's kernel and size, and their
    files' contents in this job's language layout, once per process, in a thread of its own, while the job builds
    and validates (they took a second or two in the first suggestion of each kernel; a Fortran GEMV's transposed
    sets about one more). It holds TIMING_LOCK: no timing run, this job's or another's, shares the CPU with it."""
    if not (job.timing_wanted and job.can_time):
        return
    size = timing_size(job)
    reps = job.spec.sizes.timing_reps
    key = shared_key(job.spec, size, reps)
    layout = (key, job.lang.array_order, job.lang.index_base, job.lang.class_indices)
    with PREPARED_LOCK:  # forgotten when the sets are evicted (cases.timing), so made again for new sets
        todo = [k for k in (key, layout) if k not in PREPARED]
        PREPARED.update(todo)
    if not todo:
        return

    def work() -> None:
        with TIMING_LOCK:
            try:
                if key in todo:
                    prepare_references(job.spec, size, reps)
                if layout in todo:
                    prepare_layouts(job.spec, size, reps, job.lang)
            except Exception:  # noqa: BLE001 - the timing run makes them itself, and reports what fails
                pass

    threading.Thread(target=work, name="hpceval-timing-prepare", daemon=True).start()


@check("timing")
def timed(job: Job) -> Evaluation | None:
    if not (job.timing_wanted and job.can_time):
        return None
    plan = make_plan(job.spec, timing_size(job), job.spec.sizes.timing_reps)
    write_plan(job.workdir, job.spec, job.lang, plan)
    env = dict(job.env)
    probe_file = None
    if "HPCEVAL_PROBE_OUT" in env:  # a name the job cannot know: the probe takes it from the environment and removes it
        probe_file = env["HPCEVAL_PROBE_OUT"] = f"gpu_probe-{secrets.token_hex(8)}.txt"
    with TIMING_LOCK:
        result = job.exec(job.toolchain.run_argv(job.model), env=env)
    job.timed = True
    failure = job.run_failure(result, 1, f"timing at {plan.label}")
    record = read_record(job.workdir, plan)
    if failure and record.live:  # a thread the call left running crashes the exit that frees its arrays: name the cause
        k, what = record.live
        return job.verdict(Verdict.wrong_model, f"work continued after the call returned ({plan.describe(k)}: {what}); "
                           f"the run then failed: {failure.evidence}", failed_size=plan.label)
    if failure:
        return failure
    if record.problem:
        verdict = Verdict.runtime_error if "ended before" in record.problem else Verdict.wrong_result
        return job.verdict(verdict, f"timing size {plan.label}: {record.problem}", failed_size=plan.label)
    if record.live:
        k, what = record.live
        return job.verdict(Verdict.wrong_model, f"work continued after the call returned ({plan.describe(k)}: {what})",
                           failed_size=plan.label)
    if record.early:
        k, what = record.early
        return job.verdict(Verdict.wrong_model, f"work done before the call started ({plan.describe(k)}: {what})",
                           failed_size=plan.label)
    checked = check_calls(job.workdir, job.spec, job.lang, plan, record)
    if not checked.ok:
        return job.verdict(Verdict.wrong_result, checked.detail, failed_size=plan.label,
                           max_rel_error=max(job.worst or 0.0, checked.worst))
    times, note = _call_times(job, plan, record.times, probe_file)
    if isinstance(times, Evaluation):
        return times
    job.note(f"timing: all {len(plan.calls)} calls at {plan.label} validated ({checked.full} compared in full, max "
             f"rel error {checked.worst:.2e}; the others by output fingerprint; fresh inputs per call, "
             f"{plan.warmup} warm-up)")
    _record_times(job, plan, times)
    _plausibility(job, plan, sum(record.times), result.seconds)
    job.timing_note = note
    return None


def _call_times(job: Job, plan: TimingPlan, host: list[float], probe_file: str | None):
    """The timed calls' seconds: the whole call's (CPU), or the GPU kernels' own (CUPTI), host time where no kernel
    ran. An Evaluation when the probe saw GPU work outside every call."""
    timed = [host[k] for k in plan.timed]
    per_call, how = job.toolchain.kernel_times(job.workdir, job.model, len(plan.calls), plan.warmup, job.code,
                                               probe_file=probe_file, nonce=plan.nonce)
    outside = how.split(":", 1)[1].strip() if how.startswith("outside calls:") else None
    if outside is not None and "tampering" in how:
        return job.verdict(Verdict.wrong_result, f"timing size {plan.label}: {outside}", failed_size=plan.label), ""
    if outside is not None and job.harness_synced:
        # The harness launched the kernel and synchronised the device inside the call: nothing the suggestion
        # started can run past it, so device work seen outside the call windows is the probe's attribution (GPU
        # and host timestamps a few microseconds apart, summed over the calls; the harness's own copy-back right
        # after the end mark). Charging it made textbook kernels `wrong_model` on an H100 (13 of ParEval's 480).
        return timed, (f"whole calls, host clock (the probe placed device work outside the windows of calls "
                       f"the harness synchronises itself: {outside})")
    if outside is not None:
        return job.verdict(Verdict.wrong_model, f"work continued after the call returned ({outside})",
                           failed_size=plan.label), ""
    if not per_call:
        return timed, ""
    empty = [i for i, t in enumerate(per_call) if t <= 0]
    times = [t if t > 0 else timed[i] for i, t in enumerate(per_call)]
    note = f"timed: GPU kernels only ({how}); whole call incl. transfers median {statistics.median(timed):.3e} s"
    if empty:
        note += f"; {len(empty)} call(s) ran no GPU kernel: their whole host time counts"
    return times, note


def _record_times(job: Job, plan: TimingPlan, times: list[float]) -> None:
    times = sorted(times)
    median = statistics.median(times)
    q = statistics.quantiles(times, n=4) if len(times) >= 2 else [median, median, median]
    inputs = plan.sets[0]
    scalars = {p.name: inputs[p.name] for p in job.spec.params if not p.is_array}
    flops = job.spec.metric(job.spec.flops, {**plan.size, **scalars})
    nbytes = job.spec.metric(job.spec.bytes, {**plan.size, **scalars})
    job.timing = {"time_median_s": median, "time_min_s": times[0], "time_iqr_s": q[2] - q[0],
                  "gflops": flops / median / 1e9 if median > 0 else None,
                  "gbytes_per_s": nbytes / median / 1e9 if median > 0 else None}


def _plausibility(job: Job, plan: TimingPlan, reported: float, outside: float) -> None:
    """Flag a median below the physical lower bound, or per-call times that add up to more than the whole run."""
    median = job.timing["time_median_s"]
    inputs = plan.sets[0]
    scalars = {p.name: inputs[p.name] for p in job.spec.params if not p.is_array}
    flops = job.spec.metric(job.spec.flops, {**plan.size, **scalars})
    nbytes = job.spec.metric(job.spec.bytes, {**plan.size, **scalars})
    reasons = []
    bound = lower_bound(flops, nbytes, job.spec.dtype, job.device)
    if bound is not None and median < bound.seconds:
        reasons.append(f"median {median:.3e} s is below the physical lower bound {bound.seconds:.3e} s ({bound.how})")
    if outside > 0 and reported > outside * 1.05 + 0.05:
        reasons.append(f"the calls' reported times add up to {reported:.3f} s, more than the whole run took "
                       f"({outside:.3f} s measured by the harness)")
    if reasons:
        job.timing["timing_implausible"] = True
        job.note("timing_implausible: " + "; ".join(reasons) + " (left out of the speed metrics)")
    else:
        job.timing["timing_implausible"] = False
