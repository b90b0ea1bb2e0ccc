"""Dispatchers: where whole evaluation jobs run (see base.py for why this is not an executor).

`--executor local|docker` keeps the pipeline's own thread pool (`--jobs N` threads on this machine).
`--executor dask` sends each evaluation to Dask distributed workers, which build and run it in their local
sandbox: a LocalCluster here (no address), an existing scheduler (`--scheduler tcp://HOST:PORT`), or Slurm/PBS/LSF
worker jobs through dask-jobqueue (`--cluster slurm --cluster-config FILE.toml`). Dask is imported only then.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from hpceval.dispatch.base import Dispatcher, DispatchUnavailable, EvalJob, OnResult

__all__ = ["DispatchUnavailable", "Dispatcher", "EvalJob", "OnResult", "open_dispatcher", "sandbox_of"]

CLUSTERS = ("slurm", "pbs", "lsf")


def sandbox_of(executor: str) -> str:
    """The executor that runs build/run commands: dask workers use the local sandbox of their node."""
    return "local" if executor == "dask" else executor


def open_dispatcher(executor: str, *, scheduler: str | None = None, cluster: str | None = None,
                    cluster_config: Path | None = None, workers: int = 0,
                    announce: Callable[[str], None] = print) -> Dispatcher | None:
    """None for the thread pool; a DaskDispatcher (a context manager: the cluster is released on exit) for dask."""
    if executor != "dask":
        if scheduler or cluster or cluster_config:
            raise DispatchUnavailable("--scheduler, --cluster and --cluster-config need --executor dask")
        return None
    if scheduler and cluster:
        raise DispatchUnavailable("give --scheduler (join a running Dask scheduler) or --cluster (start one), not both")
    if cluster and cluster not in CLUSTERS:
        raise DispatchUnavailable(f"unknown --cluster {cluster!r}; valid: {', '.join(CLUSTERS)}")
    if cluster_config and not cluster:
        raise DispatchUnavailable("--cluster-config needs --cluster slurm|pbs|lsf")
    try:
        from hpceval.dispatch.dask import DaskDispatcher
    except ImportError as exc:
        raise DispatchUnavailable(f"--executor dask needs Dask: pip install 'hpceval[dask]' ({exc})") from None
    return DaskDispatcher(scheduler=scheduler, cluster=cluster, cluster_config=cluster_config, workers=workers,
                          announce=announce)
