"""The contract between the pipeline and whatever runs its evaluation jobs (a dispatcher).

Why a separate contract: executors (hpceval.executors) decide where one build or run command of a toolchain
executes (a sandbox on this machine, a container); a dispatcher decides where a whole evaluation (bind -> build
-> run -> checks of one suggestion) executes: threads of this process, or Dask workers on other nodes. The
pipeline hands a dispatcher the pending jobs and a callback; the dispatcher calls back with each Evaluation on
the pipeline's thread, and only that callback writes the store, so kill-safety and resume do not depend on where
the jobs ran.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from hpceval.executors.base import ExecutorUnavailable

if TYPE_CHECKING:
    from hpceval.contracts import Binding, Evaluation
    from hpceval.evaluate import Evaluator
    from hpceval.spec import KernelSpec, ProgrammingModel


@dataclass(frozen=True)
class EvalJob:
    """One pending evaluation: the store's content key and what Evaluator.evaluate takes."""

    key: str
    code: str
    spec: KernelSpec
    model: ProgrammingModel
    binding: Binding | None


OnResult = Callable[[str, "Evaluation"], None]


class Dispatcher(Protocol):
    """Runs evaluation jobs somewhere and reports each result through `on_result` (on the caller's thread)."""

    name: str

    def evaluate(self, evaluator: Evaluator, jobs: list[EvalJob], on_result: OnResult) -> None: ...

    def describe(self) -> dict: ...


class DispatchUnavailable(ExecutorUnavailable):
    """The dispatcher cannot start (Dask not installed, no scheduler at that address, a bad cluster config)."""
