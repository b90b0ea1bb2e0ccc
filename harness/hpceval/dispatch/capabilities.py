"""What a node can run, as Dask resources, and what a job needs: placement by capability.

Why resources: Dask's scheduler places a task only on a worker whose advertised resources cover the task's
request, so a Fortran job never lands where gfortran is missing and a GPU job never lands on a CPU node. Each
worker probes its own node once (the same detection `hpceval doctor` does: Toolchain.detect() and model_info;
toolchain probes are cached per process) and advertises:

* `model-<id>`: this programming model builds and runs here (quantity: the worker's threads, so the resource
  never limits CPU concurrency),
* `toolchain-<name>`: the toolchain is found here (informative: `hpceval doctor`'s view; jobs ask for the model),
* `gpu`: the number of GPUs (a GPU job asks for one, so a worker runs at most one GPU job per GPU).
"""

from __future__ import annotations

import ctypes
import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hpceval.spec import Catalog, ProgrammingModel


def gpu_count() -> int:
    """GPUs of this node as the CUDA driver (or ROCm) reports them; 0 without any (HPCEVAL_NO_GPU=1: 0)."""
    if os.environ.get("HPCEVAL_NO_GPU", "") not in ("", "0"):
        return 0
    try:
        lib = ctypes.CDLL("libcuda.so.1")
        count = ctypes.c_int(0)
        if lib.cuInit(0) == 0 and lib.cuDeviceGetCount(ctypes.byref(count)) == 0 and count.value > 0:
            return count.value
    except (OSError, AttributeError):
        pass
    from hpceval.toolchains.hip import amd_gpu_arch

    return 1 if amd_gpu_arch() else 0


PROBE_ENV = "HPCEVAL_PROBE_MODELS"  # comma-separated model ids: probe only those (workers started for one run)


def node_capabilities(catalog: Catalog, slots: int = 1, models: list[str] | None = None) -> dict[str, float]:
    """The resources this node advertises (see the module docstring); `slots` is the worker's thread count.

    `models` (default: $HPCEVAL_PROBE_MODELS, else every model of the catalog) narrows the probe: detecting
    every toolchain takes about a minute on a busy node, and workers started for one run need only its models.
    """
    from hpceval.toolchains import get_toolchain

    if models is None and os.environ.get(PROBE_ENV):
        models = [m for m in os.environ[PROBE_ENV].split(",") if m]
    caps: dict[str, float] = {}
    for model in catalog.models.values():
        if models is not None and model.id not in models:
            continue
        try:
            toolchain = get_toolchain(model.toolchain)
            info = toolchain.detect()
            if info.available:
                caps[f"toolchain-{toolchain.name}"] = slots
            if info.available and info.can_run:
                refined = toolchain.model_info(model, info)
                if refined.available and refined.can_run:
                    caps[f"model-{model.id}"] = slots
        except Exception:  # noqa: BLE001 - a toolchain that cannot even be probed is simply not advertised
            continue
    gpus = gpu_count()
    if gpus:
        caps["gpu"] = gpus
    return caps


def requirements(model: ProgrammingModel) -> dict[str, float]:
    """The resources one evaluation job of this programming model asks for."""
    need: dict[str, float] = {f"model-{model.id}": 1}
    if model.device == "gpu":
        need["gpu"] = 1
    return need


def unmet(need: dict[str, float], offers: list[dict[str, float]]) -> list[str]:
    """The requested resources that no single worker offers in full ([] when some worker can take the job)."""
    if any(all(offer.get(r, 0) >= q for r, q in need.items()) for offer in offers):
        return []
    return sorted(r for r, q in need.items() if not any(offer.get(r, 0) >= q for offer in offers)) or sorted(need)
