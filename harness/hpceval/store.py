"""Results store: one SQLite file per results directory (WAL mode, one transaction per record).

Tables: runs, prompts, generations (raw text + request parameters + usage), evaluations (keyed by the
content hash of code + kernel + model + toolchain + flags + device, so identical suggestions are built once).
Every write is its own transaction with primary keys, so killing the process at any instant loses at most the
job in flight and a rerun completes the rest without duplicates.
"""

from __future__ import annotations

import json
import os
import secrets
import sqlite3
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd

from hpceval.contracts import Evaluation, Prompt, Suggestion

SCHEMA_VERSION = 1

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS runs(
  run_id TEXT PRIMARY KEY, created TEXT, llm TEXT, config TEXT, environment TEXT);
CREATE TABLE IF NOT EXISTS prompts(
  run_id TEXT, prompt_id TEXT, kernel TEXT, model TEXT, language TEXT, style TEXT, hint TEXT, text TEXT,
  PRIMARY KEY(run_id, prompt_id));
CREATE TABLE IF NOT EXISTS generations(
  run_id TEXT, prompt_id TEXT, rank INTEGER, text TEXT, code TEXT, meta TEXT, error TEXT,
  cache_key TEXT, binding TEXT, created TEXT,
  PRIMARY KEY(run_id, prompt_id, rank));
CREATE TABLE IF NOT EXISTS evaluations(
  cache_key TEXT PRIMARY KEY, verdict TEXT, evidence TEXT, max_rel_error REAL, failed_size TEXT,
  time_median_s REAL, time_min_s REAL, time_iqr_s REAL, gflops REAL, gbytes_per_s REAL, variant TEXT,
  toolchain TEXT, toolchain_version TEXT, image TEXT, device TEXT, build_s REAL, run_s REAL, created TEXT);
CREATE TABLE IF NOT EXISTS generation_cache(
  request_key TEXT, sample INTEGER, text TEXT, meta TEXT, created TEXT, PRIMARY KEY(request_key, sample));
CREATE TABLE IF NOT EXISTS llm_requests(
  run_id TEXT, request_id TEXT, prompt_id TEXT, api TEXT, model TEXT, samples INTEGER, prompt_tokens INTEGER,
  completion_tokens INTEGER, latency_s REAL, attempts INTEGER, retries TEXT, error TEXT, cached INTEGER,
  created TEXT, PRIMARY KEY(run_id, request_id));
"""

RESULT_COLUMNS = [
    "run_id", "llm", "language", "model", "kernel", "style", "hint", "prompt_id", "rank", "verdict", "evidence",
    "max_rel_error", "failed_size", "time_median_s", "time_min_s", "time_iqr_s", "gflops", "gbytes_per_s",
    "variant", "toolchain", "toolchain_version", "image", "device", "seed", "cache_key",
]


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class Store:
    def __init__(self, out_dir: Path):
        self.dir = Path(out_dir)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.path = self.dir / "results.sqlite"
        self.db = sqlite3.connect(self.path, timeout=60, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.executescript(SCHEMA)
        with self.db:
            self.db.execute("INSERT OR IGNORE INTO meta VALUES('schema_version', ?)", (str(SCHEMA_VERSION),))

    def close(self) -> None:
        self.db.close()

    # ------------------------------------------------------------------ writes (each one transaction)
    def add_run(self, run_id: str, llm: str, config: dict[str, Any], environment: dict[str, Any]) -> None:
        with self.db:
            self.db.execute("INSERT OR IGNORE INTO runs VALUES(?,?,?,?,?)",
                            (run_id, now(), llm, json.dumps(config, sort_keys=True), json.dumps(environment, sort_keys=True)))

    def add_prompts(self, run_id: str, prompts: list[Prompt]) -> None:
        with self.db:
            self.db.executemany(
                "INSERT OR IGNORE INTO prompts VALUES(?,?,?,?,?,?,?,?)",
                [(run_id, p.prompt_id, p.kernel, p.model, p.language, p.style, p.hint, p.text) for p in prompts])

    def add_generation(self, run_id: str, s: Suggestion) -> None:
        with self.db:
            self.db.execute(
                "INSERT OR IGNORE INTO generations(run_id, prompt_id, rank, text, code, meta, error, created)"
                " VALUES(?,?,?,?,?,?,?,?)",
                (run_id, s.prompt_id, s.rank, s.text, s.code, json.dumps(s.meta, sort_keys=True), s.error, now()))

    def add_generations(self, run_id: str, suggestions: list[Suggestion]) -> None:
        """One prompt's suggestions and the LLM requests behind them, in one transaction (all or nothing)."""
        requests: dict[str, tuple] = {}
        for s in suggestions:
            req = s.meta.get("request")
            if isinstance(req, dict) and req.get("id") and req["id"] not in requests:
                tries = req.get("attempts") or []
                requests[req["id"]] = (
                    run_id, req["id"], s.prompt_id, req.get("api"), s.meta.get("model"), len(req.get("samples") or []),
                    req.get("prompt_tokens"), req.get("completion_tokens"), req.get("latency_s"), len(tries) + (0 if s.error else 1),
                    json.dumps(tries, sort_keys=True), s.error, int(bool(s.meta.get("cached"))), now())
        with self.db:
            self.db.executemany(
                "INSERT OR IGNORE INTO generations(run_id, prompt_id, rank, text, code, meta, error, created)"
                " VALUES(?,?,?,?,?,?,?,?)",
                [(run_id, s.prompt_id, s.rank, s.text, s.code, json.dumps(s.meta, sort_keys=True), s.error, now())
                 for s in suggestions])
            self.db.executemany(f"INSERT OR IGNORE INTO llm_requests VALUES({', '.join('?' * 14)})",
                                list(requests.values()))

    def delete_generations(self, run_id: str, prompt_ids: set[str] | list[str]) -> None:
        """Forget the generations of some prompts (to ask again for prompts whose generation failed)."""
        with self.db:
            self.db.executemany("DELETE FROM generations WHERE run_id=? AND prompt_id=?",
                                [(run_id, p) for p in prompt_ids])

    def cached_generation(self, request_key: str, sample: int) -> tuple[str, dict[str, Any]] | None:
        row = self.db.execute("SELECT text, meta FROM generation_cache WHERE request_key=? AND sample=?",
                              (request_key, sample)).fetchone()
        return None if row is None else (row[0], json.loads(row[1] or "{}"))

    def put_cached_generation(self, request_key: str, sample: int, text: str, meta: dict[str, Any]) -> None:
        with self.db:
            self.db.execute("INSERT OR REPLACE INTO generation_cache VALUES(?,?,?,?,?)",
                            (request_key, sample, text, json.dumps(meta, sort_keys=True), now()))

    def link(self, run_id: str, prompt_id: str, rank: int, code: str, cache_key: str, binding: str) -> None:
        with self.db:
            self.db.execute("UPDATE generations SET code=?, cache_key=?, binding=? WHERE run_id=? AND prompt_id=? AND rank=?",
                            (code, cache_key, binding, run_id, prompt_id, rank))

    def put_evaluation(self, cache_key: str, e: Evaluation) -> None:
        row = e.model_dump(mode="json")
        cols = ["verdict", "evidence", "max_rel_error", "failed_size", "time_median_s", "time_min_s", "time_iqr_s",
                "gflops", "gbytes_per_s", "variant", "toolchain", "toolchain_version", "image", "device",
                "build_s", "run_s"]
        with self.db:
            self.db.execute(f"INSERT OR REPLACE INTO evaluations(cache_key, {', '.join(cols)}, created) "
                            f"VALUES(?, {', '.join('?' for _ in cols)}, ?)", (cache_key, *[row[c] for c in cols], now()))

    # ------------------------------------------------------------------ reads
    def prompts_with_generations(self, run_id: str) -> set[str]:
        rows = self.db.execute("SELECT DISTINCT prompt_id FROM generations WHERE run_id=?", (run_id,))
        return {r[0] for r in rows}

    def prompts_with_generation_errors(self, run_id: str) -> set[str]:
        rows = self.db.execute("SELECT DISTINCT prompt_id FROM generations WHERE run_id=? AND error IS NOT NULL",
                               (run_id,))
        return {r[0] for r in rows}

    def usage(self, run_id: str) -> pd.DataFrame:
        """One row per LLM request of the run: tokens, latency, attempts, error; cached=1 rows cost nothing now."""
        return pd.read_sql_query("SELECT * FROM llm_requests WHERE run_id=? ORDER BY created, prompt_id",
                                 self.db, params=(run_id,))

    def generations(self, run_id: str) -> list[sqlite3.Row]:
        self.db.row_factory = sqlite3.Row
        try:
            return list(self.db.execute("SELECT * FROM generations WHERE run_id=? ORDER BY prompt_id, rank", (run_id,)))
        finally:
            self.db.row_factory = None

    def has_evaluation(self, cache_key: str) -> bool:
        return self.db.execute("SELECT 1 FROM evaluations WHERE cache_key=?", (cache_key,)).fetchone() is not None

    def run_ids(self) -> list[str]:
        return [r[0] for r in self.db.execute("SELECT run_id FROM runs ORDER BY created")]

    def results(self, run_id: str | None = None) -> pd.DataFrame:
        """One row per suggestion: prompt, generation and verdict joined (generation errors as infra_error)."""
        query = """
          SELECT g.run_id, r.llm, p.language, p.model, p.kernel, p.style, p.hint, g.prompt_id, g.rank,
                 CASE WHEN g.error IS NOT NULL THEN 'infra_error' ELSE e.verdict END AS verdict,
                 CASE WHEN g.error IS NOT NULL THEN 'generation failed: ' || g.error ELSE e.evidence END AS evidence,
                 e.max_rel_error, e.failed_size, e.time_median_s, e.time_min_s, e.time_iqr_s, e.gflops,
                 e.gbytes_per_s, e.variant, e.toolchain, e.toolchain_version, e.image, e.device,
                 json_extract(r.config, '$.seed') AS seed, g.cache_key
          FROM generations g
          JOIN prompts p ON p.run_id = g.run_id AND p.prompt_id = g.prompt_id
          JOIN runs r ON r.run_id = g.run_id
          LEFT JOIN evaluations e ON e.cache_key = g.cache_key
          WHERE (g.error IS NOT NULL OR e.verdict IS NOT NULL) {where}
          ORDER BY p.kernel, p.language, p.model, p.style, p.hint, g.rank"""
        where, args = ("AND g.run_id = ?", (run_id,)) if run_id else ("", ())
        return pd.read_sql_query(query.format(where=where), self.db, params=args)[RESULT_COLUMNS]

    def export_csv(self, run_id: str | None = None, name: str = "evaluations.csv") -> Path:
        """Write the results table atomically (a reader never sees half a file)."""
        return write_csv_atomic(self.results(run_id), self.dir / name)


def write_csv_atomic(frame: pd.DataFrame, path: Path, **to_csv: Any) -> Path:
    """Write `frame` (no index) to `path` atomically: readers see the old file or the new one, never half of one.

    The rows go to a hidden file next to `path` that is then renamed over it. That file is created like open()
    creates one, mode 0666 less the umask (0644 under umask 022); tempfile.mkstemp would create it 0600, and the
    rename keeps the mode, so published CSVs would be unreadable to anyone but their owner.
    """
    path = Path(path)
    tmp = path.parent / f".{path.stem}-{secrets.token_hex(8)}{path.suffix}"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666)
    try:
        with open(fd, "w", encoding="utf-8", newline="") as handle:
            frame.to_csv(handle, index=False, **to_csv)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return path
