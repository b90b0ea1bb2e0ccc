"""Scores and publishing: results directories -> leaderboard CSVs, a static HTML page, Markdown and figures.

    frame  = load_results([Path("results/run")])      # one row per suggestion (Store.results of every run)
    scores = score(frame)                             # per-suggestion, per-prompt and per-group tables
    build_report([Path("results/run")], Path("results/report"))

The CSVs follow a versioned schema (SCHEMA_VERSION, docs/leaderboard-schema.md). Notebooks use the same
loaders and plotting functions, so a figure in a notebook and on the page are the same figure.

Speedup baseline: the reference solution (kernels_spec/<kernel>/solutions/<model>) of the same kernel and
programming model, timed on the same device by a reference run (`hpceval run --llm reference`) that is among
the reported runs or passed as `baseline_runs`; its median time over the reference run's timings. Without such
a timing a speedup is NaN, never 0.
"""

from __future__ import annotations

import json
import math
import re
import shutil
import sqlite3
import tempfile
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from hpceval import __version__
from hpceval.contracts import Verdict
from hpceval.metrics import (
    NAN,
    SCORED_VERDICTS,
    VERDICTS,
    Rubric,
    bootstrap_ci,
    paired_comparison,
    pass_at_k,
    roofline_efficiency,
    speedup_at_k,
)
from hpceval.store import RESULT_COLUMNS, Store

SCHEMA_VERSION = "1.0"
KS = (1, 5, 10)
GROUP_KEYS = ["llm", "language", "model", "kernel"]
SUMMARY_KEYS = ["llm", "language", "model"]
PROMPT_KEYS = ["llm", "language", "model", "kernel", "style", "hint"]
INFRA = Verdict.infra_error.value
CORRECT = Verdict.correct.value
TEMPLATES = Path(__file__).resolve().parent / "report_templates"
BASELINE_TEXT = ("the reference solution of the same kernel and programming model, timed on the same device in a "
                 "reference run (hpceval run --llm reference); speedup = baseline median time / suggestion median "
                 "time. No baseline timing or no suggestion timing: NaN. For speedup@k an incorrect suggestion "
                 "counts as speedup 0.")
VERDICT_COLORS = {
    "correct": "#1a9850", "wrong_model": "#a6d96a", "wrong_result": "#fdae61", "timeout": "#f46d43",
    "runtime_error": "#d73027", "build_error": "#a50026", "unbindable": "#8073ac", "no_code": "#4d4d4d",
    "infra_error": "#d9d9d9",
}


class ReportError(FileNotFoundError):
    """A results directory or input file is missing or unreadable (shown as one line by the CLI)."""


# ============================================================================================== loading
def _sqlite_of(path: Path) -> Path | None:
    if path.is_file() and path.suffix in (".sqlite", ".db"):
        return path
    candidate = path / "results.sqlite"
    return candidate if candidate.is_file() else None


def _llm_label(spec: str, identity: dict[str, Any]) -> str:
    """`reference`, `openai:MODEL` and `replay:FILE` name themselves; `local` gets the model it served."""
    model = identity.get("model") if isinstance(identity, dict) else None
    if spec == "reference" or ":" in spec or not model or model == spec:
        return spec
    return f"{spec}:{model}"


def load_runs(runs: Iterable[str | Path]) -> pd.DataFrame:
    """One row per run: run_id, llm_spec, llm_identity, created, config (JSON), environment (JSON), run_dir."""
    rows = []
    for raw in runs:
        path = Path(raw)
        db = _sqlite_of(path)
        if db is None:
            if (path / "evaluations.csv").is_file():
                continue
            raise ReportError(f"{path} is not a results directory (no results.sqlite or evaluations.csv)")
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        try:
            for run_id, created, llm, config, env in con.execute(
                    "SELECT run_id, created, llm, config, environment FROM runs ORDER BY created"):
                cfg = json.loads(config or "{}")
                rows.append({"run_id": run_id, "llm_spec": llm, "created": created,
                             "llm_identity": json.dumps(cfg.get("llm_identity", {}), sort_keys=True),
                             "config": config, "environment": env, "run_dir": str(db.parent)})
        finally:
            con.close()
    columns = ["run_id", "llm_spec", "created", "llm_identity", "config", "environment", "run_dir"]
    return pd.DataFrame(rows, columns=columns).drop_duplicates("run_id").reset_index(drop=True)


def load_results(runs: Iterable[str | Path]) -> pd.DataFrame:
    """One row per suggestion over all runs (Store.results columns), with `llm` as a display label.

    Each path is a results directory (results.sqlite, else a published evaluations.csv) or a .sqlite file.
    Added columns: llm_spec (what --llm said), run_dir. An LLM that appears in several runs gets the run id in
    its label ("local:m [abc123]"), so prompts of different runs are never pooled by accident.
    """
    runs = [Path(r) for r in runs]
    if not runs:
        raise ReportError("no results directory given")
    frames = []
    for path in runs:
        db = _sqlite_of(path)
        if db is not None:
            store = Store(db.parent)
            try:
                frame = store.results()
            finally:
                store.close()
        elif (path / "evaluations.csv").is_file():
            frame = pd.read_csv(path / "evaluations.csv")
            frame = frame.reindex(columns=RESULT_COLUMNS)
        else:
            raise ReportError(f"{path} is not a results directory (no results.sqlite or evaluations.csv)")
        frame["run_dir"] = str((db.parent if db else path).resolve())
        frames.append(frame)
    frame = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=RESULT_COLUMNS)
    frame = frame.drop_duplicates(["run_id", "prompt_id", "rank"]).reset_index(drop=True)
    meta = load_runs(runs)
    identity = {r.run_id: json.loads(r.llm_identity) for r in meta.itertuples()}
    frame["llm_spec"] = frame["llm"].astype(object)
    labels = {(rid, spec): _llm_label(spec, identity.get(rid, {}))
              for rid, spec in frame[["run_id", "llm_spec"]].drop_duplicates().itertuples(index=False)}
    runs_per_label: dict[str, set] = {}
    for (rid, _), label in labels.items():
        runs_per_label.setdefault(label, set()).add(rid)
    frame["llm"] = [labels[(rid, spec)] + (f" [{rid[:6]}]" if len(runs_per_label[labels[(rid, spec)]]) > 1 else "")
                    for rid, spec in zip(frame["run_id"], frame["llm_spec"], strict=True)]
    for col in ("max_rel_error", "time_median_s", "time_min_s", "time_iqr_s", "gflops", "gbytes_per_s"):
        frame[col] = pd.to_numeric(frame[col], errors="coerce").astype(float)
    frame["rank"] = pd.to_numeric(frame["rank"], errors="coerce").astype(int)
    for col in ("llm", "language", "model", "kernel", "style", "hint", "prompt_id", "verdict", "device", "run_id"):
        frame[col] = frame[col].fillna("").astype(str).astype(object)
    return frame


def load_ceilings(paths: Iterable[str | Path | None] = ()) -> pd.DataFrame:
    """Roofline ceilings per device: columns device, peak_gflops, peak_gbytes_per_s, source.

    A file is JSON ({"DEVICE": {"gflops": .., "gbytes_per_s": ..}}, a list of such records with a "device"
    key, or {"ceilings": [...]}) or CSV (columns device, gflops, gbytes_per_s; the peak_ prefix is accepted).
    Device "*" applies to every device without its own row. Later files override earlier ones.
    """
    rows: dict[str, dict[str, Any]] = {}
    for raw in paths:
        if raw is None:
            continue
        path = Path(raw)
        if not path.is_file():
            raise ReportError(f"ceilings file {path} not found")
        if path.suffix.lower() == ".csv":
            records = pd.read_csv(path).to_dict("records")
        else:
            data = json.loads(path.read_text())
            if isinstance(data, dict) and "ceilings" in data:
                data = data["ceilings"]
            records = data if isinstance(data, list) else [{"device": d, **v} for d, v in data.items()
                                                          if isinstance(v, dict)]
        for rec in records:
            device = str(rec.get("device", "*"))
            flops = rec.get("peak_gflops", rec.get("gflops"))
            bw = rec.get("peak_gbytes_per_s", rec.get("gbytes_per_s", rec.get("bandwidth_gbytes_per_s")))
            rows[device] = {"device": device, "peak_gflops": _num(flops), "peak_gbytes_per_s": _num(bw),
                            "source": str(path)}
    return pd.DataFrame(list(rows.values()), columns=["device", "peak_gflops", "peak_gbytes_per_s", "source"])


def _num(x: Any) -> float:
    try:
        v = float(x)
    except (TypeError, ValueError):
        return NAN
    return v if math.isfinite(v) else NAN


def discover_ceilings(runs: Iterable[str | Path]) -> list[Path]:
    """ceilings.json / ceilings.csv lying in the results directories (written by a ceiling measurement)."""
    found = []
    for raw in runs:
        base = Path(raw) if Path(raw).is_dir() else Path(raw).parent
        found += [base / name for name in ("ceilings.csv", "ceilings.json") if (base / name).is_file()]
    return found


def reference_baseline(frame: pd.DataFrame) -> pd.DataFrame:
    """Baseline time per kernel x model x device: median of the reference runs' correct, timed suggestions."""
    ref = frame[(frame["llm_spec"] == "reference") & (frame["verdict"] == CORRECT)
                & np.isfinite(frame["time_median_s"].astype(float))]
    if ref.empty:
        return pd.DataFrame(columns=["kernel", "model", "device", "baseline_time_s", "baseline_run"])
    grouped = ref.groupby(["kernel", "model", "device"], sort=True)
    out = grouped["time_median_s"].median().rename("baseline_time_s").reset_index()
    out["baseline_run"] = grouped["run_id"].agg(lambda s: ",".join(sorted(set(s)))).to_numpy()
    return out


# ============================================================================================== scoring
@dataclass
class Scores:
    """Everything the report publishes; each table is a DataFrame with the documented columns."""

    samples: pd.DataFrame          # one row per suggestion, with speedup and efficiencies
    prompts: pd.DataFrame          # one row per (LLM, prompt)
    leaderboard: pd.DataFrame      # LLM x language x programming model x kernel
    summary: pd.DataFrame          # LLM x language x programming model
    verdicts: pd.DataFrame         # counts per LLM x language x model x kernel x verdict (long form)
    comparisons: pd.DataFrame      # paired comparisons of two LLMs on the same prompts
    curves: pd.DataFrame           # pass@k for k = 1..N per LLM x language x model
    runs: pd.DataFrame             # run metadata with suggestion and infra_error counts
    rubric: Rubric
    baseline: pd.DataFrame
    ceilings: pd.DataFrame
    ks: tuple[int, ...]
    notes: list[str] = field(default_factory=list)

    @property
    def infra_errors(self) -> int:
        return int((self.samples["verdict"] == INFRA).sum())


def sample_table(frame: pd.DataFrame, baseline: pd.DataFrame, ceilings: pd.DataFrame) -> pd.DataFrame:
    """Per suggestion: baseline_time_s, speedup (correct and timed only, else NaN) and roofline efficiencies."""
    out = frame.copy()
    key = ["kernel", "model", "device"]
    base = baseline[key + ["baseline_time_s"]] if not baseline.empty else pd.DataFrame(columns=key + ["baseline_time_s"])
    out = out.merge(base, on=key, how="left")
    out["baseline_time_s"] = out["baseline_time_s"].astype(float)
    # suggestions that never ran (no device) still belong to a cell with a baseline when it has exactly one
    single = base.groupby(["kernel", "model"])["baseline_time_s"].agg(["first", "size"])
    single = single[single["size"] == 1]["first"]
    unran = out["baseline_time_s"].isna() & (out["device"] == "")
    if unran.any() and not single.empty:
        cell = pd.MultiIndex.from_frame(out.loc[unran, ["kernel", "model"]])
        out.loc[unran, "baseline_time_s"] = single.reindex(cell).to_numpy(dtype=float)
    correct = out["verdict"] == CORRECT
    t = out["time_median_s"].astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        speed = out["baseline_time_s"] / t
    out["speedup"] = np.where(correct & (t > 0), speed, NAN)
    table = {r.device: r for r in ceilings.itertuples()} if not ceilings.empty else {}
    effs = []
    for dev, gf, gb, ok in zip(out["device"], out["gflops"], out["gbytes_per_s"], correct, strict=True):
        c = table.get(dev) or table.get("*")
        if not ok or c is None:
            effs.append({"peak_gflops": c.peak_gflops if c is not None else NAN,
                         "peak_gbytes_per_s": c.peak_gbytes_per_s if c is not None else NAN,
                         "compute_efficiency": NAN, "bandwidth_efficiency": NAN, "roofline_efficiency": NAN})
            continue
        effs.append({"peak_gflops": c.peak_gflops, "peak_gbytes_per_s": c.peak_gbytes_per_s,
                     **roofline_efficiency(gf, gb, c.peak_gflops, c.peak_gbytes_per_s)})
    eff = pd.DataFrame(effs, index=out.index,
                       columns=["peak_gflops", "peak_gbytes_per_s", "compute_efficiency", "bandwidth_efficiency",
                                "roofline_efficiency"])
    return pd.concat([out, eff.astype(float)], axis=1)


def prompt_scores(samples: pd.DataFrame, rubric: Rubric, ks: Sequence[int] = KS) -> pd.DataFrame:
    """One row per (LLM, prompt): N, c, infra_error, proficiency and level, pass@k and speedup@k."""
    rows = []
    known = samples[samples["baseline_time_s"].notna()]
    cells = set(zip(known["kernel"], known["model"], strict=True))      # kernel x model cells with a baseline
    for keys, g in samples.sort_values("rank").groupby(PROMPT_KEYS + ["run_id", "prompt_id"], sort=True):
        grade = rubric.grade(g["verdict"].tolist())
        scored = g[g["verdict"] != INFRA]
        correct = (scored["verdict"] == CORRECT).to_numpy()
        # a cell with a baseline gives every prompt a speedup@k (0 when nothing is correct); NaN without one
        has_base = (keys[PROMPT_KEYS.index("kernel")], keys[PROMPT_KEYS.index("model")]) in cells
        row = dict(zip(PROMPT_KEYS + ["run_id", "prompt_id"], keys, strict=True))
        row.update(suggestions=len(g), scored=grade.n, correct=int(correct.sum()), infra_error=grade.infra,
                   s1_correct=grade.s1 if grade.n else None, proficiency=grade.score, level=grade.level)
        n, c = len(scored), int(correct.sum())
        for k in ks:
            row[f"pass_at_{k}"] = pass_at_k(n, c, k) if n else NAN
        sp = scored["speedup"].to_numpy(dtype=float)
        for k in ks:
            row[f"speedup_at_{k}"] = speedup_at_k(sp, correct, k) if (n and has_base) else NAN
        timed = sp[correct & np.isfinite(sp)]
        row["speedup_best"] = float(timed.max()) if timed.size else NAN
        base = g["baseline_time_s"].astype(float)
        row["baseline_time_s"] = float(base.dropna().iloc[0]) if base.notna().any() else NAN
        rows.append(row)
    columns = (PROMPT_KEYS + ["run_id", "prompt_id", "suggestions", "scored", "correct", "infra_error",
                              "s1_correct", "proficiency", "level"] + [f"pass_at_{k}" for k in ks]
               + [f"speedup_at_{k}" for k in ks] + ["speedup_best", "baseline_time_s"])
    return pd.DataFrame(rows, columns=columns)


def _aggregate(samples: pd.DataFrame, prompts: pd.DataFrame, keys: list[str], ks: Sequence[int], n_boot: int,
               seed: int) -> pd.DataFrame:
    rows = []
    prompt_groups = dict(iter(prompts.groupby(keys, sort=True))) if not prompts.empty else {}
    for gkey, g in samples.groupby(keys, sort=True):
        p = prompt_groups.get(gkey, prompts.iloc[0:0])
        row = dict(zip(keys, gkey, strict=True))
        if "kernel" not in keys:
            row["kernels"] = int(g["kernel"].nunique())
        counts = g["verdict"].value_counts()
        row.update(prompts=int((p["scored"] > 0).sum()), suggestions=len(g),
                   scored=int(len(g) - counts.get(INFRA, 0)), infra_error=int(counts.get(INFRA, 0)),
                   correct=int(counts.get(CORRECT, 0)))
        for v in SCORED_VERDICTS:
            row[f"n_{v}"] = int(counts.get(v, 0))
        est = bootstrap_ci(p["proficiency"], n_boot=n_boot, seed=seed)
        row.update(proficiency=est.value, proficiency_lo=est.lo, proficiency_hi=est.hi)
        for metric in ("pass_at", "speedup_at"):
            for k in ks:
                est = bootstrap_ci(p[f"{metric}_{k}"], n_boot=n_boot, seed=seed)
                row.update({f"{metric}_{k}": est.value, f"{metric}_{k}_lo": est.lo, f"{metric}_{k}_hi": est.hi,
                            f"{metric}_{k}_prompts": est.n})
        ok = g[(g["verdict"] == CORRECT)]
        sp = ok["speedup"].dropna()
        row.update(speedup_median=float(sp.median()) if len(sp) else NAN,
                   speedup_best=float(sp.max()) if len(sp) else NAN)
        if "kernel" in keys:
            base = g["baseline_time_s"].dropna()
            row["baseline_time_s"] = float(base.iloc[0]) if len(base) else NAN
        for col in ("gflops", "gbytes_per_s"):
            vals = ok[col].dropna()
            row[f"{col}_best"] = float(vals.max()) if len(vals) else NAN
        for col in ("compute_efficiency", "bandwidth_efficiency", "roofline_efficiency"):
            vals = ok[col].dropna()
            row[col] = float(vals.median()) if len(vals) else NAN
            row[f"{col}_best"] = float(vals.max()) if len(vals) else NAN
        rows.append(row)
    frame = pd.DataFrame(rows)
    frame.insert(0, "schema_version", SCHEMA_VERSION)
    return frame


def pass_at_k_curves(prompts: pd.DataFrame, samples: pd.DataFrame) -> pd.DataFrame:
    """Mean pass@k over prompts with N >= k, for k = 1..max N, per LLM x language x model."""
    rows = []
    scored = samples[samples["verdict"] != INFRA]
    per_prompt = scored.groupby(["llm", "language", "model", "run_id", "prompt_id"])["verdict"].agg(
        n="size", c=lambda v: int((v == CORRECT).sum())).reset_index()
    for (llm, lang, model), g in per_prompt.groupby(["llm", "language", "model"], sort=True):
        for k in range(1, int(g["n"].max()) + 1):
            vals = [pass_at_k(int(n), int(c), k) for n, c in zip(g["n"], g["c"], strict=True) if n >= k]
            rows.append({"llm": llm, "language": lang, "model": model, "k": k,
                         "pass_at_k": float(np.mean(vals)), "prompts": len(vals)})
    return pd.DataFrame(rows, columns=["llm", "language", "model", "k", "pass_at_k", "prompts"])


def compare_llms(prompts: pd.DataFrame, metrics: Sequence[str] = ("proficiency", "pass_at_1", "speedup_at_1"),
                 n_boot: int = 2000, seed: int = 0) -> pd.DataFrame:
    """Every pair of LLMs on the prompts both answered (same language, model, kernel, style, hint)."""
    columns = ["schema_version", "llm_a", "llm_b", "model", "metric", "prompts", "mean_a", "mean_b", "diff",
               "diff_lo", "diff_hi", "p_value", "wins_a", "ties", "wins_b"]
    rows = []
    llms = sorted(prompts["llm"].unique()) if not prompts.empty else []
    key = ["language", "model", "kernel", "style", "hint"]
    for i, a in enumerate(llms):
        for b in llms[i + 1:]:
            pa = prompts[prompts["llm"] == a].set_index(key)
            pb = prompts[prompts["llm"] == b].set_index(key)
            common = pa.index.intersection(pb.index)
            if common.empty:
                continue
            pa, pb = pa.loc[common], pb.loc[common]
            scopes = [("*", slice(None))] + [(m, m) for m in sorted(common.get_level_values("model").unique())]
            for scope, sel in scopes:
                mask = np.ones(len(common), bool) if scope == "*" else (common.get_level_values("model") == sel)
                for metric in metrics:
                    cmp = paired_comparison(pa[metric].to_numpy(float)[mask], pb[metric].to_numpy(float)[mask],
                                            n_boot=n_boot, seed=seed)
                    if cmp.prompts == 0:
                        continue
                    rows.append([SCHEMA_VERSION, a, b, scope, metric, cmp.prompts, cmp.mean_a, cmp.mean_b,
                                 cmp.diff, cmp.lo, cmp.hi, cmp.p_value, cmp.wins_a, cmp.ties, cmp.wins_b])
    return pd.DataFrame(rows, columns=columns)


def score(results: pd.DataFrame | Iterable[str | Path], *, rubric: Rubric | str | Path | None = None,
          ceilings: str | Path | Sequence[str | Path] | None = None, baseline_runs: Iterable[str | Path] = (),
          ks: Sequence[int] = KS, n_boot: int = 2000, seed: int = 0) -> Scores:
    """Score results (a load_results frame or results directories) into the report's tables."""
    paths: list[Path] = []
    if isinstance(results, pd.DataFrame):
        frame = results
    else:
        paths = [Path(p) for p in results]
        frame = load_results(paths)
    if frame.empty:
        where = ", ".join(str(p) for p in paths) or "the given frame"
        raise ReportError(f"no evaluated suggestion in {where}: run `hpceval run ... --out DIR` first")
    rubric = rubric if isinstance(rubric, Rubric) else Rubric.load(rubric)
    ks = tuple(sorted({int(k) for k in ks}))
    notes: list[str] = []
    base_frame = frame
    if baseline_runs:
        base_frame = pd.concat([frame, load_results(baseline_runs)], ignore_index=True)
    baseline = reference_baseline(base_frame)
    if baseline.empty:
        notes.append("No reference run with timings among the inputs: speedups are NaN "
                     "(add the directory of `hpceval run --llm reference ...` to the report).")
    ceiling_files = ([ceilings] if isinstance(ceilings, (str, Path)) else list(ceilings or []))
    ceiling_files = discover_ceilings(paths) + [Path(c) for c in ceiling_files]
    ceil = load_ceilings(ceiling_files)
    if ceil.empty:
        notes.append("Roofline ceilings were not measured for these runs: efficiencies are NaN "
                     "(give a ceilings JSON/CSV file, or put ceilings.json in the results directory).")
    samples = sample_table(frame, baseline, ceil)
    prompts = prompt_scores(samples, rubric, ks)
    leaderboard = _aggregate(samples, prompts, GROUP_KEYS, ks, n_boot, seed)
    summary = _aggregate(samples, prompts, SUMMARY_KEYS, ks, n_boot, seed)
    verdicts = (samples.groupby(GROUP_KEYS + ["verdict"]).size().rename("count").reset_index()
                if not samples.empty else pd.DataFrame(columns=GROUP_KEYS + ["verdict", "count"]))
    verdicts.insert(0, "schema_version", SCHEMA_VERSION)
    runs = load_runs(paths) if paths else pd.DataFrame(columns=["run_id"])
    runs = _run_counts(runs, samples)
    if prompts.empty:
        notes.append("No scored suggestion in these runs.")
    return Scores(samples=samples, prompts=_with_schema(prompts), leaderboard=leaderboard, summary=summary,
                  verdicts=verdicts, comparisons=compare_llms(prompts, n_boot=n_boot, seed=seed),
                  curves=pass_at_k_curves(prompts, samples), runs=runs, rubric=rubric, baseline=baseline,
                  ceilings=ceil, ks=ks, notes=notes)


def _with_schema(frame: pd.DataFrame) -> pd.DataFrame:
    frame = frame.copy()
    frame.insert(0, "schema_version", SCHEMA_VERSION)
    return frame


def _run_counts(runs: pd.DataFrame, samples: pd.DataFrame) -> pd.DataFrame:
    counts = samples.groupby("run_id").agg(
        llm=("llm", "first"), suggestions=("verdict", "size"),
        correct=("verdict", lambda v: int((v == CORRECT).sum())),
        infra_error=("verdict", lambda v: int((v == INFRA).sum()))).reset_index()
    if runs.empty or "llm_spec" not in runs:
        out = counts
    else:
        out = runs.drop(columns=["config", "environment"]).merge(counts, on="run_id", how="left")
    out = out.fillna({"suggestions": 0, "correct": 0, "infra_error": 0})
    for col in ("suggestions", "correct", "infra_error"):
        out[col] = out[col].astype(int)
    return _with_schema(out)


# ============================================================================================== figures
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


def figures(scores: Scores) -> dict[str, Any]:
    """All report figures by file stem."""
    out = {f"heatmap_{_slug(llm)}": figure_heatmap(scores, llm) for llm in sorted(scores.leaderboard["llm"].unique())}
    out["pass_at_k"] = figure_pass_at_k(scores)
    out["speedup"] = figure_speedups(scores)
    out["verdicts"] = figure_verdicts(scores)
    return out


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-") or "llm"


# ============================================================================================== publishing
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


def _html_columns(frame: pd.DataFrame, ks: Sequence[int], with_kernel: bool) -> list[tuple[str, str, str]]:
    """(header, column, kind) for the HTML/Markdown tables; kind: text, int, num, ci."""
    cols = [("LLM", "llm", "text"), ("language", "language", "text"), ("model", "model", "text")]
    if with_kernel:
        cols.append(("kernel", "kernel", "text"))
    else:
        cols.append(("kernels", "kernels", "int"))
    cols += [("prompts", "prompts", "int"), ("correct / scored", "correct", "frac"),
             ("infra_error", "infra_error", "int"), ("proficiency [95% CI]", "proficiency", "ci")]
    for k in ks:
        if frame.get(f"pass_at_{k}_prompts", pd.Series(dtype=float)).fillna(0).sum() > 0:
            cols.append((f"pass@{k} [95% CI]", f"pass_at_{k}", "ci"))
    for k in ks:
        if frame.get(f"speedup_at_{k}_prompts", pd.Series(dtype=float)).fillna(0).sum() > 0:
            cols.append((f"speedup@{k} [95% CI]", f"speedup_at_{k}", "ci"))
    cols += [("best speedup", "speedup_best", "num"), ("roofline eff.", "roofline_efficiency", "num"),
             ("GB/s (best)", "gbytes_per_s_best", "num")]
    return cols


def _table_rows(frame: pd.DataFrame, cols: list[tuple[str, str, str]]) -> list[list[tuple[str, str]]]:
    """Rows of (display text, sort value) cells."""
    rows = []
    for _, r in frame.iterrows():
        cells = []
        for _, col, kind in cols:
            v = r.get(col)
            if kind == "text":
                cells.append((str(v), str(v)))
            elif kind == "frac":
                cells.append((f"{int(r['correct'])} / {int(r['scored'])}",
                              _fmt(r["correct"] / r["scored"], 6) if r["scored"] else ""))
            elif kind == "ci":
                cells.append((_ci(r, col), "" if v is None or not np.isfinite(v) else repr(float(v))))
            else:
                ok = v is not None and np.isfinite(v)
                cells.append((_fmt(v) if ok else "–", repr(float(v)) if ok else ""))
        rows.append(cells)
    return rows


def _markdown_table(headers: list[str], rows: list[list[str]]) -> str:
    def esc(s: str) -> str:
        return s.replace("|", "\\|")

    lines = ["| " + " | ".join(esc(h) for h in headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join(esc(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def _write_csv(frame: pd.DataFrame, path: Path) -> Path:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}-", suffix=".csv")
    import os

    os.close(fd)
    frame.to_csv(tmp, index=False, float_format="%.6g")
    os.replace(tmp, path)
    return path


SAMPLE_COLUMNS = ["llm", "llm_spec", "run_id", "language", "model", "kernel", "style", "hint", "prompt_id", "rank",
                  "verdict", "evidence", "max_rel_error", "failed_size", "time_median_s", "gflops", "gbytes_per_s",
                  "device", "baseline_time_s", "speedup", "peak_gflops", "peak_gbytes_per_s",
                  "compute_efficiency", "bandwidth_efficiency", "roofline_efficiency", "variant", "toolchain",
                  "toolchain_version"]


def build_report(runs: list[Path], out: Path, *, rubric: str | Path | Rubric | None = None,
                 ceilings: str | Path | Sequence[str | Path] | None = None, baseline_runs: Iterable[Path] = (),
                 ks: Sequence[int] = KS, n_boot: int = 2000, seed: int = 0) -> list[Path]:
    """Write the leaderboard CSVs, index.html, summary.md and figures/*.png into `out`; return their paths."""
    runs = [Path(r) for r in runs]
    out = Path(out)
    scores = score(runs, rubric=rubric, ceilings=ceilings, baseline_runs=baseline_runs, ks=ks, n_boot=n_boot,
                   seed=seed)
    out.mkdir(parents=True, exist_ok=True)
    fig_dir = out / "figures"
    if fig_dir.is_dir():
        shutil.rmtree(fig_dir)
    fig_dir.mkdir()
    written: list[Path] = []
    tables = {"leaderboard.csv": scores.leaderboard, "summary.csv": scores.summary, "prompts.csv": scores.prompts,
              "verdicts.csv": scores.verdicts, "comparisons.csv": scores.comparisons,
              "suggestions.csv": _with_schema(scores.samples.reindex(columns=SAMPLE_COLUMNS)),
              "pass_at_k.csv": _with_schema(scores.curves), "runs.csv": scores.runs}
    for name, frame in tables.items():
        written.append(_write_csv(frame, out / name))
    figs = figures(scores)
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
                "notes": scores.notes, "files": sorted(p.relative_to(out).as_posix() for p in written)}
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2, default=str) + "\n")
    written.append(out / "manifest.json")
    written.append(_write_markdown(scores, out, fig_paths, manifest))
    written.append(_write_html(scores, out, fig_paths, manifest))
    return written


def _write_markdown(scores: Scores, out: Path, fig_paths: dict[str, Path], manifest: dict) -> Path:
    cols = _html_columns(scores.summary, scores.ks, with_kernel=False)
    rows = [[c[0] for c in row] for row in _table_rows(scores.summary, cols)] if not scores.summary.empty else []
    lines = ["# hpceval leaderboard", "",
             f"Generated {manifest['generated']} by hpceval {__version__} (CSV schema {SCHEMA_VERSION}) from "
             f"{len(scores.runs)} run(s): " + ", ".join(f"`{r.run_id}` ({r.llm})" for r in scores.runs.itertuples()),
             "", f"**infra_error: {scores.infra_errors}** suggestion(s) failed for reasons that are not the LLM's "
             "(excluded from every score, counted per row).", ""]
    lines += [f"> {note}" for note in scores.notes]
    lines += ["", "## Per LLM x programming model", "", _markdown_table([c[0] for c in cols], rows), ""]
    if not scores.comparisons.empty:
        comp = scores.comparisons[scores.comparisons["model"] == "*"]
        lines += ["## Paired comparisons (same prompts)", "",
                  _markdown_table(["A", "B", "metric", "prompts", "A", "B", "A - B [95% CI]", "p", "wins A/ties/B"],
                                  [[r.llm_a, r.llm_b, r.metric, str(r.prompts), _fmt(r.mean_a), _fmt(r.mean_b),
                                    f"{_fmt(r.diff)} [{_fmt(r.diff_lo)}, {_fmt(r.diff_hi)}]", _p(r.p_value),
                                    f"{r.wins_a}/{r.ties}/{r.wins_b}"] for r in comp.itertuples()]), ""]
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


def _write_html(scores: Scores, out: Path, fig_paths: dict[str, Path], manifest: dict) -> Path:
    import jinja2

    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=jinja2.select_autoescape(["html", "j2"]))
    tables = []
    for title, frame, with_kernel, tid in (("Per LLM × programming model", scores.summary, False, "summary"),
                                           ("Per LLM × programming model × kernel", scores.leaderboard, True,
                                            "leaderboard")):
        cols = _html_columns(frame, scores.ks, with_kernel)
        kinds = ["text" if kind == "text" else "num" for _, _, kind in cols]
        tables.append({"id": tid, "title": title, "headers": list(zip([c[0] for c in cols], kinds, strict=True)),
                       "rows": _table_rows(frame, cols) if not frame.empty else []})
    comp = scores.comparisons
    comparisons = [{"a": r.llm_a, "b": r.llm_b, "model": r.model, "metric": r.metric, "prompts": r.prompts,
                    "mean_a": _fmt(r.mean_a), "mean_b": _fmt(r.mean_b),
                    "diff": f"{_fmt(r.diff)} [{_fmt(r.diff_lo)}, {_fmt(r.diff_hi)}]", "p": _p(r.p_value),
                    "wins": f"{r.wins_a} / {r.ties} / {r.wins_b}"} for r in comp.itertuples()]
    runs = [{"run_id": r.run_id, "llm": r.llm, "created": getattr(r, "created", ""), "suggestions": r.suggestions,
             "correct": r.correct, "infra_error": r.infra_error} for r in scores.runs.itertuples()]
    html = env.get_template("leaderboard.html.j2").render(
        manifest=manifest, tables=tables, comparisons=comparisons, runs=runs, notes=scores.notes,
        figures=[{"stem": s, "src": p.relative_to(out).as_posix()} for s, p in fig_paths.items()],
        rubric=scores.rubric, baseline=BASELINE_TEXT, infra=scores.infra_errors, version=__version__,
        schema=SCHEMA_VERSION, ceilings=scores.ceilings.to_dict("records"))
    path = out / "index.html"
    path.write_text(html)
    return path
