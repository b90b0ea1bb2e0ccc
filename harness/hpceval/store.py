"""Results store: one SQLite file per results directory (WAL mode, one transaction per record).

Tables: runs, prompts, generations (raw text + request parameters + usage), evaluations (keyed by the
content hash of code + kernel + model + toolchain + flags + device, so identical suggestions are built once).
Every write is its own transaction with primary keys, so killing the process at any instant loses at most the
job in flight and a rerun completes the rest without duplicates.

A store that cannot be used as it is (damaged, 0 bytes, a results directory that is a file or not writable)
raises StoreError before anything is written, and a damaged file is never modified: `hpceval recover DIR`
(salvage.py) copies what is readable into a new store. A new store is created under a temporary name and linked
into place complete, so a results.sqlite of 0 bytes is always damage, never a store that was being created.
One run at a time writes a results directory: RunLock is the per-directory lock the CLI takes.
"""

from __future__ import annotations

import errno
import fcntl
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
    "timing_implausible",
    "variant", "toolchain", "toolchain_version", "image", "device", "seed", "cache_key",
]


# Evaluation columns added after schema 1: ALTER TABLE adds them to a store opened for writing that lacks them; a
# store read as it is reads NULL for them. timing_implausible: the median is below the machine's physical bound.
ADDED_COLUMNS = {"timing_implausible": "INTEGER"}

STORE_NAME = "results.sqlite"
LOCK_NAME = ".hpceval.lock"
SQLITE_MAGIC = b"SQLite format 3\x00"


class StoreError(RuntimeError):
    """The results directory or its store cannot be used as it is; the message says what to do (one line)."""


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def recover_hint(directory: Path) -> str:
    return (f"it is left as it is; `hpceval recover {directory}` copies what is readable into a new store (keeping "
            "the damaged file), then rerun the command to redo the rest")


def check_store_file(path: Path) -> None:
    """Refuse a results.sqlite that is empty, not SQLite or damaged, without writing to it (StoreError)."""
    path = Path(path)
    try:
        size = path.stat().st_size
        with path.open("rb") as handle:
            header = handle.read(100)
    except OSError as exc:
        raise StoreError(f"cannot read {path} ({exc.strerror})") from None
    if size == 0:
        raise StoreError(f"{path} is empty (0 bytes): it is damaged, not a new store; {recover_hint(path.parent)}")
    if not header.startswith(SQLITE_MAGIC):
        raise StoreError(f"{path} is not an SQLite database (damaged or overwritten); {recover_hint(path.parent)}")
    sides = [Path(f"{path}{suffix}") for suffix in ("-wal", "-shm")]
    absent = [side for side in sides if not side.exists()]
    try:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=60)
        try:
            verdict = con.execute("PRAGMA quick_check(1)").fetchone()[0]
        finally:
            con.close()
    except sqlite3.OperationalError as exc:
        if "locked" in str(exc) or "busy" in str(exc):
            return  # another process holds it: it is not damaged
        verdict = str(exc)
    except sqlite3.DatabaseError as exc:
        verdict = str(exc)
    if verdict != "ok":
        for side in absent:  # what SQLite created beside the damaged file while looking at it
            side.unlink(missing_ok=True)
        raise StoreError(f"{path} is damaged ({verdict}); {recover_hint(path.parent)}")


def check_results_dir(directory: Path, store: bool = True) -> None:
    """Refuse a results directory (--out) that is a file, lies under a file or cannot be written, creating nothing.

    With `store`, an existing results.sqlite must also be readable, writable and undamaged (check_store_file).
    """
    directory = Path(directory)
    if directory.exists() and not directory.is_dir():
        raise StoreError(f"--out {directory} is a file, not a directory; give a directory (it will hold "
                         f"{STORE_NAME} and evaluations.csv)")
    existing = directory
    while not existing.exists():
        if existing.is_symlink():
            raise StoreError(f"--out {directory}: {existing} is a broken symbolic link; give another directory")
        parent = existing.parent
        if parent == existing:
            break
        existing = parent
    if existing.exists() and not existing.is_dir():
        raise StoreError(f"--out {directory} lies under {existing}, which is a file; give a directory path")
    if not os.access(existing, os.W_OK | os.X_OK) or _read_only_fs(existing):
        what = "is not writable" if existing == directory else f"cannot be created: {existing} is not writable"
        raise StoreError(f"--out {directory} {what}; choose another --out or make it writable")
    path = directory / STORE_NAME
    if store and (path.exists() or path.is_symlink()):
        if not os.access(path, os.R_OK | os.W_OK):
            raise StoreError(f"{path} is read-only; make it writable or choose another --out")
        check_store_file(path)


def _read_only_fs(path: Path) -> bool:
    try:
        return bool(os.statvfs(path).f_flag & os.ST_RDONLY)
    except OSError:
        return False


class Store:
    def __init__(self, out_dir: Path, readonly: bool = False):
        """Open (or, unless `readonly`, create) DIR/results.sqlite; StoreError when it cannot be used as it is."""
        self.dir = Path(out_dir)
        self.path = self.dir / STORE_NAME
        self.readonly = readonly
        if readonly:
            if not self.path.is_file():
                raise StoreError(f"{self.dir}: no {STORE_NAME} (the --out directory of `hpceval run`)")
            check_store_file(self.path)
            self.db = self._connect(f"file:{self.path}?mode=ro", uri=True)
            return
        check_results_dir(self.dir)
        try:
            self.dir.mkdir(parents=True, exist_ok=True)
            if not self.path.exists():
                _create_store(self.path)
        except OSError as exc:
            raise StoreError(f"cannot create the results store in {self.dir} ({exc.strerror}); "
                             "choose another --out") from None
        self.db = self._connect(str(self.path))
        try:
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.executescript(SCHEMA)
            _add_columns(self.db)
            with self.db:
                self.db.execute("INSERT OR IGNORE INTO meta VALUES('schema_version', ?)", (str(SCHEMA_VERSION),))
        except sqlite3.DatabaseError as exc:
            self.db.close()
            raise StoreError(f"{self.path} cannot be written ({exc}); choose another --out") from None

    @staticmethod
    def _connect(target: str, uri: bool = False) -> sqlite3.Connection:
        try:
            return sqlite3.connect(target, timeout=60, isolation_level=None, uri=uri)
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open {target} ({exc})") from None

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
                "gflops", "gbytes_per_s", "timing_implausible", "variant", "toolchain", "toolchain_version", "image",
                "device", "build_s", "run_s"]
        with self.db:
            self.db.execute(f"INSERT OR REPLACE INTO evaluations(cache_key, {', '.join(cols)}, created) "
                            f"VALUES(?, {', '.join('?' for _ in cols)}, ?)", (cache_key, *[row[c] for c in cols], now()))

    # ------------------------------------------------------------------ reads
    def generation_counts(self, run_id: str) -> tuple[int, int, str | None]:
        """(generations, failed generations, one of the errors) of a run."""
        total, failed = self.db.execute("SELECT COUNT(*), COUNT(error) FROM generations WHERE run_id=?",
                                        (run_id,)).fetchone()
        row = self.db.execute("SELECT error FROM generations WHERE run_id=? AND error IS NOT NULL LIMIT 1",
                              (run_id,)).fetchone()
        return int(total), int(failed), row[0] if row else None

    def request_ids(self, run_id: str) -> set[str]:
        """The LLM requests stored for a run so far (to tell this invocation's requests from earlier ones)."""
        return {r[0] for r in self.db.execute("SELECT request_id FROM llm_requests WHERE run_id=?", (run_id,))}

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
                 e.gbytes_per_s, {implausible} AS timing_implausible, e.variant, e.toolchain, e.toolchain_version,
                 e.image, e.device,
                 json_extract(r.config, '$.seed') AS seed, g.cache_key
          FROM generations g
          JOIN prompts p ON p.run_id = g.run_id AND p.prompt_id = g.prompt_id
          JOIN runs r ON r.run_id = g.run_id
          LEFT JOIN evaluations e ON e.cache_key = g.cache_key
          WHERE (g.error IS NOT NULL OR e.verdict IS NOT NULL) {where}
          ORDER BY p.kernel, p.language, p.model, p.style, p.hint, g.rank"""
        where, args = ("AND g.run_id = ?", (run_id,)) if run_id else ("", ())
        have = {row[1] for row in self.db.execute("PRAGMA table_info(evaluations)")}
        implausible = "e.timing_implausible" if "timing_implausible" in have else "NULL"
        return pd.read_sql_query(query.format(where=where, implausible=implausible), self.db,
                                 params=args)[RESULT_COLUMNS]

    def export_csv(self, run_id: str | None = None, name: str = "evaluations.csv") -> Path:
        """Write the results table atomically (a reader never sees half a file)."""
        return write_csv_atomic(self.results(run_id), self.dir / name)


def _add_columns(db: sqlite3.Connection) -> None:
    """Add the evaluation columns of ADDED_COLUMNS that an older store lacks."""
    have = {row[1] for row in db.execute("PRAGMA table_info(evaluations)")}
    for name, kind in ADDED_COLUMNS.items():
        if name not in have:
            db.execute(f"ALTER TABLE evaluations ADD COLUMN {name} {kind}")


def _create_store(path: Path) -> None:
    """Create an empty store under a temporary name and link it into place complete (a racing creator wins)."""
    tmp = path.with_name(f".{path.name}-{secrets.token_hex(6)}")
    try:
        con = sqlite3.connect(tmp, isolation_level=None)
        try:
            con.execute("PRAGMA journal_mode=WAL")
            con.executescript(SCHEMA)
            con.execute("INSERT OR IGNORE INTO meta VALUES('schema_version', ?)", (str(SCHEMA_VERSION),))
        finally:
            con.close()  # the last connection checkpoints and removes the -wal file
        try:
            os.link(tmp, path)
        except FileExistsError:
            pass
    finally:
        for suffix in ("", "-wal", "-shm"):
            Path(f"{tmp}{suffix}").unlink(missing_ok=True)


class RunLock:
    """An exclusive lock on a results directory for one run (flock on DIR/.hpceval.lock, released on exit).

    A second `hpceval run` (or `recover`) on the same directory stops with one line instead of doing every job
    (and paying every request) again. The lock dies with the process, so a killed run never leaves it held.
    """

    def __init__(self, directory: Path):
        self.dir = Path(directory)
        self.path = self.dir / LOCK_NAME
        self.fd: int | None = None

    def __enter__(self) -> RunLock:
        check_results_dir(self.dir, store=False)
        try:
            self.dir.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as exc:
            raise StoreError(f"cannot lock {self.dir} ({exc.strerror}); choose another --out") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "?"
            os.close(fd)
            if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise StoreError(f"{self.dir} is in use by pid {holder}; wait or use another --out") from None
            raise StoreError(f"cannot lock {self.dir} ({exc.strerror}); choose another --out") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self.fd = fd
        return self

    def __exit__(self, *exc: object) -> None:
        if self.fd is not None:
            os.close(self.fd)  # closing releases the lock; the file stays (unlinking it would race a waiter)
            self.fd = None


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
