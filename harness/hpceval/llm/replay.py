"""`replay:FILE.jsonl`: evaluate stored suggestions instead of asking an LLM; and the export that writes them.

The schema is documented in docs/replay.md: one JSON object per line with prompt_id (or kernel, model, style and
hint), language, rank, text and meta (generation metadata), optionally llm and error. `hpceval export-generations`
writes the same schema from a results directory, so generation and evaluation can run on different machines, and
the Copilot importer writes it from the study's dumps.

A file that is not UTF-8 or holds no records is refused when loading; `plan_match` tells the CLI, before a run
creates anything, how many records match no planned prompt and why (a style, hint, model or kernel the command
line did not plan), so that a replay that would evaluate nothing stops with that explanation instead of "no results".
"""

from __future__ import annotations

import contextlib
import json
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from hpceval.contracts import Prompt, Suggestion
from hpceval.llm.base import BackendError, GenerationParams

SCHEMA = "hpceval.replay/1"
REQUIRED = ("rank", "text")
FIELDS = (("kernel", "--kernels"), ("model", "--models"), ("style", "--style"), ("hint", "--hints"))


class ReplayBackend:
    name = "replay"

    def __init__(self, path: str | Path):
        self.path = Path(path).expanduser()
        if not self.path.is_file():
            raise BackendError(f"replay file {self.path} not found (write one with `hpceval export-generations RUN`"
                               " or `hpceval import copilot`)")
        self.records: dict[str, list[dict[str, Any]]] = defaultdict(list)
        self.llms: set[str] = set()
        self._load()
        if not self.records:
            raise BackendError(f"replay file {self.path} holds no records; write one with `hpceval export-generations"
                               " RUN` or `hpceval import copilot` (docs/replay.md)")
        self.unmatched: list[str] = []

    def _load(self) -> None:
        try:
            data = self.path.read_bytes()
        except OSError as exc:
            raise BackendError(f"cannot read replay file {self.path} ({exc.strerror})") from None
        for number, raw in enumerate(data.removeprefix(b"\xef\xbb\xbf").splitlines(), 1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise BackendError(f"{self.path}:{number}: not UTF-8 text (byte 0x{raw[exc.start]:02x} at column "
                                   f"{exc.start + 1}); replay files are UTF-8 JSONL (docs/replay.md)") from None
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise BackendError(f"{self.path}:{number}: not JSON ({exc.msg})") from None
            if not isinstance(record, dict):
                raise BackendError(f"{self.path}:{number}: a record must be a JSON object")
            missing = [k for k in REQUIRED if k not in record]
            prompt_id = record.get("prompt_id") or _prompt_id(record)
            if prompt_id is None:
                missing.append("prompt_id (or kernel, model, style)")
            if missing:
                raise BackendError(f"{self.path}:{number}: missing {', '.join(missing)} (see docs/replay.md)")
            if not isinstance(record["text"], str) or not isinstance(record["rank"], int):
                raise BackendError(f"{self.path}:{number}: text must be a string and rank an integer")
            record["_line"] = number
            self.records[prompt_id].append(record)
            if record.get("llm"):
                self.llms.add(str(record["llm"]))

    def plan_match(self, prompts: list[Prompt], n: int) -> tuple[int, str]:
        """(records the run will use, one line about those it will not: unmatched and why, beyond -n; or "")."""
        planned = {p.prompt_id for p in prompts}
        planned |= {pid for pid in self.records if pid.split("#r")[0] in planned}  # follow-ups of feedback rounds
        n = max(1, n)
        total = sum(map(len, self.records.values()))
        used = sum(min(len(r), n) for pid, r in self.records.items() if pid in planned)
        unmatched = {pid: len(r) for pid, r in self.records.items() if pid not in planned}
        notes = []
        if unmatched:
            notes.append(f"{sum(unmatched.values())} of {total} records in {self.path.name} match no planned prompt "
                         f"({_why(unmatched, prompts)})")
        beyond = sum(max(0, len(r) - n) for pid, r in self.records.items() if pid in planned)
        if beyond:
            notes.append(f"{beyond} records beyond -n {n} per prompt are not used (raise -n to use them)")
        return used, "; ".join(notes)

    def describe(self) -> dict[str, Any]:
        return {"backend": "replay", "file": self.path.name, "records": sum(map(len, self.records.values())),
                "llm": sorted(self.llms)}

    def generate(self, prompts: list[Prompt], params: GenerationParams,
                 on_done: Callable[[Suggestion], None] | None = None) -> Iterator[Suggestion]:
        """The stored suggestions of each planned prompt, best `params.n` by rank, renumbered 1..k."""
        planned = {p.prompt_id for p in prompts}
        self.unmatched = sorted(set(self.records) - planned)
        for prompt in prompts:
            records = sorted(self.records.get(prompt.prompt_id, []), key=lambda r: (r["rank"], r["_line"]))
            for rank, record in enumerate(records[: max(1, params.n)], 1):
                meta = dict(record.get("meta") or {})
                meta.update({"replay_file": self.path.name, "replay_line": record["_line"],
                             "replay_rank": record["rank"]})
                if record.get("llm"):
                    meta.setdefault("llm", record["llm"])
                # meta.complete: the text is the whole source already (no extraction), e.g. the reference backend's
                suggestion = Suggestion(prompt_id=prompt.prompt_id, rank=rank, text=record["text"],
                                        code=record["text"] if meta.get("complete") else "",
                                        error=record.get("error") or None, meta=meta)
                if on_done is not None:
                    on_done(suggestion)
                yield suggestion

    def close(self) -> None:
        pass


def _why(unmatched: dict[str, int], prompts: list[Prompt]) -> str:
    """Which kernel, model, style or hint of the unmatched records the plan lacks, with record counts."""
    planned = {name: {getattr(p, name) for p in prompts} for name, _ in FIELDS}
    misses: Counter[tuple[str, str]] = Counter()
    other = 0
    for prompt_id, count in unmatched.items():
        parts = prompt_id.split("/")
        missing = [(name, value) for (name, _), value in zip(FIELDS, parts, strict=False)
                   if value not in planned[name]] if len(parts) == 4 else []
        for key in missing:
            misses[key] += count
        if not missing:
            other += count
    option = dict(FIELDS)
    reasons = [f"{name} {value!r} ({count} {'record' if count == 1 else 'records'}) is not in {option[name]}"
               for (name, value), count in misses.most_common(4)]
    if len(misses) > 4:
        reasons.append(f"{len(misses) - 4} more such values")
    if other:
        reasons.append(f"{other} records name a kernel/model/style/hint combination the plan lacks")
    return "; ".join(reasons)


def _prompt_id(record: dict[str, Any]) -> str | None:
    if all(record.get(k) for k in ("kernel", "model", "style")):
        return f"{record['kernel']}/{record['model']}/{record['style']}/{record.get('hint') or 'none'}"
    return None


def export_generations(run_dir: str | Path, out: str | Path, run_id: str | None = None) -> int:
    """Write the generations of a results directory (one run or all) as replay JSONL; returns the record count."""
    from hpceval.store import Store

    run_dir = Path(run_dir)
    if not (run_dir / "results.sqlite").is_file():
        raise FileNotFoundError(f"{run_dir}: no results.sqlite (the --out directory of `hpceval run`)")
    store = Store(run_dir, readonly=True)  # a damaged store is refused (StoreError) and never written to
    try:
        runs = store.run_ids()
        if run_id is not None and run_id not in runs:
            raise BackendError(f"{run_dir} has no run {run_id}; runs: {', '.join(runs) or 'none'}")
        rows = store.db.execute(
            """SELECT g.run_id, r.llm, g.prompt_id, p.kernel, p.model, p.language, p.style, p.hint, g.rank, g.text,
                      g.meta, g.error
               FROM generations g
               JOIN prompts p ON p.run_id = g.run_id AND p.prompt_id = g.prompt_id
               JOIN runs r ON r.run_id = g.run_id
               WHERE (? IS NULL OR g.run_id = ?)
               ORDER BY r.created, g.run_id, g.prompt_id, g.rank""", (run_id, run_id)).fetchall()
    finally:
        store.close()
    out = Path(out)
    if out.is_dir():
        raise BackendError(f"--out {out} is a directory; give the replay file to write, e.g. {out / 'generations.jsonl'}")
    tmp = out.with_name(out.name + ".tmp")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        with tmp.open("w", encoding="utf-8") as f:
            for (rid, llm, prompt_id, kernel, model, language, style, hint, rank, text, meta, error) in rows:
                meta_obj = json.loads(meta or "{}")
                meta_obj.setdefault("run_id", rid)
                record = {"schema": SCHEMA, "prompt_id": prompt_id, "kernel": kernel, "model": model,
                          "language": language, "style": style, "hint": hint, "rank": rank, "text": text,
                          "llm": llm, "meta": meta_obj}
                if error:
                    record["error"] = error
                f.write(json.dumps(record, ensure_ascii=False, sort_keys=False) + "\n")
        tmp.replace(out)
    except OSError as exc:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
        raise BackendError(f"cannot write {out} ({exc.strerror}); give --out a writable file path") from None
    return len(rows)
