"""Importers: turn suggestion dumps from elsewhere into replay JSONL, after recognising which format they are in.

Three real formats exist: the study's GitHub Copilot panels, the follow-up study's Llama-2 dumps (both plain text
beside source files), and ParEval's JSON outputs (importers.pareval). The two text parsers would read each other's
files without complaint and write wrong records, so the format is detected per file from the format's own
signature, never parsed by guess (`detect_format`, `import_dumps`).

A tree is read as its authors published it: the dumps sit beside files that are no dumps (the prompt files the
authors typed into, READMEs). Those are skipped, each with its reason (`scan`), and never turned into suggestions;
only a tree with no dump at all, or with dumps of two formats, or of another format than the one asked for, is
refused with a one-line error.
"""

from __future__ import annotations

from pathlib import Path

FORMATS = ("copilot", "llama2", "pareval")
TEXT_FORMATS = ("copilot", "llama2")


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


def _skip_reason(path: Path) -> str:
    """Why a file that is no dump of a known format is skipped (one line)."""
    from hpceval.importers.copilot import LANG_BY_EXT

    if path.suffix.lower() not in LANG_BY_EXT:
        return f"not a source file ({path.suffix or 'no extension'}): documentation or data, no suggestions"
    text = path.read_text(encoding="utf-8", errors="replace")
    if not text.strip():
        return "empty file: a prompt file with nothing typed in it, no suggestions"
    lines = sum(1 for line in text.splitlines() if line.strip())
    return (f"no suggestion dump ({lines} non-blank line{'s' * (lines != 1)}, no panel header, separator, prompt "
            "marker or SUGGESTION label): a prompt file the authors typed into")


def scan(source: Path) -> tuple[dict[Path, str], list[tuple[str, str]]]:
    """({dump file: its format}, [(file relative to `source`, why it is skipped)]) for a folder or one file."""
    source = Path(source)
    if not source.exists():
        raise FileNotFoundError(f"{source}: no such file or folder")
    from hpceval.importers.copilot import LANG_BY_EXT

    files = [source] if source.is_file() else sorted(
        p for p in source.rglob("*") if p.is_file() and not any(part.startswith(".") for part in
                                                                 p.relative_to(source).parts))
    base = source.parent if source.is_file() else source
    found: dict[Path, str] = {}
    skipped: list[tuple[str, str]] = []
    for path in files:
        fmt = file_format(path) if path.suffix.lower() in LANG_BY_EXT else None
        if fmt is None:
            skipped.append((path.relative_to(base).as_posix(), _skip_reason(path)))
        else:
            found[path] = fmt
    return found, skipped


def detect_format(source: Path, wanted: str = "auto") -> str:
    """The one format of every dump under `source` (a file or folder); UnknownFormat when there is no dump, when
    the dumps mix formats, or when they are not the `wanted` format. Files that are no dumps are skipped (`scan`)."""
    return _detect(source, wanted)[0]


def _detect(source: Path, wanted: str) -> tuple[str, list[Path], list[tuple[str, str]]]:
    if wanted not in ("auto", *TEXT_FORMATS):
        raise UnknownFormat(f"unknown import format {wanted!r}: known formats are {', '.join(FORMATS)}")
    found, skipped = scan(Path(source))
    if not found:
        if not skipped:
            raise FileNotFoundError(f"{source}: no files found")
        raise UnknownFormat(f"{skipped[0][0]}: not a known dump format ({', '.join(TEXT_FORMATS)}); refusing to "
                            f"guess" + (f" ({len(skipped) - 1} more such files, no dump among them)"
                                        if len(skipped) > 1 else ""))
    kinds = sorted(set(found.values()))
    if wanted != "auto":
        other = [p for p, f in found.items() if f != wanted]
        if other:
            raise UnknownFormat(f"{other[0]}: a {found[other[0]]} dump, not {wanted} (use --format {found[other[0]]})")
        return wanted, list(found), skipped
    if len(kinds) > 1:
        raise UnknownFormat(f"{source}: mixed dump formats ({', '.join(kinds)}); import each folder on its own")
    return kinds[0], list(found), skipped


def import_records(source: Path, fmt: str = "auto") -> tuple[list[dict], list[tuple[str, str]]]:
    """(replay records of every suggestion of the dumps under `source`, the skipped files with their reasons)."""
    fmt, files, skipped = _detect(source, fmt)
    if fmt == "llama2":
        from hpceval.importers.llama2 import records
    else:
        from hpceval.importers.copilot import records
    return [r for r in records(Path(source), files=files) if not r["meta"].get("empty_panel")], skipped


def import_dumps(source: Path, out: Path, fmt: str = "auto"):
    """Detect (or check) the format, import, write `out`; returns (format, counts table, skipped files)."""
    fmt, files, skipped = _detect(source, fmt)
    if fmt == "llama2":
        from hpceval.importers.llama2 import import_llama2

        return fmt, import_llama2(source, out, files=files), skipped
    from hpceval.importers.copilot import import_copilot

    return fmt, import_copilot(source, out, files=files), skipped
