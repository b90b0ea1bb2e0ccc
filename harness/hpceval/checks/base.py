"""The job context every check reads, and the one interface every check implements.

A check needs the same few things (the work dir, the spec, the model, the toolchain, the environment and limits,
the cases, the timings so far); passing them one by one made every helper's parameter list long and every new
check touch the evaluator. `Job` carries them, plus the notes the checks add to the evidence; a `Check` looks at
the job and either says nothing (None) or ends the evaluation with a verdict.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from hpceval.cases.io import Case, remove_case_dirs, write_cases
from hpceval.checks.python_import import import_failure
from hpceval.contracts import Evaluation, ProcResult, Verdict
from hpceval.executors import Limits
from hpceval.spec import KernelSpec, Language, ProgrammingModel
from hpceval.toolchains import JobAdjust, Toolchain, with_standard

Runner = Callable[[list[str], Path, dict[str, str], Limits], ProcResult]


@dataclass
class Job:
    """One suggestion's evaluation after binding: what it runs with and what the checks found so far."""

    workdir: Path
    spec: KernelSpec
    model: ProgrammingModel
    lang: Language
    toolchain: Toolchain
    code: str  # what the model checks read: the bound function, what it uses, and the imports/includes
    mapping: dict[str, str]
    env: dict[str, str]
    build_limits: Limits
    run_limits: Limits
    seed: int
    timing_wanted: bool
    runner: Runner
    base: dict[str, Any]  # toolchain, version, image, device, variant: copied into every Evaluation
    adjust: JobAdjust | None = None
    function: str = ""  # the bound function's name in the suggestion (C++: possibly qualified)
    suggestion: str = ""  # the suggestion as given (before the harness's glue and wrappers)
    cases: list[Case] = field(default_factory=list)
    build_s: float = 0.0
    run_s: float | None = None
    worst: float | None = None
    notes: list[str] = field(default_factory=list)
    timing: dict[str, Any] = field(default_factory=dict)  # time_* / gflops / gbytes_per_s of the timing run
    timed: bool = False  # whether the timing run happened
    timing_note: str = ""  # how the time was taken, when not the whole call's wall time (last in the evidence)
    serial: bool = False  # the thread check saw one thread at every validation size (decided at the timing size)
    standard: str | None = None  # the newer language standard the build needed (checks.build), for every command
    # the call is the harness's own launch of the suggestion's kernel, ended by a device-wide synchronise
    # (bind.glue.launch): no work of the suggestion can outlive it
    harness_synced: bool = False

    @property
    def device(self) -> str:
        """Where the kernels run ("cpu"/"gpu"), as the toolchain decided for this suggestion (Toolchain.device)."""
        return str(self.base.get("device") or self.model.device)

    @property
    def can_time(self) -> bool:
        return self.adjust is None or self.adjust.timing

    def exec(self, argv: list[str], env: dict[str, str] | None = None, limits: Limits | None = None) -> ProcResult:
        argv = with_standard(argv, self.toolchain, self.standard)
        return self.runner(argv, self.workdir, self.env if env is None else env, limits or self.run_limits)

    def note(self, text: str | None) -> None:
        if text:
            self.notes.append(text)

    def verdict(self, verdict: Verdict, evidence: str, **fields: Any) -> Evaluation:
        """An Evaluation that ends the job, with what is known so far (build and run times, worst error)."""
        known = {"build_s": self.build_s, "run_s": self.run_s, "max_rel_error": self.worst}
        return Evaluation(verdict=verdict, evidence=evidence, **{**known, **fields}, **self.base)

    def run_failure(self, result: ProcResult, n_cases: int, phase: str) -> Evaluation | None:
        """A timeout or a crash of a run of `n_cases` cases as a verdict, or None when the run finished."""
        done = result.stdout.count("hpceval case ")
        where = f"{phase}: {done}/{n_cases} cases finished"
        if result.timed_out:
            return self.verdict(Verdict.timeout, f"{where}; killed after {self.run_limits.wall_s:.0f} s",
                                run_s=result.seconds, max_rel_error=None)
        tamper = TAMPER.search(result.stderr or "") if result.returncode != 0 else None
        if tamper:  # the Python driver caught the suggestion replacing its clock or writing past an array's end
            return self.verdict(Verdict.wrong_result, f"{where}; {tamper.group(1)}", run_s=result.seconds,
                                max_rel_error=None)
        imported = import_failure(result.stderr or "", self.model) if result.returncode != 0 else None
        if imported is not None:  # the Python driver could not import the suggestion: its build, not its run
            return self.verdict(imported[0], f"{where}; {imported[1]}", run_s=result.seconds, max_rel_error=None)
        if result.returncode != 0:
            signal = f" (signal {result.killed_by})" if result.killed_by else ""
            if result.killed_by == "SIGKILL":  # the kernel's memory cgroup kills with SIGKILL, without a message
                signal += (f": most likely the sandbox's memory limit ({self.run_limits.memory_mb} MiB) or process "
                           f"limit ({self.run_limits.pids}) was hit")
            return self.verdict(Verdict.runtime_error, f"{where}; exit {result.returncode}{signal}: {result.tail[-600:]}",
                                run_s=result.seconds, max_rel_error=None)
        return None


class Check(Protocol):
    """One step of the evaluation: None to go on, or the Evaluation that ends it (a verdict with evidence).

    A check may add notes (`job.note`) and record what later checks need on the job; it never builds an
    Evaluation other than through `job.verdict`, so every verdict carries the same fields.
    """

    name: str

    def __call__(self, job: Job) -> Evaluation | None: ...


@dataclass(frozen=True)
class FunctionCheck:
    """A check written as a function of the job (most are)."""

    name: str
    run: Callable[[Job], Evaluation | None]

    def __call__(self, job: Job) -> Evaluation | None:
        return self.run(job)


def check(name: str) -> Callable[[Callable[[Job], Evaluation | None]], FunctionCheck]:
    """Decorator: `@check("data sharing")` turns `def f(job)` into a named Check."""
    return lambda fn: FunctionCheck(name, fn)


def adjusted_limits(limits: Limits, adjust: JobAdjust | None) -> Limits:
    """Raise the pids / address-space limits where a toolchain needs it (CUDA reserves a large address space)."""
    if adjust is None:
        return limits
    changes = {name: max(getattr(limits, name), value) for name, value in
               (("pids", adjust.pids), ("address_space_mb", adjust.address_space_mb)) if value}
    return dataclasses.replace(limits, **changes) if changes else limits


# Linker lines that name what is missing without the word "error" (GNU ld, lld, the dynamic loader)
LINKER = re.compile(r"undefined reference to|undefined symbol|cannot find -l|multiple definition of")
LOCATION_ONLY = re.compile(r"^\S+\.\w+:\d+:\d+:\s*$")
LOCATED = re.compile(r"^\s*\S+\.\w+:\d+")


def first_errors(result: ProcResult) -> str:
    """The compiler lines that matter: the first few 'error' lines and the linker's undefined references (without
    them a link failure is only "collect2: error: ld returned 1 exit status"), else the tail."""
    text = result.stderr or result.stdout
    errors, where = [], ""
    for line in text.splitlines():
        if LOCATION_ONLY.match(line):  # gfortran: the place on a line of its own, "Error: ..." a few lines below
            where = line.strip()
        elif "error" in line.lower() or LINKER.search(line):
            errors.append(f"{where} {line.strip()}" if where and not LOCATED.match(line) else line)
            where = ""
    return ("\n".join(errors[:6]) if errors else text[-800:]).strip()[:1500]


def only_case(job: Job, case: Case) -> None:
    """Replace the work dir's cases with this one (the validation cases' folders are removed)."""
    remove_case_dirs(job.workdir)  # whatever the job turned them into: nothing is followed
    write_cases(job.workdir, job.spec, job.lang, [case])


# the Python driver's reports that decide a verdict (bind/drivers/python.j2): the suggestion replaced its clock, or a
# kernel stored past the end of a device array (its guard zone, bind.adapt.python DEVICE_GUARD_SOURCE)
TAMPER = re.compile(r"hpceval (?:tamper|out of bounds): ([^\n]*)")
STARTUP_FAILURE = re.compile(r"Fatal Python error: (init_\w+|_?Py_Initialize\w*|_PyInterpreter\w*)[^\n]*")
