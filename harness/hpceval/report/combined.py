"""The combined leaderboard: LLMs from different publications, scored on the cells every one of them answered.

Why: the 2023 study's LLMs and ParEval's were given different prompt texts; what they share is the kernel ×
programming model. Pairing prompts (comparisons.csv) finds nothing across publications, and a summary over each
LLM's own cells compares an LLM that answered easy kernels with one that answered hard ones. Here every LLM is
scored on exactly the kernel × model cells that all of them answered (at least one suggestion each, unscored
ones included, so an LLM whose answers are all unbindable in a cell keeps that cell in and its rate shows), with
the same scoring as the rest of the report (scores.aggregate), the rows the score does not see beside the score,
and a caveat on every row and on the page: the prompts differ, so a difference mixes the LLM with its prompts.
The reference solutions (`--llm reference`) are the harness's own, not an LLM: never part of it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from hpceval.report.scores import LLM_KEYS, SCHEMA_VERSION, SUMMARY_KEYS, Scores, aggregate

DEFAULT_CAVEAT = ("The LLMs come from different publications and answered different prompt texts; they share only "
                  "the kernel × programming model. A difference between them mixes the LLM with its prompts.")
CELL_KEYS = ["language", "model", "kernel"]


@dataclass
class Combined:
    """combined.csv (`board`), the shared cells and the caveat the page shows."""

    board: pd.DataFrame
    cells: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=CELL_KEYS))
    caveat: str = DEFAULT_CAVEAT

    @property
    def cell_names(self) -> list[str]:
        return [f"{r.kernel} × {r.model}" for r in self.cells.itertuples()]


def read_caveat(text: str | None = None, path: str | Path | None = None) -> str:
    """The caveat from --caveat TEXT or --caveat-file PATH (its text, stripped), else DEFAULT_CAVEAT."""
    if path is not None:
        text = Path(path).read_text(encoding="utf-8")
    text = (text or "").strip()
    return text or DEFAULT_CAVEAT


def shared_cells(samples: pd.DataFrame) -> pd.DataFrame:
    """language × model × kernel cells in which every LLM (the reference solutions aside) has a suggestion."""
    llms = samples[samples["llm_spec"] != "reference"] if "llm_spec" in samples else samples
    if llms.empty:
        return pd.DataFrame(columns=CELL_KEYS)
    per_cell = llms.groupby(CELL_KEYS)["llm"].nunique()
    shared = per_cell[per_cell == llms["llm"].nunique()]
    return shared.index.to_frame(index=False)[CELL_KEYS].sort_values(["model", "kernel"]).reset_index(drop=True)


def combine(scores: Scores, caveat: str = DEFAULT_CAVEAT, n_boot: int = 2000, seed: int = 0) -> Combined:
    """One row per LLM over all shared cells (`model` `*`) and one per LLM × shared programming model."""
    samples = scores.samples
    if "round" in samples:
        samples = samples[samples["round"] == 1]  # one shot, as every table but the rounds table
    cells = shared_cells(samples)
    columns = ["schema_version", "llm", "language", "model", "cells"]
    if cells.empty:
        return Combined(pd.DataFrame(columns=[*columns, "caveat"]), cells, caveat)
    keep = samples.merge(cells, on=CELL_KEYS)
    keep = keep[keep["llm_spec"] != "reference"] if "llm_spec" in keep else keep
    prompts = scores.prompts.merge(cells, on=CELL_KEYS)
    overall = aggregate(keep, prompts, LLM_KEYS, scores.ks, n_boot, seed)
    overall.insert(2, "language", "*")
    overall.insert(3, "model", "*")
    overall.insert(4, "cells", len(cells))
    per_model = aggregate(keep, prompts, SUMMARY_KEYS, scores.ks, n_boot, seed)
    per_model.insert(4, "cells", per_model["model"].map(cells["model"].value_counts()).astype(int))
    board = pd.concat([overall, per_model], ignore_index=True)
    board["models"] = board["models"].fillna(1).astype(int)
    board["schema_version"] = SCHEMA_VERSION
    board["caveat"] = caveat
    return Combined(board, cells, caveat)
