"""A replay record's prelude: text its source compiled before the suggestion, which the LLM did not write.

Why: a benchmark may build a suggestion after lines of its own (ParEval compiles each output after its benchmark
file's standard includes, so a body uses `std::vector` without including it). Graded without them, such code
fails for a header its source gave it; pasted into the suggestion's text, the LLM would be credited with lines it
never wrote. So the record keeps them apart (`meta.prelude`, and `meta.prelude_source` saying whose they are,
docs/replay.md), the stored suggestion stays the LLM's bytes, and only the unit that is built and bound starts
with the prelude; the evidence names every line added.
"""

from __future__ import annotations

from typing import Any


def with_prelude(code: str, meta: dict[str, Any]) -> tuple[str, str]:
    """(the code to bind and build, the evidence note naming what was added; "" when nothing was)."""
    prelude = meta.get("prelude") or ""
    if not isinstance(prelude, str) or not prelude.strip() or not code.strip():
        return code, ""
    if not prelude.endswith("\n"):
        prelude += "\n"
    added = ", ".join(line.strip() for line in prelude.splitlines() if line.strip())
    source = meta.get("prelude_source") or "the replay record's prelude"
    return prelude + code, f"prelude put before the code, not the LLM's ({source}): {added}"
