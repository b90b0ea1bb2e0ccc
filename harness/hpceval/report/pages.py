"""Drill-down pages: every leaderboard cell links to a page of its suggestions, each suggestion to a page of its
own (the prompt, the raw answer, the extracted code, the verdict and its evidence, the binding, the timings).

Why: a number on the leaderboard is only as credible as the suggestions behind it, and before these pages seeing
one needed SQLite or `export-generations`. Everything on them is LLM output or derived from it, so it is hostile
text: the templates autoescape every value (a `</script>` in a suggestion is shown, never run), and nothing is
inlined into a script. Pages are named by a hash of their key, never by text the LLM chose.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from hpceval.report.load import read_only_stores

SUGGESTION_DIR = "suggestions"
CELL_DIR = "cells"
TIMING_COLUMNS = ("device", "time_median_s", "time_min_s", "time_iqr_s", "gflops", "gbytes_per_s",
                  "baseline_time_s", "speedup", "roofline_efficiency", "timing_implausible")


def slug(*parts: Any) -> str:
    return hashlib.sha256("\x1f".join(str(p) for p in parts).encode()).hexdigest()[:16]


def suggestion_href(row: Any) -> str:
    return f"{SUGGESTION_DIR}/{slug(row['run_id'], row['prompt_id'], row['rank'])}.html"


def cell_href(keys: Sequence[str], values: Sequence[Any]) -> str:
    return f"{CELL_DIR}/{slug(*keys, *values)}.html"


def load_details(run_dirs: Iterable[str | Path]) -> dict[tuple[str, str, int], dict[str, str]]:
    """(run_id, prompt_id, rank) -> prompt text, raw answer, extracted code and binding, from each results.sqlite
    (read-only; a published evaluations.csv has none of them: its pages say so)."""
    out: dict[tuple[str, str, int], dict[str, str]] = {}
    for con in read_only_stores(run_dirs):
        rows = con.execute("SELECT g.run_id, g.prompt_id, g.rank, p.text, g.text, g.code, g.binding "
                           "FROM generations g JOIN prompts p ON p.run_id = g.run_id AND p.prompt_id = g.prompt_id")
        for run_id, prompt_id, rank, prompt, text, code, binding in rows:
            out[(run_id, prompt_id, int(rank))] = {"prompt": prompt or "", "answer": text or "",
                                                  "code": code or "", "binding": _pretty(binding)}
    return out


def _pretty(binding: str | None) -> str:
    if not binding:
        return ""
    try:
        return json.dumps(json.loads(binding), indent=2)
    except ValueError:
        return binding


def _value(v: Any) -> str:
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "–"
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


def write_pages(env: Any, out: Path, samples: pd.DataFrame, run_dirs: Sequence[Path],
                groups: Sequence[Sequence[str]]) -> dict[tuple[str, ...], str]:
    """Write one page per suggestion and one per group of each key list in `groups`; return the group pages'
    hrefs by (keys + values)."""
    details = load_details(run_dirs)
    for sub in (SUGGESTION_DIR, CELL_DIR):
        (out / sub).mkdir(parents=True, exist_ok=True)
    page = env.get_template("suggestion.html.j2")
    for _, row in samples.iterrows():
        key = (str(row["run_id"]), str(row["prompt_id"]), int(row["rank"]))
        detail = details.get(key, {})
        fields = [(name, _value(row.get(name))) for name in ("llm", "run_id", "language", "model", "kernel", "style",
                                                            "hint", "prompt_id", "rank", "round", "variant",
                                                            "toolchain", "toolchain_version", "max_rel_error",
                                                            "failed_size")]
        timings = [(name, _value(row.get(name))) for name in TIMING_COLUMNS]
        html = page.render(row=row, verdict=str(row["verdict"]), evidence=_value(row.get("evidence")),
                           fields=fields, timings=timings, detail=detail, stored=bool(detail))
        (out / suggestion_href(row)).write_text(html)
    hrefs: dict[tuple[str, ...], str] = {}
    cell = env.get_template("cell.html.j2")
    for keys in groups:
        for values, group in samples.groupby(list(keys), sort=False):
            values = values if isinstance(values, tuple) else (values,)
            href = cell_href(keys, values)
            items = [{"href": "../" + suggestion_href(r), "prompt_id": r["prompt_id"], "rank": int(r["rank"]),
                      "verdict": r["verdict"], "evidence": _value(r.get("evidence"))[:200]}
                     for _, r in group.sort_values(["prompt_id", "rank"]).iterrows()]
            (out / href).write_text(cell.render(title=" · ".join(f"{k} {v}" for k, v in zip(keys, values, strict=True)),
                                                items=items))
            hrefs[(*keys, *map(str, values))] = href
    return hrefs
