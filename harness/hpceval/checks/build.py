"""The build: every build step of the toolchain must succeed within the build limits.

A compiler error is the suggestion's `build_error` (with the compiler's first error lines as evidence), a build
that runs past its limit a `timeout`; the build time is kept for the report either way.

A build step that failed because the sandbox's process or thread limit was hit ("sh: 1: Cannot fork", a compiler
driver that cannot vfork its cc1plus, EAGAIN: seen with Triton builds at 16 parallel jobs) says nothing about the
suggestion: the step is retried once after a pause, and a second such failure is the harness's (`SandboxError`,
which the evaluator turns into `infra_error`). The signature is matched on the tool's own lines only, never on the
source lines a compiler echoes under an error, so code that merely prints "Cannot fork" stays the suggestion's.
"""

from __future__ import annotations

import re
import time

from hpceval.checks.base import Job, check, first_errors
from hpceval.contracts import Evaluation, ProcResult, Verdict
from hpceval.executors import SandboxError
from hpceval.toolchains import StandardBuild, build_with_standards, standard_name

# What the shell, the compiler drivers, Python and the C++ runtime print when fork/clone/pthread_create got EAGAIN.
SANDBOX_LIMIT = re.compile(
    r"^(?!\s*\d*\s*\|)"  # not a source line a compiler echoes ("    5 |   puts(...)")
    r".*(?:\bCannot fork\b|\bCould not fork\b|\b(?:v?fork|clone|posix_spawn)\b[^\n]*Resource temporarily unavailable"
    r"|\[Errno 11\] Resource temporarily unavailable|^\s*what\(\):\s+Resource temporarily unavailable"
    r"|pthread_create failed\b[^\n]*(?:EAGAIN|Resource temporarily unavailable))",
    re.MULTILINE | re.IGNORECASE)
RETRY_PAUSE_S = 2.0


def sandbox_limit(result: ProcResult) -> str | None:
    """The line saying the step hit the sandbox's process/thread limit, or None."""
    found = SANDBOX_LIMIT.search(f"{result.stderr}\n{result.stdout}")
    return found.group(0).strip() if found else None


@check("build")
def builds(job: Job) -> Evaluation | None:
    built = build_with_standards(job.toolchain, job.toolchain.build_steps(job.model), lambda step: _run_step(job, step))
    result = built.result
    if result is None:
        return None
    if result.timed_out:
        return job.verdict(Verdict.timeout, f"build exceeded {job.build_limits.wall_s:.0f} s")
    if result.returncode != 0:
        return job.verdict(Verdict.build_error, standards_evidence(built, first_errors(result)))
    if built.standard:
        job.standard = built.standard  # every later command (a run that builds, a second build) uses it too
        job.note(standards_evidence(built, ""))
    return None


def standards_evidence(built: StandardBuild, errors: str) -> str:
    """What the evidence says of the standards tried: the newer one that built the code and the default's first
    error, or, where none built, the default's errors and the newest standard's first error where it differs."""
    if built.standard and built.default_failure is not None:
        first = first_errors(built.default_failure).split("\n")[0]
        return f"built as {standard_name(built.standard)} (as {standard_name(built.standards[0])}: {first})"
    newest = built.newest_failure
    if newest is None or newest.timed_out:
        return errors
    line = first_errors(newest).split("\n")[0]
    if line and line != errors.split("\n")[0]:
        return f"{errors}\nas {standard_name(built.standards[-1])}: {line}"
    return errors


def _run_step(job: Job, step: list[str]) -> ProcResult:
    """One build step, retried once where the sandbox's process limit stopped it; twice is a harness fault."""
    for attempt in range(2):
        result = job.exec(step, limits=job.build_limits)
        job.build_s += result.seconds
        limit = sandbox_limit(result) if result.returncode != 0 and not result.timed_out else None
        if limit is None:
            return result
        if attempt == 0:
            time.sleep(RETRY_PAUSE_S)
    raise SandboxError(f"the build hit the sandbox's process limit ({job.build_limits.pids} processes) twice: {limit}")
