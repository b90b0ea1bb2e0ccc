"""The machine's measured ceilings (copy bandwidth, FP64 peak) and the physical lower bound on a kernel's time.

Why: a reported time below what the machine can physically do is never a speedup, whatever made it (a clock the
suggestion tampered with, work done outside the timed call, a GPU call whose kernels do a sliver of the work).
Every spec states its FLOP and byte counts at the timing size; with the ceilings they bound the time from below:

    t_min = max(bytes / copy bandwidth, flops / peak FLOP/s) / SAFETY

A time below t_min is flagged `timing_implausible` (checks/timing.py) and left out of the speed metrics.

CPU ceilings are measured once per machine (a threaded NumPy copy over a few working-set sizes, the best of them,
so that a working set that stays in cache is never held to DRAM speed; NumPy's DGEMM for the FLOP/s) and cached in
~/.cache/hpceval/ceilings-<host hash>.json ($HPCEVAL_CACHE). GPU ceilings are measured the way
bench/gpu_selftest.py does (CUDA events, L2 flushed: `GpuTimer`, `gpu_measure`) when CuPy is there, else taken
from a results/gpu-*/summary.json of the same GPU. $HPCEVAL_CEILINGS names a JSON file that replaces them
({"cpu": {...}, "gpu": {"<name>": {...}}}, keys copy_gbs and dgemm_gflops).
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import socket
import statistics
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from hpceval.paths import save_json_cache

# How far below the measured ceilings a time must be to be implausible: CPU ceilings come from NumPy (a tuned kernel
# may beat a NumPy copy, and the machine may have been busy while measuring), GPU ceilings from vendor libraries
# with the L2 flushed, as the probe flushes it before every timed kernel.
SAFETY = {"cpu": 3.0, "gpu": 1.5}
_LOCK = threading.Lock()


@dataclass(frozen=True)
class Ceilings:
    copy_gbs: float
    dgemm_gflops: float
    source: str

    def peak_gflops(self, dtype: str) -> float:
        return self.dgemm_gflops * (2.0 if dtype == "float32" else 1.0)


@dataclass(frozen=True)
class Bound:
    seconds: float
    how: str


def _cache_file() -> Path:
    from hpceval.paths import cache_dir

    cpu = ""
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((line for line in f if line.startswith("model name")), "")
    except OSError:
        pass
    host = hashlib.sha256(f"{socket.gethostname()}|{platform.machine()}|{cpu}|{os.cpu_count()}".encode()).hexdigest()
    return cache_dir() / f"ceilings-{host[:12]}.json"


def _load_cache() -> dict:
    override = os.environ.get("HPCEVAL_CEILINGS")
    path = Path(override) if override else _cache_file()
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return {}


def _save_cache(data: dict) -> None:
    if os.environ.get("HPCEVAL_CEILINGS"):
        return
    save_json_cache(_cache_file(), data)


# ---------------------------------------------------------------------------------------------- CPU


def measure_cpu(threads: int | None = None) -> dict:
    """Threaded NumPy copy bandwidth (bytes read + written, best over 1, 8 and 64 MiB working sets) and NumPy
    DGEMM GFLOP/s (best of a few 1024^3 products)."""
    from hpceval.toolchains import threads as job_threads

    nthreads = max(1, threads or job_threads())
    best_bw = 0.0
    with ThreadPoolExecutor(nthreads) as pool:
        for total_mib in (1, 8, 64):
            n = total_mib * 2**20 // 16  # two float64 arrays of n elements
            src, dst = np.ones(n), np.empty(n)
            chunks = [(i * n // nthreads, (i + 1) * n // nthreads) for i in range(nthreads)]

            def copy(c, src=src, dst=dst):
                np.copyto(dst[c[0]:c[1]], src[c[0]:c[1]])

            reps = max(3, 256 // total_mib)
            for _ in range(3):
                t0 = time.perf_counter()
                for _ in range(reps):
                    list(pool.map(copy, chunks))
                dt = time.perf_counter() - t0
                best_bw = max(best_bw, 2 * n * 8 * reps / dt / 1e9)
    m = 1024
    a, b = np.random.default_rng(0).random((m, m)), np.random.default_rng(1).random((m, m))
    best_flops = 0.0
    for _ in range(4):
        t0 = time.perf_counter()
        a @ b
        best_flops = max(best_flops, 2 * m**3 / (time.perf_counter() - t0) / 1e9)
    return {"copy_gbs": best_bw, "dgemm_gflops": best_flops, "threads": nthreads,
            "measured": time.strftime("%Y-%m-%dT%H:%M:%S")}


def _measure_cpu_elsewhere() -> dict:
    """measure_cpu in a fresh process: the harness's own process keeps one BLAS thread (cases/timing.py), and the
    peak is the threaded BLAS's."""
    import subprocess
    import sys

    code = "import json; from hpceval.ceilings import measure_cpu; print(json.dumps(measure_cpu()))"
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")}
    try:
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600, env=env)
        return json.loads(out.stdout.strip().splitlines()[-1])
    except (OSError, ValueError, IndexError, subprocess.TimeoutExpired):
        return measure_cpu()


def cpu_ceilings() -> Ceilings:
    """This machine's CPU ceilings, measured once and cached."""
    with _LOCK:
        data = _load_cache()
        cpu = data.get("cpu")
        if not cpu:
            cpu = _measure_cpu_elsewhere()
            data["cpu"] = cpu
            _save_cache(data)
    return Ceilings(float(cpu["copy_gbs"]), float(cpu["dgemm_gflops"]),
                    f"measured here {cpu.get('measured', '')}".strip())


# ---------------------------------------------------------------------------------------------- GPU


class GpuTimer:
    """CUDA events around an operation; warm-ups; median of repeats; L2 flushed before each repeat (CuPy)."""

    def __init__(self):
        import cupy as cp

        self.cp = cp
        l2 = cp.cuda.runtime.getDeviceProperties(0)["l2CacheSize"]
        self.flush_buf = cp.empty(max(2 * l2, 64 << 20), dtype=cp.uint8)

    def __call__(self, op, warmup: int = 3, reps: int = 20, before=None, batch: int = 1) -> float:
        """Median seconds of op; before each repeat `before` runs (default: the L2 flush). With batch > 1 each
        repeat times `batch` back-to-back ops and counts the mean: the events' own cost and the launch latency
        (a few microseconds, several % of a 0.13 ms kernel, none of the kernel time CUPTI gives the harness's
        timed calls) are spread over the batch."""
        cp = self.cp
        for _ in range(warmup):
            op()
        cp.cuda.Device().synchronize()
        times = []
        start, end = cp.cuda.Event(), cp.cuda.Event()
        for _ in range(reps):
            (before or (lambda: self.flush_buf.fill(0)))()
            start.record()
            for _ in range(batch):
                op()
            end.record()
            end.synchronize()
            times.append(cp.cuda.get_elapsed_time(start, end) / 1e3 / batch)
        return statistics.median(times)


# y = a*x + y over floats, one element per thread (the shape of Thrust's transform, which reached 3043 GB/s on
# an H100 where cudaMemcpy reached 3002: two reads per write stream faster than a copy's one)
TRIAD = r"""
extern "C" __global__ void hpceval_triad(float a, const float *__restrict__ x, float *__restrict__ y, long long n) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
"""

# the same with 16-byte loads and stores, grid-stride (the shape of a tuned library transform)
TRIAD4 = r"""
extern "C" __global__ void hpceval_triad4(float a, const float4 *__restrict__ x, float4 *__restrict__ y, long long n4) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n4; i += (long long)gridDim.x * blockDim.x) {
    const float4 u = x[i];
    float4 v = y[i];
    v.x = a * u.x + v.x; v.y = a * u.y + v.y; v.z = a * u.z + v.z; v.w = a * u.w + v.w;
    y[i] = v;
  }
}
"""

WIDE_COPY = r"""
extern "C" __global__ void hpceval_wide_copy(const double2 *__restrict__ x, double2 *__restrict__ y, long long n2) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n2; i += (long long)gridDim.x * blockDim.x)
    y[i] = x[i];
}
"""


GPU_METHOD = 6  # the streams gpu_measure runs: a cached measurement by another set is taken again
WARM_TRIAD_N = 1 << 25  # floats: the AXPY spec's GPU timing size (kernels_spec/axpy/spec.toml gpu_timing)


def thrust_triad_gbs(n: int, reps: int = 20, batch: int = 10) -> float | None:
    """The vendor library's streaming rate (thrust::transform y = a*x + y over n floats, GB/s), or None where
    nvcc or the build is missing. Why: CUB's transform on Hopper streams faster than cudaMemcpy and than any
    triad written here (the Thrust AXPY reference reached 3050 GB/s where the best of them gave 3003), and the
    ceiling has to be the fastest rate honest code can reach, as cuBLAS is for DGEMM."""
    import ctypes

    from hpceval.toolchains.cuda import INCLUDE_DIR, cached_library, cuda_arch, nvcc_path

    nvcc = nvcc_path()
    if nvcc is None:
        return None
    argv = [nvcc, "-O3", "-std=c++17", "-shared", "-Xcompiler", "-fPIC", f"-arch={cuda_arch()}"]
    lib = cached_library("thrust-triad", "libhpceval_thrust_triad.so", INCLUDE_DIR / "hpceval_thrust_triad.cu", argv,
                         salt=cuda_arch())
    if lib is None:
        return None
    fn = ctypes.CDLL(str(lib)).hpceval_thrust_triad_gbs
    fn.restype, fn.argtypes = ctypes.c_double, [ctypes.c_longlong, ctypes.c_int, ctypes.c_int]
    rate = fn(n, reps, batch)
    return rate if rate > 0 else None


def gpu_measure(timer: GpuTimer) -> dict:
    """Streaming bandwidth (the best of a 1 GiB device-to-device copy, two copy kernels and float32 triads
    y = a*x + y: CuPy's, hand-written ones, Thrust's; bytes read + written) and FP64 GEMM (cuBLAS DGEMM, the best
    of 4096^3 and 8192^3).

    Why the best of several: cudaMemcpy alone reached 3002 GB/s on an H100 where a plain AXPY kernel reached 3031,
    so a ceiling from it alone put honest kernels above 100% of it. The ceiling is the fastest streaming rate
    this device shows, however it is reached."""
    cp = timer.cp
    n = 1 << 27
    src = cp.ones(n, dtype=cp.float64)
    dst = cp.empty_like(src)
    copy_kernel = cp.ElementwiseKernel("T x", "T y", "y = x", "hpceval_stream_copy")
    triad = cp.ElementwiseKernel("float32 a, float32 x", "float32 y", "y = a * x + y", "hpceval_stream_triad")
    wide_copy = cp.RawKernel(WIDE_COPY, "hpceval_wide_copy")  # 16-byte loads and stores, grid-stride
    sms = cp.cuda.runtime.getDeviceProperties(0)["multiProcessorCount"]
    rates = {"memcpy": 2 * n * 8 / timer(lambda: cp.copyto(dst, src)) / 1e9,
             "copy kernel": 2 * n * 8 / timer(lambda: copy_kernel(src, dst)) / 1e9,
             "16-byte copy kernel": 2 * n * 8 / timer(lambda: wide_copy((sms * 16,), (256,),
                                                                         (src, dst, cp.int64(n // 2)))) / 1e9}
    src = dst = None
    x, y = cp.ones(2 * n, dtype=cp.float32), cp.ones(2 * n, dtype=cp.float32)
    rates["triad"] = 3 * 2 * n * 4 / timer(lambda: triad(cp.float32(0.5), x, y)) / 1e9
    raw_triad = cp.RawKernel(TRIAD, "hpceval_triad")
    rates["triad kernel"] = 3 * 2 * n * 4 / timer(lambda: raw_triad(((2 * n + 255) // 256,), (256,), (
        cp.float32(0.5), x, y, cp.int64(2 * n)))) / 1e9
    triad4 = cp.RawKernel(TRIAD4, "hpceval_triad4")
    rates["16-byte triad kernel"] = 3 * 2 * n * 4 / timer(lambda: triad4((sms * 16,), (256,), (
        cp.float32(0.5), x, y, cp.int64(n // 2)))) / 1e9
    # as a timed call meets its data, at the AXPY GPU timing size (4-8x L2): the inputs just written (the call's
    # own host-to-device copies leave their tail in L2), timed as CUPTI times a kernel (without the launch and
    # the events: back to back, batch of 10). Both are part of what honest code reaches (Thrust's AXPY: 3042 GB/s
    # where every cold, event-timed stream stayed at or below 3003) and a lower bound on the time must allow them
    w = WARM_TRIAD_N
    xw, yw = x[:w], y[:w]
    rates["16-byte triad kernel at the AXPY timing size, back to back"] = 3 * w * 4 / timer(
        lambda: triad4((sms * 16,), (256,), (cp.float32(0.5), xw, yw, cp.int64(w // 4))),
        before=lambda: (xw.fill(1), yw.fill(1)), batch=10) / 1e9
    x = y = xw = yw = None
    cp.get_default_memory_pool().free_all_blocks()
    for label, count in (("thrust::transform triad", 2 * n), ("thrust::transform triad at the AXPY timing size",
                                                                WARM_TRIAD_N)):
        if (rate := thrust_triad_gbs(count)) is not None:
            rates[label] = rate
    # FP64 peak: cuBLAS DGEMM at two sizes, the best (a long 8192^3 run lowers the clocks under the power limit:
    # CuPy's 4096^3 GEMM reached 108% of it as a timed reference)
    gemm_gflops = 0.0
    for m in (4096, 8192):
        a, b = cp.random.random((m, m)), cp.random.random((m, m))
        c = cp.empty((m, m))
        gemm_gflops = max(gemm_gflops, 2 * m**3 / timer(lambda a=a, b=b, c=c: cp.matmul(a, b, out=c), warmup=2,
                                                           reps=10) / 1e9)
        a = b = c = None
        cp.get_default_memory_pool().free_all_blocks()
    best = max(rates, key=rates.get)
    return {"copy_gbs": rates[best], "copy_how": best, "streams_gbs": {k: round(v) for k, v in rates.items()},
            "dgemm_gflops": gemm_gflops, "method": GPU_METHOD}


def _from_results(name: str) -> dict | None:
    """Ceilings of the same GPU from a published self-test (results/gpu-*/summary.json), newest first."""
    from hpceval.paths import PACKAGE_DIR

    for path in sorted((PACKAGE_DIR.parent.parent / "results").glob("gpu-*/summary.json"), reverse=True):
        try:
            summary = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        if summary.get("ceilings") and name and name in str(summary.get("gpu", "")):
            return {**summary["ceilings"], "source": str(path.parent.name)}
    return None


def gpu_ceilings() -> Ceilings | None:
    """The first NVIDIA GPU's ceilings: cached, else measured with CuPy, else from results/gpu-*; None if unknown."""
    from hpceval.toolchains.cuda import nvidia_gpu

    gpu = nvidia_gpu()
    if gpu is None:
        return None
    with _LOCK:
        data = _load_cache()
        entry = data.get("gpu", {}).get(gpu.name)
        if entry and entry.get("source") == "measured here" and entry.get("method") != GPU_METHOD:
            entry = None  # measured by an earlier set of streams (memcpy alone, cold triads only): measure again
        if not entry:
            try:
                entry = {**gpu_measure(GpuTimer()), "source": "measured here"}
            except Exception:  # noqa: BLE001 - no CuPy, no memory: fall back to a published measurement
                entry = _from_results(gpu.name)
            if not entry:
                return None
            data.setdefault("gpu", {})[gpu.name] = entry
            _save_cache(data)
    return Ceilings(float(entry["copy_gbs"]), float(entry["dgemm_gflops"]), str(entry.get("source", "")))


# ---------------------------------------------------------------------------------------------- the bound


def lower_bound(flops: float, nbytes: float, dtype: str, device: str) -> Bound | None:
    """The physical lower bound on one call's time on this machine (None where no ceilings are known)."""
    if os.environ.get("HPCEVAL_NO_PLAUSIBILITY"):
        return None
    ceil = gpu_ceilings() if device == "gpu" else cpu_ceilings()
    if ceil is None or ceil.copy_gbs <= 0 or ceil.dgemm_gflops <= 0:
        return None
    t_bytes = nbytes / (ceil.copy_gbs * 1e9)
    t_flops = flops / (ceil.peak_gflops(dtype) * 1e9)
    safety = SAFETY.get(device, 3.0)
    how = (f"{nbytes:.3g} B at {ceil.copy_gbs:.0f} GB/s copy bandwidth, {flops:.3g} FLOP at "
           f"{ceil.peak_gflops(dtype):.0f} GFLOP/s ({ceil.source}), divided by {safety:g}")
    return Bound(max(t_bytes, t_flops) / safety, how)


# ---------------------------------------------------------------------------------------------- the run's record


def write_run_ceilings(out_dir: Path, devices: set[str]) -> Path | None:
    """DIR/ceilings.json with the ceilings this machine's timing used (cached, never measured here), for the
    devices whose rows were timed: `hpceval report DIR` finds it, so a timed run's report has roofline
    efficiencies instead of saying that no ceilings were measured. None where none are known."""
    data = _load_cache()
    records = []
    cpu = data.get("cpu")
    if "cpu" in devices and cpu:
        records.append({"device": "cpu", "gflops": cpu["dgemm_gflops"], "gbytes_per_s": cpu["copy_gbs"],
                        "source": f"measured by the timing check {cpu.get('measured', '')}".strip(),
                        "note": "FP64 DGEMM peak; copy bandwidth"})
    gpus = data.get("gpu") or {}
    if "gpu" in devices and len(gpus) == 1:  # one GPU model on this machine: its entry is the run's
        name, entry = next(iter(gpus.items()))
        records.append({"device": "gpu", "gflops": entry["dgemm_gflops"], "gbytes_per_s": entry["copy_gbs"],
                        "source": f"{name}: {entry.get('source', '')}"})
    if not records:
        return None
    path = Path(out_dir) / "ceilings.json"
    path.write_text(json.dumps({"ceilings": records}, indent=2) + "\n")
    return path
