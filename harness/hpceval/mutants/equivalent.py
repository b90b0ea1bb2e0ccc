"""Equivalent mutants a kernel declares: mutants of its references that cannot change any result.

A mutation operator cannot know the kernel's semantics: shortening Jacobi's data clause `unew[0:n]` by one element
leaves out the grid's last point, a boundary corner that no sweep reads or writes, so that mutant computes exactly
what the reference does and no validator can kill it. Counting it as a survivor says nothing about the validator
and drags a cell below the self-test's bar. The kernel's folder lists such mutants with the reason
(`kernels_spec/<kernel>/equivalent_mutants.toml`); the self-test sets matching mutants aside before it samples a
cell (so the cell's sample holds real bugs only) and reports each one with its reason. An entry matches on the
mutant's operator and on the changed lines, never on a whole file, so an edited reference is not excused.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from hpceval.mutants.core import Mutant


@dataclass(frozen=True)
class Equivalent:
    operator: str  # the mutant's operator starts with this ("data-clause", "data-clause/array section")
    removed: str  # text on a removed line (a whole word at its start)
    added: str  # text on an added line
    why: str


@cache
def declared(folder: str) -> tuple[Equivalent, ...]:
    path = Path(folder) / "equivalent_mutants.toml"
    if not path.is_file():
        return ()
    with path.open("rb") as f:
        data = tomllib.load(f)
    return tuple(Equivalent(e["operator"], e["from"], e["to"], e["why"]) for e in data.get("equivalent", []))


def _on(lines: list[str], text: str) -> bool:
    pattern = re.compile(r"(?<![\w.])" + re.escape(text))
    return any(pattern.search(line) for line in lines)


def why_equivalent(mutant: Mutant, original: str, entries: tuple[Equivalent, ...]) -> str | None:
    """The reason a declared entry gives for this mutant being equivalent, or None."""
    if not entries:
        return None
    diff = mutant.diff(original, max_lines=50).splitlines()
    removed = [ln[1:] for ln in diff if ln.startswith("-")]
    added = [ln[1:] for ln in diff if ln.startswith("+")]
    for e in entries:
        if (mutant.operator or mutant.kind).startswith(e.operator) and _on(removed, e.removed) and _on(added, e.added):
            return e.why
    return None


def set_aside(mutants: list[Mutant], original: str, folder: str) -> tuple[list[Mutant], list[tuple[Mutant, str]]]:
    """The mutants to sample from, and those the kernel's folder declares equivalent, each with its reason."""
    entries = declared(folder)
    kept: list[Mutant] = []
    equivalent: list[tuple[Mutant, str]] = []
    for m in mutants:
        why = why_equivalent(m, original, entries)
        if why is None:
            kept.append(m)
        else:
            equivalent.append((m, why))
    return kept, equivalent
