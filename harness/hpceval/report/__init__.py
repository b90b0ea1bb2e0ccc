"""Scores and publishing: results directories -> leaderboard CSVs, a static HTML page, Markdown and figures.

    frame  = load_results([Path("results/run")])      # one row per suggestion (Store.results of every run)
    scores = score(frame)                             # per-suggestion, per-prompt and per-group tables
    build_report([Path("results/run")], Path("results/report"))

The CSVs follow a versioned schema (SCHEMA_VERSION, docs/leaderboard-schema.md). Notebooks use the same
loaders and plotting functions, so a figure in a notebook and on the page are the same figure.

The package is split by concern, each module importing only the ones before it:
load (results directories, ceilings) -> scores (Scores and every published number; unscored: the rows the score
does not see) -> combined (LLMs of several publications on their shared cells) -> figures -> render (CSV, HTML,
Markdown, manifest; build_report). This module re-exports the public API of all four, so callers
keep writing `from hpceval.report import build_report` or `from hpceval import report; report.score(...)`.
"""

from hpceval.metrics import VERDICTS
from hpceval.report.combined import DEFAULT_CAVEAT, Combined, combine, shared_cells
from hpceval.report.figures import (
    VERDICT_COLORS,
    figure_combined,
    figure_combined_models,
    figure_heatmap,
    figure_pass_at_k,
    figure_speedups,
    figure_verdicts,
    figures,
)
from hpceval.report.load import ReportError, discover_ceilings, load_ceilings, load_results, load_runs
from hpceval.report.render import BASELINE_TEXT, SAMPLE_COLUMNS, TEMPLATES, build_report
from hpceval.report.scores import (
    CORRECT,
    GROUP_KEYS,
    INFRA,
    KS,
    LLM_KEYS,
    PROMPT_KEYS,
    SCHEMA_VERSION,
    SUMMARY_KEYS,
    Scores,
    compare_llms,
    pass_at_k_curves,
    prompt_scores,
    reference_baseline,
    sample_table,
    score,
)
from hpceval.report.unscored import UNSCORED_FLAG_RATE

__all__ = [
    "BASELINE_TEXT", "CORRECT", "DEFAULT_CAVEAT", "GROUP_KEYS", "INFRA", "KS", "LLM_KEYS", "PROMPT_KEYS", "SAMPLE_COLUMNS", "SCHEMA_VERSION",
    "SUMMARY_KEYS", "TEMPLATES", "UNSCORED_FLAG_RATE", "VERDICTS", "VERDICT_COLORS", "Combined", "ReportError",
    "Scores", "build_report", "combine", "compare_llms", "discover_ceilings", "figure_combined", "figure_combined_models", "figure_heatmap", "figure_pass_at_k", "figure_speedups",
    "figure_verdicts", "figures", "load_ceilings", "load_results", "load_runs", "pass_at_k_curves",
    "prompt_scores", "reference_baseline", "sample_table", "score", "shared_cells",
]
