"""`hpceval recover DIR`: copy what is readable of a damaged results.sqlite into a new store.

Why a reader of the file format: SQLite's own reads stop at the first damaged page, and a truncated file cannot
even list its tables ("database disk image is malformed" on every query), while most of its pages are intact.
The sqlite3 shell's `.recover` is not installed everywhere and failed on truncated WAL-mode stores here. So:

1. every table SQLite can still read whole is copied with SQLite (trusted as is);
2. for the others, the pages of the file (with the committed frames of its -wal overlaid) are decoded directly:
   each table's b-tree is walked from its root page, skipping children that are missing or invalid, then table
   leaf pages that no tree reaches (their parent page was lost) are given to the table whose column count and
   value types they match; pages on the free list are never read (their rows were deleted).

Rows go into a fresh store with INSERT OR IGNORE, rows reached through the trees first. The damaged file (and its
-wal/-shm) is moved aside as results.sqlite.broken-<time>, never modified, and a rerun of the same command redoes
whatever was not recovered (the run id is the configuration's hash).
"""

from __future__ import annotations

import secrets
import shutil
import sqlite3
import struct
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hpceval import store as store_module
from hpceval.store import SCHEMA, SQLITE_MAGIC, STORE_NAME, RunLock, StoreError, check_store_file

WAL_MAGIC = (0x377F0682, 0x377F0683)


def _create_schema(con: sqlite3.Connection) -> None:
    """The store's tables, with the evaluation columns added after schema 1 (appended, as ALTER TABLE does)."""
    con.executescript(SCHEMA)
    have = {row[1] for row in con.execute("PRAGMA table_info(evaluations)")}
    for name, kind in getattr(store_module, "ADDED_COLUMNS", {}).items():
        if name not in have:
            con.execute(f"ALTER TABLE evaluations ADD COLUMN {name} {kind}")


def _schema_columns(added: bool) -> dict[str, list[str]]:
    con = sqlite3.connect(":memory:")
    try:
        _create_schema(con) if added else con.executescript(SCHEMA)
        tables = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        return {t: [c[1] for c in con.execute(f"PRAGMA table_info({t})")] for t in tables}
    finally:
        con.close()


TABLES = _schema_columns(added=True)
FIRST_COLUMNS = {t: len(cols) for t, cols in _schema_columns(added=False).items()}  # rows older than an ALTER


@dataclass
class Recovery:
    """What `recover` did: rows per table, how they were read, and where the damaged file went."""

    directory: Path
    broken: Path
    rows: dict[str, int] = field(default_factory=dict)
    method: dict[str, str] = field(default_factory=dict)

    def summary(self) -> str:
        kept = f"the damaged file is kept as {self.directory / self.broken.name}"
        if not any(self.rows.values()):
            return (f"nothing in {self.directory / STORE_NAME} was readable; an empty store replaces it and {kept}; "
                    "rerun the same `hpceval run` command to start over")
        counts = ", ".join(f"{self.rows.get(t, 0)} {t}" for t in ("runs", "prompts", "generations", "evaluations",
                                                                  "llm_requests", "generation_cache"))
        salvaged = sorted(t for t, m in self.method.items() if m == "pages" and t != "meta")
        how = f" ({', '.join(salvaged)} read page by page)" if salvaged else ""
        return (f"recovered {counts} rows into {self.directory / STORE_NAME}{how}; {kept}; rerun the same "
                "`hpceval run` command to redo what was lost")


def recover(directory: str | Path) -> Recovery:
    """Salvage DIR/results.sqlite into a new store; the damaged file is moved aside (see the module docstring)."""
    directory = Path(directory)
    path = directory / STORE_NAME
    if not path.is_file():
        raise StoreError(f"{directory}: no {STORE_NAME} to recover")
    try:
        check_store_file(path)
    except StoreError:
        pass
    else:
        raise StoreError(f"{path} is not damaged (SQLite's quick_check passes): nothing to recover")
    with RunLock(directory):
        rows, method = _read_all(path)
        target = directory / f".{STORE_NAME}-recovered-{secrets.token_hex(6)}"
        try:
            counts = _write_store(target, rows)
            broken = directory / f"{STORE_NAME}.broken-{time.strftime('%Y%m%d-%H%M%S')}"
            path.rename(broken)
            for suffix in ("-wal", "-shm"):
                side = Path(f"{path}{suffix}")
                if side.exists():
                    side.rename(Path(f"{broken}{suffix}"))  # a stale -wal must never be replayed into the new store
            target.rename(path)
        finally:
            for suffix in ("", "-wal", "-shm", "-journal"):
                Path(f"{target}{suffix}").unlink(missing_ok=True)
    return Recovery(directory=directory, broken=broken, rows=counts, method=method)


def _read_all(path: Path) -> tuple[dict[str, list[tuple]], dict[str, str]]:
    """Rows of every known table: whole tables through SQLite where it can, the rest from the pages."""
    rows: dict[str, list[tuple]] = {}
    method: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="hpceval-recover-") as tmp:
        copy = Path(tmp) / STORE_NAME
        shutil.copyfile(path, copy)  # SQLite may create -shm and -wal files: do it on a copy, not beside the original
        wal = Path(f"{path}-wal")
        if wal.is_file():
            shutil.copyfile(wal, Path(f"{copy}-wal"))
        try:
            con = sqlite3.connect(f"file:{copy}?mode=ro", uri=True)
        except sqlite3.Error:
            con = None
        for table, columns in TABLES.items():
            if con is None:
                break
            try:
                present = {c[1] for c in con.execute(f"PRAGMA table_info({table})")}
                names = ", ".join(c if c in present else "NULL" for c in columns)  # a store older than a column
                rows[table] = list(con.execute(f"SELECT {names} FROM {table}"))
                method[table] = "sqlite"
            except sqlite3.DatabaseError:
                rows.pop(table, None)
        if con is not None:
            con.close()
        missing = [t for t in TABLES if t not in rows]
        if missing:
            salvaged = salvage_pages(path.read_bytes(), wal.read_bytes() if wal.is_file() else b"")
            for table in missing:
                rows[table] = salvaged.get(table, [])
                method[table] = "pages"
    return rows, method


def _write_store(target: Path, rows: dict[str, list[tuple]]) -> dict[str, int]:
    con = sqlite3.connect(target, isolation_level=None)
    counts: dict[str, int] = {}
    try:
        con.execute("PRAGMA journal_mode=WAL")
        _create_schema(con)
        with con:
            for table, columns in TABLES.items():
                fitted = [tuple(list(r[: len(columns)]) + [None] * (len(columns) - len(r))) for r in rows.get(table, [])]
                before = con.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]
                con.executemany(f"INSERT OR IGNORE INTO {table}({', '.join(columns)}) "
                                f"VALUES({', '.join('?' * len(columns))})", fitted)
                counts[table] = con.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0] - before
            con.execute("INSERT OR IGNORE INTO meta VALUES('recovered', ?)", (time.strftime("%Y-%m-%dT%H:%M:%S"),))
    finally:
        con.close()
    return counts


# ---------------------------------------------------------------------------------------------- the file format
class Pages:
    """The pages of a database file, with the committed frames of its write-ahead log laid over them."""

    def __init__(self, main: bytes, wal: bytes = b""):
        header = main[:100] if main.startswith(SQLITE_MAGIC) else b""
        size = int.from_bytes(header[16:18], "big") if header else 0
        wal_size = int.from_bytes(wal[8:12], "big") if len(wal) >= 32 else 0
        size = 65536 if size == 1 else size or wal_size
        if size < 512 or size > 65536 or size & (size - 1):
            size = 4096  # a damaged header: SQLite's default page size
        self.size = size
        self.usable = size - (header[20] if header else 0)
        self.header = header
        self.pages: dict[int, bytes] = {i // size + 1: main[i:i + size] for i in range(0, len(main) - size + 1, size)}
        self._overlay_wal(wal)

    def _overlay_wal(self, wal: bytes) -> None:
        if len(wal) < 32 or int.from_bytes(wal[:4], "big") not in WAL_MAGIC or int.from_bytes(wal[8:12], "big") != self.size:
            return
        salts = wal[16:24]
        pending: dict[int, bytes] = {}
        frame = 24 + self.size
        for offset in range(32, len(wal) - frame + 1, frame):
            head = wal[offset:offset + 24]
            if head[8:16] != salts:
                break
            pending[int.from_bytes(head[:4], "big")] = wal[offset + 24:offset + frame]
            if int.from_bytes(head[4:8], "big"):  # a commit frame: everything up to here is committed
                self.pages.update(pending)
                pending = {}

    def get(self, number: int) -> bytes | None:
        return self.pages.get(number)

    def free(self) -> set[int]:
        """Pages on the free list (as far as it can be read)."""
        free: set[int] = set()
        trunk = int.from_bytes(self.header[32:36], "big") if self.header else 0
        while trunk and trunk not in free:
            page = self.get(trunk)
            free.add(trunk)
            if page is None:
                break
            count = min(int.from_bytes(page[4:8], "big"), (self.usable - 8) // 4)
            free.update(int.from_bytes(page[8 + 4 * i:12 + 4 * i], "big") for i in range(count))
            trunk = int.from_bytes(page[:4], "big")
        return free


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    value = 0
    for i in range(9):
        byte = data[pos + i]
        if i == 8:
            return (value << 8) | byte, pos + 9
        value = (value << 7) | (byte & 0x7F)
        if byte < 0x80:
            return value, pos + i + 1
    raise ValueError("bad varint")  # unreachable


def _record(payload: bytes) -> tuple:
    """The values of one record (SQLite's record format)."""
    size, pos = _varint(payload, 0)
    types = []
    while pos < size:
        kind, pos = _varint(payload, pos)
        types.append(kind)
    body = size
    values: list[Any] = []
    for kind in types:
        if kind == 0:
            values.append(None)
        elif kind in (1, 2, 3, 4, 5, 6):
            width = (1, 2, 3, 4, 6, 8)[kind - 1]
            values.append(int.from_bytes(payload[body:body + width], "big", signed=True))
            body += width
        elif kind == 7:
            values.append(struct.unpack(">d", payload[body:body + 8])[0])
            body += 8
        elif kind in (8, 9):
            values.append(kind - 8)
        elif kind >= 12:
            width = (kind - 12) // 2
            chunk = payload[body:body + width]
            values.append(chunk.decode("utf-8") if kind % 2 else bytes(chunk))
            body += width
        else:
            raise ValueError("reserved serial type")
    if body > len(payload):
        raise ValueError("record runs past its payload")
    return tuple(values)


def _leaf_rows(pages: Pages, number: int) -> Iterator[tuple]:
    """The records of one table leaf page; a cell whose overflow chain is lost or invalid is skipped."""
    page = pages.get(number)
    if page is None:
        return
    offset = 100 if number == 1 else 0
    cells = int.from_bytes(page[offset + 3:offset + 5], "big")
    usable = pages.usable
    for i in range(cells):
        try:
            pointer = int.from_bytes(page[offset + 8 + 2 * i:offset + 10 + 2 * i], "big")
            length, pos = _varint(page, pointer)
            _, pos = _varint(page, pos)  # rowid
            local = _local_size(length, usable)
            payload = bytearray(page[pos:pos + local])
            if local < length:
                overflow = int.from_bytes(page[pos + local:pos + local + 4], "big")
                seen: set[int] = set()
                while len(payload) < length:
                    chunk = pages.get(overflow)
                    if chunk is None or overflow in seen:
                        raise ValueError("lost overflow page")
                    seen.add(overflow)
                    payload += chunk[4:usable]
                    overflow = int.from_bytes(chunk[:4], "big")
            yield _record(bytes(payload[:length]))
        except (ValueError, IndexError, UnicodeDecodeError, struct.error):
            continue


def _local_size(length: int, usable: int) -> int:
    most = usable - 35
    if length <= most:
        return length
    least = ((usable - 12) * 32 // 255) - 23
    k = least + (length - least) % (usable - 4)
    return k if k <= most else least


def _tree_leaves(pages: Pages, root: int, free: set[int]) -> list[int]:
    """Leaf pages of a table b-tree, depth first; missing, free or invalid pages are skipped."""
    leaves: list[int] = []
    stack, seen = [root], set()
    while stack:
        number = stack.pop()
        page = pages.get(number)
        if page is None or number in seen or number in free:
            continue
        seen.add(number)
        offset = 100 if number == 1 else 0
        flag = page[offset]
        if flag == 0x0D:
            leaves.append(number)
        elif flag == 0x05:
            cells = int.from_bytes(page[offset + 3:offset + 5], "big")
            children = [int.from_bytes(page[offset + 8:offset + 12], "big")]
            for i in range(cells):
                pointer = int.from_bytes(page[offset + 12 + 2 * i:offset + 14 + 2 * i], "big")
                children.append(int.from_bytes(page[pointer:pointer + 4], "big"))
            stack.extend(reversed(children))
    return leaves


def salvage_pages(main: bytes, wal: bytes = b"") -> dict[str, list[tuple]]:
    """Rows per known table read from the raw pages (see the module docstring)."""
    pages = Pages(main, wal)
    free = pages.free()
    roots: dict[str, int] = {}
    master_leaves = _tree_leaves(pages, 1, free)
    for number in master_leaves:
        for row in _leaf_rows(pages, number):
            if len(row) >= 5 and row[0] == "table" and row[1] in TABLES and isinstance(row[3], int):
                roots[row[1]] = row[3]
    out: dict[str, list[tuple]] = {t: [] for t in TABLES}
    claimed = set(master_leaves)
    for table, root in roots.items():
        for number in _tree_leaves(pages, root, free):
            claimed.add(number)
            out[table].extend(r for r in _leaf_rows(pages, number) if len(r) <= len(TABLES[table]))
    for number in sorted(pages.pages):  # leaves whose parent page was lost
        page = pages.get(number)
        if number in claimed or number in free or page is None or page[100 if number == 1 else 0] != 0x0D:
            continue
        for row in _leaf_rows(pages, number):
            table = _table_of(row)
            if table is not None:
                out[table].append(row)
    return out


def _table_of(row: tuple) -> str | None:
    """The known table whose shape a record has (column count, and a value type where two tables share it)."""
    matches = [t for t, cols in TABLES.items() if FIRST_COLUMNS[t] <= len(row) <= len(cols)]
    if len(row) == 5:
        if row[0] in ("table", "index", "view", "trigger") and isinstance(row[3], int):
            return None  # a schema record
        matches = ["generation_cache"] if isinstance(row[1], int) else ["runs"]
    return matches[0] if len(matches) == 1 else None
