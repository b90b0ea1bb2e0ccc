"""What runs inside a Dask worker process: the capability plugin and the evaluation job itself.

Why a module of its own: these functions are pickled by reference, so the worker imports this module (from the
hpceval installed on its node) and keeps its module-level state between jobs: one Evaluator per evaluator
settings, built on the first job and reused (with its toolchain probes, cached per process, and the executor's
per-node caches), never rebuilt per job.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import time
from typing import Any

from distributed.diagnostics.plugin import WorkerPlugin

from hpceval.contracts import Binding, Evaluation, Verdict
from hpceval.dispatch.capabilities import node_capabilities
from hpceval.evaluate import Evaluator
from hpceval.executors import Limits, get_executor
from hpceval.spec import catalog

_EVALUATORS: dict[str, Evaluator] = {}


def evaluator_settings(evaluator: Evaluator) -> dict[str, Any]:
    """What a worker needs to rebuild the client's Evaluator on its node (the catalog is read there)."""
    return {"executor": evaluator.executor.name, "seed": evaluator.seed, "timing": evaluator.timing,
            "build_limits": dataclasses.asdict(evaluator.build_limits),
            "run_limits": dataclasses.asdict(evaluator.run_limits), "keep_dirs": evaluator.keep_dirs,
            "vendor_library_counts": evaluator.vendor_library_counts, "canaries": evaluator.canaries}


def worker_evaluator(settings: dict[str, Any]) -> Evaluator:
    key = json.dumps(settings, sort_keys=True)
    if key not in _EVALUATORS:
        _EVALUATORS[key] = Evaluator(
            catalog(), get_executor(settings["executor"]), seed=settings["seed"], timing=settings["timing"],
            build_limits=Limits(**settings["build_limits"]), run_limits=Limits(**settings["run_limits"]),
            keep_dirs=settings["keep_dirs"], vendor_library_counts=settings["vendor_library_counts"],
            canaries=settings.get("canaries", False))  # each worker checks its own environment (hpceval.canary)
    return _EVALUATORS[key]


def evaluate_job(settings: dict[str, Any], code: str, kernel: str, model: str,
                 binding: Binding | None) -> Evaluation:
    """One suggestion's evaluation on this worker; a harness fault is that suggestion's infra_error."""
    try:
        evaluator = worker_evaluator(settings)
        return evaluator.evaluate(code, evaluator.catalog.kernels[kernel], evaluator.catalog.models[model], binding)
    except Exception as exc:  # noqa: BLE001 - recorded as infra_error with its message, as the thread pool does
        return Evaluation(verdict=Verdict.infra_error, evidence=f"harness error: {type(exc).__name__}: {exc}")


def noop_job(seconds: float = 0.0) -> float:
    """A job that does nothing (bench/scale_out.py measures the per-job scheduling overhead with it)."""
    if seconds:
        time.sleep(seconds)
    return time.monotonic()


def worker_pid() -> int:
    return os.getpid()


class Capabilities(WorkerPlugin):
    """Advertises this node's toolchains, programming models and GPUs as the worker's Dask resources, for
    workers of a joined scheduler that were started without the preload (preload.py says why both exist)."""

    name = "hpceval-capabilities"

    async def setup(self, worker: Any) -> None:
        slots = worker.state.nthreads
        caps = await asyncio.get_running_loop().run_in_executor(None, node_capabilities, catalog(), slots)
        await worker.set_resources(**caps)
