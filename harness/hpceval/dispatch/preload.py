"""Dask worker preload: advertise this node's capabilities as the worker's resources before it registers.

Why a preload and not only the worker plugin: a plugin reaches a worker that connects later only after it has
registered, and resources set then do not reach the scheduler reliably; a preload runs in the worker process
before registration, so the scheduler never sees the worker without its resources. hpceval starts its
LocalCluster and jobqueue workers with it; workers you start yourself for `--scheduler` take it as
`dask worker tcp://HOST:PORT --preload hpceval.dispatch.preload`.
"""

from __future__ import annotations

from typing import Any

from hpceval.dispatch.capabilities import node_capabilities
from hpceval.spec import catalog


def dask_setup(worker: Any) -> None:
    for resource, quantity in node_capabilities(catalog(), worker.state.nthreads).items():
        worker.state.total_resources[resource] = quantity
        worker.state.available_resources[resource] = quantity
