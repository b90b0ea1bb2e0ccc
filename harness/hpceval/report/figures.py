"""Figures: the report's matplotlib/seaborn figures, drawn from Scores.

The same functions make the PNGs of the published report and the figures of the notebooks, so a figure in a
notebook and on the page are the same figure. matplotlib and seaborn (the `report` extra) are imported inside
the functions: loading and scoring work without them.
"""

from __future__ import annotations

import math
import re
import warnings
from collections.abc import Iterable
from typing import Any

import numpy as np
import pandas as pd

from hpceval.metrics import VERDICTS
from hpceval.report.scores import CORRECT, INFRA, Scores

VERDICT_COLORS = {
    "correct": "#1a9850", "wrong_model": "#a6d96a", "wrong_result": "#fdae61", "timeout": "#f46d43",
    "runtime_error": "#d73027", "build_error": "#a50026", "unbindable": "#8073ac", "incomplete": "#542788", "no_code": "#4d4d4d",
    "infra_error": "#d9d9d9",
}


def _figure(width: float, height: float):
    from matplotlib.figure import Figure

    return Figure(figsize=(max(width, 3.0), max(height, 2.0)), dpi=100, layout="constrained")


def _model_order(models: Iterable[str]) -> list[str]:
    models = list(dict.fromkeys(models))
    try:
        from hpceval.spec import catalog

        order = list(catalog().models)
    except Exception:  # noqa: BLE001 - ordering is cosmetic
        order = []
    return sorted(models, key=lambda m: (order.index(m) if m in order else len(order), m))


def figure_heatmap(scores: Scores, llm: str, value: str = "proficiency"):
    """The study's view: kernel x programming model, one panel per language, cells = `value` (0..1)."""
    import seaborn as sns

    board = scores.leaderboard[scores.leaderboard["llm"] == llm]
    languages = sorted(board["language"].unique())
    widths = [max(1, board[board["language"] == lang]["model"].nunique()) for lang in languages] or [1]
    kernels = sorted(board["kernel"].unique())
    title = f"{value.replace('_', ' ')}: {llm}"
    fig = _figure(max(2.0 + 1.5 * sum(widths), 1.0 + 0.11 * len(title)), 1.4 + 0.5 * len(kernels))
    axes = fig.subplots(1, len(widths), squeeze=False, gridspec_kw={"width_ratios": widths})[0]
    for ax, lang in zip(axes, languages or [""], strict=False):
        sub = board[board["language"] == lang]
        table = sub.pivot_table(index="kernel", columns="model", values=value, aggfunc="mean", dropna=False)
        table = table.reindex(index=kernels, columns=_model_order(sub["model"]))
        sns.heatmap(table, ax=ax, vmin=0, vmax=1, cmap="RdYlGn", annot=True, fmt=".2f", cbar=ax is axes[-1],
                    linewidths=0.5, linecolor="white", annot_kws={"size": 9})
        ax.set_title(lang)
        ax.set_xlabel("")
        ax.set_ylabel("kernel" if ax is axes[0] else "")
        ax.tick_params(axis="x", labelrotation=30)
    fig.suptitle(title)
    return fig


def figure_pass_at_k(scores: Scores):
    """pass@k against k per programming model, one panel per LLM."""
    import seaborn as sns

    curves = scores.curves
    llms = sorted(curves["llm"].unique()) or [""]
    cols = min(3, len(llms))
    rows = math.ceil(len(llms) / cols)
    fig = _figure(4.5 * cols + 1.5, 3.4 * rows)
    axes = fig.subplots(rows, cols, squeeze=False).ravel()
    order = _model_order(curves["model"])
    kmax = int(curves["k"].max()) if not curves.empty else 1
    for ax, llm in zip(axes, llms, strict=False):
        sub = curves[curves["llm"] == llm]
        if not sub.empty:
            sns.lineplot(data=sub, x="k", y="pass_at_k", hue="model", hue_order=order, marker="o", ax=ax,
                         legend=ax is axes[0])
        ax.set_ylim(-0.02, 1.02)
        ax.set_xlim(0.7, kmax + 0.3)
        ax.set_title(llm)
        ax.set_ylabel("pass@k")
        ax.xaxis.get_major_locator().set_params(integer=True)
    for ax in axes[len(llms):]:
        ax.set_visible(False)
    if axes[0].get_legend() is not None:
        sns.move_legend(axes[0], "lower right", fontsize=8, title=None)
    return fig


def figure_speedups(scores: Scores):
    """Distribution of the speedups of correct suggestions over the baseline, per model and LLM (log scale)."""
    import seaborn as sns

    data = scores.samples[(scores.samples["verdict"] == CORRECT) & np.isfinite(scores.samples["speedup"])]
    data = data[data["speedup"] > 0]
    order = _model_order(scores.samples["model"])
    fig = _figure(1.2 * len(order) + 3, 4)
    ax = fig.subplots()
    if data.empty:
        ax.text(0.5, 0.5, "no speedups: no timed correct suggestion with a reference-run baseline",
                ha="center", va="center", transform=ax.transAxes, wrap=True)
        ax.set_axis_off()
        return fig
    order = [m for m in order if m in set(data["model"])]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")          # seaborn 0.13 passes matplotlib's deprecated `vert`
        sns.boxplot(data=data, x="model", y="speedup", hue="llm", order=order, ax=ax, log_scale=True,
                    showfliers=False, fill=False)
    sns.stripplot(data=data, x="model", y="speedup", hue="llm", order=order, ax=ax, dodge=True, size=3,
                  alpha=0.6, legend=False)
    ax.axhline(1.0, color="grey", linestyle="--", linewidth=1)
    from matplotlib.ticker import FuncFormatter

    times = FuncFormatter(lambda v, _: f"{v:g}×")
    ax.yaxis.set_major_formatter(times)
    lo, hi = ax.get_ylim()
    narrow = hi / lo < 10        # less than a decade: label every minor tick, else 2, 3 and 5 of each decade

    def minor(v: float, _: Any) -> str:
        mantissa = round(v / 10 ** math.floor(math.log10(v)), 6) if v > 0 else 0
        return f"{v:.2g}×" if narrow or mantissa in (2, 3, 5) else ""

    ax.yaxis.set_minor_formatter(FuncFormatter(minor))
    if ax.get_legend() is not None:
        ax.get_legend().set_title("LLM")
    ax.set_ylabel("speedup over the reference solution")
    ax.set_xlabel("")
    ax.tick_params(axis="x", labelrotation=30)
    return fig


def figure_verdicts(scores: Scores):
    """Share of each verdict per programming model, one panel per LLM (infra_error shown, in grey)."""
    samples = scores.samples
    llms = sorted(samples["llm"].unique()) or [""]
    order = _model_order(samples["model"])
    fig = _figure(9, 0.9 + 0.35 * len(order) * len(llms) + 0.6 * len(llms))
    axes = fig.subplots(len(llms), 1, squeeze=False).ravel()
    for ax, llm in zip(axes, llms, strict=True):
        sub = samples[samples["llm"] == llm]
        table = pd.crosstab(sub["model"], sub["verdict"], normalize="index")
        table = table.reindex(index=[m for m in order if m in table.index], columns=VERDICTS, fill_value=0.0)
        left = np.zeros(len(table))
        for verdict in VERDICTS:
            vals = table[verdict].to_numpy()
            if vals.any():
                ax.barh(table.index, vals, left=left, color=VERDICT_COLORS[verdict], label=verdict,
                        hatch="//" if verdict == INFRA else None, edgecolor="white")
            left += vals
        ax.set_xlim(0, 1)
        ax.invert_yaxis()
        ax.set_title(llm)
        ax.set_xlabel("share of suggestions")
    handles = {}
    for ax in axes:
        for h, label in zip(*ax.get_legend_handles_labels(), strict=True):
            handles.setdefault(label, h)
    labels = [v for v in VERDICTS if v in handles]
    fig.legend([handles[v] for v in labels], labels, loc="outside right upper", fontsize=8)
    return fig


def figure_rounds(scores: Scores):
    """Metric vs feedback round per LLM x programming model: pass@1, proficiency and speedup@1 after r rounds."""
    curves = scores.round_curves
    if curves.empty or "round" not in curves or curves["round"].max() <= 1:
        return None
    k = scores.ks[0]
    metrics = [(f"pass_at_{k}", f"pass@{k}"), ("proficiency", "proficiency"), (f"speedup_at_{k}", f"speedup@{k}")]
    metrics = [(col, label) for col, label in metrics if col in curves and curves[col].notna().any()]
    fig = _figure(4.0 * (len(metrics) + 1), 3.4)
    axes = fig.subplots(1, len(metrics) + 1, squeeze=False)[0]
    for (llm, model), g in curves.groupby(["llm", "model"], sort=True):  # what each round cost
        g = g.sort_values("round")
        axes[-1].plot(g["round"], g["prompt_tokens"] + g["completion_tokens"], marker="s", label=f"{llm} · {model}")
    axes[-1].set_xlabel("round")
    axes[-1].set_ylabel("tokens in round r (prompt + completion)")
    axes[-1].set_xticks(sorted(curves["round"].unique()))
    for ax, (col, label) in zip(axes, metrics, strict=False):
        for (llm, model), g in curves.groupby(["llm", "model"], sort=True):
            g = g.sort_values("round")
            ax.plot(g["round"], g[col], marker="o", label=f"{llm} · {model}")
        ax.set_xlabel("round")
        ax.set_ylabel(f"{label} after r rounds")
        ax.set_xticks(sorted(curves["round"].unique()))
        if col != f"speedup_at_{k}":
            ax.set_ylim(-0.02, 1.02)
    axes[0].legend(fontsize=7, loc="best")
    return fig


def figures(scores: Scores) -> dict[str, Any]:
    """All report figures by file stem."""
    out = {f"heatmap_{_slug(llm)}": figure_heatmap(scores, llm) for llm in sorted(scores.leaderboard["llm"].unique())}
    out["pass_at_k"] = figure_pass_at_k(scores)
    out["speedup"] = figure_speedups(scores)
    out["verdicts"] = figure_verdicts(scores)
    rounds = figure_rounds(scores)
    if rounds is not None:
        out["rounds"] = rounds
    return out


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-") or "llm"


def figure_combined(board: pd.DataFrame):
    """The combined leaderboard (combined.csv, `model` `*` rows): proficiency and pass@1 with their 95 % CIs per
    LLM, and beside them the shares of its suggestions the score does not see (unbindable, infra_error), with the
    flag threshold drawn, so a score resting on few rows cannot be read without its gap."""
    from hpceval.report.unscored import UNSCORED_FLAG_RATE

    rows = board[board["model"] == "*"].sort_values("proficiency", ascending=True, na_position="first")
    fig = _figure(10.0, 1.4 + 0.45 * max(len(rows), 1))
    score_ax, gap_ax = fig.subplots(1, 2, gridspec_kw={"width_ratios": [3, 2]}, sharey=True)
    y = np.arange(len(rows))
    for offset, metric, color in ((0.18, "proficiency", "#2166ac"), (-0.18, "pass_at_1", "#92c5de")):
        if metric not in rows:
            continue
        value = rows[metric].to_numpy(float)
        err = np.vstack([value - rows[f"{metric}_lo"].to_numpy(float), rows[f"{metric}_hi"].to_numpy(float) - value])
        score_ax.barh(y + offset, np.nan_to_num(value), height=0.34, color=color, label=metric.replace("_at_", "@"),
                      xerr=np.nan_to_num(err), error_kw={"elinewidth": 0.8, "capsize": 2})
    score_ax.set_yticks(y, rows["llm"].tolist())
    score_ax.set_xlim(0, 1.05)
    score_ax.set_xlabel("score on the shared cells (95% CI)")
    score_ax.legend(loc="lower right", fontsize=8)
    left = np.zeros(len(rows))
    for kind in ("unbindable", "infra_error"):
        share = rows[f"{kind}_rate"].fillna(0).to_numpy(float)
        gap_ax.barh(y, share, left=left, height=0.6, color=VERDICT_COLORS[kind], label=kind)
        left += share
    gap_ax.axvline(UNSCORED_FLAG_RATE, color="#b2182b", lw=1, ls="--", label=f"flag ({UNSCORED_FLAG_RATE:.0%})")
    gap_ax.set_xlim(0, max(0.25, float(left.max()) * 1.1 if len(left) else 0.25))
    gap_ax.set_xlabel("share of suggestions the score does not see")
    gap_ax.legend(loc="lower right", fontsize=8)
    return fig


def figure_combined_models(board: pd.DataFrame, value: str = "proficiency"):
    """The combined leaderboard per shared programming model (combined.csv rows other than `*`): LLM × model."""
    import seaborn as sns

    rows = board[board["model"] != "*"]
    table = rows.pivot_table(index="llm", columns="model", values=value, aggfunc="mean", dropna=False)
    table = table.reindex(columns=_model_order(table.columns))
    fig = _figure(2.5 + 1.3 * max(len(table.columns), 1), 1.4 + 0.45 * max(len(table), 1))
    ax = fig.subplots()
    sns.heatmap(table, ax=ax, vmin=0, vmax=1, cmap="viridis", annot=True, fmt=".2f", cbar=True)
    ax.set_title(f"{value.replace('_', ' ')} on the shared cells")
    ax.set_xlabel("")
    ax.set_ylabel("")
    return fig
