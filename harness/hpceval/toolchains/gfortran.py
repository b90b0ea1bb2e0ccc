"""gfortran for Fortran OpenMP, OpenMP target (host fallback: shared memory) and OpenACC (host device)."""

from hpceval.toolchains import CompiledToolchain, ThreadCheck


class Gfortran(ThreadCheck, CompiledToolchain):
    name = "gfortran"
    language = "fortran"
    compiler = "gfortran"
    # LLM Fortran often puts large temporaries on the stack; the sandbox stack rlimit covers that.
    base_flags = ("-O2", "-ffree-line-length-none", "-w")
    sources = ("kernel.f90", "driver.f90")
    install_hint = "apt-get install gfortran"
    thread_models = frozenset({"fortran-openmp"})
    thread_hint = (" (no parallel team ever started: a worksharing directive with no enclosing !$omp parallel, "
                   "num_threads(1), or an if clause that is false)")


TOOLCHAIN = Gfortran()
