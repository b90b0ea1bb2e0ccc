"""The run: plan -> generate -> extract -> bind -> evaluate, persisted after every record so it resumes.

The run id is a hash of the configuration, so rerunning the same command in the same results directory
resumes that run: prompts already answered are not asked again, evaluations already stored are reused.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field

from pydantic import BaseModel, Field

from hpceval import __version__, lifecycle, scratch
from hpceval.bind import choose_binding
from hpceval.contracts import Evaluation, Prompt, Suggestion, Verdict
from hpceval.dispatch.base import Dispatcher, EvalJob
from hpceval.evaluate import Evaluator
from hpceval.extract import extract, extract_details
from hpceval.llm import GenerationParams, LLMBackend
from hpceval.prelude import with_prelude
from hpceval.prompts import plan
from hpceval.spec import Catalog
from hpceval.store import Store
from hpceval.toolchains import get_toolchain


class RunConfig(BaseModel):
    """Everything that determines a run's results; hashed into its run id and recorded with it."""

    llm: str
    kernels: list[str]
    models: list[str]
    styles: list[str] = Field(default_factory=lambda: ["chat"])
    hints: list[str] = Field(default_factory=lambda: ["none"])
    generation: GenerationParams = Field(default_factory=GenerationParams)
    seed: int = 20230615
    executor: str = "local"
    timing: bool = True
    llm_identity: dict = Field(default_factory=dict)
    # feedback rounds (hpceval.rounds); hashed only when not the defaults, so one-shot runs keep their ids
    rounds: int = 1
    optimize: bool = False
    optimize_below: float = 0.5

    def run_id(self) -> str:
        payload = self.model_dump(mode="json")
        if self.rounds == 1 and not self.optimize:
            for name in ("rounds", "optimize", "optimize_below"):
                payload.pop(name)
        return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:12]


def environment(catalog: Catalog, models: list[str], evaluator: Evaluator) -> dict:
    tools = {}
    for m in models:
        tc = get_toolchain(catalog.models[m].toolchain)
        info = tc.detect()
        tools[tc.name] = {"version": info.version, "available": info.available,
                          "image": evaluator.executor.image_digest(tc.name)}
    return {"hpceval": __version__, "python": platform.python_version(), "platform": platform.platform(),
            "cpus": os.cpu_count(), "executor": evaluator.executor.describe(), "toolchains": tools}


@dataclass
class Progress:
    """Callbacks the CLI uses to draw progress bars (all optional)."""

    on_generated: Callable[[int, int], None] = lambda done, total: None
    on_evaluated: Callable[[int, int, str], None] = lambda done, total, verdict: None
    counts: dict[str, int] = field(default_factory=dict)


def generate_missing(store: Store, run_id: str, prompts: list[Prompt], backend: LLMBackend,
                     params: GenerationParams, progress: Progress, catalog: Catalog | None = None) -> None:
    """Ask the backend only for prompts that have no stored generation yet (or whose generation failed).

    A prompt's suggestions are stored in one transaction, with the extraction outcome in their meta; backends
    that take a generation cache get the store, so a retried or resumed prompt costs no repeated request.
    """
    if hasattr(backend, "attach_cache"):
        backend.attach_cache(store)
    answered = store.prompts_with_generations(run_id)
    failed = store.prompts_with_generation_errors(run_id) & {p.prompt_id for p in prompts}
    if failed:
        store.delete_generations(run_id, failed)
        answered -= failed
    todo = [p for p in prompts if p.prompt_id not in answered]
    by_id = {p.prompt_id: p for p in todo}
    done = len(prompts) - len(todo)
    progress.on_generated(done, len(prompts))
    batch: list[Suggestion] = []

    def flush() -> None:
        nonlocal done
        if batch:
            prompt = by_id.get(batch[0].prompt_id)
            if prompt is not None and catalog is not None:
                function = catalog.kernels[prompt.kernel].function
                for s in batch:
                    if s.meta.get("complete") and not s.code:
                        s.code = s.text
                    if s.error is None and not s.meta.get("complete"):
                        result = extract_details(s.text, prompt, function)
                        s.code = result.code
                        s.meta["extract"] = result.record()
            store.add_generations(run_id, batch)
            done += 1
            progress.on_generated(done, len(prompts))
            batch.clear()

    for suggestion in backend.generate(todo, params, None):
        if batch and batch[-1].prompt_id != suggestion.prompt_id:
            flush()
        batch.append(suggestion)
    flush()


def evaluate_pending(store: Store, run_id: str, catalog: Catalog, prompts: list[Prompt], evaluator: Evaluator,
                     jobs: int, progress: Progress, dispatcher: Dispatcher | None = None) -> None:
    """Extract, bind and evaluate every stored generation; identical content keys are evaluated once.

    The jobs run on this process's thread pool, or on `dispatcher` (hpceval.dispatch: Dask workers) when given;
    either way only this thread writes the store.
    """
    by_id = {p.prompt_id: p for p in prompts}
    rows = [r for r in store.generations(run_id) if r["error"] is None and r["prompt_id"] in by_id]
    pending: dict[str, tuple] = {}
    notes: dict[str, str] = {}  # per content key, what was added before the suggestion
    finished = 0
    for row in rows:
        prompt = by_id[row["prompt_id"]]
        spec, model = catalog.kernels[prompt.kernel], catalog.models[prompt.model]
        lang = catalog.languages[model.language]
        meta = json.loads(row["meta"] or "{}")
        code = row["code"] if meta.get("complete") else extract(row["text"], prompt, spec.function)
        code, note = with_prelude(code, meta)  # lines the source compiles before the suggestion (hpceval.prelude)
        binding = choose_binding(code, spec, lang, prompt.style, model)
        key = evaluator.cache_key(code, spec, model, binding)
        store.link(run_id, row["prompt_id"], row["rank"], code, key, binding.model_dump_json() if binding else "")
        if store.has_evaluation(key):
            finished += 1
        elif key not in pending:
            pending[key] = (code, spec, model, binding)
            if note:
                notes[key] = note
    total = finished + len(pending)
    progress.on_evaluated(finished, total, "")
    if dispatcher is not None:
        def record(key: str, evaluation: Evaluation) -> None:
            nonlocal finished
            store.put_evaluation(key, _noted(evaluation, notes.get(key)))
            finished += 1
            progress.counts[evaluation.verdict.value] = progress.counts.get(evaluation.verdict.value, 0) + 1
            progress.on_evaluated(finished, total, evaluation.verdict.value)

        dispatcher.evaluate(evaluator, [EvalJob(key, *args) for key, args in pending.items()], record)
        return
    pool = ThreadPoolExecutor(max_workers=max(1, jobs))
    try:
        futures: dict[Future, str] = {}
        queue = list(pending.items())
        while queue or futures:
            while queue and len(futures) < max(1, jobs) * 2:
                key, args = queue.pop(0)
                futures[pool.submit(_safe_evaluate, evaluator, *args)] = key
            done, _ = wait(futures, return_when=FIRST_COMPLETED)
            for fut in done:
                key = futures.pop(fut)
                evaluation = _noted(fut.result(), notes.get(key))
                store.put_evaluation(key, evaluation)
                finished += 1
                progress.counts[evaluation.verdict.value] = progress.counts.get(evaluation.verdict.value, 0) + 1
                progress.on_evaluated(finished, total, evaluation.verdict.value)
    except KeyboardInterrupt:
        # Ctrl-C: kill the jobs in flight instead of waiting for them; what they return is never stored (only this
        # thread stores, and it is leaving), so a killed job cannot become a verdict.
        lifecycle.stop_jobs()
        raise
    finally:
        pool.shutdown(wait=not lifecycle.stopping(), cancel_futures=True)


def _noted(evaluation: Evaluation, note: str | None) -> Evaluation:
    return evaluation.model_copy(update={"evidence": f"{evaluation.evidence}; {note}"}) if note else evaluation


def _safe_evaluate(evaluator: Evaluator, code, spec, model, binding) -> Evaluation:
    """A harness fault while evaluating one suggestion is that suggestion's infra_error, not a crashed run."""
    try:
        return evaluator.evaluate(code, spec, model, binding)
    except Exception as exc:  # noqa: BLE001 - recorded as infra_error with its message
        return Evaluation(verdict=Verdict.infra_error, evidence=f"harness error: {type(exc).__name__}: {exc}")


def run(config: RunConfig, catalog: Catalog, store: Store, backend: LLMBackend, evaluator: Evaluator,
        jobs: int, progress: Progress | None = None, dispatcher: Dispatcher | None = None) -> str:
    progress = progress or Progress()
    kernels = catalog.select_kernels(config.kernels)
    models = catalog.select_models(config.models)
    prompts = plan(catalog, kernels, models, config.styles, config.hints)
    run_id = config.run_id()
    scratch.sweep_stale()  # work dirs and containers of runs that were killed
    env = environment(catalog, [m.id for m in models], evaluator)
    if dispatcher is not None:
        env["dispatcher"] = dispatcher.describe()
    store.add_run(run_id, config.llm, config.model_dump(mode="json"), env)
    store.add_prompts(run_id, prompts)
    generate_missing(store, run_id, prompts, backend, config.generation, progress, catalog)
    evaluate_pending(store, run_id, catalog, prompts, evaluator, jobs, progress, dispatcher)
    if config.rounds > 1:  # repair / optimisation rounds: follow-ups in the same conversation (hpceval.rounds)
        from hpceval.rounds import run_rounds

        run_rounds(config, catalog, store, backend, evaluator, jobs, progress, dispatcher, prompts, run_id,
                   generate=generate_missing, evaluate=evaluate_pending)
    store.export_csv()  # every run of the store: a CSV that named only the last one would drop rows
    return run_id


def default_jobs() -> int:
    return max(1, (os.cpu_count() or 1))
