"""Publishing: Scores -> the leaderboard CSVs, index.html, summary.md, manifest.json and figures/*.png.

Formatting (numbers, confidence intervals, table columns) and the writing of files live here, apart from the
scoring, so that changing what the page looks like cannot change a published number. CSVs are replaced
atomically; the HTML page is rendered from templates/leaderboard.html.j2.
"""

from __future__ import annotations

import json
import math
import shutil
import warnings
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from hpceval import __version__
from hpceval.metrics import Rubric
from hpceval.report import unscored
from hpceval.report.combined import DEFAULT_CAVEAT, Combined, combine
from hpceval.report.figures import figure_combined, figure_combined_models, figures
from hpceval.report.pages import write_pages
from hpceval.report.scores import GROUP_KEYS, KS, LLM_KEYS, SCHEMA_VERSION, SUMMARY_KEYS, Scores, score, with_schema
from hpceval.store import write_csv_atomic

TEMPLATES = Path(__file__).resolve().parent / "templates"
BASELINE_TEXT = ("the reference solution of the same kernel and programming model, timed on the same device in a "
                 "reference run (hpceval run --llm reference); speedup = baseline median time / suggestion median "
                 "time. No baseline timing or no suggestion timing: NaN. For speedup@k an incorrect suggestion "
                 "counts as speedup 0.")


def _fmt(x: Any, digits: int = 2) -> str:
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "–"
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    if isinstance(x, (float, np.floating)):
        return f"{x:.{digits}f}" if abs(x) < 1e4 else f"{x:.3g}"
    return str(x)


def _p(p: float) -> str:
    return "–" if not math.isfinite(p) else ("<0.001" if p < 0.001 else f"{p:.3f}")


def _ci(row: pd.Series, col: str, digits: int = 2) -> str:
    v = row.get(col)
    if v is None or not np.isfinite(v):
        return "–"
    lo, hi = row.get(f"{col}_lo"), row.get(f"{col}_hi")
    if lo is None or not np.isfinite(lo):
        return _fmt(v, digits)
    return f"{_fmt(v, digits)} [{_fmt(lo, digits)}, {_fmt(hi, digits)}]"


UNSCORED_HEADERS = [("unbindable (of all)", "unbindable", "unscored"), ("infra_error (of all)", "infra_error", "unscored")]


def _html_columns(frame: pd.DataFrame, ks: Sequence[int], keys: Sequence[str]) -> list[tuple[str, str, str]]:
    """(header, column, kind) for the HTML/Markdown tables of rows keyed by `keys`; kind: text, int, num, ci, frac,
    unscored (count and share of all suggestions, flagged above unscored.UNSCORED_FLAG_RATE), right before the
    score so that the rows it does not see are read with it."""
    names = {"llm": "LLM", "language": "language", "model": "model", "kernel": "kernel"}
    cols = [(names[k], k, "text") for k in keys]
    cols += [(c, c, "int") for c in ("cells", "models", "kernels") if c not in keys and c in frame]
    cols += [("prompts", "prompts", "int"), ("correct / scored", "correct", "frac"), *UNSCORED_HEADERS,
             ("proficiency [95% CI]", "proficiency", "ci")]
    for k in ks:
        if frame.get(f"pass_at_{k}_prompts", pd.Series(dtype=float)).fillna(0).sum() > 0:
            cols.append((f"pass@{k} [95% CI]", f"pass_at_{k}", "ci"))
    for k in ks:
        if frame.get(f"speedup_at_{k}_prompts", pd.Series(dtype=float)).fillna(0).sum() > 0:
            cols.append((f"speedup@{k} [95% CI]", f"speedup_at_{k}", "ci"))
    cols += [("best speedup", "speedup_best", "num"), ("roofline eff.", "roofline_efficiency", "num"),
             ("GB/s (best)", "gbytes_per_s_best", "num")]
    return cols


def _table_rows(frame: pd.DataFrame, cols: list[tuple[str, str, str]]) -> list[list[tuple[str, str, str]]]:
    """Rows of (display text, sort value, CSS class) cells."""
    rows = []
    for _, r in frame.iterrows():
        cells = []
        for _, col, kind in cols:
            v = r.get(col)
            if kind == "text":
                cells.append((str(v), str(v), ""))
            elif kind == "frac":
                cells.append((f"{int(r['correct'])} / {int(r['scored'])}",
                              _fmt(r["correct"] / r["scored"], 6) if r["scored"] else "", "num"))
            elif kind == "unscored":
                text, value, flag = unscored.cell(r, col)
                cells.append((text, value, "num flag" if flag else "num"))
            elif kind == "ci":
                cells.append((_ci(r, col), "" if v is None or not np.isfinite(v) else repr(float(v)), "num"))
            else:
                ok = v is not None and np.isfinite(v)
                cells.append((_fmt(v) if ok else "–", repr(float(v)) if ok else "", "num"))
        rows.append(cells)
    return rows


def _round_columns(scores: Scores) -> list[tuple[str, str, str]]:
    """Columns of the per-round table, or none when every run is one-shot."""
    curves = scores.round_curves
    if curves.empty or "round" not in curves or curves["round"].max() <= 1:
        return []
    cols = [("LLM", "llm", "text"), ("model", "model", "text"), ("round", "round", "int"),
            ("prompts", "prompts", "int"), ("proficiency", "proficiency", "num")]
    cols += [(f"pass@{k}", f"pass_at_{k}", "num") for k in scores.ks if curves[f"pass_at_{k}"].notna().any()]
    cols += [(f"speedup@{k}", f"speedup_at_{k}", "num") for k in scores.ks[:1] if curves[f"speedup_at_{k}"].notna().any()]
    cols += [("requests", "requests", "int"), ("prompt tokens", "prompt_tokens", "int"),
             ("completion tokens", "completion_tokens", "int"), ("cost $", "cost_usd", "num")]
    return cols


def _markdown_table(headers: list[str], rows: list[list[str]]) -> str:
    def esc(s: str) -> str:
        return s.replace("|", "\\|")

    lines = ["| " + " | ".join(esc(h) for h in headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join(esc(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


SAMPLE_COLUMNS = ["llm", "llm_spec", "run_id", "language", "model", "kernel", "style", "hint", "prompt_id", "rank",
                  "round", "root_prompt_id", "chain",
                  "verdict", "evidence", "max_rel_error", "failed_size", "time_median_s", "gflops", "gbytes_per_s",
                  "timing_implausible", "device", "baseline_time_s", "speedup", "peak_gflops", "peak_gbytes_per_s",
                  "compute_efficiency", "bandwidth_efficiency", "roofline_efficiency", "variant", "toolchain",
                  "toolchain_version"]


def build_report(runs: list[Path], out: Path, *, rubric: str | Path | Rubric | None = None,
                 ceilings: str | Path | Sequence[str | Path] | None = None, baseline_runs: Iterable[Path] = (),
                 ks: Sequence[int] = KS, n_boot: int = 2000, seed: int = 0, prices: dict | None = None,
                 merge: bool = False, combined: bool = False, caveat: str | None = None,
                 pages: bool = True) -> list[Path]:
    """Write the leaderboard CSVs, index.html, summary.md and figures/*.png into `out`; return their paths.

    combined (implied by a caveat): also the combined leaderboard (combined.py) of the LLMs on the kernel × model
    cells all of them answered, with `caveat` (default combined.DEFAULT_CAVEAT) on the page and in combined.csv.
    pages: the drill-down pages (pages.py); without them (a published folder) the tables link nowhere.
    """
    runs = [Path(r) for r in runs]
    out = Path(out)
    scores = score(runs, rubric=rubric, ceilings=ceilings, baseline_runs=baseline_runs, ks=ks, n_boot=n_boot,
                   seed=seed, prices=prices, merge=merge)
    board = (combine(scores, caveat or DEFAULT_CAVEAT, n_boot=n_boot, seed=seed)
             if combined or caveat else None)
    out.mkdir(parents=True, exist_ok=True)
    fig_dir = out / "figures"
    if fig_dir.is_dir():
        shutil.rmtree(fig_dir)
    fig_dir.mkdir()
    written: list[Path] = []
    tables = {"leaderboard.csv": scores.leaderboard_rounds, "summary.csv": scores.summary_rounds,
              "llms.csv": scores.llms_rounds,
              "prompts.csv": scores.prompts_rounds, "rounds.csv": scores.round_curves,
              "verdicts.csv": scores.verdicts, "comparisons.csv": scores.comparisons,
              "suggestions.csv": with_schema(scores.samples.reindex(columns=SAMPLE_COLUMNS)),
              "pass_at_k.csv": with_schema(scores.curves), "runs.csv": scores.runs}
    if board is not None:
        tables["combined.csv"] = board.board
    for name, frame in tables.items():
        written.append(write_csv_atomic(frame, out / name, float_format="%.6g"))
    figs = figures(scores)
    if board is not None and not board.board.empty:
        figs = {"combined": figure_combined(board.board), "combined_models": figure_combined_models(board.board),
                **figs}
    fig_paths = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        for stem, fig in figs.items():
            path = fig_dir / f"{stem}.png"
            fig.savefig(path, dpi=110)
            fig_paths[stem] = path
            written.append(path)
    manifest = {"schema_version": SCHEMA_VERSION, "hpceval": __version__,
                "generated": datetime.now(UTC).isoformat(timespec="seconds"),
                "runs": [str(r) for r in runs], "ks": list(scores.ks), "bootstrap": {"n": n_boot, "seed": seed},
                "rubric": scores.rubric.describe(), "baseline": BASELINE_TEXT,
                "ceilings": scores.ceilings.to_dict("records"), "infra_error": scores.infra_errors,
                "unbindable": scores.unbindables, "unscored_flags": scores.flags,
                "notes": scores.notes, "files": sorted(p.relative_to(out).as_posix() for p in written)}
    if board is not None:
        manifest["combined"] = {"caveat": board.caveat, "cells": board.cells.to_dict("records")}
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2, default=str) + "\n")
    written.append(out / "manifest.json")
    written.append(_write_markdown(scores, out, fig_paths, manifest, board))
    written.append(_write_html(scores, out, fig_paths, manifest, runs, board, pages))
    return written


def _md_table(frame: pd.DataFrame, ks: Sequence[int], keys: Sequence[str]) -> str:
    cols = _html_columns(frame, ks, keys)
    rows = [[c[0] for c in row] for row in _table_rows(frame, cols)] if not frame.empty else []
    return _markdown_table([c[0] for c in cols], rows)


COMPARISON_HEADERS = ["A", "B", "model", "metric", "prompts", "A", "B", "A - B [95% CI]", "p", "wins A/ties/B",
                      "A unbindable", "A infra_error", "B unbindable", "B infra_error"]


def _comparison_cells(r: Any) -> list[tuple[str, str]]:
    """(text, CSS class) of a comparison row; the last four: what each side left out on the paired prompts."""
    row = r._asdict() if hasattr(r, "_asdict") else dict(r)
    cells = [(r.llm_a, ""), (r.llm_b, ""), (r.model, ""), (r.metric, ""), (str(r.prompts), "num"), (_fmt(r.mean_a), "num"),
             (_fmt(r.mean_b), "num"), (f"{_fmt(r.diff)} [{_fmt(r.diff_lo)}, {_fmt(r.diff_hi)}]", "num"),
             (_p(r.p_value), "num"), (f"{r.wins_a}/{r.ties}/{r.wins_b}", "")]
    for side in ("_a", "_b"):
        for kind in unscored.UNSCORED_KINDS:
            text, _, flag = unscored.cell(row, kind, side)
            cells.append((text, "num flag" if flag else "num"))
    return cells


def _combined_markdown(board: Combined | None, ks: Sequence[int]) -> list[str]:
    if board is None:
        return []
    lines = ["## Combined leaderboard (the kernel × programming model cells every LLM answered)", "",
             f"> **Caveat**: {board.caveat}", ""]
    if board.board.empty:
        return [*lines, "There is no kernel × programming model that every LLM answered.", ""]
    return [*lines, "Shared cells: " + ", ".join(board.cell_names) + ".", "", unscored.EXPLAIN, "",
            _md_table(board.board, ks, ["llm", "model"]), ""]


def _write_markdown(scores: Scores, out: Path, fig_paths: dict[str, Path], manifest: dict,
                    board: Combined | None = None) -> Path:
    lines = ["# hpceval leaderboard", "",
             f"Generated {manifest['generated']} by hpceval {__version__} (CSV schema {SCHEMA_VERSION}) from "
             f"{len(scores.runs)} run(s): " + ", ".join(f"`{r.run_id}` ({r.llm})" for r in scores.runs.itertuples()),
             "", f"**infra_error: {scores.infra_errors}** suggestion(s) failed for reasons that are not the LLM's, "
             f"**unbindable: {scores.unbindables}** could not be mapped by the harness (both excluded from every "
             "score, counted per row).", ""]
    lines += [f"> **{flag}**" for flag in scores.flags]
    lines += [f"> {note}" for note in scores.notes]
    lines += ["", *_combined_markdown(board, scores.ks)]
    lines += ["## Per LLM", "", unscored.EXPLAIN, "", _md_table(scores.llms, scores.ks, LLM_KEYS), "",
              "## Per LLM x programming model", "", _md_table(scores.summary, scores.ks, SUMMARY_KEYS), ""]
    if not scores.comparisons.empty:
        comp = scores.comparisons[scores.comparisons["model"] == "*"]
        lines += ["## Paired comparisons (same prompts)", "",
                  "Unbindable and infra_error: what each side left out of the score on the paired prompts.", "",
                  _markdown_table(COMPARISON_HEADERS, [[c[0] for c in _comparison_cells(r)]
                                                       for r in comp.itertuples()]), ""]
    cols = _round_columns(scores)
    if cols:
        rows = [[c[0] for c in row] for row in _table_rows(scores.round_curves, cols)]
        lines += ["## Per feedback round", "", "Metrics after r rounds (each chain's best suggestion so far); requests "
                  "and tokens of round r (rounds.csv).", "", _markdown_table([c[0] for c in cols], rows), ""]
    lines += ["## Figures", ""]
    lines += [f"![{stem}]({p.relative_to(out).as_posix()})" for stem, p in fig_paths.items()]
    lines += ["", "## Definitions", "",
              f"* Proficiency: rubric `{scores.rubric.name}` v{scores.rubric.version}: "
              + "; ".join(f"{lv.score:g} {lv.name} if `{lv.when}`" for lv in scores.rubric.levels)
              + " (first match; N = scored suggestions, c = correct, s1 = top-ranked correct).",
              "* pass@k: unbiased estimator 1 - C(N-c,k)/C(N,k), mean over prompts with N >= k.",
              f"* Speedup baseline: {BASELINE_TEXT}",
              "* speedup@k: expected best speedup among k of the N suggestions.",
              "* Roofline efficiency: achieved GFLOP/s over min(peak GFLOP/s, AI x peak GB/s); NaN without ceilings.",
              "* Brackets: 95% percentile-bootstrap intervals over prompts.",
              "* Full tables: leaderboard.csv (per kernel), summary.csv, prompts.csv, verdicts.csv, comparisons.csv.",
              ""]
    path = out / "summary.md"
    path.write_text("\n".join(lines))
    return path


def _linked(rows: list[list[tuple[str, str, str]]], frame: pd.DataFrame, keys: Sequence[str],
            hrefs: dict[tuple[str, ...], str]) -> list[list[tuple[str, str, str, str]]]:
    """Every cell of a row links to the page of the row's suggestions (pages.write_pages), where it has one."""
    out = []
    for row, (_, r) in zip(rows, frame.iterrows(), strict=True):
        href = hrefs.get((*keys, *(str(r[k]) for k in keys)), "")
        out.append([(text, value, href, cls) for text, value, cls in row])
    return out


def _html_table(tid: str, title: str, frame: pd.DataFrame, ks: Sequence[int], keys: Sequence[str],
                hrefs: dict[tuple[str, ...], str], explain: str = unscored.EXPLAIN) -> dict[str, Any]:
    cols = _html_columns(frame, ks, keys)
    kinds = ["text" if kind == "text" else "num" for _, _, kind in cols]
    rows = _table_rows(frame, cols) if not frame.empty else []
    return {"id": tid, "title": title, "explain": explain,
            "headers": list(zip([c[0] for c in cols], kinds, strict=True)), "rows": _linked(rows, frame, keys, hrefs)}


def _write_html(scores: Scores, out: Path, fig_paths: dict[str, Path], manifest: dict,
                runs: Sequence[Path] = (), board: Combined | None = None, pages: bool = True) -> Path:
    import jinja2

    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=jinja2.select_autoescape(["html", "j2"]))
    hrefs = write_pages(env, out, scores.samples, runs, [SUMMARY_KEYS, GROUP_KEYS]) if pages else {}
    tables = [_html_table("llms", "Per LLM", scores.llms, scores.ks, LLM_KEYS, hrefs),
              _html_table("summary", "Per LLM × programming model", scores.summary, scores.ks, SUMMARY_KEYS, hrefs),
              _html_table("leaderboard", "Per LLM × programming model × kernel", scores.leaderboard, scores.ks,
                          GROUP_KEYS, hrefs)]
    cols = _round_columns(scores)
    if cols:
        tables.append({"id": "rounds", "title": "Per feedback round (metric after r rounds; spend of round r)",
                       "headers": [(c[0], "text" if c[2] == "text" else "num") for c in cols],
                       "rows": [[(t, v, "", c) for t, v, c in row] for row in _table_rows(scores.round_curves, cols)]})
    combined = None
    if board is not None:
        combined = {"caveat": board.caveat, "cells": board.cell_names,
                    "table": _html_table("combined-board", "", board.board, scores.ks, ["llm", "model"], {}),
                    "figures": [{"stem": s, "src": p.relative_to(out).as_posix()} for s, p in fig_paths.items()
                                if s.startswith("combined")]}
    comparisons = [{"model": r.model, "cells": _comparison_cells(r)} for r in scores.comparisons.itertuples()]
    runs = [{"run_id": r.run_id, "llm": r.llm, "created": getattr(r, "created", ""), "suggestions": r.suggestions,
             "correct": r.correct, "infra_error": r.infra_error, "unbindable": r.unbindable}
            for r in scores.runs.itertuples()]
    html = env.get_template("leaderboard.html.j2").render(
        manifest=manifest, tables=tables, comparisons=comparisons, comparison_headers=COMPARISON_HEADERS, runs=runs,
        notes=scores.notes, flags=scores.flags, combined=combined, explain=unscored.EXPLAIN,
        figures=[{"stem": s, "src": p.relative_to(out).as_posix()} for s, p in fig_paths.items()
                 if not s.startswith("combined")],
        rubric=scores.rubric, baseline=BASELINE_TEXT, infra=scores.infra_errors, unbindable=scores.unbindables,
        version=__version__, schema=SCHEMA_VERSION, ceilings=scores.ceilings.to_dict("records"))
    path = out / "index.html"
    path.write_text(html)
    return path
