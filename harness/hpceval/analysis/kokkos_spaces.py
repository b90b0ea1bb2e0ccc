"""Kokkos: the execution space each parallel dispatch names in the source (the fallback of the tool record).

The Kokkos tool records the execution space of every dispatch that ran (toolchains.kokkos); where no record
exists (a Kokkos built without tools), the source still shows a dispatch pinned to a host space:
`RangePolicy<Kokkos::Serial>`, `MDRangePolicy<Kokkos::DefaultHostExecutionSpace, ...>`, a `Kokkos::Serial()`
instance, through a `using Space = ...` alias or a named policy object. A dispatch with the default space, or a
space the rules cannot resolve, counts as on the device, so only plain host-only code is reported.
"""

from __future__ import annotations

import re

from hpceval.analysis.datamap import _balanced

SPACES = ("Serial", "OpenMP", "Threads", "DefaultHostExecutionSpace", "Cuda", "HIP", "SYCL", "OpenMPTarget",
          "DefaultExecutionSpace")
_SPACE = re.compile(r"\b(?:Kokkos::)?(" + "|".join(SPACES) + r")\b")


def _aliases(code: str) -> dict[str, str]:
    """`using Space = Kokkos::Serial;` / `typedef Kokkos::Serial Space;` -> {"Space": "Serial"}."""
    out = {}
    for m in re.finditer(r"\busing\s+(\w+)\s*=\s*([\w:]+)\s*;|\btypedef\s+([\w:]+)\s+(\w+)\s*;", code):
        name, target = (m.group(1), m.group(2)) if m.group(1) else (m.group(4), m.group(3))
        found = _SPACE.fullmatch(target) or _SPACE.fullmatch(target.split("::")[-1])
        if found:
            out[name] = found.group(1)
    return out


def _space_of(text: str, aliases: dict[str, str]) -> str | None:
    for m in re.finditer(r"\b[\w:]+\b", text):
        word = m.group(0)
        found = _SPACE.fullmatch(word)
        if found:
            return found.group(1)
        if word in aliases:
            return aliases[word]
    return None


def dispatch_spaces(code: str) -> list[str | None]:
    """Per `Kokkos::parallel_for/reduce/scan` call: the execution space its policy names, None for the default."""
    aliases = _aliases(code)
    out = []
    for m in re.finditer(r"\bparallel_(?:for|reduce|scan)\s*\(", code):
        args = code[m.end():_balanced(code, m.end() - 1) - 1]
        first = re.match(r'\s*(?:"[^"]*"\s*,\s*|[\w:]*string\s*\([^)]*\)\s*,\s*)?([^,(<]*(?:<[^>]*>)?(?:\([^)]*\))?)',
                         args)
        policy = first.group(1).strip() if first else ""
        if re.fullmatch(r"[A-Za-z_]\w*", policy):  # a named policy object: its declaration
            decl = re.search(rf"([\w:]+\s*<[^;]*?>)\s*{policy}\s*[({{=;]|\bauto\s+{policy}\s*=\s*([^;]*);", code)
            policy = (decl.group(1) or decl.group(2)) if decl else ""
        out.append(_space_of(policy, aliases) if "Policy" in policy or "(" in policy else None)
    return out


def host_space_problem(code: str, device: str) -> str | None:
    """Every dispatch pinned to a host execution space that is not the build's `device` space; else None."""
    host = {"Serial", "Threads"} if device == "OpenMP" else {"Serial", "OpenMP", "Threads", "DefaultHostExecutionSpace"}
    spaces = dispatch_spaces(code)
    if spaces and all(space in host for space in spaces):
        named = ", ".join(sorted({s for s in spaces if s}))
        return (f"every Kokkos dispatch names a host execution space ({named}) in a {device} build: the kernel does "
                f"not run on the device space (static check; no Kokkos tool record)")
    return None
