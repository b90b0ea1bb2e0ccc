"""GCC C++ for OpenMP and OpenACC on the CPU (OpenACC runs as gcc's single-threaded host fallback)."""

from hpceval.toolchains import CompiledToolchain, ThreadCheck


class Gcc(ThreadCheck, CompiledToolchain):
    name = "gcc"
    language = "cpp"
    compiler = "g++"
    base_flags = ("-O2", "-std=c++17", "-w")
    sources = ("driver.cpp",)
    install_hint = "apt-get install g++"
    thread_models = frozenset({"cpp-openmp"})
    thread_hint = (" (no parallel team ever started: a worksharing directive with no enclosing #pragma omp parallel, "
                   "num_threads(1), or an if clause that is false)")


TOOLCHAIN = Gcc()
