"""Toolchains: one module per compiler family; each knows how to detect itself, build and run a bound unit.

A toolchain module defines `TOOLCHAIN`, an instance of a `Toolchain` subclass. The evaluator asks it for the
build steps and the run command of a programming model and hands them to an executor; it never runs code itself.
Beyond building and running, `Toolchain` declares the optional capabilities a toolchain may provide (per-model
availability, per-job adjustments, a dynamic usage check, a second validation run, a thread check, kernel-only
times), each with a neutral default; the checks in `hpceval.checks` call them at a fixed point of the evaluation.
"""

from __future__ import annotations

import importlib
import os
import re
import shutil
import subprocess
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from hpceval.bind import DriverHooks
from hpceval.cases.io import read_threads
from hpceval.contracts import ProcResult
from hpceval.spec import ProgrammingModel


@dataclass(frozen=True)
class ToolInfo:
    """What `detect` found: whether builds and runs are possible here, the version, and how to get it."""

    available: bool
    version: str = ""
    can_run: bool = True
    how_to_get: str = ""
    note: str = ""


def threads() -> int:
    """Threads per job: the OMP/Numba thread count the drivers run with (HPCEVAL_THREADS overrides)."""
    return int(os.environ.get("HPCEVAL_THREADS", min(os.cpu_count() or 1, 8)))


def tool_version(argv: list[str], pattern: str = r"(\d+\.\d+(\.\d+)?)") -> str:
    """First version-looking token of a tool's --version output ('' if the tool is missing)."""
    if not shutil.which(argv[0]):
        return ""
    try:
        out = subprocess.run(argv, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    text = out.stdout + out.stderr
    match = re.search(pattern, text)
    first = text.strip().splitlines()[0] if text.strip() else ""
    return first if not match else f"{argv[0]} {match.group(1)}"


def with_standard(argv: list[str], toolchain: Toolchain, standard: str | None) -> list[str]:
    """argv with the toolchain's default `-std=` replaced by `standard` (also inside a `sh -c` line); unchanged for
    None or the default."""
    if not standard or not toolchain.standards or standard == toolchain.standards[0]:
        return argv
    return [a.replace(f"-std={toolchain.standards[0]}", f"-std={standard}") for a in argv]


def standard_name(standard: str) -> str:
    """`c++20` -> `C++20`: as the evidence names it."""
    return standard.upper()


@dataclass
class StandardBuild:
    """What build_with_standards did: the result that counts, and with which standard."""

    result: ProcResult | None  # the last step's result of the build that counts (the default's where none built)
    standard: str | None = None  # the newer standard that built it; None: the default's build counts
    default_failure: ProcResult | None = None  # the default's failed step, where a newer standard was tried
    newest_failure: ProcResult | None = None  # the newest standard's failed step, where none built
    standards: tuple[str, ...] = ()  # the toolchain's standards, the default first


def build_with_standards(toolchain: Toolchain, steps: list[list[str]],
                         run: Callable[[list[str]], ProcResult]) -> StandardBuild:
    """The build steps through `run`, stopping at the first failure; where the default standard's build fails (not
    by a timeout), the whole build again with each newer standard (Toolchain.standards) until one builds. Code
    that builds with the default is never rebuilt, so C++17 code that C++20 rejects keeps its C++17 build."""

    def attempt(standard: str | None) -> ProcResult | None:
        result = None
        for step in steps:
            result = run(with_standard(step, toolchain, standard))
            if result.returncode != 0 or result.timed_out:
                break
        return result

    first = attempt(None)
    if first is None or first.returncode == 0 or first.timed_out or len(toolchain.standards) < 2:
        return StandardBuild(first)
    newest = None
    for standard in toolchain.standards[1:]:
        newest = attempt(standard)
        if newest is not None and newest.returncode == 0 and not newest.timed_out:
            return StandardBuild(newest, standard, first, None, toolchain.standards)
    return StandardBuild(first, None, first, newest, toolchain.standards)


# The variables that pick which accelerators a process sees. A harness process pinned to one GPU of a multi-GPU
# node (one run per GPU, a Slurm job given one GPU) passes them to its sandboxed builds and runs; without them
# every run saw every GPU and used the first, so runs meant for four GPUs all ran, and were timed, on one.
DEVICE_SELECTION = ("CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES",
                    "GPU_DEVICE_ORDINAL")


def device_selection() -> dict[str, str]:
    """This process's accelerator selection, as its sandboxed runs must see it."""
    return {key: os.environ[key] for key in DEVICE_SELECTION if key in os.environ}


@dataclass
class JobAdjust:
    """What a toolchain changes for one suggestion (`Toolchain.job_adjustments`): validation sizes, extra
    environment, higher pids / address-space limits, no timing run, and a note for the evidence."""

    sizes: list[dict] | None = None
    env: dict[str, str] = field(default_factory=dict)
    pids: int | None = None
    address_space_mb: int | None = None
    timing: bool = True
    note: str = ""


class Toolchain(ABC):
    """Build and run commands for one compiler family; argv are run by an executor inside /w.

    The methods after `env` are optional capabilities: the defaults say "nothing to add", and a toolchain
    overrides the ones it has. When each is called is fixed by the order of the checks (`hpceval.evaluate`).
    """

    name: str = "abstract"
    language: str = ""
    driver_ext: str | None = None

    @property
    def standards(self) -> tuple[str, ...]:
        """The language standards a build may use, the default (the one in the build flags) first; a unit that
        does not build with the default is built with each newer one before it is a build_error
        (build_with_standards). LLM answers use C++20 (`std::span`, ranges) as readily as C++17."""
        return ("c++17", "c++20") if self.language == "cpp" else ()

    @abstractmethod
    def detect(self) -> ToolInfo: ...

    @abstractmethod
    def build_steps(self, model: ProgrammingModel) -> list[list[str]]: ...

    @abstractmethod
    def run_argv(self, model: ProgrammingModel) -> list[str]: ...

    def hooks(self, model: ProgrammingModel) -> DriverHooks:
        return DriverHooks()

    def env(self, model: ProgrammingModel) -> dict[str, str]:
        n = str(threads())
        return {**device_selection(), "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": "/tmp", "TMPDIR": "/tmp", "LANG": "C.UTF-8",
                "OMP_NUM_THREADS": n, "NUMBA_NUM_THREADS": n, "OMP_STACKSIZE": "64M",
                # Jobs share cores with other jobs: spinning OpenMP threads would starve each other (a gfortran
                # offload CG took 10-41 s instead of 0.3 s under load with the default active wait).
                "OMP_WAIT_POLICY": "passive",
                # LLVM's libomp (clang offload on the host, AdaptiveCpp) keeps the threads of a target teams region
                # spinning for its 200 ms block time despite the passive policy: the timing run's liveness check
                # saw that as work continuing after the call (every cpp-openmp-offload reference, first call)
                "KMP_BLOCKTIME": "0"}

    # ---------------------------------------------------------------- optional capabilities

    def device(self, model: ProgrammingModel, code: str = "") -> str:
        """Where this suggestion's kernels run on this machine ("cpu" or "gpu"): the model's own device, unless
        the toolchain's build decides (Kokkos with its CUDA backend, numba.cuda code on a GPU). It picks the
        timing size and the ceilings the time is held to: a GPU kernel timed at the CPU size and bounded by the
        host's ceilings was flagged `timing_implausible` while its throughput was reported at the GPU size."""
        return model.device

    def unit_files(self, model: ProgrammingModel) -> dict[str, str]:
        """Files of the harness's own that the build needs beside the bound unit (a runtime compiled with it),
        written into the work dir: jobs in a container see nothing of the host's tree."""
        return {}

    def model_info(self, model: ProgrammingModel, info: ToolInfo) -> ToolInfo:
        """Availability refined per model, for a toolchain that serves several (python_gpu: CuPy or pyCUDA).
        Called before any job, with what `detect` found."""
        return info

    def unit_hooks(self, model: ProgrammingModel, code: str) -> DriverHooks:
        """The driver hooks for one suggestion's unit: `hooks`, plus what this suggestion needs from the toolchain
        and did not write (a header it uses without including it: toolchains.sycl); said in the evidence by
        `job_adjustments`."""
        return self.hooks(model)

    def interpreted_env(self, model: ProgrammingModel, code: str) -> dict[str, str] | None:
        """Environment that runs the same suggestion without compiling it (Numba: NUMBA_DISABLE_JIT=1), or None.
        A validation run that crashes is run so too: where the interpreted code is right on every case, the crash
        was the compiler's, not the suggestion's (checks/outputs.py)."""
        return None

    def job_adjustments(self, spec, model: ProgrammingModel, code: str) -> JobAdjust | None:
        """Per-suggestion changes to sizes, environment, limits and timing (numba.cuda under the simulator, GPU
        jobs' sandbox needs). Called once before the build."""
        return None

    def dynamic_check(self, workdir: Path, model: ProgrammingModel, calls: int, code: str = "") -> tuple[str | None, str]:
        """(problem or None, evidence note) after the validation run: did the requested model do the work (a GPU
        kernel ran, a Kokkos dispatch happened)? A problem is `wrong_model`."""
        return None, ""

    def second_run(self, model: ProgrammingModel, code: str = "") -> SecondRun | None:
        """A second validation run under a checker (memcheck, a shared-memory rebuild), or None."""
        return None

    def checks_threads(self, model: ProgrammingModel, code: str = "") -> bool:
        """Whether this job's thread count is evidence (CPU threading models; see ThreadCheck)."""
        return False

    def thread_check(self, workdir: Path, model: ProgrammingModel, labels: list[str], code: str = "",
                     earlier: int = 0) -> tuple[str | None, str | None]:
        """(problem or None, note or None) from the thread records of the cases `labels` (see ThreadCheck)."""
        return None, None

    def kernel_times(self, workdir: Path, model: ProgrammingModel, calls: int, warmup: int,
                     code: str = "", *, probe_file: str | None = None, nonce: str = "") -> tuple[list[float], str]:
        """Per timed call, the device time of the kernels (s) and how calls were told apart; ([], why) when the
        whole call's wall time is what counts (CPU models); ([], "outside calls: ...") when device work ran
        outside every call. `probe_file`: the record's name for this run, `nonce`: the tag it must carry."""
        return [], ""


@dataclass(frozen=True)
class SecondRun:
    """A second validation run that shows what the first cannot (toolchain hook `second_run(model, code)`).

    GPU jobs run again under compute-sanitizer memcheck (an out-of-bounds device read gives plausible numbers);
    clang's x86 offload jobs run again built by g++ with target regions on the host, in shared memory, where the
    drivers' sentinel guards see an access past an array's end that the offload device copy hid. `finding` reads
    the checker's own report from the exit code and output; `validate` also checks the run's outputs. A run
    that fails otherwise (no checker, a timeout) only leaves a note: it never fails a kernel.
    """

    what: str
    argv: list[str]
    finding: Callable[[int, str], str | None]
    drop_env: tuple[str, ...] = ()
    validate: bool = False
    env: dict[str, str] = field(default_factory=dict)  # added for this run (a sanitizer's options)
    address_space_mb: int | None = None  # a sanitizer's shadow memory needs more address space than a job's limit
    wall_s: float | None = None  # a run that rebuilds first needs a build's time too


class ThreadCheck:
    """Mixin for toolchains of CPU threading models (OpenMP, Numba parallel): did more than one thread run the kernel?

    The static usage check only sees that a directive is there; this dynamic check catches one that does not
    parallelize (an orphaned `omp for` / `!$omp do` with no parallel region, num_threads(1), a false if clause, an
    njit function without parallel=True). For the models in `thread_models` the driver records per case the most
    threads it saw running the kernel (DriverHooks.thread_probe -> <case>/threads.txt); the evaluator asks
    `thread_check` after the validation run and, where that saw one thread (a kernel may stay serial below its own
    size threshold), once more after a run at the timing size, which decides. Only when jobs get threads() > 1.
    """

    thread_models: frozenset[str] = frozenset()
    thread_label: str = "OpenMP"  # whose threads: "2 OpenMP threads ran"
    thread_env: str = "OMP_NUM_THREADS"
    thread_hint: str = ""  # what one thread usually means, for the evidence
    # models whose serial run is reported ("parallel: no") rather than wrong_model: Numba, where the study counted
    # any JIT as the model; the rubric's numba_requires_parallel makes such rows wrong_model when scoring
    serial_allowed: frozenset[str] = frozenset()

    def hooks(self, model: ProgrammingModel) -> DriverHooks:
        hooks = super().hooks(model)  # type: ignore[misc]
        if model.id in self.thread_models:
            hooks.thread_probe = True
        return hooks

    def checks_threads(self, model: ProgrammingModel, code: str = "") -> bool:
        return model.id in self.thread_models and threads() > 1

    def thread_check(self, workdir: Path, model: ProgrammingModel, labels: list[str], code: str = "",
                     earlier: int = 0) -> tuple[str | None, str | None]:
        """(problem or None, evidence note or None) from the thread evidence of the run of cases `labels`.

        A problem only when the driver recorded one thread for every case; no evidence at all is no problem.
        `earlier`: the number of validation cases of an earlier run that also saw one thread (for the wording).
        """
        if not self.checks_threads(model, code):
            return None, None
        seen = [(label, read_threads(workdir, i)) for i, label in enumerate(labels)]
        seen = [(label, record) for label, record in seen if record is not None]
        if not seen:
            return None, None
        most = max(count for _, (count, _how) in seen)
        if most > 1:
            first = next(label for label, (count, _how) in seen if count > 1)
            how = next(how for _, (count, how) in seen if count == most)
            if earlier:
                where = f"at the timing size {first}; 1 thread at the {earlier} validation sizes"
            else:
                where = f"first at {first}" if first != labels[0] else ""
            details = "; ".join(part for part in (how, where) if part)
            return None, f"{most} {self.thread_label} threads ran" + (f" ({details})" if details else "")
        how = seen[-1][1][1]
        if earlier:
            where = f"the {earlier} validation sizes and the timing size {labels[0]}"
        else:
            where = f"the {len(labels)} validation sizes" if len(labels) > 1 else labels[0]
        return (f"only 1 thread ran the {self.thread_label} kernel at {where} with {self.thread_env}={threads()}"
                f"{': ' + how if how else ''}{self.thread_hint}"), None


# Code layout of the kernel independent of the harness's driver. The suggestion is compiled into one program with
# the driver (one translation unit for C++), so its hot loop lands wherever the driver's code before it puts it,
# and a short loop that straddles a 32-byte fetch window can run much slower (measured: the C++ OpenMP GEMM
# reference 18.5 ms with its inner loop at 16 mod 32, 10.2 ms at 0 mod 32, the only change one driver function
# fewer, `bench/timing_ablation.py`). A harness change must not move a kernel's speed: functions at 64 bytes and
# loops at 32 make the kernel's layout a function of its own code only. GCC and Clang spell them alike.
LAYOUT_FLAGS: tuple[str, ...] = ("-falign-functions=64", "-falign-loops=32")


def model_libs(model: ProgrammingModel) -> list[str]:
    """The model's `libs` (models.toml) as linker arguments after the sources: a name is -lNAME, a flag is kept."""
    return [lib if lib.startswith("-") else f"-l{lib}" for lib in model.libs]


class CompiledToolchain(Toolchain):
    """A compiler that turns the driver (which includes or links the kernel) into ./prog."""

    compiler: str = ""
    base_flags: tuple[str, ...] = ("-O2",)
    layout_flags: tuple[str, ...] = LAYOUT_FLAGS
    sources: tuple[str, ...] = ()
    install_hint: str = ""

    @cache  # noqa: B019 - toolchains are module singletons
    def detect(self) -> ToolInfo:
        version = tool_version([self.compiler, "--version"])
        if not version:
            return ToolInfo(False, how_to_get=self.install_hint)
        return ToolInfo(True, version)

    def build_steps(self, model: ProgrammingModel) -> list[list[str]]:
        return [[self.compiler, *self.base_flags, *self.layout_flags, *model.flags, *self.sources, "-o", "prog",
                 *self.link_flags(model), *model_libs(model)]]

    def link_flags(self, model: ProgrammingModel) -> list[str]:
        return []

    def run_argv(self, model: ProgrammingModel) -> list[str]:
        return ["./prog", "cases.txt"]


class UnknownToolchain(LookupError):
    pass


class MissingToolchain(Toolchain):
    """Stands in for a toolchain module that is not part of this installation: every job is infra_error."""

    def __init__(self, name: str):
        self.name = name

    def detect(self) -> ToolInfo:
        return ToolInfo(False, how_to_get=f"no toolchain module hpceval/toolchains/{self.name}.py in this version")

    def build_steps(self, model: ProgrammingModel) -> list[list[str]]:
        return []

    def run_argv(self, model: ProgrammingModel) -> list[str]:
        return []


@cache
def get_toolchain(name: str) -> Toolchain:
    if not re.fullmatch(r"[a-z_][a-z0-9_]*", name):
        raise UnknownToolchain(f"invalid toolchain name {name!r}")
    try:
        module = importlib.import_module(f"hpceval.toolchains.{name}")
    except ModuleNotFoundError as exc:
        if exc.name != f"hpceval.toolchains.{name}":
            raise
        return MissingToolchain(name)
    return module.TOOLCHAIN
