"""Numeric validation: run every validation case once and compare each output with the reference.

This is the check that decides whether the numbers are right; all later checks ask whether they were obtained
the way the requested programming model demands. The first case that fails gives the evidence (size, how many
elements, the worst one); the declared structures (KernelSpec.structures) whose cases fail are named after it
("fails the structures: empty_rows"), and a run that crashes names the case it crashed in, so a kernel that skips
a structure is told which. The worst relative error over all cases is kept for the report.
"""

from __future__ import annotations

from hpceval.cases.compare import compare
from hpceval.cases.generate import make_case, size_label
from hpceval.cases.io import Case, MissingOutput, read_arrays, write_cases
from hpceval.cases.prepared import validation_cases
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
        failure = _crashed_in(job, result.stdout, failure)
        spared = _compiler_fault(job, result.stdout, failure)
        if spared is None:
            return failure
        job.note(spared)
    bad, job.worst, structures = first_bad_case(job)
    if bad:
        verdict, case, detail, error = bad
        said = driver_said(result.stderr)
        return job.verdict(verdict, f"{where(case)}: {detail}{structures_note(case, structures)}{said}",
                           max_rel_error=error, failed_size=case.label)
    return None


def driver_said(stderr: str | None) -> str:
    """What the driver reported about the outputs it read back (a resized vector, a returned array of another size),
    for the evidence: the first such line, else ""."""
    for line in (stderr or "").splitlines():
        if line.startswith("hpceval driver: ") and " elements" in line:
            return f" ({line.removeprefix('hpceval driver: ').strip()})"
    return ""


def where(case: Case) -> str:
    return f"structure {case.structure}, size {size_label(case.size)}" if case.structure else f"size {case.label}"


def structures_note(case: Case, failed: list[str]) -> str:
    others = [s for s in failed if s != case.structure]
    return f"; fails the structure{'s' if len(others) > 1 else ''}: {', '.join(others)}" if others else ""


def _crashed_in(job: Job, stdout: str, failure: Evaluation) -> Evaluation:
    """A crash's evidence with the case it happened in (the driver prints `hpceval case` after each one)."""
    done = stdout.count("hpceval case ")
    if failure.verdict not in (Verdict.runtime_error, Verdict.timeout) or done >= len(job.cases):
        return failure
    case = job.cases[done]
    return failure.model_copy(update={"evidence": f"{where(case)}: {failure.evidence}", "failed_size": case.label})


def _compiler_fault(job: Job, stdout: str, failure: Evaluation) -> str | None:
    """Why a crash of the compiled code on structural cases is the compiler's, not the suggestion's; None where it
    is the suggestion's. The toolchain must be able to run the code without compiling it (Toolchain.interpreted_env):
    the interpreted run must be right on every case, then the compiled code is validated again without the cases it
    crashed in, and every one of those must be a structural edge case (a crash on a plain size of the kernel stays
    the suggestion's failure: its ordinary domain must work as compiled). job.cases is left as validated last."""
    env = job.toolchain.interpreted_env(job.model, job.code)
    if env is None or failure.verdict != Verdict.runtime_error:
        return None
    cases, argv = list(job.cases), job.toolchain.run_argv(job.model)
    done = stdout.count("hpceval case ")
    if done >= len(cases) or not cases[done].structure:  # after the last case, or on a plain size of the kernel
        return None
    crashed = [cases[done]]
    interpreted = job.exec(argv, env={**job.env, **env})
    if job.run_failure(interpreted, len(cases), "validation") is not None or first_bad_case(job)[0] is not None:
        return None
    why = failure.evidence.strip().splitlines()[-1][:200]
    while True:
        job.cases = [c for c in cases if all(c is not x for x in crashed)]
        write_cases(job.workdir, job.spec, job.lang, job.cases)
        rerun = job.exec(argv)
        job.run_s = (job.run_s or 0.0) + rerun.seconds
        again = job.run_failure(rerun, len(job.cases), "validation")
        if again is None:
            break
        done = rerun.stdout.count("hpceval case ")
        if again.verdict != Verdict.runtime_error or done >= len(job.cases) or not job.cases[done].structure:
            job.cases = cases
            return None
        crashed.append(job.cases[done])
    named = "; ".join(where(c) for c in crashed)
    return (f"{named}: the compiled code crashed ({why}); run without compiling ({' '.join(f'{k}={v}' for k, v in env.items())}) "
            f"the same code is right on every case: the compiler's fault, not the suggestion's (not counted)")


def job_cases(job: Job) -> list[Case]:
    """The spec's validation cases (made once per graded kernel, with their references: cases/prepared.py), or
    the toolchain's own sizes for this job (e.g. under a simulator)."""
    if job.adjust and job.adjust.sizes is not None:
        return [make_case(job.spec, size, job.seed) for size in job.adjust.sizes]
    return validation_cases(job.spec, job.seed)


def first_bad_case(job: Job) -> tuple[tuple | None, float, list[str]]:
    """((verdict, case, detail, error) of the first bad case, or None; the worst relative error seen; the declared
    structures whose cases fail (every case is compared: a plain size that fails first must not hide them)."""
    worst = 0.0
    first: tuple | None = None
    structures: list[str] = []
    for i, case in enumerate(job.cases):
        try:
            outputs = read_arrays(job.workdir, i, job.spec, job.lang, case)
        except MissingOutput as exc:
            return first or (Verdict.runtime_error, case, str(exc), None), worst, structures
        result = compare(job.spec, case, outputs)
        worst = max(worst, result.max_rel_error)
        if not result.ok:
            first = first or (Verdict.wrong_result, case, result.detail, result.max_rel_error)
            if case.structure and case.structure not in structures:
                structures.append(case.structure)
    return first, worst, structures
