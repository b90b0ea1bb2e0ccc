"""Scoring: the loaded suggestions -> per-suggestion, per-prompt, per-group and paired-comparison tables.

All the numbers the report publishes are computed here, with no plotting or rendering, so that the CSVs, the
HTML page, the Markdown summary and the notebooks read the same Scores. The column sets follow the versioned
CSV schema (SCHEMA_VERSION, docs/leaderboard-schema.md).

Speedup baseline: the reference solution (kernels_spec/<kernel>/solutions/<model>) of the same kernel and
programming model, timed on the same device by a reference run (`hpceval run --llm reference`) that is among
the reported runs or passed as `baseline_runs`; its median time over the reference run's timings. Without such
a timing a speedup is NaN, never 0.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from hpceval.contracts import UNSCORED, Verdict
from hpceval.metrics import (
    NAN,
    SCORED_VERDICTS,
    Rubric,
    bootstrap_ci,
    paired_comparison,
    pass_at_k,
    roofline_efficiency,
    speedup_at_k,
)
from hpceval.report import rounds as per_round
from hpceval.report import unscored
from hpceval.report.load import ReportError, discover_ceilings, load_ceilings, load_results, load_runs

SCHEMA_VERSION = "1.2"  # 1.1: `round` column (feedback rounds), rounds.csv; 1.2: unscored rates, llms.csv
KS = (1, 5, 10)
GROUP_KEYS = ["llm", "language", "model", "kernel"]
SUMMARY_KEYS = ["llm", "language", "model"]
LLM_KEYS = ["llm"]
PROMPT_KEYS = ["llm", "language", "model", "kernel", "style", "hint"]
INFRA = Verdict.infra_error.value
UNBINDABLE = Verdict.unbindable.value
OUTSIDE = sorted(UNSCORED)  # infra_error and unbindable: never the LLM's fault, left out of every score
CORRECT = Verdict.correct.value


def implausible_rows(frame: pd.DataFrame) -> pd.Series:
    """Rows whose time is below the machine's physical lower bound (checks/timing.py): never a speedup, left out
    of every speed metric."""
    col = frame.get("timing_implausible")
    if col is None:
        return pd.Series(False, index=frame.index)
    return col.map(lambda v: str(v).strip().lower() in ("1", "1.0", "true")).astype(bool)


def reference_baseline(frame: pd.DataFrame) -> pd.DataFrame:
    """Baseline time per kernel x model x device: median of the reference runs' correct, timed suggestions."""
    ref = frame[(frame["llm_spec"] == "reference") & (frame["verdict"] == CORRECT)
                & np.isfinite(frame["time_median_s"].astype(float)) & ~implausible_rows(frame)]
    if ref.empty:
        return pd.DataFrame(columns=["kernel", "model", "device", "baseline_time_s", "baseline_run"])
    grouped = ref.groupby(["kernel", "model", "device"], sort=True)
    out = grouped["time_median_s"].median().rename("baseline_time_s").reset_index()
    out["baseline_run"] = grouped["run_id"].agg(lambda s: ",".join(sorted(set(s)))).to_numpy()
    return out



@dataclass
class Scores:
    """Everything the report publishes; each table is a DataFrame with the documented columns."""

    samples: pd.DataFrame          # one row per suggestion, with speedup and efficiencies
    prompts: pd.DataFrame          # one row per (LLM, prompt)
    leaderboard: pd.DataFrame      # LLM x language x programming model x kernel
    summary: pd.DataFrame          # LLM x language x programming model
    llms: pd.DataFrame             # one row per LLM over all its models and kernels
    verdicts: pd.DataFrame         # counts per LLM x language x model x kernel x verdict (long form)
    comparisons: pd.DataFrame      # paired comparisons of two LLMs on the same prompts
    curves: pd.DataFrame           # pass@k for k = 1..N per LLM x language x model
    runs: pd.DataFrame             # run metadata with suggestion and infra_error counts
    rubric: Rubric
    baseline: pd.DataFrame
    ceilings: pd.DataFrame
    ks: tuple[int, ...]
    notes: list[str] = field(default_factory=list)
    # feedback rounds (report/rounds.py): the tables above after r rounds, r = 1..R, with a `round` column; the
    # tables above are round 1 (one shot), so runs with and without rounds compare there
    leaderboard_rounds: pd.DataFrame = field(default_factory=pd.DataFrame)
    summary_rounds: pd.DataFrame = field(default_factory=pd.DataFrame)
    prompts_rounds: pd.DataFrame = field(default_factory=pd.DataFrame)
    round_curves: pd.DataFrame = field(default_factory=pd.DataFrame)
    llms_rounds: pd.DataFrame = field(default_factory=pd.DataFrame)
    # one line per LLM whose unbindable or infra_error rate is above unscored.UNSCORED_FLAG_RATE
    flags: list[str] = field(default_factory=list)

    @property
    def infra_errors(self) -> int:
        return int((self.samples["verdict"] == INFRA).sum())

    @property
    def unbindables(self) -> int:
        return int((self.samples["verdict"] == UNBINDABLE).sum())


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
    out["timing_implausible"] = implausible_rows(out)
    plausible = correct & ~out["timing_implausible"]  # a time below the physical bound is never a speedup
    t = out["time_median_s"].astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        speed = out["baseline_time_s"] / t
    out["speedup"] = np.where(plausible & (t > 0), speed, NAN)
    table = {r.device: r for r in ceilings.itertuples()} if not ceilings.empty else {}
    effs = []
    for dev, gf, gb, ok in zip(out["device"], out["gflops"], out["gbytes_per_s"], plausible, strict=True):
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
        scored = g[~g["verdict"].isin(OUTSIDE)] if grade.n else g.iloc[0:0]  # grade.n = 0: not executed
        correct = (scored["verdict"] == CORRECT).to_numpy()
        # a cell with a baseline gives every prompt a speedup@k (0 when nothing is correct); NaN without one
        has_base = (keys[PROMPT_KEYS.index("kernel")], keys[PROMPT_KEYS.index("model")]) in cells
        row = dict(zip(PROMPT_KEYS + ["run_id", "prompt_id"], keys, strict=True))
        row.update(suggestions=len(g), scored=grade.n, correct=int(correct.sum()), infra_error=grade.infra,
                   unbindable=grade.unbindable,
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
    columns = (PROMPT_KEYS + ["run_id", "prompt_id", "suggestions", "scored", "correct", "infra_error", "unbindable",
                              "s1_correct", "proficiency", "level"] + [f"pass_at_{k}" for k in ks]
               + [f"speedup_at_{k}" for k in ks] + ["speedup_best", "baseline_time_s"])
    return pd.DataFrame(rows, columns=columns)


def aggregate(samples: pd.DataFrame, prompts: pd.DataFrame, keys: list[str], ks: Sequence[int], n_boot: int,
               seed: int) -> pd.DataFrame:
    rows = []
    prompt_groups = dict(iter(prompts.groupby(keys, sort=True))) if not prompts.empty else {}
    for gkey, g in samples.groupby(keys, sort=True):
        p = prompt_groups.get(gkey, prompts.iloc[0:0])
        row = dict(zip(keys, gkey, strict=True))
        if "model" not in keys:
            row["models"] = int(g["model"].nunique())
        if "kernel" not in keys:
            row["kernels"] = int(g["kernel"].nunique())
        counts = g["verdict"].value_counts()
        row.update(prompts=int((p["scored"] > 0).sum()), suggestions=len(g),
                   scored=int(p["scored"].sum()),  # the prompts' own count (a prompt never executed scores none)
                   infra_error=int(counts.get(INFRA, 0)), unbindable=int(counts.get(UNBINDABLE, 0)),
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
        row["timing_implausible"] = int(implausible_rows(ok).sum())
        sp = ok["speedup"].dropna()
        row.update(speedup_median=float(sp.median()) if len(sp) else NAN,
                   speedup_best=float(sp.max()) if len(sp) else NAN)
        if "kernel" in keys:
            base = g["baseline_time_s"].dropna()
            row["baseline_time_s"] = float(base.iloc[0]) if len(base) else NAN
        for col in ("gflops", "gbytes_per_s"):
            vals = ok[~implausible_rows(ok)][col].dropna()
            row[f"{col}_best"] = float(vals.max()) if len(vals) else NAN
        for col in ("compute_efficiency", "bandwidth_efficiency", "roofline_efficiency"):
            vals = ok[col].dropna()
            row[col] = float(vals.median()) if len(vals) else NAN
            row[f"{col}_best"] = float(vals.max()) if len(vals) else NAN
        rows.append(row)
    frame = unscored.add_to(pd.DataFrame(rows))
    frame.insert(0, "schema_version", SCHEMA_VERSION)
    return frame


def pass_at_k_curves(prompts: pd.DataFrame, samples: pd.DataFrame) -> pd.DataFrame:
    """Mean pass@k over prompts with N >= k, for k = 1..max N, per LLM x language x model."""
    rows = []
    scored = samples[~samples["verdict"].isin(OUTSIDE)]
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
    sides = [f"{c}{s}" for s in ("_a", "_b") for c in ["suggestions", "unbindable", "infra_error"]
             + unscored.RATE_COLUMNS]
    columns = ["schema_version", "llm_a", "llm_b", "model", "metric", "prompts", "mean_a", "mean_b", "diff",
               "diff_lo", "diff_hi", "p_value", "wins_a", "ties", "wins_b"] + sides
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
                # what each side left out of the score on the prompts both answered, all-unscored prompts included
                left_out = {**_left_out(pa[mask], "_a"), **_left_out(pb[mask], "_b")}
                for metric in metrics:
                    cmp = paired_comparison(pa[metric].to_numpy(float)[mask], pb[metric].to_numpy(float)[mask],
                                            n_boot=n_boot, seed=seed)
                    if cmp.prompts == 0:
                        continue
                    rows.append([SCHEMA_VERSION, a, b, scope, metric, cmp.prompts, cmp.mean_a, cmp.mean_b,
                                 cmp.diff, cmp.lo, cmp.hi, cmp.p_value, cmp.wins_a, cmp.ties, cmp.wins_b]
                                + [left_out[c] for c in sides])
    return pd.DataFrame(rows, columns=columns)


def _left_out(prompts: pd.DataFrame, suffix: str) -> dict:
    """Suggestions, unbindable and infra_error counts and rates of some prompts' rows, keys ending in suffix."""
    n, u, i = (int(prompts[c].sum()) for c in ("suggestions", "unbindable", "infra_error"))
    return {f"suggestions{suffix}": n, f"unbindable{suffix}": u, f"infra_error{suffix}": i,
            **unscored.rates(n, u, i, suffix)}


def score(results: pd.DataFrame | Iterable[str | Path], *, rubric: Rubric | str | Path | None = None,
          ceilings: str | Path | Sequence[str | Path] | None = None, baseline_runs: Iterable[str | Path] = (),
          ks: Sequence[int] = KS, n_boot: int = 2000, seed: int = 0, prices: dict | None = None,
          merge: bool = False) -> Scores:
    """Score results (a load_results frame or results directories) into the report's tables.

    prices (hpceval.llm.load_price_table): the cost of each feedback round in rounds.csv.
    merge: the directories' runs of one LLM are one evaluation split across machines (load.merge_machines).
    """
    paths: list[Path] = []
    if isinstance(results, pd.DataFrame):
        frame = results
    else:
        paths = [Path(p) for p in results]
        frame = load_results(paths, merge=merge)
    if frame.empty:
        where = ", ".join(str(p) for p in paths) or "the given frame"
        raise ReportError(f"no evaluated suggestion in {where}: run `hpceval run ... --out DIR` first")
    rubric = rubric if isinstance(rubric, Rubric) else Rubric.load(rubric)
    frame = rubric.apply_policies(frame)  # numba_requires_parallel: serial Numba rows count as wrong_model
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
    implausible = int((samples["timing_implausible"] & (samples["verdict"] == CORRECT)).sum())
    if implausible:
        notes.append(f"{implausible} correct suggestion(s) reported a time below the machine's physical lower bound "
                     "(timing_implausible): left out of every speed metric (speedups, GB/s, GFLOP/s, efficiencies).")
    samples = per_round.annotate(samples)
    runs = load_runs(paths) if paths else pd.DataFrame(columns=["run_id"])
    staged = per_round.by_round(samples, per_round.run_rounds(samples, runs))
    first = staged[0][1] if staged else samples  # the chains after round 1: each prompt's one-shot suggestions
    prompts = prompt_scores(first, rubric, ks)
    leaderboard = aggregate(first, prompts, GROUP_KEYS, ks, n_boot, seed)
    summary = aggregate(first, prompts, SUMMARY_KEYS, ks, n_boot, seed)
    llms = aggregate(first, prompts, LLM_KEYS, ks, n_boot, seed)
    by_round: dict[str, list[pd.DataFrame]] = {"prompts": [], "leaderboard": [], "summary": [], "llms": []}
    for r, chains in staged:
        p = prompts if r == 1 else prompt_scores(chains, rubric, ks)
        tables = {"prompts": p, "leaderboard": leaderboard if r == 1 else aggregate(chains, p, GROUP_KEYS, ks, n_boot,
                                                                                        seed),
                  "summary": summary if r == 1 else aggregate(chains, p, SUMMARY_KEYS, ks, n_boot, seed),
                  "llms": llms if r == 1 else aggregate(chains, p, LLM_KEYS, ks, n_boot, seed)}
        for name, table in tables.items():
            table = table.copy()
            table.insert(1 if "schema_version" in table else 0, "round", r)
            by_round[name].append(table)
    rounds = {name: pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
              for name, parts in by_round.items()}
    leaderboard, summary, llms = by_round["leaderboard"][0], by_round["summary"][0], by_round["llms"][0]
    verdicts = (samples.groupby(GROUP_KEYS + ["round", "verdict"]).size().rename("count").reset_index()
                if not samples.empty else pd.DataFrame(columns=GROUP_KEYS + ["round", "verdict", "count"]))
    verdicts.insert(0, "schema_version", SCHEMA_VERSION)
    runs = _run_counts(runs, samples)
    if prompts.empty:
        notes.append("No scored suggestion in these runs.")
    return Scores(samples=samples, prompts=with_schema(prompts), leaderboard=leaderboard, summary=summary, llms=llms,
                  verdicts=verdicts, comparisons=compare_llms(prompts, n_boot=n_boot, seed=seed),
                  curves=pass_at_k_curves(prompts, first), runs=runs, rubric=rubric, baseline=baseline,
                  ceilings=ceil, ks=ks, notes=notes, leaderboard_rounds=rounds["leaderboard"],
                  summary_rounds=rounds["summary"], prompts_rounds=with_schema(rounds["prompts"]),
                  round_curves=with_schema(per_round.curves(rounds["prompts"], per_round.load_usage(paths), runs, ks,
                                                                   prices)),
                  llms_rounds=rounds["llms"], flags=unscored.flag_notes(llms))


def with_schema(frame: pd.DataFrame) -> pd.DataFrame:
    frame = frame.copy()
    frame.insert(0, "schema_version", SCHEMA_VERSION)
    return frame


def _run_counts(runs: pd.DataFrame, samples: pd.DataFrame) -> pd.DataFrame:
    counts = samples.groupby("run_id").agg(
        llm=("llm", "first"), suggestions=("verdict", "size"),
        correct=("verdict", lambda v: int((v == CORRECT).sum())),
        infra_error=("verdict", lambda v: int((v == INFRA).sum())),
        unbindable=("verdict", lambda v: int((v == UNBINDABLE).sum()))).reset_index()
    if runs.empty or "llm_spec" not in runs:
        out = counts
    else:
        out = runs.drop(columns=["config", "environment"]).merge(counts, on="run_id", how="left")
    out = out.fillna({"suggestions": 0, "correct": 0, "infra_error": 0, "unbindable": 0})
    if "llm_spec" in out:  # a merged run whose rows are all scored under another run of its LLM keeps its name
        out["llm"] = out["llm"].where(out["llm"].notna() & (out["llm"] != ""), out["llm_spec"])
    for col in ("suggestions", "correct", "infra_error", "unbindable"):
        out[col] = out[col].astype(int)
    return with_schema(out)
