"""Batch-system worker jobs through dask-jobqueue, from a small TOML file (`--cluster-config`).

Why a file: queue, account, walltime and the environment to activate are site facts, not run parameters; the
same `hpceval run` command then works on a laptop (LocalCluster) and on any Slurm/PBS/LSF site. The cluster is
adaptive: from `min_jobs` (default 0) to `max_jobs` worker jobs, scaled to the pending work, and released
(scancel/qdel/bkill by dask-jobqueue) when the run ends.

Keys (all optional; docs/cluster.md):
  queue, account, walltime ("01:00:00"), cores (per job, default 1), processes (workers per job, default 1),
  memory (per job, default "4GB"), gpus (per job, default 0), env (shell lines run before the worker starts,
  e.g. ["module load gcc", "source ~/venv/bin/activate"]), python (interpreter on the nodes, default this one),
  min_jobs, max_jobs (default 4), interface, local_directory, log_directory, extra_directives (raw #SBATCH/#PBS/
  #BSUB lines), models (the programming models the job nodes can build and run; default: those this machine
  can, i.e. the same software environment), placement_timeout_s (default 600: a job that no connected worker
  can take after that long becomes infra_error).
"""

from __future__ import annotations

import shlex
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hpceval.dispatch.base import DispatchUnavailable

KEYS = {"queue", "account", "walltime", "cores", "processes", "memory", "gpus", "env", "python", "min_jobs",
        "max_jobs", "interface", "local_directory", "log_directory", "extra_directives", "models",
        "placement_timeout_s"}


@dataclass
class ClusterConfig:
    queue: str | None = None
    account: str | None = None
    walltime: str = "01:00:00"
    cores: int = 1
    processes: int = 1
    memory: str = "4GB"
    gpus: int = 0
    env: list[str] = field(default_factory=list)
    python: str = sys.executable
    min_jobs: int = 0
    max_jobs: int = 4
    interface: str | None = None
    local_directory: str | None = None
    log_directory: str | None = None
    extra_directives: list[str] = field(default_factory=list)
    models: list[str] | None = None
    placement_timeout_s: float = 600.0

    @classmethod
    def load(cls, path: Path | None) -> ClusterConfig:
        if path is None:
            return cls()
        try:
            data = tomllib.loads(Path(path).read_text())
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise DispatchUnavailable(f"cluster config {path}: {exc}") from None
        data = data.get("cluster", data)  # a [cluster] table or top-level keys
        unknown = sorted(set(data) - KEYS)
        if unknown:
            raise DispatchUnavailable(f"cluster config {path}: unknown keys {', '.join(unknown)}; "
                                      f"valid: {', '.join(sorted(KEYS))}")
        if isinstance(data.get("env"), str):
            data["env"] = [data["env"]]
        return cls(**data)


def gpu_directives(kind: str, gpus: int) -> list[str]:
    if not gpus:
        return []
    return {"slurm": [f"--gres=gpu:{gpus}"], "pbs": [f"-l ngpus={gpus}"], "lsf": [f"-gpu num={gpus}"]}[kind]


def start_cluster(kind: str, config: ClusterConfig, env: dict[str, str] | None = None) -> Any:
    """A dask-jobqueue cluster of the given kind, adaptive between min_jobs and max_jobs; its scheduler runs here."""
    try:
        import dask_jobqueue
    except ImportError as exc:
        raise DispatchUnavailable(f"--cluster needs dask-jobqueue: pip install 'hpceval[dask]' ({exc})") from None
    cls = {"slurm": dask_jobqueue.SLURMCluster, "pbs": dask_jobqueue.PBSCluster, "lsf": dask_jobqueue.LSFCluster}[kind]
    kwargs: dict[str, Any] = {
        "cores": config.cores, "processes": config.processes, "memory": config.memory,
        "walltime": config.walltime, "python": config.python, "job_script_prologue": list(config.env) + [f"export {k}={shlex.quote(v)}" for k, v in (env or {}).items()],
        "job_extra_directives": list(config.extra_directives) + gpu_directives(kind, config.gpus),
        "job_name": "hpceval-worker", "worker_extra_args": ["--preload", "hpceval.dispatch.preload"],
    }
    for key in ("queue", "account", "interface", "local_directory", "log_directory"):
        if getattr(config, key) is not None:
            kwargs["project" if key == "account" and kind == "lsf" else key] = getattr(config, key)
    try:
        cluster = cls(**kwargs)
    except Exception as exc:  # noqa: BLE001 - any failure to set the cluster up is a one-line user error
        raise DispatchUnavailable(f"cannot start the {kind} cluster: {type(exc).__name__}: {exc}") from None
    cluster.adapt(minimum_jobs=config.min_jobs, maximum_jobs=max(config.min_jobs, config.max_jobs))
    return cluster
