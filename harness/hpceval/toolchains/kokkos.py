"""Kokkos, built once per machine from the Kokkos 3.4.01 bundled in PyPI's pykokkos-base 0.0.7 sdist.

Backends: OpenMP on the CPU (g++), CUDA on an NVIDIA GPU (nvcc through Kokkos' nvcc_wrapper). The default is
CUDA where an NVIDIA GPU and nvcc exist, else OpenMP; HPCEVAL_KOKKOS_BACKEND=openmp|cuda forces one.

Each backend is installed under $HPCEVAL_CACHE (default ~/.cache/hpceval) as kokkos-3.4.01-<backend>; it is built
on first use (a file lock makes concurrent jobs wait for one build), or ahead of time with

    python -m hpceval.toolchains.kokkos build openmp cuda

The sdist comes from $HPCEVAL_KOKKOS_SDIST, the cache, or `pip download` (PyPI). Kokkos 3.4 predates CUDA 13, so
three small patches are applied before the CUDA build: nvcc_wrapper's default arch (sm_35, which nvcc 13 rejects)
becomes $NVCC_WRAPPER_DEFAULT_ARCH or sm_80; Kokkos' CUDA half_t (uses conversions CUDA 13 removed) is disabled;
cudaMemPrefetchAsync gets CUDA 13's cudaMemLocation signature. The library is built as Ampere (AMPERE80, the newest
Kokkos 3.4 option, with its -arch replaced by the device's own, e.g. sm_90 on Hopper: Kokkos 3.4 aborts when the
library's kernels were built for another major arch) and the unit under test for the same arch.

Dynamic usage check: a Kokkos profiling tool (include/hpceval_kokkos_tool.cpp, loaded through
KOKKOS_PROFILE_LIBRARY) counts the user's parallel dispatches, the execution space each ran on, and the OpenMP
threads; with CUDA the GPU probe also checks that kernels ran on the device. The dispatches must have run on the
build's device space (Cuda, or OpenMP for the OpenMP backend): a kernel whose every dispatch ran on
`Kokkos::Serial` (or, in a CUDA build, on a host space) is `wrong_model`. Without a tool record the source
decides (analysis.kokkos_spaces: every dispatch pinned to a host space). The OpenMP backend is built with Serial
enabled, so such code builds and is judged rather than failing to compile.
"""

from __future__ import annotations

import glob
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from functools import cache
from pathlib import Path

from hpceval.analysis.kokkos_spaces import host_space_problem
from hpceval.bind import DriverHooks
from hpceval.cases.io import read_optional_text
from hpceval.spec import ProgrammingModel
from hpceval.toolchains import LAYOUT_FLAGS, JobAdjust, Toolchain, ToolInfo, model_libs, threads
from hpceval.toolchains.cuda import (
    GPU_JOB_ENV,
    INCLUDE_DIR,
    FileLock,
    GpuProbeMixin,
    cache_dir,
    cached_library,
    cuda_arch,
    cuda_root,
    nvcc_path,
    nvidia_gpu,
    probe_env,
)
from hpceval.toolchains.source_build import SourceBuildError, finish_install, is_complete, run_steps

KOKKOS_VERSION = "3.4.01"
SDIST_NAME = "pykokkos-base-0.0.7.tar.gz"
SDIST_REQ = "pykokkos-base==0.0.7"
KOKKOS_ARCH = "AMPERE80"
TOOL_SOURCE = INCLUDE_DIR / "hpceval_kokkos_tool.cpp"
PROBE_FILE = "kokkos_probe.txt"
# Kokkos::Tools::Experimental::DeviceType: the top 8 bits of the device id a dispatch reports
SPACE_NAMES = {0: "Serial", 1: "OpenMP", 2: "Cuda", 3: "HIP", 4: "OpenMPTarget", 5: "HPX", 6: "Threads", 7: "SYCL"}
DEVICE_SPACE = {"cuda": "Cuda", "openmp": "OpenMP"}
BUILD_HINT = "python -m hpceval.toolchains.kokkos build {backend}  (needs cmake, g++, and PyPI or $HPCEVAL_KOKKOS_SDIST)"


class KokkosBuildError(SourceBuildError):
    pass


def install_dir(backend: str) -> Path:
    """The cached install; the CUDA one is per GPU arch (Kokkos 3.4 refuses kernels built for another major)."""
    suffix = f"cuda-{cuda_arch()}" if backend == "cuda" else f"{backend}-serial"
    return cache_dir() / f"kokkos-{KOKKOS_VERSION}-{suffix}"


def _installed(backend: str) -> bool:
    return is_complete(install_dir(backend))


def sdist_path(download: bool = True) -> Path | None:
    """The pykokkos-base sdist: $HPCEVAL_KOKKOS_SDIST, the cache, else `pip download` it into the cache."""
    given = os.environ.get("HPCEVAL_KOKKOS_SDIST")
    if given and Path(given).is_file():
        return Path(given)
    cached = cache_dir() / "src" / SDIST_NAME
    if cached.is_file():
        return cached
    if not download:
        return None
    cached.parent.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", "pykokkos-base", SDIST_REQ,
           "-d", str(cached.parent)]
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if result.returncode != 0 or not cached.is_file():
        raise KokkosBuildError(f"cannot download {SDIST_REQ}: {(result.stderr or result.stdout)[-400:]}")
    return cached


def _patch(src: Path, arch: str = "sm_80") -> None:
    """Make Kokkos 3.4.01 build with nvcc 13 for `arch` (see the module docstring)."""
    arch_cmake = src / "cmake" / "kokkos_arch.cmake"
    text = arch_cmake.read_text()
    arch_cmake.write_text(text.replace("CHECK_CUDA_ARCH(AMPERE80  sm_80)", f"CHECK_CUDA_ARCH(AMPERE80  {arch})", 1))
    wrapper = src / "bin" / "nvcc_wrapper"
    text = wrapper.read_text()
    wrapper.write_text(text.replace('default_arch="sm_35"', 'default_arch="${NVCC_WRAPPER_DEFAULT_ARCH:-sm_80}"', 1))
    half = src / "core" / "src" / "Cuda" / "Kokkos_Cuda_Half.hpp"
    text = half.read_text()
    old = "#if !(defined(KOKKOS_COMPILER_CLANG) && KOKKOS_COMPILER_CLANG < 900) && \\"
    if old in text:
        half.write_text(text.replace(old, "#if 0 && !(defined(KOKKOS_COMPILER_CLANG) && KOKKOS_COMPILER_CLANG < 900) && \\", 1))
    space = src / "core" / "src" / "Cuda" / "Kokkos_CudaSpace.cpp"
    text = space.read_text()
    old = ("    CUDA_SAFE_CALL(cudaMemPrefetchAsync(ptr, bytes, space.cuda_device(),\n"
           "                                        space.cuda_stream()));")
    new = ("#if CUDART_VERSION >= 13000\n"
           "    cudaMemLocation hpceval_loc;\n"
           "    hpceval_loc.type = cudaMemLocationTypeDevice;\n"
           "    hpceval_loc.id = space.cuda_device();\n"
           "    CUDA_SAFE_CALL(cudaMemPrefetchAsync(ptr, bytes, hpceval_loc, 0, space.cuda_stream()));\n"
           "#else\n" + old + "\n#endif")
    if old in text:
        space.write_text(text.replace(old, new, 1))


def _libcuda_stub(where: Path) -> Path:
    """An empty libcuda.so for CMake's CUDA::cuda_driver target: Kokkos 3.4 links it but calls no driver API."""
    stub = where / "libcuda.so"
    c = where / "stub.c"
    c.write_text("int hpceval_libcuda_stub;\n")
    subprocess.run(["gcc", "-shared", "-fPIC", "-Wl,-soname,libcuda.so.1", "-o", str(stub), str(c)], check=True,
                   capture_output=True)
    return stub


def build_kokkos(backend: str, jobs: int | None = None, log=None) -> Path:
    """Configure, build and install Kokkos for `backend` into the cache (no-op when it is there already)."""
    if backend not in ("openmp", "cuda"):
        raise KokkosBuildError(f"unknown Kokkos backend {backend!r}: openmp or cuda")
    target = install_dir(backend)
    if _installed(backend):
        return target
    with FileLock(cache_dir() / f".kokkos-{backend}.lock"):
        if _installed(backend):
            return target
        if not shutil.which("cmake"):
            raise KokkosBuildError("cmake not found: apt-get install cmake (or pip install cmake)")
        if backend == "cuda" and not nvcc_path():
            raise KokkosBuildError("nvcc not found: the CUDA backend needs the CUDA toolkit")
        sdist = sdist_path()
        jobs = jobs or os.cpu_count() or 2
        with tempfile.TemporaryDirectory(prefix="hpceval-kokkos-", dir=cache_dir()) as tmp:
            work = Path(tmp)
            with tarfile.open(sdist) as tar:
                members = [m for m in tar.getmembers() if "/external/kokkos/" in m.name]
                tar.extractall(work, members=members, filter="data")
            src = next(Path(p) for p in glob.glob(str(work / "*" / "external" / "kokkos")))
            _patch(src, cuda_arch())
            if target.exists():
                shutil.rmtree(target)
            args = ["cmake", "-S", str(src), "-B", str(work / "build"), "-DCMAKE_BUILD_TYPE=Release",
                    f"-DCMAKE_INSTALL_PREFIX={target}", "-DCMAKE_CXX_STANDARD=17", "-DBUILD_SHARED_LIBS=OFF",
                    "-DKokkos_ENABLE_TESTS=OFF"]
            env = dict(os.environ)
            if backend == "openmp":
                args += ["-DKokkos_ENABLE_OPENMP=ON", "-DKokkos_ENABLE_SERIAL=ON", "-DCMAKE_CXX_COMPILER=g++"]
            else:
                root = cuda_root()
                env["PATH"] = f"{root / 'bin'}:{env.get('PATH', '')}" if root else env.get("PATH", "")
                env["NVCC_WRAPPER_DEFAULT_ARCH"] = cuda_arch()
                args += ["-DKokkos_ENABLE_CUDA=ON", "-DKokkos_ENABLE_CUDA_LAMBDA=ON", "-DKokkos_ENABLE_SERIAL=ON",
                         f"-DKokkos_ARCH_{KOKKOS_ARCH}=ON", f"-DCMAKE_CXX_COMPILER={src / 'bin' / 'nvcc_wrapper'}",
                         f"-DCUDA_cuda_driver_LIBRARY={_libcuda_stub(work)}"]
                if root:
                    args.append(f"-DCUDAToolkit_ROOT={root}")
            run_steps([args, ["cmake", "--build", str(work / "build"), "-j", str(jobs)],
                       ["cmake", "--install", str(work / "build")]], f"Kokkos {backend}", env=env, log=log,
                      error=KokkosBuildError)
        finish_install(target, KOKKOS_VERSION)
    return target


@cache
def tool_library() -> Path | None:
    """The Kokkos profiling tool, built once into the cache (None without g++)."""
    compiler = shutil.which("g++")
    if not compiler:
        return None
    return cached_library("kokkos-tool", "libhpceval_kokkos_tool.so", TOOL_SOURCE,
                          [compiler, "-O2", "-std=c++17", "-shared", "-fPIC", "-fopenmp"])


def read_tool(workdir: Path) -> dict | None:
    text = read_optional_text(workdir, PROBE_FILE)  # never follows a link the job planted
    path = workdir / PROBE_FILE
    if text is None:
        path.unlink(missing_ok=True)
        return None
    out: dict = {"threads": 1, "user": 0, "internal": 0, "names": [], "spaces": {}}
    from_lines: dict[str, int] = {}
    for line in text.splitlines():
        parts = line.split()
        if not parts:
            continue
        if parts[0] == "threads" and len(parts) > 1:
            out["threads"] = int(parts[1])
        elif parts[0] == "user" and len(parts) >= 4:
            out["user"] += int(parts[1])
            out["internal"] += int(parts[3])
        elif parts[0] == "D" and len(parts) >= 4:
            out["names"].append(" ".join(parts[3:]))
            space = _space_name(parts[2], shift=True)
            from_lines[space] = from_lines.get(space, 0) + 1
        elif parts[0] == "space" and len(parts) >= 3:
            space = _space_name(parts[1])
            out["spaces"][space] = out["spaces"].get(space, 0) + int(parts[2])
    out["spaces"] = out["spaces"] or from_lines  # a record of an older tool: the D lines (first 2000)
    path.unlink(missing_ok=True)
    return out


def _space_name(value: str, shift: bool = False) -> str:
    """The execution space of a device id (`shift`: a full id, the space in its top 8 bits) or of a space id."""
    try:
        number = int(value) >> 24 if shift else int(value)
    except ValueError:
        return "unknown"
    return SPACE_NAMES.get(number, f"space {number}")


# A suggestion written for Kokkos' CUDA backend names its spaces (`View<float*, Kokkos::Cuda>`, `CudaSpace`); the
# study graded Kokkos without naming a backend, so in a build without CUDA those names stand for the build's own
# device space instead of failing the build (said in the evidence).
CUDA_SPACES_ON_HOST = """#if !defined(KOKKOS_ENABLE_CUDA)
namespace Kokkos {
using Cuda = DefaultExecutionSpace;
using CudaSpace = DefaultExecutionSpace::memory_space;
using CudaUVMSpace = DefaultExecutionSpace::memory_space;
using CudaHostPinnedSpace = HostSpace;
}  // namespace Kokkos
#endif"""
# The glue's View arguments go through these (the host arrays themselves on a host backend, Views of the device's
# space filled before the call on the CUDA backend): toolchains/include/hpceval_kokkos_views.hpp.
VIEW_HELPERS = (Path(__file__).parent / "include" / "hpceval_kokkos_views.hpp").read_text()
CUDA_SPACES_NOTE = "Kokkos::Cuda and its memory spaces read as this build's device space (OpenMP backend, no CUDA)"


class Kokkos(GpuProbeMixin, Toolchain):
    name = "kokkos"
    language = "cpp"

    def __init__(self, backend: str | None = None):
        self._backend = backend

    @property
    def backend(self) -> str:
        chosen = self._backend or os.environ.get("HPCEVAL_KOKKOS_BACKEND")
        if chosen in ("openmp", "cuda"):
            return chosen
        return "cuda" if nvidia_gpu() is not None and nvcc_path() else "openmp"

    @property
    def driver_ext(self) -> str:  # type: ignore[override]
        return "cpp"

    def detect(self) -> ToolInfo:
        backend = self.backend
        if not shutil.which("cmake") or not shutil.which("g++"):
            return ToolInfo(False, how_to_get="apt-get install cmake g++, then " + BUILD_HINT.format(backend=backend))
        if backend == "cuda" and not nvcc_path():
            return ToolInfo(False, how_to_get="the CUDA backend needs nvcc (the CUDA toolkit)")
        state = "built" if _installed(backend) else "builds on first use, 1-3 min"
        version = f"Kokkos {KOKKOS_VERSION} {backend} ({state})"
        if backend == "cuda":
            gpu = nvidia_gpu()
            if gpu is None:
                return ToolInfo(True, version, can_run=False, note="Kokkos CUDA backend: no NVIDIA GPU here, builds only",
                                how_to_get="run on an NVIDIA GPU machine, or HPCEVAL_KOKKOS_BACKEND=openmp")
            return ToolInfo(True, f"{version} on {gpu.describe()}")
        return ToolInfo(True, version)

    def prefix(self) -> Path:
        return build_kokkos(self.backend)

    def build_steps(self, model: ProgrammingModel) -> list[list[str]]:
        prefix = self.prefix()
        libs = [f"-L{prefix / 'lib'}", "-lkokkoscontainers", "-lkokkoscore", "-ldl", *model_libs(model)]
        if self.backend == "cuda":
            arch = cuda_arch()
            return [[str(prefix / "bin" / "nvcc_wrapper"), "-O3", "-std=c++17", "-expt-extended-lambda",
                     "--expt-relaxed-constexpr", f"-arch={arch}", "-w", f"-I{prefix / 'include'}", *model.flags,
                     "driver.cpp", "-o", "prog", *libs]]
        return [["g++", "-O3", "-std=c++17", "-fopenmp", "-w", *LAYOUT_FLAGS, f"-I{prefix / 'include'}", *model.flags,
                 "driver.cpp", "-o", "prog", *libs]]

    def run_argv(self, model: ProgrammingModel) -> list[str]:
        return ["./prog", "cases.txt"]

    def hooks(self, model: ProgrammingModel) -> DriverHooks:
        return DriverHooks(includes=["#include <Kokkos_Core.hpp>", CUDA_SPACES_ON_HOST,  # inert in a CUDA build
                                     VIEW_HELPERS],
                           init="Kokkos::initialize(argc, argv);", finalize="Kokkos::finalize();")

    def job_adjustments(self, spec, model: ProgrammingModel, code: str) -> JobAdjust | None:
        if self.backend != "cuda" and re.search(r"\bKokkos::Cuda\w*", code):
            return JobAdjust(note=CUDA_SPACES_NOTE)
        # the CUDA backend on a GPU: the sandbox a CUDA job needs (without it Kokkos::initialize fails on
        # cudaGetDeviceCount with cudaErrorOperatingSystem)
        return super().job_adjustments(spec, model, code)

    def env(self, model: ProgrammingModel) -> dict[str, str]:
        env = {**super().env(model), "OMP_PROC_BIND": "false", "HPCEVAL_KOKKOS_PROBE_OUT": PROBE_FILE}
        tool = tool_library()
        if tool:
            env["KOKKOS_PROFILE_LIBRARY"] = str(tool)
            env["KOKKOS_TOOLS_LIBS"] = str(tool)
        if self.backend == "cuda":
            root = cuda_root()
            if root:
                env["PATH"] = f"{root / 'bin'}:{env['PATH']}"
            env.update(GPU_JOB_ENV)
            env.update(probe_env())
        return env

    def probe_active(self, model: ProgrammingModel, code: str = "") -> bool:
        return self.backend == "cuda" and super().probe_active(model, code)

    def runs_on_gpu(self, model: ProgrammingModel) -> bool:
        return self.backend == "cuda" and nvidia_gpu() is not None

    def dynamic_check(self, workdir: Path, model: ProgrammingModel, calls: int, code: str = "") -> tuple[str | None, str]:
        problem, evidence = super().dynamic_check(workdir, model, calls, code)
        info = read_tool(workdir)
        if tool_library() is None or problem:
            return problem, evidence
        device = DEVICE_SPACE[self.backend]
        if info is None or (info["user"] and not info["spaces"]):
            # the tool did not load (a Kokkos built without tools) or recorded no spaces: the source decides
            return host_space_problem(code, device), evidence
        if info["user"] == 0:
            return f"no Kokkos parallel dispatch of the kernel ran in {calls} validation calls", evidence
        ran = ", ".join(f"{count} on {space}" for space, count in sorted(info["spaces"].items()))
        if device not in info["spaces"]:
            return (f"the kernel's Kokkos dispatches ran on the host execution space, not on the {self.backend} "
                    f"build's device space {device} ({ran})"), evidence
        parts = [f"{info['user']} Kokkos parallel dispatches ({ran}; {self.backend} backend"]
        if self.backend == "openmp":
            parts.append(f", {info['threads']} OpenMP threads")
            if info["threads"] < 2 <= threads():
                return f"the Kokkos OpenMP backend ran with {info['threads']} thread", evidence
        text = "".join(parts) + ")"
        return None, f"{text}; {evidence}" if evidence else text


TOOLCHAIN = Kokkos()


def main(argv: list[str]) -> int:
    if len(argv) < 2 or argv[0] != "build":
        print("usage: python -m hpceval.toolchains.kokkos build openmp|cuda [openmp|cuda ...]")
        return 2
    for backend in argv[1:]:
        path = build_kokkos(backend, log=sys.stdout)
        print(f"Kokkos {KOKKOS_VERSION} {backend}: {path}")
    tool = tool_library()
    print(f"Kokkos tool: {tool}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
