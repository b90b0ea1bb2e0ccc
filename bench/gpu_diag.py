"""Diagnose CUDA inside the local sandbox (nsjail): which mounts, ids and limits the driver needs.

Prints the device nodes and mounts, then one line per variant: cuInit, device count, context and allocation
results of a tiny ctypes program run outside the jail (root, uid 65534) and inside it with variants of /sys
and the identity. Used by bench/gpu_selftest.sh before anything runs on the GPU."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

from hpceval.executors import Limits
from hpceval.executors.local import _jail_argv
from hpceval.toolchains.cuda import GPU_ADDRESS_SPACE_MB, GPU_JOB_ENV, GPU_SANDBOX_ENV, probe_env

CHECK = """
import ctypes, os
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
print(f"uid={os.getuid()} cuInit={rc} devices={n.value} ctx={ctx_rc} alloc={mem_rc}")
"""


def sh(cmd: str) -> None:
    out = subprocess.run(cmd, shell=True, capture_output=True, text=True)
    print(f"$ {cmd}\n{(out.stdout + out.stderr).strip()[:1500]}")


def jail(tmp: Path, extra: list[str], env: dict, limits: Limits, drop: tuple[str, ...] = ()) -> list[str]:
    argv = _jail_argv(tmp, env, limits, False, [sys.executable, "check.py"])
    argv = [a for a in argv if a != "--really_quiet"]
    out = []
    i = 0
    while i < len(argv):  # remove "flag value" pairs: flags in drop, and every /sys mount when /sys is replaced
        if argv[i] in drop or (drop and argv[i] == "--bindmount_ro" and argv[i + 1].startswith("/sys")):
            i += 2
            continue
        out.append(argv[i])
        i += 1
    argv = out
    cut = argv.index("--")
    return argv[:cut] + extra + argv[cut:] + [sys.executable, "check.py"]


def run(name: str, argv: list[str], cwd: Path, preexec=None) -> None:
    out = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=120, preexec_fn=preexec)
    err = [line[line.find("]", 30) + 1:] for line in out.stderr.splitlines() if "[E]" in line or "[W]" in line]
    print(f"{name:34s} rc={out.returncode} {out.stdout.strip()} {' | '.join(err)[-600:]}")


def main() -> int:
    sh("ls -la /dev/nvidia* /dev/dri 2>&1 | head -20")
    sh("ls -ld /sys/module/nvidia* /sys/bus/pci/devices 2>&1; mount | grep -E ' /(sys|dev|proc)( |/)' | head -20")
    sh("ulimit -a | grep -i -E 'locked|virtual|processes'")
    sh("cat /proc/driver/nvidia/params 2>&1 | grep -i -E 'DeviceFileUID|DeviceFileGID|DeviceFileMode|ModifyDeviceFiles'")
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": "/tmp", **GPU_JOB_ENV}
    big = replace(Limits(wall_s=60), address_space_mb=GPU_ADDRESS_SPACE_MB, pids=1024)
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        os.chmod(tmp, 0o777)
        (tmp / "check.py").write_text(CHECK)
        run("outside, root", [sys.executable, "check.py"], tmp)

        def nobody():
            os.setgroups([])
            os.setgid(65534)
            os.setuid(65534)

        run("outside, uid 65534", [sys.executable, "check.py"], tmp, nobody)
        run("jail, CPU job settings", jail(tmp, [], env, Limits(wall_s=60)), tmp)
        gpu_env = {**env, **GPU_SANDBOX_ENV, **probe_env()}
        run("jail, GPU job settings", jail(tmp, [], gpu_env, big), tmp)
        probe = tmp / "gpu_probe.txt"
        print("probe file after a run without kernels:", probe.read_text()[:60] if probe.exists() else "none")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
