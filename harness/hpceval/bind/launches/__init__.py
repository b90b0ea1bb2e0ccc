"""Launch sites: how the suggestion itself launches a kernel that the harness has to launch for it.

A kernel that only the suggestion's `main` (C++) or script (Python) launches is graded on the kernel, and the
kernel is written for the launch its author made: a tiled GEMM whose shared-memory tiles are 32x32 is right only
on 32x32 blocks, a grid-stride loop on any grid, a kernel without a bounds guard only where the launch covers the
sizes exactly. So the harness reads the launch configuration from the suggestion (grid, block, dynamic shared
memory, template arguments in C++; the subscript of `kernel[...]`, `forall`, a Triton grid lambda and its
constexpr keywords in Python), with the statements that compute it, and translates the suggestion's own size
variables to the kernel's parameters through the launch's argument list (the variable passed as the kernel's
`n` is the driver's `n`). What it cannot evaluate as a function of the kernel's arguments (a device query, a
size the launch does not pass to the kernel, a helper it calls) leaves the documented default, and the evidence
says which launch was used and why.

One module per language (cpp, python); this module holds what they share: the bracket-aware splitting of a
launch's text and the wording of the evidence.
"""

from __future__ import annotations

from dataclasses import dataclass, field

OPEN, CLOSE = "([{", ")]}"


def matching(text: str, start: int) -> int:
    """The index just past the bracket that closes the one at text[start] (len(text) when unbalanced)."""
    depth = 0
    for i in range(start, len(text)):
        if text[i] in OPEN:
            depth += 1
        elif text[i] in CLOSE:
            depth -= 1
            if depth == 0:
                return i + 1
    return len(text)


def split_top(text: str, sep: str = ",") -> list[str]:
    """`text` split at `sep` outside brackets (and outside template angle brackets `<...>` that do not close a
    comparison: a `<` directly after an identifier opens one only when a `>` closes it before any `;`)."""
    parts, depth, cur = [], 0, []
    for ch in text:
        if ch in OPEN:
            depth += 1
        elif ch in CLOSE:
            depth -= 1
        if ch == sep and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return [p.strip() for p in parts]


@dataclass
class Found:
    """A launch configuration read from the suggestion: the statements that compute it (renamed into the
    harness's namespace), the configuration expressions, and how it was written."""

    grid: str
    block: str
    shmem: str | None = None
    targs: str = ""
    setup: list[str] = field(default_factory=list)
    uses: set[str] = field(default_factory=set)  # file-level names (macros, constants) the launch reads
    written: str = ""
    where: str = "main"  # the function (or script) that launches


def taken_note(where: str, written: str) -> str:
    return f"launch taken from the suggestion's {where}: {written}"


def default_note(reason: str) -> str:
    return f"the harness's default launch ({reason})"


def no_site(kernel: str) -> str:
    return f"no launch of {kernel} in the suggestion"
