"""The rows the score does not see: `unbindable` and `infra_error`, as counts and shares of all suggestions.

Why: both verdicts leave a suggestion out of N, so a score can look good because half an LLM's answers vanished
from it (an LLM whose answers the binder cannot map, a toolchain that was missing). Every per-LLM table carries
them beside the score, as rates over *all* suggestions (infra_error included), and a rate strictly above
UNSCORED_FLAG_RATE is flagged, in the CSVs (`*_flag`), on the page and in the Markdown summary, and named in a
note at the top. This module only computes and words them; scores.py and render.py place them.
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

UNSCORED_FLAG_RATE = 0.05
FLAG_MARK = "⚠"
UNSCORED_KINDS = ("unbindable", "infra_error")
EXPLAIN = (f"unbindable and infra_error are rows the score does not see (left out of N): shown as counts and as "
           f"shares of all suggestions, {FLAG_MARK} above {UNSCORED_FLAG_RATE:.0%}.")
RATE_COLUMNS = ["unscored", "unbindable_rate", "infra_error_rate", "unscored_rate", "unbindable_flag",
                "infra_error_flag"]


def _rate(count: float, total: float) -> float:
    return float(count) / float(total) if total else math.nan


def flagged(rate: float) -> bool:
    """A rate worth a reader's attention: strictly above UNSCORED_FLAG_RATE (NaN never is)."""
    return bool(rate > UNSCORED_FLAG_RATE)


def rates(suggestions: int, unbindable: int, infra_error: int, suffix: str = "") -> dict[str, Any]:
    """The unscored columns of one row (suffix `_a`/`_b` for the two sides of a paired comparison)."""
    out = {"unscored": unbindable + infra_error, "unbindable_rate": _rate(unbindable, suggestions),
           "infra_error_rate": _rate(infra_error, suggestions),
           "unscored_rate": _rate(unbindable + infra_error, suggestions)}
    out["unbindable_flag"] = flagged(out["unbindable_rate"])
    out["infra_error_flag"] = flagged(out["infra_error_rate"])
    return {f"{k}{suffix}": v for k, v in out.items()}


def cell(row: Any, kind: str, suffix: str = "") -> tuple[str, str, bool]:
    """(text, sort value, flagged) of one unscored cell: `6 (60.0%)`, `6 (60.0%) ⚠` when flagged."""
    count, rate = row.get(f"{kind}{suffix}"), row.get(f"{kind}_rate{suffix}")
    if count is None or rate is None or not math.isfinite(float(rate)):
        return ("–", "", False)
    flag = flagged(float(rate))
    text = f"{int(count)} ({float(rate):.1%})" + (f" {FLAG_MARK}" if flag else "")
    return (text, repr(float(rate)), flag)


def flag_notes(table: pd.DataFrame, label: str = "llm") -> list[str]:
    """One line per LLM (row of `table`) whose unbindable or infra_error rate is flagged, worst first."""
    notes = []
    if table.empty:
        return notes
    for _, row in table.sort_values("unscored_rate", ascending=False).iterrows():
        for kind in UNSCORED_KINDS:
            rate = float(row.get(f"{kind}_rate", math.nan))
            if flagged(rate):
                notes.append(f"{FLAG_MARK} {row[label]}: {int(row[kind])} of {int(row['suggestions'])} suggestions "
                             f"({rate:.1%}) {kind}, rows the score does not see; its score rests on the other "
                             f"{int(row['scored'])}.")
    return notes


def add_to(frame: pd.DataFrame, after: str = "unbindable") -> pd.DataFrame:
    """The rate and flag columns computed from a table's suggestions/unbindable/infra_error, placed after `after`."""
    if frame.empty or "suggestions" not in frame:
        return frame
    extra = pd.DataFrame([rates(int(s), int(u), int(i)) for s, u, i in
                          zip(frame["suggestions"], frame["unbindable"], frame["infra_error"], strict=True)],
                         index=frame.index, columns=RATE_COLUMNS)
    at = list(frame.columns).index(after) + 1
    return pd.concat([frame.iloc[:, :at], extra, frame.iloc[:, at:]], axis=1)
