"""`--executor dask`: evaluation jobs on Dask distributed workers; generation and the store stay with the client.

Why this shape: a leaderboard is thousands of compile-and-run jobs, some needing GPU nodes, and researchers run
it on their cluster. Workers only compute: each returns its Evaluation, and the pipeline's callback (on the
client's thread) writes it, so the store, its kill-safety and resume are exactly those of the thread pool.

* Where: a LocalCluster of `--jobs` one-thread worker processes (no address), an existing scheduler
  (`--scheduler tcp://HOST:PORT`), or adaptive Slurm/PBS/LSF worker jobs (`--cluster`, jobqueue.py).
* Placement: every worker advertises its node's capabilities as Dask resources (capabilities.py, set by the
  worker plugin at startup); each job asks for its programming model (and a GPU). A job that no worker can take
  is infra_error with a one-line reason before it is submitted (an adaptive cluster's workers do not exist
  yet: its config says what they will offer), and a job that stays unplaceable for `placement_timeout_s` while
  workers are connected becomes infra_error too: never a hang.
* Faults: a worker that dies mid-job has its job rescheduled by Dask; `allowed-failures` is 1, so a job that
  kills a second worker is KilledWorker, stored as infra_error with that evidence. Each result is stored once
  (one future per content key). A job cancelled under us (scheduler gone) is not stored: a rerun resumes it.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import dask
from distributed import Client, KilledWorker, LocalCluster, wait

from hpceval.contracts import Evaluation, Verdict
from hpceval.dispatch.base import DispatchUnavailable, EvalJob, OnResult
from hpceval.dispatch.capabilities import PROBE_ENV, node_capabilities, requirements, unmet
from hpceval.dispatch.jobqueue import ClusterConfig, start_cluster
from hpceval.dispatch.worker import Capabilities, evaluate_job, evaluator_settings
from hpceval.evaluate import Evaluator
from hpceval.spec import catalog

PRELOAD = "hpceval.dispatch.preload"  # sets each worker's resources before it registers
ALLOWED_FAILURES = 1  # a job may lose one worker (rescheduled); losing a second makes it KilledWorker


class DaskDispatcher:
    """Runs evaluations on Dask workers; a context manager: the cluster it started is released on exit."""

    name = "dask"

    def __init__(self, *, scheduler: str | None = None, cluster: str | None = None,
                 cluster_config: Path | None = None, workers: int = 0,
                 announce: Callable[[str], None] = print, job_fn: Callable[..., Evaluation] = evaluate_job,
                 poll_s: float = 5.0, placement_timeout_s: float | None = None) -> None:
        self.scheduler_address = scheduler
        self.kind = cluster
        self.config = ClusterConfig.load(cluster_config) if cluster else None
        self.workers = workers or os.cpu_count() or 1
        self.announce = announce
        self.job_fn = job_fn  # tests substitute a job that crashes its worker
        self.poll_s = poll_s
        default_timeout = self.config.placement_timeout_s if self.config else 120.0
        self.placement_timeout_s = placement_timeout_s if placement_timeout_s is not None else default_timeout
        self.client: Client | None = None
        self.cluster: Any = None
        self._config_ctx: Any = None
        self._log_levels: dict[str, int] = {}

    # -- lifecycle ------------------------------------------------------------------------------------------
    def __enter__(self) -> DaskDispatcher:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self, models: list[str] | None = None) -> Client:
        """Start (or join) the cluster, print the dashboard link; idempotent. Workers started here probe only
        `models` (the run's programming models) when given."""
        if self.client is not None:
            return self.client
        probe = {PROBE_ENV: ",".join(models)} if models else {}
        self._config_ctx = dask.config.set({"distributed.scheduler.allowed-failures": ALLOWED_FAILURES})
        for name in ("distributed", "dask_jobqueue"):  # their INFO lines would tear the progress bars
            logger = logging.getLogger(name)
            self._log_levels[name] = logger.level
            logger.setLevel(logging.ERROR)
        try:
            if self.scheduler_address:
                self.client = Client(self.scheduler_address, timeout=30)
            elif self.kind:
                self.cluster = start_cluster(self.kind, self.config or ClusterConfig(), probe)
                self.client = Client(self.cluster)
            else:
                self._start_local(probe)
            if self.scheduler_address:
                self.client.wait_for_workers(1, timeout=120)
            if self.scheduler_address:  # workers started without the preload advertise through the plugin
                self.client.register_plugin(Capabilities())
        except DispatchUnavailable:
            self.close()
            raise
        except Exception as exc:  # noqa: BLE001 - no scheduler, no workers: one line, nothing stored
            self.close()
            raise DispatchUnavailable(f"Dask: {type(exc).__name__}: {exc}") from None
        where = self.kind or ("scheduler " + self.scheduler_address if self.scheduler_address else
                              f"LocalCluster of {self.workers} workers")
        self.announce(f"Dask ({where}): dashboard {self.dashboard_link()}")
        return self.client

    def _start_local(self, probe: dict[str, str]) -> None:
        """A LocalCluster of one-thread worker processes; started a second time if a worker process dies while the
        cluster starts ("Nanny failed to start": killed, or out of memory, before it registered)."""
        for attempt in range(2):
            try:
                self.cluster = LocalCluster(n_workers=self.workers, threads_per_worker=1, processes=True,
                                            silence_logs=logging.ERROR, dashboard_address=":0", preload=[PRELOAD],
                                            env=probe)
                self.client = Client(self.cluster)
                self.client.wait_for_workers(self.workers, timeout=120)
                return
            except Exception:  # noqa: BLE001 - the caller turns the second failure into one line
                if attempt:
                    raise
                self._release()

    def dashboard_link(self) -> str:
        try:
            import bokeh  # noqa: F401 - the dashboard is served only with bokeh installed
        except ImportError:
            return "unavailable (pip install bokeh)"
        return self.client.dashboard_link if self.client else ""

    def _release(self) -> None:
        """Close the client and the cluster (best effort)."""
        client, cluster, self.client, self.cluster = self.client, self.cluster, None, None
        for thing in (client, cluster):
            if thing is not None:
                try:
                    thing.close()
                except Exception:  # noqa: BLE001 - closing is best effort; the batch jobs have a walltime
                    pass

    def close(self) -> None:
        self._release()
        if self._config_ctx is not None:
            self._config_ctx.__exit__(None, None, None)
            self._config_ctx = None
        for name, level in self._log_levels.items():
            logging.getLogger(name).setLevel(level)
        self._log_levels.clear()

    def describe(self) -> dict:
        return {"dispatcher": "dask", "cluster": self.kind or ("scheduler" if self.scheduler_address else "local"),
                "workers": None if (self.kind or self.scheduler_address) else self.workers}

    # -- placement ------------------------------------------------------------------------------------------
    def worker_offers(self) -> list[dict[str, float]]:
        """The resources each connected worker advertises."""
        assert self.client is not None
        info = self.client.scheduler_info(n_workers=-1)
        return [dict(w.get("resources") or {}) for w in info.get("workers", {}).values()]

    def offers(self, models: list[str] | None = None) -> list[dict[str, float]]:
        """What the cluster can take: its workers' resources, and for an adaptive cluster what its config says
        the worker jobs will offer (their models, default those this machine can run, and `gpus`)."""
        offers = self.worker_offers()
        if self.config is not None:
            promised = node_capabilities(catalog(), slots=1, models=models)
            if self.config.models is not None:
                promised = {f"model-{m}": 1 for m in self.config.models}
            promised = {k: v for k, v in promised.items() if k != "gpu"}
            if self.config.gpus:
                promised["gpu"] = self.config.gpus
            offers.append(promised)
        return offers

    # -- the jobs -------------------------------------------------------------------------------------------
    def evaluate(self, evaluator: Evaluator, jobs: list[EvalJob], on_result: OnResult) -> None:
        if not jobs:
            return
        models = sorted({job.model.id for job in jobs})
        client = self.start(models)
        settings = evaluator_settings(evaluator)
        offers = self.offers(models)
        futures: dict[Any, EvalJob] = {}
        try:
            for job in jobs:
                need = requirements(job.model)
                missing = unmet(need, offers)
                if missing:
                    on_result(job.key, _infra(job, f"no Dask worker can take this job: none advertises "
                                                   f"{' and '.join(missing)} ({_summary(offers)})"))
                    continue
                fut = client.submit(self.job_fn, settings, job.code, job.spec.id, job.model.id, job.binding,
                                    resources=need, key=f"hpceval-eval-{job.key}", pure=False)
                futures[fut] = job
            self._collect(futures, on_result)
        except BaseException:
            if self.client is not None:
                self.client.cancel(list(futures), force=True)
            raise

    def _collect(self, futures: dict[Any, EvalJob], on_result: OnResult) -> None:
        pending = set(futures)
        stuck_since: float | None = None
        while pending:
            try:
                done, pending = wait(pending, timeout=self.poll_s, return_when="FIRST_COMPLETED")
            except TimeoutError:
                done = set()
            for fut in done:
                on_result(futures[fut].key, self._outcome(fut, futures[fut]))
            if done:
                stuck_since = None
                continue
            stuck = self._unplaceable(pending, futures)
            if not stuck:
                stuck_since = None
                continue
            stuck_since = stuck_since or time.monotonic()
            if time.monotonic() - stuck_since < self.placement_timeout_s:
                continue
            workers = self.worker_offers()
            assert self.client is not None
            self.client.cancel(list(stuck), force=True)
            for fut in stuck:
                pending.discard(fut)
                need = requirements(futures[fut].model)
                on_result(futures[fut].key, _infra(futures[fut], (
                    f"no connected Dask worker took this job in {self.placement_timeout_s:.0f} s: none advertises "
                    f"{' and '.join(unmet(need, workers))} ({_summary(workers)})")))

    def _unplaceable(self, pending: set, futures: dict[Any, EvalJob]) -> list:
        """Pending jobs that no connected worker can take, while some worker is connected (an adaptive cluster
        with no worker yet is waiting in the batch queue, not stuck)."""
        workers = self.worker_offers()
        if not workers:
            return []
        return [f for f in pending if unmet(requirements(futures[f].model), workers)]

    def _outcome(self, fut: Any, job: EvalJob) -> Evaluation:
        if fut.status == "finished":
            return fut.result()
        if fut.status == "cancelled":
            raise DispatchUnavailable("Dask cancelled an evaluation job (scheduler lost?); nothing was stored for "
                                      "it: rerun the same command to resume")
        exc = fut.exception()
        if isinstance(exc, KilledWorker):
            return _infra(job, f"the job crashed {ALLOWED_FAILURES + 1} Dask workers (each died while running it; "
                               f"a crash or the node's OOM killer): {exc}")
        return _infra(job, f"harness error on the Dask worker: {type(exc).__name__}: {exc}")


def _infra(job: EvalJob, evidence: str) -> Evaluation:
    return Evaluation(verdict=Verdict.infra_error, evidence=evidence, device=job.model.device)


def _summary(offers: list[dict[str, float]]) -> str:
    if not offers:
        return "no worker connected"
    models = sorted({k.removeprefix("model-") for o in offers for k in o if k.startswith("model-")})
    gpus = max((o.get("gpu", 0) for o in offers), default=0)
    return (f"{len(offers)} worker(s) offer models {', '.join(models) or 'none'}; "
            f"{'GPUs: ' + str(int(gpus)) if gpus else 'no GPU'}")
