"""Feedback rounds (`hpceval run --rounds R`): repair and optimise suggestions in the same conversation.

Why: newer kernel-generation work does not take one shot; it feeds compiler errors, test results and measured
performance back (CUDA-LLM, CudaForge, KernelBench's multi-turn setting). The harness already has that evidence
for every suggestion, so a round costs one follow-up request per suggestion that needs one, and the gain per round
(and its cost) can be measured like any score.

After round r-1, every suggestion that ends a *chain* (the suggestion of rank s of a prompt and its follow-ups) and
is not correct gets a follow-up (repair); with `optimize`, so does a correct one whose efficiency is below
`optimize_below` (measured GB/s or GFLOP/s over this machine's ceilings, hpceval.ceilings; where none are known,
its speedup over the reference solution timed here). The follow-up is the conversation so far, the suggestion's
raw answer and the harness's feedback (hpceval.feedback, prompts/feedback/<kind>.j2), asked with n = 1. Its answer
is extracted, bound and evaluated like any suggestion (pipeline.generate_missing / evaluate_pending).

Storage: a follow-up is a prompt of its own, `<prompt_id>#r<round>.<chain>` (rank 1), whose text is the feedback
and whose generation's meta holds the conversation and its parent; the `lineage` table (created here, so older
stores need no migration and read as round 1) links each suggestion key (run, prompt, rank) to its parent's, with
the round, the chain and the feedback kind. The id alone says round and chain, so a published evaluations.csv or a
replay file keeps the lineage too. Every step is stored as it finishes and the follow-ups of a round are
a pure function of stored verdicts: a killed run resumes mid-round, and the generation cache (whose key includes
the conversation) answers every request already paid for.
"""

from __future__ import annotations

import json
import math
import re
import sqlite3
from collections.abc import Callable, Iterator
from typing import Any

from hpceval.contracts import Prompt, Suggestion
from hpceval.feedback import Efficiency, render, repair_kind
from hpceval.llm.base import BackendError, GenerationParams

FOLLOWUP = re.compile(r"^(?P<root>.+)#r(?P<round>\d+)\.(?P<chain>\d+)$")
LINEAGE_SQL = """CREATE TABLE IF NOT EXISTS lineage(
  run_id TEXT, prompt_id TEXT, rank INTEGER, parent_prompt_id TEXT, parent_rank INTEGER, round INTEGER,
  root_prompt_id TEXT, chain INTEGER, kind TEXT, PRIMARY KEY(run_id, prompt_id, rank))"""
CONVERSATIONAL = ("openai", "local", "replay")


# ---------------------------------------------------------------------------------------------- ids
def followup_id(root: str, round_: int, chain: int) -> str:
    return f"{root}#r{round_}.{chain}"


def position(prompt_id: str, rank: int) -> tuple[str, int, int]:
    """(root prompt id, round, chain) of a suggestion: a first-round suggestion is round 1 of chain `rank`."""
    found = FOLLOWUP.match(str(prompt_id))
    if found is None:
        return str(prompt_id), 1, int(rank)
    return found.group("root"), int(found.group("round")), int(found.group("chain"))


def parent_of(prompt_id: str, rank: int) -> tuple[str, int] | None:
    root, round_, chain = position(prompt_id, rank)
    if round_ == 1:
        return None
    return (root, chain) if round_ == 2 else (followup_id(root, round_ - 1, chain), 1)


# ---------------------------------------------------------------------------------------------- checks
def check_backend(backend: Any, styles: list[str], rounds: int, optimize: bool, timing: bool,
                  optimize_below: float = 0.5) -> None:
    """BackendError (one line, exit 2) when this backend or these options cannot hold a feedback round."""
    if rounds < 1:
        raise BackendError(f"--rounds must be at least 1 (got {rounds})")
    if not (math.isfinite(optimize_below) and optimize_below > 0):
        raise BackendError(f"--optimize-below must be a positive fraction such as 0.5 (got {optimize_below})")
    if optimize and not timing:
        raise BackendError("--optimize needs timings: drop --no-timing")
    if rounds == 1:
        return
    name = getattr(backend, "name", type(backend).__name__)
    if name not in CONVERSATIONAL:
        raise BackendError(f"--rounds {rounds} needs a backend that holds a conversation (openai:MODEL over the chat "
                           f"API, local, or replay of a rounds run); {name} cannot")
    if name == "replay":
        return
    if getattr(backend, "api", "auto") == "completions":
        raise BackendError(f"--rounds {rounds}: the completions API holds no conversation; use the chat API")
    if "paper" in styles:
        raise BackendError(f"--rounds {rounds}: --style paper prompts are raw completions (the completions API), "
                           "which hold no conversation; use --style chat")


# ---------------------------------------------------------------------------------------------- lineage table
def ensure_lineage(db: sqlite3.Connection) -> None:
    with db:
        db.execute(LINEAGE_SQL)


def add_lineage(db: sqlite3.Connection, run_id: str, rows: list[tuple]) -> None:
    with db:
        db.executemany("INSERT OR IGNORE INTO lineage VALUES(?,?,?,?,?,?,?,?,?)", [(run_id, *r) for r in rows])


def read_lineage(db: sqlite3.Connection, run_id: str | None = None) -> list[tuple]:
    if db.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='lineage'").fetchone() is None:
        return []
    return db.execute("SELECT * FROM lineage WHERE (? IS NULL OR run_id=?) ORDER BY run_id, round, prompt_id",
                      (run_id, run_id)).fetchall()


# ---------------------------------------------------------------------------------------------- the loop
class _Annotated:
    """The run's backend, adding each follow-up's conversation and lineage to its suggestions' meta."""

    def __init__(self, backend: Any, extra: dict[str, dict[str, Any]]):
        self._backend, self._extra = backend, extra

    def __getattr__(self, name: str) -> Any:  # attach_cache, describe, ... as the backend has them
        return getattr(self._backend, name)

    def generate(self, prompts: list[Prompt], params: GenerationParams,
                 on_done: Callable[[Suggestion], None] | None = None) -> Iterator[Suggestion]:
        for s in self._backend.generate(prompts, params, on_done):
            s.meta.update(self._extra.get(s.prompt_id, {}))
            yield s


def run_rounds(config: Any, catalog: Any, store: Any, backend: Any, evaluator: Any, jobs: int, progress: Any,
               dispatcher: Any, prompts: list[Prompt], run_id: str, *, generate: Callable[..., None],
               evaluate: Callable[..., None]) -> None:
    """Rounds 2..config.rounds after round 1 is generated and evaluated; each round stored as it goes.

    generate / evaluate: pipeline.generate_missing and evaluate_pending (passed in: the pipeline imports this).
    """
    ensure_lineage(store.db)
    params = config.generation.model_copy(update={"n": 1})
    roots = {p.prompt_id: p for p in prompts}
    speed = _Speed(catalog, store, evaluator)
    for round_ in range(2, config.rounds + 1):
        followups, extra, links = [], {}, []
        for leaf in leaves(store, run_id, roots, round_ - 1):
            root, _, chain = position(leaf["prompt_id"], leaf["rank"])
            prompt = roots[root]
            kind, eff = _kind(leaf, config, speed, prompt)
            if kind is None:
                continue
            spec, model = catalog.kernels[prompt.kernel], catalog.models[prompt.model]
            text = render(kind, leaf, function=spec.function, model_name=model.name,
                          model_hint=getattr(model, "chat_hint", "") or "", fence=catalog.languages[model.language].fence,
                          summary=spec.summary, round_=round_, efficiency=eff, threshold=config.optimize_below)
            conversation = [*_conversation(prompt, leaf), {"role": "assistant", "content": leaf["text"] or ""},
                            {"role": "user", "content": text}]
            pid = followup_id(root, round_, chain)
            followups.append(prompt.model_copy(update={"prompt_id": pid, "text": text, "messages": conversation}))
            extra[pid] = {"round": round_, "chain": chain, "feedback": kind, "conversation": conversation,
                          "parent": {"prompt_id": leaf["prompt_id"], "rank": leaf["rank"]}}
            links.append((pid, 1, leaf["prompt_id"], leaf["rank"], round_, root, chain, kind))
        if not followups:
            return  # every chain is done (correct, or nothing the LLM could repair)
        store.add_prompts(run_id, followups)
        add_lineage(store.db, run_id, links)
        generate(store, run_id, followups, _Annotated(backend, extra), params, progress, catalog)
        evaluate(store, run_id, catalog, followups, evaluator, jobs, progress, dispatcher)


def leaves(store: Any, run_id: str, roots: dict[str, Prompt], round_: int) -> list[dict[str, Any]]:
    """The suggestions of round `round_` of the planned prompts, each with its stored evaluation (dicts)."""
    db: sqlite3.Connection = store.db
    db.row_factory = sqlite3.Row
    try:
        rows = db.execute("""SELECT g.prompt_id, g.rank, g.text, g.meta, g.error, e.* FROM generations g
                             LEFT JOIN evaluations e ON e.cache_key = g.cache_key WHERE g.run_id = ?
                             ORDER BY g.prompt_id, g.rank""", (run_id,)).fetchall()
    finally:
        db.row_factory = None
    out = []
    for row in rows:
        root, r, _ = position(row["prompt_id"], row["rank"])
        if r == round_ and root in roots:
            out.append(dict(row))
    return out


def _kind(leaf: dict[str, Any], config: Any, speed: _Speed, prompt: Prompt) -> tuple[str | None, Efficiency | None]:
    if leaf["error"] is not None or leaf["verdict"] is None:
        return None, None  # a failed generation or no evaluation: not the LLM's to repair
    if leaf["verdict"] != "correct":
        return repair_kind(leaf["verdict"]), None
    if not config.optimize or leaf.get("timing_implausible"):
        return None, None
    eff = speed.efficiency(leaf, prompt)
    if eff is None or not math.isfinite(eff.value) or eff.value >= config.optimize_below:
        return None, None
    return "timing", eff


def _conversation(prompt: Prompt, leaf: dict[str, Any]) -> list[dict[str, str]]:
    """The messages that produced `leaf`: stored with a follow-up, rebuilt for a first-round suggestion."""
    meta = json.loads(leaf.get("meta") or "{}")
    if meta.get("conversation"):
        return [dict(m) for m in meta["conversation"]]
    from hpceval.llm.openai_compat import OpenAICompatBackend

    return OpenAICompatBackend._messages(prompt)


class _Speed:
    """Efficiency of a correct suggestion: roofline fraction where ceilings are known, else speedup vs reference."""

    def __init__(self, catalog: Any, store: Any, evaluator: Any):
        self.catalog, self.store, self.evaluator = catalog, store, evaluator
        self._reference: dict[tuple[str, str], float] = {}

    def efficiency(self, leaf: dict[str, Any], prompt: Prompt) -> Efficiency | None:
        spec, model = self.catalog.kernels[prompt.kernel], self.catalog.models[prompt.model]
        gbs, gfl = _f(leaf.get("gbytes_per_s")), _f(leaf.get("gflops"))
        ceil = _ceilings(getattr(model, "device", "cpu"))
        if ceil is not None and (math.isfinite(gbs) or math.isfinite(gfl)):
            peak_f = ceil.peak_gflops(spec.dtype)
            parts = [v for v in (gbs / ceil.copy_gbs if ceil.copy_gbs > 0 else math.nan,
                                 gfl / peak_f if peak_f > 0 else math.nan) if math.isfinite(v)]
            if parts:
                return Efficiency(max(parts), "roofline", peak_gbytes_per_s=ceil.copy_gbs, peak_gflops=peak_f)
        t = _f(leaf.get("time_median_s"))
        ref = self.reference_time(prompt)
        if not (math.isfinite(t) and t > 0 and math.isfinite(ref)):
            return None
        return Efficiency(ref / t, "reference", reference_time_s=ref)

    def reference_time(self, prompt: Prompt) -> float:
        """The reference solution's median time here, evaluated once (and cached in the store like any code)."""
        key = (prompt.kernel, prompt.model)
        if key not in self._reference:
            self._reference[key] = self._time_reference(prompt)
        return self._reference[key]

    def _time_reference(self, prompt: Prompt) -> float:
        from hpceval.bind import choose_binding

        spec, model = self.catalog.kernels[prompt.kernel], self.catalog.models[prompt.model]
        path = spec.solution_path(model, self.catalog)
        if not path.is_file():
            return math.nan
        code = path.read_text()
        binding = choose_binding(code, spec, self.catalog.languages[model.language], prompt.style, model)
        cache_key = self.evaluator.cache_key(code, spec, model, binding)
        row = self.store.db.execute("SELECT verdict, time_median_s FROM evaluations WHERE cache_key=?",
                                    (cache_key,)).fetchone()
        if row is None:
            evaluation = self.evaluator.evaluate(code, spec, model, binding)
            self.store.put_evaluation(cache_key, evaluation)
            row = (evaluation.verdict.value, evaluation.time_median_s)
        return _f(row[1]) if row[0] == "correct" else math.nan


def _ceilings(device: str) -> Any:
    try:
        from hpceval import ceilings

        return ceilings.gpu_ceilings() if device == "gpu" else ceilings.cpu_ceilings()
    except Exception:  # noqa: BLE001 - no ceilings: the reference solution's speed is the yardstick
        return None


def _f(value: Any) -> float:
    try:
        return math.nan if value is None else float(value)
    except (TypeError, ValueError):
        return math.nan
