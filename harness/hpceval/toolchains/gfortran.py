"""gfortran for Fortran OpenMP, OpenMP target (host fallback: shared memory) and OpenACC (host device)."""

from hpceval.toolchains import CompiledToolchain


class Gfortran(CompiledToolchain):
    name = "gfortran"
    language = "fortran"
    compiler = "gfortran"
    # LLM Fortran often puts large temporaries on the stack; the sandbox stack rlimit covers that.
    base_flags = ("-O2", "-ffree-line-length-none", "-w")
    sources = ("kernel.f90", "driver.f90")
    install_hint = "apt-get install gfortran"


TOOLCHAIN = Gfortran()
