"""gfortran for Fortran OpenMP, OpenMP target (host fallback: shared memory) and OpenACC (host device).

The driver's runtime (bind/drivers/hpceval_runtime.c: the clock as a raw system call, the liveness check after each
timed call, output fingerprints, the raw exit) is C; gfortran compiles it with the unit and the Fortran driver
binds to it (bind(c)), so the driver's clock is no libgfortran/libc function a suggestion could interpose.
"""

from hpceval.paths import DRIVERS_DIR
from hpceval.spec import ProgrammingModel
from hpceval.toolchains import CompiledToolchain, ThreadCheck

RUNTIME_C = DRIVERS_DIR / "hpceval_runtime.c"


class Gfortran(ThreadCheck, CompiledToolchain):
    name = "gfortran"
    language = "fortran"
    compiler = "gfortran"
    # LLM Fortran often puts large temporaries on the stack; the sandbox stack rlimit covers that.
    base_flags = ("-O2", "-ffree-line-length-none", "-w")
    install_hint = "apt-get install gfortran"
    thread_models = frozenset({"fortran-openmp"})
    thread_hint = (" (no parallel team ever started: a worksharing directive with no enclosing !$omp parallel, "
                   "num_threads(1), or an if clause that is false)")

    sources = ("kernel.f90", "driver.f90", RUNTIME_C.name)

    def unit_files(self, model: ProgrammingModel) -> dict[str, str]:
        """The runtime travels with the unit into the work dir: a container sees only that, never the host's tree."""
        return {RUNTIME_C.name: RUNTIME_C.read_text()}


TOOLCHAIN = Gfortran()
