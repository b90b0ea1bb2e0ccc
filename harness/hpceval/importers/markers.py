"""Author markers and banners that dump authors put between suggestions, and how to take them out of a suggestion.

Why a module of its own: both real dump formats (the Copilot panels, the Llama-2 dumps) were annotated by hand, and
every such line left in a suggestion either counts as code (`###` is not a comment in C++ or Fortran, so a
comment-only block "has code") or breaks the build. The markers seen in the dumps and their variants:

* end/beginning banners: `### End of Output`, `=== End of Output ===`, `// ---- Beginning of output ----`,
  `# Start of suggestion`, in any comment leader and decoration;
* suggestion labels: `Suggestion 3`, `// SUGGESTION 1 // ------`, `! SUGGESTION 2 ! ---`, `#### Suggestion #4:`;
* bare decoration lines that are not comments in the language: `###`, `####` (C++/Fortran), `-----`, `*****`,
  `=====` with or without spaces (Python/Julia too: never code);
* Markdown fences (```` ``` ````, ```` ```fortran ````) and Markdown headings (`## Main`) where `#` is no comment;
* comment banners (`// =======`, `! -------`, `# ######`) at the start or end of a block, where they separate
  panels; inside a block they are the model's own comments and stay.

`strip_markers` returns the cleaned block and the removed lines, so importers can count them. A line inside a
string literal or block comment (a numpydoc `-------` in a docstring) is the LLM's code and is never removed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_LEADER = r"(?://+|!+|#+|/\*+|--)?"
_DECOR = r"[\s=#*~_\-<>\[\]/!:|]*"
MARKER_TEXT = re.compile(
    rf"^\s*{_LEADER}{_DECOR}(?:(?:beginning|begin|start|end)\s+of\s+(?:the\s+)?(?:code\s+|model\s+)?"
    rf"(?:output|outputs|suggestions?|answer|response|panel|completion)s?"
    rf"|suggestion\s*(?:#|no\.?\s*)?\d+|output\s*#?\s*\d+){_DECOR}(?:\*/)?\s*$",
    re.IGNORECASE)
_DECORATION = re.compile(r"^\s*(?:[=#*~_\-]\s*){3,}$")
_COMMENT_DECORATION = re.compile(r"^\s*(?://+|!+|#+|/\*+)\s*(?:[=#*~_\-]\s*){3,}(?:\*/)?\s*$")
_FENCE = re.compile(r"^\s*```[\w+\-.]*\s*$")
_HEADING = re.compile(r"^\s*#{2,}(\s.*)?$")


def _is_comment_line(line: str, lang: str) -> bool:
    s = line.strip()
    if lang == "cpp":
        return s.startswith(("//", "/*", "*"))
    if lang == "fortran":
        return s.startswith("!")
    return s.startswith("#")


def is_marker(line: str, lang: str) -> bool:
    """A line that is an author's marker wherever it stands in a block."""
    s = line.strip()
    if not s:
        return False
    if lang == "julia" and s.startswith("#="):  # opens a Julia block comment: removing it would change the code
        return False
    if MARKER_TEXT.match(s) or _FENCE.match(s):
        return True
    if _DECORATION.match(s) and not _is_comment_line(s, lang):
        return True
    return lang in ("cpp", "fortran") and bool(_HEADING.match(s))


def is_edge_banner(line: str, lang: str) -> bool:
    """A comment banner (a row of = - # * in a comment): a marker only at the start or end of a block."""
    s = line.strip()
    if lang == "julia" and s.startswith("#=") and not s.endswith("=#"):
        return False
    return bool(_COMMENT_DECORATION.match(s) or _DECORATION.match(s)) or is_marker(s, lang)


def strip_markers(block: str, lang: str) -> tuple[str, list[str]]:
    """(block without author markers, the removed lines); see `strip_marker_lines`."""
    kept, removed = strip_marker_lines(block, lang)
    lines = block.split("\n")
    return "\n".join(lines[i] for i in kept), [lines[i].strip() for i in removed]


def strip_marker_lines(block: str, lang: str) -> tuple[list[int], list[int]]:
    """(indices of the lines kept, indices of the marker lines removed): markers anywhere, banners and blank lines
    at the edges. A line inside a string literal or block comment (importers.literals) is code and always kept, so
    the kept lines are the suggestion byte for byte."""
    from hpceval.importers.literals import protected_lines

    lines = block.split("\n")
    code = protected_lines(block, lang)
    removed = [i for i, line in enumerate(lines) if i not in code and is_marker(line, lang)]
    kept = [i for i in range(len(lines)) if i not in set(removed)]

    def edge(i: int) -> bool:  # banners at the edges (blank lines between them and the code go too)
        return i not in code and (not lines[i].strip() or is_edge_banner(lines[i], lang))

    while kept and edge(kept[0]):
        if lines[kept[0]].strip():
            removed.append(kept[0])
        kept.pop(0)
    while kept and edge(kept[-1]):
        if lines[kept[-1]].strip():
            removed.append(kept[-1])
        kept.pop()
    return kept, sorted(removed)


@dataclass
class SourceBlock:
    """One suggestion cut out of a dump: its code (the dump's characters, byte for byte, less the marker lines),
    where it lies in the dump (`span`: character offsets of its first and past its last kept character; `lines`:
    the first and last line numbers, 1-based) and the marker lines taken out of it (`removed_lines`, 1-based
    line numbers in the dump, and their text)."""

    code: str
    span: tuple[int, int]
    lines: tuple[int, int]
    removed_lines: list[int]
    markers: list[str]


def cut_block(text: str, start: int, end: int, lang: str) -> SourceBlock:
    """The suggestion in `text[start:end]`: marker lines out (strip_marker_lines), nothing else changed."""
    part = text[start:end]
    first_line = text.count("\n", 0, start) + 1
    lines = part.split("\n")
    kept, removed = strip_marker_lines(part, lang)
    if not kept:
        return SourceBlock("", (start, start), (first_line, first_line), [], [lines[i].strip() for i in removed])
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line) + 1)
    span = (start + offsets[kept[0]], start + offsets[kept[-1]] + len(lines[kept[-1]]))
    return SourceBlock("\n".join(lines[i] for i in kept), span, (first_line + kept[0], first_line + kept[-1]),
                       [first_line + i for i in removed], [lines[i].strip() for i in removed])


def source_meta(block: SourceBlock) -> dict:
    """The replay meta that locates a suggestion in its dump: `span` (character offsets, end exclusive), `lines`
    (first and last line) and `removed_lines` (the marker lines taken out, line numbers). With them anyone can
    check that the code is the dump's text less those lines (tests/test_import_copilot.py does, per format)."""
    return {"span": list(block.span), "lines": list(block.lines), "removed_lines": block.removed_lines}
