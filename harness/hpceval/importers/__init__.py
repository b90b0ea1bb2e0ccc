"""Importers: turn suggestion dumps from elsewhere into replay JSONL, after recognising which format they are in.

Two real formats exist (the study's GitHub Copilot panels, the follow-up study's Llama-2 dumps) and each parser
would read the other's files without complaint and write wrong records, so the format is detected per file from
the format's own signature and a file of another or of no known format is refused with a one-line error, never
parsed by guess (`detect_format`, `import_dumps`).
"""

from __future__ import annotations

from pathlib import Path

FORMATS = ("copilot", "llama2")


class UnknownFormat(ValueError):
    """The dumps are not in the asked (or in any known) format: the message is a one-line error for the user."""


def file_format(path: Path) -> str | None:
    """'llama2', 'copilot' or None (no signature of either format in the file)."""
    from hpceval.importers.copilot import HEADER, MARKER, SEPARATOR
    from hpceval.importers.llama2 import looks_like_llama2

    text = path.read_text(encoding="utf-8", errors="replace")
    if looks_like_llama2(text):
        return "llama2"
    if HEADER.search(text) or SEPARATOR.search(text) or MARKER.search(text):
        return "copilot"
    return None


def detect_format(source: Path, wanted: str = "auto") -> str:
    """The one format of every dump under `source` (a file or folder); UnknownFormat when it is unknown, mixed,
    or not the `wanted` one."""
    from hpceval.importers.copilot import dump_files

    source = Path(source)
    if not source.exists():
        raise FileNotFoundError(f"{source}: no such file or folder")
    if wanted not in ("auto", *FORMATS):
        raise UnknownFormat(f"unknown import format {wanted!r}: known formats are {', '.join(FORMATS)}")
    files = [source] if source.is_file() else dump_files(source)
    if not files:
        raise FileNotFoundError(f"{source}: no dump files found (*.cpp/*.f90/*.py/*.jl)")
    found = {p: file_format(p) for p in files}
    unknown = [p for p, f in found.items() if f is None]
    if unknown:
        raise UnknownFormat(f"{unknown[0]}: not a known dump format ({', '.join(FORMATS)}); refusing to guess"
                            + (f" ({len(unknown) - 1} more such files)" if len(unknown) > 1 else ""))
    kinds = sorted(set(found.values()))
    if wanted != "auto":
        other = [p for p, f in found.items() if f != wanted]
        if other:
            raise UnknownFormat(f"{other[0]}: a {found[other[0]]} dump, not {wanted} (use --format {found[other[0]]})")
        return wanted
    if len(kinds) > 1:
        raise UnknownFormat(f"{source}: mixed dump formats ({', '.join(kinds)}); import each folder on its own")
    return kinds[0]


def import_dumps(source: Path, out: Path, fmt: str = "auto"):
    """Detect (or check) the format, import, write `out`; returns (format, counts table)."""
    fmt = detect_format(source, fmt)
    if fmt == "llama2":
        from hpceval.importers.llama2 import import_llama2

        return fmt, import_llama2(source, out)
    from hpceval.importers.copilot import import_copilot

    return fmt, import_copilot(source, out)
