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

`strip_markers` returns the cleaned block and the removed lines, so importers can count them.
"""

from __future__ import annotations

import re

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
    """(block without author markers, the removed lines)."""
    removed: list[str] = []
    lines = []
    for line in block.split("\n"):
        if is_marker(line, lang):
            removed.append(line.strip())
        else:
            lines.append(line)
    # banners at the edges (blank lines between them and the code go too)
    while lines and (not lines[0].strip() or is_edge_banner(lines[0], lang)):
        if lines[0].strip():
            removed.append(lines[0].strip())
        lines.pop(0)
    while lines and (not lines[-1].strip() or is_edge_banner(lines[-1], lang)):
        if lines[-1].strip():
            removed.append(lines[-1].strip())
        lines.pop()
    return "\n".join(lines), removed
