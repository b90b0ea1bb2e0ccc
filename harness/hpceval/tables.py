"""Listings for people and for programs: `--format table|csv|json` of `hpceval list` and `hpceval doctor`.

Why: rich fits a table into the terminal, and when stdout is not a terminal it assumes 80 columns and elides
cells, so `hpceval list models | ...` printed ids such as `cpp-open…` that no command accepts. Off a terminal a
table is now drawn as wide as its content (nothing is cut), and csv and json print every value whole.
"""

from __future__ import annotations

import csv
import json
import sys
from collections.abc import Sequence

from rich.console import Console
from rich.table import Table

FORMATS = ("table", "csv", "json")


class FormatError(ValueError):
    """An unknown --format (one line in the CLI)."""


def check_format(fmt: str, extra: Sequence[str] = ()) -> str:
    valid = (*FORMATS, *extra)
    if fmt not in valid:
        raise FormatError(f"unknown --format {fmt!r}; valid: {', '.join(valid)}")
    return fmt


def emit(header: Sequence[str], rows: Sequence[Sequence[str]], fmt: str, console: Console) -> None:
    """Print rows as a rich table (never elided), CSV or a JSON list of objects keyed by the header."""
    if fmt == "csv":
        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)
        return
    if fmt == "json":
        print(json.dumps([dict(zip(header, row, strict=True)) for row in rows], indent=2, ensure_ascii=False))
        return
    table = Table(*header)
    for row in rows:
        table.add_row(*row)
    wide_console(console, header, rows).print(table)


def wide_console(console: Console, header: Sequence[str], rows: Sequence[Sequence[str]]) -> Console:
    """The console itself on a terminal; off one, a console as wide as the table's content."""
    if console.is_terminal:
        return console
    widths = [len(h) for h in header]
    for row in rows:
        widths = [max(w, *(len(line) for line in str(cell).splitlines() or [""])) for w, cell in zip(widths, row,
                                                                                                      strict=True)]
    return Console(file=console.file, width=max(80, sum(widths) + 3 * len(widths) + 1), color_system=None,
                   highlight=False)
