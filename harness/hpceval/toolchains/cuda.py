"""nvcc for CUDA C++ and Thrust (CCCL ships with nvcc), plus what every NVIDIA GPU toolchain shares.

Shared here (hip, kokkos, python_gpu and python import it):
* `nvidia_gpu()`: the GPU, found through the driver library itself (libcuda.so.1, cuInit, compute capability),
  so "can run here" means "a CUDA driver and a device answer", not "nvcc exists".
* `cuda_arch()`: -arch for nvcc: sm_<cc> of the device (sm_90 on Hopper), HPCEVAL_CUDA_ARCH, else sm_80.
* The GPU probe (include/hpceval_cupti_probe.cpp): a CUDA injection library built once per machine into the
  cache. With CUDA_INJECTION64_PATH set, the driver loads it into every process of a job that initialises
  CUDA; it records each kernel that ran on the device, with the GPU's own start/end timestamps, through CUPTI.
  The evaluator uses it for the dynamic usage check (a GPU kernel ran: `dynamic_check`) and for the
  transfer-free kernel time per call (`kernel_times`).
* `build_only()`: the build steps of a reference through an executor, for machines without a GPU (CI).

What is timed for GPU models: the driver times the whole call (allocation, copies both ways, launches). The
evaluation's time_* fields are the GPU time of the kernels of one call instead (the sum of the durations of the
kernels it launched, from CUPTI), when the probe is present; the whole-call median stays in the evidence.
"""

from __future__ import annotations

import ctypes
import fcntl
import hashlib
import os
import re
import shutil
import statistics
import subprocess
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from hpceval import paths, scratch
from hpceval.bind import DriverHooks
from hpceval.cases.io import read_optional_text
from hpceval.spec import ProgrammingModel
from hpceval.toolchains import (
    CompiledToolchain,
    JobAdjust,
    SecondRun,
    ToolInfo,
    build_with_standards,
    model_libs,
    tool_version,
)

INCLUDE_DIR = Path(__file__).resolve().parent / "include"
PROBE_SOURCE = INCLUDE_DIR / "hpceval_cupti_probe.cpp"
PROBE_FILE = "gpu_probe.txt"
NVCC_HINT = ("install the CUDA toolkit's compiler: pip install nvidia-cuda-nvcc nvidia-cuda-runtime nvidia-cuda-cccl "
             "(or NVIDIA's CUDA toolkit) and put nvcc on PATH")
NO_GPU_NOTE = "no NVIDIA GPU here (libcuda.so.1 missing or cuInit failed): builds only"


def cache_dir() -> Path:
    """Where toolchains keep what they build once per machine (Kokkos, the GPU probe): the harness cache
    (paths.cache_dir), made if missing."""
    path = paths.cache_dir()
    path.mkdir(parents=True, exist_ok=True)
    return path


class FileLock:
    """An exclusive flock on a file in the cache: one build of a cached artefact at a time, across processes."""

    def __init__(self, path: Path):
        self.path = path

    def __enter__(self) -> FileLock:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fh = self.path.open("w")
        fcntl.flock(self._fh, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc) -> None:
        fcntl.flock(self._fh, fcntl.LOCK_UN)
        self._fh.close()


# ---------------------------------------------------------------------------------------------- the device


@dataclass(frozen=True)
class NvidiaGpu:
    name: str
    major: int
    minor: int
    driver: str
    count: int
    memory_gb: float = 0.0

    @property
    def cc(self) -> str:
        return f"{self.major}{self.minor}"

    def describe(self) -> str:
        return f"{self.name} (sm_{self.cc}, driver {self.driver})"


@cache
def nvidia_gpu() -> NvidiaGpu | None:
    """The first NVIDIA GPU as the CUDA driver reports it, or None (no driver, no device, HPCEVAL_NO_GPU=1)."""
    if os.environ.get("HPCEVAL_NO_GPU", "") not in ("", "0"):
        return None
    try:
        lib = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return None
    try:
        if lib.cuInit(0) != 0:
            return None
        count = ctypes.c_int(0)
        if lib.cuDeviceGetCount(ctypes.byref(count)) != 0 or count.value < 1:
            return None
        dev = ctypes.c_int(0)
        lib.cuDeviceGet(ctypes.byref(dev), 0)
        major, minor, version = ctypes.c_int(0), ctypes.c_int(0), ctypes.c_int(0)
        lib.cuDeviceGetAttribute(ctypes.byref(major), 75, dev)  # CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
        lib.cuDeviceGetAttribute(ctypes.byref(minor), 76, dev)
        name = ctypes.create_string_buffer(256)
        lib.cuDeviceGetName(name, 256, dev)
        lib.cuDriverGetVersion(ctypes.byref(version))
        total = ctypes.c_size_t(0)
        lib.cuDeviceTotalMem_v2(ctypes.byref(total), dev)
    except (AttributeError, OSError):
        return None
    driver = f"CUDA {version.value // 1000}.{version.value % 1000 // 10}"
    return NvidiaGpu(name.value.decode(errors="replace"), major.value, minor.value, driver, count.value,
                     round(total.value / 2**30, 1))


def cuda_arch() -> str:
    """nvcc -arch: HPCEVAL_CUDA_ARCH, else the device's sm_<cc>, else sm_80 (builds only, no device here)."""
    forced = os.environ.get("HPCEVAL_CUDA_ARCH")
    if forced:
        return forced
    gpu = nvidia_gpu()
    return f"sm_{gpu.cc}" if gpu else "sm_80"


@cache
def nvcc_path() -> str | None:
    found = shutil.which("nvcc")
    if found:
        return found
    for candidate in ("/usr/local/cuda/bin/nvcc", "/opt/cuda/bin/nvcc"):
        if os.access(candidate, os.X_OK):
            return candidate
    return None


@cache
def cuda_root() -> Path | None:
    nvcc = nvcc_path()
    if not nvcc:
        return None
    # /usr/local/bin/nvcc may be a wrapper script: ask nvcc where its own tree is.
    try:
        out = subprocess.run([nvcc, "--dryrun", "-c", "-x", "cu", "/dev/null", "-o", "/dev/null"],
                             capture_output=True, text=True, timeout=30)
        match = re.search(r"^#\$ TOP=(\S+)", out.stderr, re.MULTILINE)
        if match and Path(match.group(1), "include").is_dir():
            return Path(match.group(1)).resolve()
    except (OSError, subprocess.TimeoutExpired):
        pass
    return Path(os.path.realpath(nvcc)).parent.parent


def cuda_lib_dirs() -> list[Path]:
    root = cuda_root()
    dirs = []
    if root:
        dirs += [root / "lib64", root / "lib", root / "targets" / "x86_64-linux" / "lib", root / "extras" / "CUPTI" / "lib64"]
    return [d for d in dirs if d.is_dir()]


@cache
def nvcc_version() -> str:
    nvcc = nvcc_path()
    return tool_version([nvcc, "--version"], r"release (\d+\.\d+)").replace(nvcc, "nvcc") if nvcc else ""


def offload_compilers() -> list[str]:
    """Compilers here that offload OpenMP/OpenACC to a GPU (the offload models' GPU route; doctor lists them).

    NVIDIA HPC SDK (nvc++/nvfortran -mp=gpu / -acc), GCC with an nvptx or amdgcn offload plugin (its mkoffload),
    clang/flang with an nvptx or amdgcn OpenMP device runtime (libomptarget-*.bc).
    """
    import glob

    found = [f"{exe} (-mp=gpu, -acc)" for exe in ("nvc++", "nvfortran") if shutil.which(exe)]
    for mk in sorted(glob.glob("/usr/lib/gcc/*/*/accel/*/mkoffload")):
        parts = Path(mk).parts
        found.append(f"gcc {parts[-4]} -foffload={parts[-2]}")
    for bc in sorted(glob.glob("/usr/lib/llvm-*/lib/libomptarget-*.bc")):
        llvm = Path(bc).parts[3]
        target = "nvptx64-nvidia-cuda" if "nvptx" in bc else "amdgcn-amd-amdhsa"
        entry = f"clang++-{llvm.split('-')[-1]} -fopenmp-targets={target}"
        if entry not in found:
            found.append(entry)
    return found


# ---------------------------------------------------------------------------------------------- the probe


@cache
def probe_library() -> Path | None:
    """Build the CUPTI injection library once into the cache (None where CUPTI or a compiler is missing)."""
    root = cuda_root()
    if root is None or os.environ.get("HPCEVAL_NO_PROBE"):
        return None
    include = next((d for d in (root / "include", root / "extras" / "CUPTI" / "include") if (d / "cupti.h").is_file()),
                   None)
    libdir = next((d for d in cuda_lib_dirs() if any(d.glob("libcupti.so*"))), None)
    compiler = shutil.which("g++") or shutil.which("c++")
    if include is None or libdir is None or compiler is None:
        return None
    flags = ["-O2", "-std=c++17", "-shared", "-fPIC", f"-I{include}"]
    link = [f"-L{libdir}", "-lcupti", "-ldl", f"-Wl,-rpath,{libdir}"]
    return cached_library("cupti-probe", "libhpceval_probe.so", PROBE_SOURCE, [compiler, *flags], link,
                          salt=str(root))


def cached_library(folder: str, name: str, source: Path, compile_argv: list[str], link: list[str] = (),
                   salt: str = "") -> Path | None:
    """A harness tool (the CUPTI probe, the Kokkos tool, the OMPT tool) compiled once into the cache as a shared
    library: the folder is named by a digest of the source (and `salt`), so an edited source is built anew; built
    under a file lock into a temporary name and renamed, so concurrent jobs never load a half-written library;
    readable by the sandbox user. None when the compiler fails (its output is kept in the folder's build.log)."""
    digest = hashlib.sha256(source.read_bytes() + salt.encode()).hexdigest()[:12]
    target = cache_dir() / f"{folder}-{digest}" / name
    if target.is_file():
        return target
    with FileLock(target.parent / ".lock"):
        if target.is_file():
            return target
        tmp = target.with_suffix(".tmp")
        result = subprocess.run([*compile_argv, str(source), "-o", str(tmp), *link], capture_output=True, text=True,
                                timeout=300)
        if result.returncode != 0:
            (target.parent / "build.log").write_text(result.stdout + result.stderr)
            return None
        tmp.chmod(0o755)
        tmp.rename(target)
        target.parent.chmod(0o755)
    return target


def probe_env() -> dict[str, str]:
    """Environment that loads the GPU probe into a job's processes (empty without a GPU or without CUPTI)."""
    if nvidia_gpu() is None:
        return {}
    lib = probe_library()
    return {"CUDA_INJECTION64_PATH": str(lib), "HPCEVAL_PROBE_OUT": PROBE_FILE} if lib else {}


@dataclass
class ProbeData:
    kernels: list[tuple[int, int, str]] = field(default_factory=list)
    copies: list[tuple[int, int, int, int]] = field(default_factory=list)
    marks: list[tuple[int, int, int]] = field(default_factory=list)  # (call, phase 0/1, CUPTI timestamp)
    nonces: list[str] = field(default_factory=list)  # one per process that wrote a record

    @property
    def kernel_seconds(self) -> float:
        return sum(end - start for start, end, _ in self.kernels) / 1e9


def read_probe(workdir: Path, remove: bool = True, name: str | None = None) -> ProbeData | None:
    """The probe's records of the last run in workdir (`name`: the timing run's own file name); None if no
    process of it initialised CUDA."""
    name = name or PROBE_FILE
    text = read_optional_text(workdir, name, limit=1 << 30)  # never follows a link the job planted
    path = workdir / name
    if text is None:
        if remove:
            path.unlink(missing_ok=True)
        return None
    data = ProbeData()
    for line in text.splitlines():
        parts = line.split(" ", 3)
        try:
            if parts[0] == "hpceval-probe":
                data.nonces.append(parts[2] if len(parts) > 2 else "")
            elif parts[0] == "M":
                data.marks.append((int(parts[1]), int(parts[2]), int(parts[3])))
            elif parts[0] == "K":
                data.kernels.append((int(parts[1]), int(parts[2]), parts[3] if len(parts) > 3 else "?"))
            elif parts[0] == "C":
                rest = parts[3].split()
                data.copies.append((int(parts[1]), int(parts[2]), int(rest[0]), int(rest[1])))
        except (IndexError, ValueError):
            continue
    data.kernels.sort()
    if remove:
        path.unlink(missing_ok=True)
    return data


# A launch with fewer threads than one warp is a token: the GPU's parallelism was not used (a one-thread kernel
# doing the sweep serially, or beside host code that does it). Judged over the whole validation run, whose
# largest outputs have >= 1023 elements for every kernel; outputs smaller than TOKEN_MIN_OUTPUT never decide it.
TOKEN_THREADS = 32
TOKEN_MIN_OUTPUT = 256
_DIMS = re.compile(r" grid=(\d+),(\d+),(\d+) block=(\d+),(\d+),(\d+)\s*$")


def launch_threads(name: str) -> int | None:
    """Threads of one launch from the probe's kernel record (None: an older probe that did not record them)."""
    m = _DIMS.search(name)
    if not m:
        return None
    gx, gy, gz, bx, by, bz = (int(v) for v in m.groups())
    return gx * gy * gz * bx * by * bz


def probe_verdict(data: ProbeData | None, calls: int, largest_output: int | None = None) -> tuple[str | None, str]:
    """The dynamic usage check from the probe's records of a validation run: (problem or None, evidence).

    largest_output: elements of the largest output of the run (None: the validation sizes, large enough)."""
    if data is None:
        return (f"no GPU kernel ran: the {calls} validation calls never initialised CUDA "
                f"(the work was done on the host)", "")
    if not data.kernels:
        return f"no GPU kernel ran in {calls} validation calls (CUDA was initialised, no kernel was launched)", ""
    names = sorted({_short_name(n) for _, _, n in data.kernels})
    threads = [t for _, _, n in data.kernels if (t := launch_threads(n)) is not None]
    if threads and len(threads) == len(data.kernels) and max(threads) < TOKEN_THREADS \
            and (largest_output is None or largest_output >= TOKEN_MIN_OUTPUT):
        return (f"token GPU launches: every one of the {len(threads)} kernels of {calls} validation calls ran with "
                f"at most {max(threads)} thread{'s' if max(threads) > 1 else ''} ({', '.join(names[:3])}): the "
                f"GPU's parallelism did not do the kernel's work", "")
    most = f"; up to {max(threads)} threads a launch" if threads else ""
    return None, f"{len(data.kernels)} GPU kernels ran in {calls} calls ({', '.join(names[:3])}){most}"


# ------------------------------------------------------------------------------------------------ memcheck
# A kernel that reads one element past an allocation (`j <= n`) usually gets plausible numbers on a GPU: the
# allocation's padding or a neighbour's data. The host-side sentinel guards of the drivers cannot see device
# memory, so GPU jobs get a second validation run under compute-sanitizer's memcheck, which knows every
# allocation's bounds. Its own exit code marks a finding; anything else (no sanitizer, a timeout under its
# slowdown) only leaves a note and never fails a kernel.
MEMCHECK_EXIT = 86
PROBE_ENV_KEYS = ("CUDA_INJECTION64_PATH", "HPCEVAL_PROBE_OUT")


@cache
def sanitizer() -> Path | None:
    """The CUDA toolkit's compute-sanitizer, or None."""
    found = shutil.which("compute-sanitizer")
    if found:
        return Path(found)
    root = cuda_root()
    if root is None:
        return None
    return next((c for c in (root / "bin" / "compute-sanitizer", root / "compute-sanitizer" / "compute-sanitizer")
                 if c.is_file()), None)


def memcheck_argv(argv: list[str]) -> list[str] | None:
    tool = sanitizer()
    if tool is None or os.environ.get("HPCEVAL_NO_MEMCHECK"):
        return None
    return [str(tool), "--tool", "memcheck", "--error-exitcode", str(MEMCHECK_EXIT), "--leak-check", "no",
            "--print-limit", "4", *argv]


def memcheck_run(argv: list[str]) -> SecondRun | None:
    """The validation run again under memcheck, without the CUPTI probe (the sanitizer injects its own library)."""
    wrapped = memcheck_argv(argv)
    return SecondRun("compute-sanitizer memcheck", wrapped, memcheck_problem, PROBE_ENV_KEYS) if wrapped else None


def memcheck_problem(returncode: int, output: str) -> str | None:
    """The first error the sanitizer reported (what, where, which address), or None if it found nothing."""
    if returncode != MEMCHECK_EXIT:
        return None
    lines = [line.strip("= \t") for line in output.splitlines() if line.startswith("=========")]
    lines = [line for line in lines if line and not line.startswith(("COMPUTE-SANITIZER", "ERROR SUMMARY",
                                                                     "Saved host backtrace", "Host Frame"))]
    start = next((i for i, line in enumerate(lines) if re.match(r"(Invalid|Out-of-range|Misaligned|Program hit)",
                                                                 line)), 0)
    detail = "; ".join(lines[start:start + 4]) or "errors reported"
    return f"compute-sanitizer memcheck: {detail[:400]}"


# What a job on the GPU needs from the sandbox: a read-write /proc (cuInit fails with
# CUDA_ERROR_OPERATING_SYSTEM on nsjail's default read-only one: HPCEVAL_SANDBOX_GPU=1 asks the local executor),
# far more virtual address space than an RLIMIT_AS meant for CPU jobs, and room for the driver's helper threads
# (RLIMIT_NPROC counts threads).
GPU_ADDRESS_SPACE_MB = 1 << 30
GPU_PIDS = 1024
GPU_SANDBOX_ENV = {"HPCEVAL_SANDBOX_GPU": "1"}

# The sandbox's /tmp is a small tmpfs: nvcc's intermediate files and JIT caches go to the work dir instead.
GPU_JOB_ENV = {"TMPDIR": "/w", "CUDA_CACHE_PATH": "/w/.nv-cache", "CUPY_CACHE_DIR": "/w/.cupy-cache"}


def gpu_adjust(note: str = "", env: dict[str, str] | None = None) -> JobAdjust:
    return JobAdjust(env={**GPU_SANDBOX_ENV, **(env or {})}, pids=GPU_PIDS,
                     address_space_mb=GPU_ADDRESS_SPACE_MB, note=note)


class GpuProbeMixin:
    """Dynamic usage check and kernel-only timing for toolchains whose jobs run on an NVIDIA GPU."""

    def probe_active(self, model: ProgrammingModel, code: str = "") -> bool:
        return bool(probe_env())

    def job_adjustments(self, spec, model: ProgrammingModel, code: str) -> JobAdjust | None:
        return gpu_adjust() if self.runs_on_gpu(model) else None

    def runs_on_gpu(self, model: ProgrammingModel) -> bool:
        return nvidia_gpu() is not None

    def device(self, model: ProgrammingModel, code: str = "") -> str:
        return "gpu" if self.runs_on_gpu(model) else model.device

    def second_run(self, model: ProgrammingModel, code: str = "") -> SecondRun | None:
        """The validation run under compute-sanitizer memcheck, for jobs on the GPU (None elsewhere)."""
        return memcheck_run(self.run_argv(model)) if self.runs_on_gpu(model) else None

    def dynamic_check(self, workdir: Path, model: ProgrammingModel, calls: int, code: str = "") -> tuple[str | None, str]:
        """(problem or None, evidence) after the validation run: did a kernel run on the GPU?"""
        if not self.probe_active(model, code):
            return None, ""
        return probe_verdict(read_probe(workdir), calls)

    def kernel_times(self, workdir: Path, model: ProgrammingModel, calls: int, warmup: int,
                     code: str = "", *, probe_file: str | None = None, nonce: str = "") -> tuple[list[float], str]:
        """Per timed call, the GPU time of its kernels (s), after the timing run; ([], why) when unavailable.

        With the drivers' marks (hpceval_probe_mark around every call) a kernel counts for the call whose window
        it overlaps; kernel time outside every window after the first call started is work that continued after
        a call returned ("outside calls: ..."), and a record without the run's nonce, or a record under the
        default name when the run had its own, was not (only) written by the probe ("outside calls: ...").
        Without marks (an older probe), calls are told apart by their data movement: a call starts with its
        first host-to-device copy after a device-to-host copy. When that does not give exactly `calls`
        segments, K kernels in C calls are split evenly if K is a multiple of C, else each call gets the mean.
        """
        if not self.probe_active(model, code):
            return [], ""
        if probe_file and probe_file != PROBE_FILE and read_optional_text(workdir, PROBE_FILE) is not None:
            return [], (f"outside calls: the job wrote {PROBE_FILE}, the GPU probe's default record, itself "
                        "(timing tampering)")
        data = read_probe(workdir, name=probe_file)
        if data is not None and nonce and data.nonces and nonce not in data.nonces:
            return [], "outside calls: the GPU probe's record does not carry this run's nonce (timing tampering)"
        from hpceval.toolchains.probe_calls import marked_calls

        marked = marked_calls(data, calls, warmup) if data is not None and data.marks and calls > 0 else None
        if marked is not None:
            return marked
        if data is None or not data.kernels or calls <= 0:
            return [], "no kernel records from the GPU probe"
        segments = split_calls(data)
        if len(segments) == calls:
            return segments[warmup:], "calls told apart by their copies"
        k = len(data.kernels)
        if k % calls == 0:
            per = k // calls
            sums = [sum(e - s for s, e, _ in data.kernels[c * per:(c + 1) * per]) / 1e9 for c in range(calls)]
            return sums[warmup:], f"{per} kernel(s) per call"
        mean = data.kernel_seconds / calls
        return [mean] * (calls - warmup), f"{k} kernels in {calls} calls (mean per call)"


HTOD, DTOH = 1, 2  # CUpti_ActivityMemcpyKind


def split_calls(data: ProbeData) -> list[float]:
    """Kernel seconds per call, a call starting at the first host-to-device copy after a device-to-host one."""
    events = sorted([(s, 1, e - s) for s, e, _ in data.kernels] + [(s, 0, kind) for s, _, _, kind in data.copies])
    segments: list[float] = []
    last_copy = None
    for _, is_kernel, value in events:
        if not is_kernel:
            if value == HTOD and last_copy in (None, DTOH):
                segments.append(0.0)
            if value in (HTOD, DTOH):
                last_copy = value
            continue
        if not segments:
            segments.append(0.0)
        segments[-1] += value / 1e9
    return segments


def _short_name(name: str) -> str:
    name = re.sub(r"\(.*| grid=.*", "", name)
    return name.split("::")[-1][:40] or "?"


# ---------------------------------------------------------------------------------------------- nvcc
VENDOR_LIBRARIES = {"cublas": ("cuBLAS", re.compile(r"\bcublas\w*\s*\(|<cublas(_v2)?\.h>")),
                    "cusparse": ("cuSPARSE", re.compile(r"\bcusparse\w*\s*\(|<cusparse(_v2)?\.h>"))}


def vendor_libraries(code: str) -> list[str]:
    """The NVIDIA libraries (cuBLAS, cuSPARSE) a CUDA suggestion calls instead of, or besides, its own kernels."""
    return [name for name, pattern in VENDOR_LIBRARIES.values() if pattern.search(code or "")]


def vendor_link_flags(code: str) -> list[str]:
    """-lcublas / -lcusparse for the libraries the code uses (nothing for a kernel of its own)."""
    return [f"-l{lib}" for lib, (_, pattern) in VENDOR_LIBRARIES.items() if pattern.search(code or "")]




class CudaToolchain(GpuProbeMixin, CompiledToolchain):
    """cpp-cuda and cpp-thrust: nvcc, cudart static, -arch from the device, CCCL (Thrust/CUB) from the toolkit."""

    name = "cuda"
    language = "cpp"
    driver_ext = "cu"
    install_hint = NVCC_HINT

    @cache  # noqa: B019 - module singleton
    def detect(self) -> ToolInfo:
        version = nvcc_version()
        if not version:
            return ToolInfo(False, how_to_get=self.install_hint)
        gpu = nvidia_gpu()
        version = f"{version} -arch={cuda_arch()}"
        if gpu is None:
            return ToolInfo(True, version, can_run=False, note=NO_GPU_NOTE,
                            how_to_get="run on a machine with an NVIDIA GPU and its driver")
        return ToolInfo(True, f"{version} on {gpu.describe()}")

    def nvcc_flags(self) -> list[str]:
        return ["-O3", "-std=c++17", f"-arch={cuda_arch()}", "--extended-lambda", "--expt-relaxed-constexpr", "-w",
                f"-I{INCLUDE_DIR}"]

    def build_steps(self, model: ProgrammingModel, code: str = "") -> list[list[str]]:
        return [[nvcc_path() or "nvcc", *self.nvcc_flags(), *model.flags, "driver.cu", "-o", "prog",
                 *vendor_link_flags(code), *model_libs(model)]]

    def job_adjustments(self, spec, model: ProgrammingModel, code: str) -> JobAdjust | None:
        """The GPU job's limits; a suggestion that calls cuBLAS/cuSPARSE also links them (nvcc appends the flags
        of NVCC_APPEND_FLAGS to the build step's argv)."""
        adjust = super().job_adjustments(spec, model, code)
        flags = vendor_link_flags(code)
        if flags:
            adjust = adjust or JobAdjust()
            adjust.env["NVCC_APPEND_FLAGS"] = " ".join(flags)
            adjust.note = "; ".join(x for x in (adjust.note, f"vendor library: {', '.join(vendor_libraries(code))}")
                                    if x)
        return adjust

    def hooks(self, model: ProgrammingModel) -> DriverHooks:
        return DriverHooks(includes=["#include <cuda_runtime.h>"])

    def env(self, model: ProgrammingModel) -> dict[str, str]:
        env = {**super().env(model), **GPU_JOB_ENV, **probe_env()}
        root = cuda_root()
        if root:
            env["PATH"] = f"{root / 'bin'}:{env['PATH']}"
        return env


def build_only(code: str, spec, model: ProgrammingModel, executor, toolchain=None, workdir: Path | None = None,
               limits=None, binding=None):
    """Render a suggestion's build unit and run only its build steps through `executor` (no device needed).

    Returns the last ProcResult (returncode 0 = it compiled and linked). This is the CI path for GPU models:
    every reference must build with the real compiler even where nothing can run.
    """
    from hpceval.bind import canonical_binding, render_unit
    from hpceval.executors import Limits
    from hpceval.spec import catalog
    from hpceval.toolchains import get_toolchain

    toolchain = toolchain or get_toolchain(model.toolchain)
    lang = catalog().languages[model.language]
    binding = binding or canonical_binding(spec, lang)
    files = render_unit(code, spec, lang, binding, toolchain.hooks(model), toolchain.driver_ext)
    own = workdir is None
    workdir = workdir or scratch.new_dir(f"hpceval-build-{spec.id}-{model.id}-")
    try:
        for name, text in files.items():
            (workdir / name).write_text(text)
        env, limits = toolchain.env(model), limits or Limits(wall_s=600, cpu_s=1200)
        return build_with_standards(toolchain, toolchain.build_steps(model),
                                    lambda step: executor.run(step, workdir, env, limits)).result
    finally:
        if own:
            shutil.rmtree(workdir, ignore_errors=True)


def whole_call_note(times: list[float]) -> str:
    if not times:
        return ""
    return f"whole call incl. transfers: median {statistics.median(times):.3e} s"


TOOLCHAIN = CudaToolchain()
