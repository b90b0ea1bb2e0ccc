"""Diagnose CUDA inside the local sandbox: cuInit and a context under the job limits, with and without the
GPU adjustments (/sys paths, address space). Prints one line per variant; used by bench/gpu_selftest.sh."""

from __future__ import annotations

import sys
import tempfile
from dataclasses import replace
from pathlib import Path

from hpceval.executors import Limits
from hpceval.executors.local import LocalExecutor
from hpceval.toolchains.cuda import GPU_ADDRESS_SPACE_MB, GPU_JOB_ENV, GPU_SANDBOX_SYS, probe_env

CHECK = """
import ctypes
lib = ctypes.CDLL("libcuda.so.1")
rc = lib.cuInit(0)
n = ctypes.c_int(-1)
lib.cuDeviceGetCount(ctypes.byref(n))
ctx = ctypes.c_void_p()
dev = ctypes.c_int(0)
lib.cuDeviceGet(ctypes.byref(dev), 0)
ctx_rc = lib.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev)
ptr = ctypes.c_uint64()
lib.cuCtxSetCurrent(ctx)
mem_rc = lib.cuMemAlloc_v2(ctypes.byref(ptr), ctypes.c_size_t(1 << 20))
print(f"cuInit={rc} devices={n.value} ctx={ctx_rc} alloc={mem_rc}")
"""


def main() -> int:
    ex = LocalExecutor()
    base = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": "/tmp", **GPU_JOB_ENV}
    variants = {
        "plain sandbox": (base, Limits(wall_s=60)),
        "+ /sys paths": ({**base, "HPCEVAL_SANDBOX_SYS": GPU_SANDBOX_SYS}, Limits(wall_s=60)),
        "+ address space": (base, replace(Limits(wall_s=60), address_space_mb=GPU_ADDRESS_SPACE_MB, pids=1024)),
        "GPU job (both)": ({**base, "HPCEVAL_SANDBOX_SYS": GPU_SANDBOX_SYS, **probe_env()},
                           replace(Limits(wall_s=60), address_space_mb=GPU_ADDRESS_SPACE_MB, pids=1024)),
    }
    for name, (env, limits) in variants.items():
        with tempfile.TemporaryDirectory() as tmp:
            Path(tmp, "check.py").write_text(CHECK)
            result = ex.run([sys.executable, "check.py"], Path(tmp), env, limits)
            probe = Path(tmp, "gpu_probe.txt")
            extra = f" probe file: {probe.read_text()[:80]!r}" if probe.exists() else ""
            print(f"{name:18s} rc={result.returncode} {result.stdout.strip()} {result.stderr.strip()[-300:]}{extra}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
