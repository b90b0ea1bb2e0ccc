"""GCC C++ for OpenMP and OpenACC on the CPU (OpenACC runs as gcc's single-threaded host fallback)."""

from hpceval.toolchains import CompiledToolchain


class Gcc(CompiledToolchain):
    name = "gcc"
    language = "cpp"
    compiler = "g++"
    base_flags = ("-O2", "-std=c++17", "-w")
    sources = ("driver.cpp",)
    install_hint = "apt-get install g++"


TOOLCHAIN = Gcc()
