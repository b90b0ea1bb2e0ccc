"""Environment canaries: a model's reference solution runs once in an environment before its suggestions do.

Why: when the environment is broken for a model (a run-time library missing, a toolchain that builds but whose
programs cannot run, SciPy absent under Numba's np.dot), every suggestion of that model fails, and those
failures would be charged to the LLM. The kernel's known-correct solution (kernels_spec/<kernel>/solutions/
<model>.<ext>) is evaluated first, without timing; if it is not `correct`, the model's rows are `infra_error` with
the reference's verdict and evidence, and `hpceval doctor` lists the failing canary.

Where: inside the Evaluator, i.e. in the process that evaluates, so with the Dask executor each worker checks its
own environment (workers on different nodes may differ; a canary run once on the client would vouch for the
client's environment only). Per process a canary runs once per (kernel, model, toolchain version, image,
harness): its key is the evaluation cache key of the reference itself. Passes are also kept in a cache file
(HPCEVAL_CANARY_CACHE, default ~/.cache/hpceval/canaries.json, keyed by that key and the host) so a later run on
the same environment skips them; failures are recorded there too, for doctor, but always checked again by a new
process (the environment may have been repaired without any version changing).
"""

from __future__ import annotations

import json
import os
import socket
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from hpceval.contracts import Evaluation, Verdict
from hpceval.paths import cache_dir, save_json_cache

if TYPE_CHECKING:
    from hpceval.evaluate import Evaluator
    from hpceval.spec import KernelSpec, ProgrammingModel


def cache_path() -> Path:
    override = os.environ.get("HPCEVAL_CANARY_CACHE")
    if override:
        return Path(override).expanduser()
    return cache_dir() / "canaries.json"


@dataclass(frozen=True)
class CanaryResult:
    ok: bool
    verdict: str
    evidence: str


class Canaries:
    """The canaries of one process: run each once (a lock per key), remember the outcome."""

    def __init__(self) -> None:
        self._results: dict[str, CanaryResult] = {}
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()

    def check(self, evaluator: Evaluator, spec: KernelSpec, model: ProgrammingModel) -> Evaluation | None:
        """None when the model's reference passes here (or there is none); else the infra_error for its rows."""
        path = spec.solution_path(model, evaluator.catalog)
        if not path.is_file() or not _runs_here(evaluator, model):
            return None  # no reference; or no toolchain, which every row reports as infra_error on its own
        code = path.read_text()
        key = evaluator.cache_key(code, spec, model, None) + "@" + socket.gethostname()
        with self._guard:
            lock = self._locks.setdefault(key, threading.Lock())
        with lock:
            result = self._results.get(key) or _cached_pass(key)
            if result is None:
                e = evaluator.evaluate_reference(code, spec, model)
                result = CanaryResult(e.verdict == Verdict.correct, e.verdict.value, e.evidence)
                _record(key, spec, model, e, result)
            self._results[key] = result
        if result.ok:
            return None
        where = path.relative_to(spec.folder.parent) if spec.folder.parent in path.parents else path.name
        return Evaluation(verdict=Verdict.infra_error,
                          evidence=f"environment canary: the reference solution {where} is {result.verdict} here, "
                                   f"so this environment cannot grade {model.id}: {result.evidence[:600]}")


def _runs_here(evaluator: Evaluator, model: ProgrammingModel) -> bool:
    from hpceval.toolchains import get_toolchain

    info = evaluator.executor.toolchain_info(get_toolchain(model.toolchain))
    return bool(info.available and info.can_run)


def _load() -> dict:
    try:
        return json.loads(cache_path().read_text())
    except (OSError, ValueError):
        return {}


def _cached_pass(key: str) -> CanaryResult | None:
    entry = _load().get(key)
    return CanaryResult(True, entry["verdict"], entry["evidence"]) if entry and entry.get("ok") else None


_WRITE = threading.Lock()


def _record(key: str, spec: KernelSpec, model: ProgrammingModel, e: Evaluation, result: CanaryResult) -> None:
    """Keep the outcome in the cache file (best effort: a read-only home only costs a rerun)."""
    with _WRITE:
        data = _load()
        data[key] = {"ok": result.ok, "kernel": spec.id, "model": model.id, "toolchain": e.toolchain,
                     "version": e.toolchain_version, "host": socket.gethostname(), "verdict": result.verdict,
                     "evidence": result.evidence[:1000], "when": time.strftime("%Y-%m-%d %H:%M:%S")}
        save_json_cache(cache_path(), data)


def failing() -> list[dict]:
    """The failing canaries the cache file holds for this host (for `hpceval doctor`), newest first."""
    host = socket.gethostname()
    rows = [v for v in _load().values() if not v.get("ok") and v.get("host") == host]
    return sorted(rows, key=lambda v: v.get("when", ""), reverse=True)
