"""Timer interposition: a compiled suggestion must not define the clock, I/O or exit functions of the C library.

A suggestion is linked into the driver's program, so a function it defines under a C library name replaces the
library's for every caller in the process (the executable's symbols come first), the driver's reads of its
inputs and its allocations included: `clock_gettime` returning a frozen clock, `omp_get_wtime`, `gettimeofday`, `fopen`/`fprintf` that rewrite the driver's timing record, `_exit`
or `atexit` that run code after it. The drivers no longer call any of these for timing (bind/drivers/
hpceval_runtime.c reads the clock with a raw system call), so interposition cannot change a time; this check makes
the attempt a verdict instead of a silent no-op: the built program's defined global symbols are listed (`nm`, in
the sandbox) and any of the names below is `wrong_result` "the suggestion defines NAME (timer interposition)".

Only names the C runtime, OpenMP, libgfortran, libstdc++'s clocks and CUPTI provide as shared libraries are
listed: nothing a correct kernel defines, and nothing a toolchain links statically (nvcc's static CUDA runtime
defines the cuda* API, so those are not listed; the GPU time comes from the CUPTI probe, whose calls are).
"""

from __future__ import annotations

import dataclasses
import re

from hpceval.checks.base import Job, check
from hpceval.contracts import Evaluation, Verdict

TIMERS = frozenset({
    "clock_gettime", "__clock_gettime", "clock_gettime64", "__clock_gettime64", "__vdso_clock_gettime",
    "gettimeofday", "__gettimeofday", "time", "clock", "times", "ftime", "clock_getres", "timespec_get",
    "omp_get_wtime", "omp_get_wtick", "MPI_Wtime", "syscall", "nanosleep",
    "_gfortran_system_clock_4", "_gfortran_system_clock_8", "_gfortran_system_clock_16", "_gfortran_cpu_time_4",
    "_gfortran_cpu_time_8", "_gfortran_cpu_time_10", "_gfortran_cpu_time_16", "_gfortran_date_and_time",
    "_ZNSt6chrono3_V212steady_clock3nowEv", "_ZNSt6chrono3_V212system_clock3nowEv",
    "_ZNSt6chrono12steady_clock3nowEv", "_ZNSt6chrono12system_clock3nowEv",
})
RECORD = frozenset({  # what writes the timing record, ends the process or runs code after the driver's last word
    "fopen", "fopen64", "freopen", "fdopen", "fwrite", "fputs", "fputc", "fprintf", "vfprintf", "fclose", "fflush",
    "open", "open64", "openat", "creat", "write", "pwrite", "pwrite64", "writev", "rename", "renameat", "unlink",
    "unlinkat", "remove", "exit", "_exit", "_Exit", "quick_exit", "atexit", "at_quick_exit", "__cxa_atexit",
    "on_exit", "abort", "dlopen", "dlsym", "getenv", "opendir", "readdir", "readdir64", "getpid", "gettid",
    "snprintf", "sprintf", "printf", "puts", "memcmp", "ldexp",
})
# what the driver reads the inputs and the plan with, and allocates with, before and while the suggestion runs: a
# suggestion that defines one (a global `operator new` that reads the case files when the driver's first
# constructor allocates) runs its code inside the driver's
INPUT = frozenset({
    "fread", "fscanf", "__isoc99_fscanf", "__isoc23_fscanf", "fgets", "getline", "getdelim", "read", "pread",
    "pread64", "readv", "mmap", "mmap64", "munmap", "stat", "fstat", "lstat", "memcpy", "memmove", "memset",
    "malloc", "calloc", "realloc", "free", "aligned_alloc", "posix_memalign", "memalign", "valloc", "pvalloc",
    "closedir", "fdopendir", "rewinddir", "scandir", "fmemopen", "atoi", "atol", "strtol", "strtod", "strcmp",
    "strncmp", "strrchr", "strchr", "strtok", "strlen", "strstr",
})
PREFIXES = ("cupti", "hpceval_probe_", "hpceval_rt_", "_Znw", "_Zna", "_Zdl", "_Zda",  # + global operator new/delete
            "__cxa_", "_Unwind_", "__gxx_")  # the C++ runtime's (static-local guards, exceptions, exit handlers)
STD = ("_ZNSt", "_ZNKSt", "_ZSt")  # a strong (not template-instantiated) definition in namespace std: a replacement
_NM_LINE = re.compile(r"^\s*(?:[0-9a-fA-F]+\s+)?([TWiVDBR])\s+(\S+)$")


def forbidden(symbols: list[tuple[str, str]], own: frozenset[str] = frozenset()) -> str | None:
    """The first defined global function symbol that interposes on the driver's clock, record or exit."""
    for kind, name in symbols:
        if kind not in "TWi" or name in own:
            continue
        base = name.split("@")[0]
        if base in TIMERS or base in RECORD or base in INPUT or base.startswith(PREFIXES) or \
                (kind == "T" and base.startswith(STD)):
            return base
    return None


def defined_symbols(text: str) -> list[tuple[str, str]]:
    out = []
    for line in text.splitlines():
        m = _NM_LINE.match(line)
        if m:
            out.append((m.group(1), m.group(2)))
    return out


@check("timer interposition")
def defines_no_timer(job: Job) -> Evaluation | None:
    if not (job.workdir / "prog").is_file() or (job.workdir / "prog").is_symlink():
        return None  # an interpreter (Python, Julia): its driver binds its clock before the suggestion loads
    limits = dataclasses.replace(job.build_limits, output_kb=max(job.build_limits.output_kb, 8192))
    result = job.exec(["nm", "--defined-only", "-g", "prog"], limits=limits)
    if result.returncode != 0:
        job.note("timer interposition not checked (nm failed)")
        return None
    # the Fortran driver links the runtime as its own object: its hpceval_rt_* symbols are the driver's
    own = frozenset(name for _, name in defined_symbols(result.stdout) if name.startswith("hpceval_rt_")) \
        if job.lang.id == "fortran" else frozenset()
    name = forbidden(defined_symbols(result.stdout), own)
    if name:
        return job.verdict(Verdict.wrong_result, f"the suggestion defines {name} (timer interposition): the program "
                                                 f"it is linked into would call it instead of the C library's")
    return None
