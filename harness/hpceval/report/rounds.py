"""Scores per feedback round: what a suggestion's chain achieved after r rounds (hpceval.rounds).

Why apart from scores.py: a run with `--rounds R` stores each follow-up as a suggestion of its own
(`<prompt>#r<round>.<chain>`); the one-shot tables must keep scoring round 1 exactly as before, while the round
curves need, for every r, one row per chain: the chain's best suggestion up to round r (a correct one with the
highest speedup, else the latest scored one). On that frame pass@k, proficiency and speedup@k are the ordinary
estimators (scores.prompt_scores) over the same N chains per prompt, so "pass@1 after 2 rounds" is comparable
with pass@1. Tokens and cost per round come from the llm_requests of the follow-ups of that round.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from hpceval.contracts import UNSCORED, Verdict
from hpceval.llm.base import Price, cost_usd
from hpceval.metrics import NAN, pass_at_k
from hpceval.rounds import position

CORRECT = Verdict.correct.value
CURVE_KEYS = ["llm", "language", "model"]


def annotate(frame: pd.DataFrame) -> pd.DataFrame:
    """Add root_prompt_id, round and chain (from prompt_id and rank; first-round rows: the prompt, 1, rank)."""
    frame = frame.copy()
    pos = [position(p, r) for p, r in zip(frame["prompt_id"], frame["rank"], strict=True)]
    frame["root_prompt_id"] = [p[0] for p in pos]
    frame["round"] = np.array([p[1] for p in pos], dtype=int)
    frame["chain"] = np.array([p[2] for p in pos], dtype=int)
    return frame


def run_rounds(frame: pd.DataFrame, runs: pd.DataFrame | None = None) -> dict[str, int]:
    """Rounds per run: the configured --rounds where known (a chain may stop early), else the last round seen."""
    out = {rid: int(g["round"].max()) for rid, g in frame.groupby("run_id")} if not frame.empty else {}
    if runs is not None and not runs.empty and "config" in runs:
        for rid, config in zip(runs["run_id"], runs["config"], strict=True):
            if rid in out:
                try:
                    out[rid] = max(out[rid], int(json.loads(config or "{}").get("rounds") or 1))
                except (TypeError, ValueError):
                    pass
    return out


def after_round(samples: pd.DataFrame, r: int) -> pd.DataFrame:
    """One row per chain: its best suggestion up to round r, renamed to the root prompt and the chain's rank."""
    if "round" not in samples:
        samples = annotate(samples)
    upto = samples[samples["round"] <= r].copy()
    if upto.empty:
        return upto
    scored = ~upto["verdict"].isin(sorted(UNSCORED))
    correct = upto["verdict"] == CORRECT
    speed = upto["speedup"].astype(float) if "speedup" in upto else pd.Series(NAN, index=upto.index)
    # preference: correct first, then the fastest, then scored, then the latest round
    upto["_key"] = list(zip(correct.astype(int), speed.fillna(-np.inf).where(correct, -np.inf),
                            scored.astype(int), upto["round"], strict=True))
    best = upto.sort_values("_key").groupby(["run_id", "root_prompt_id", "chain"], sort=False).tail(1)
    best = best.drop(columns="_key").copy()
    best["final_round"] = best["round"]  # where the chain's kept suggestion came from
    best["prompt_id"] = best["root_prompt_id"]
    best["rank"] = best["chain"]
    best["round"] = r
    return best.sort_values(["run_id", "prompt_id", "rank"]).reset_index(drop=True)


def by_round(samples: pd.DataFrame, rounds: dict[str, int]) -> list[tuple[int, pd.DataFrame]]:
    """(r, chains after r rounds) for r = 1..max rounds, each over the runs that have at least r rounds."""
    out = []
    for r in range(1, max(rounds.values(), default=1) + 1):
        runs = [rid for rid, n in rounds.items() if n >= r]
        out.append((r, after_round(samples[samples["run_id"].isin(runs)], r)))
    return out


def usage_by_round(usage: pd.DataFrame) -> pd.DataFrame:
    """Requests and tokens per run x round from llm_requests rows (cached answers cost nothing: counted apart)."""
    columns = ["run_id", "root_prompt_id", "round", "requests", "cached_requests", "prompt_tokens", "completion_tokens"]
    if usage is None or usage.empty:
        return pd.DataFrame(columns=columns)
    usage = usage.copy()
    usage["root_prompt_id"] = [position(p, 1)[0] for p in usage["prompt_id"]]
    usage["round"] = [position(p, 1)[1] for p in usage["prompt_id"]]
    new = usage["cached"].fillna(0).astype(int) == 0
    usage["new"] = new.astype(int)
    usage["old"] = (~new).astype(int)
    usage["pt"] = usage["prompt_tokens"].fillna(0).where(new, 0)
    usage["ct"] = usage["completion_tokens"].fillna(0).where(new, 0)
    grouped = usage.groupby(["run_id", "root_prompt_id", "round"]).agg(requests=("new", "sum"), cached_requests=("old", "sum"),
                                                     prompt_tokens=("pt", "sum"), completion_tokens=("ct", "sum"))
    return grouped.reset_index()[columns]


def curves(prompts_by_round: pd.DataFrame, usage: pd.DataFrame, runs: pd.DataFrame, ks: Sequence[int],
           prices: dict[str, Price] | None = None) -> pd.DataFrame:
    """Metric vs round per LLM x language x programming model: pass@k, proficiency and speedup@k after r rounds,
    and the requests, tokens and cost of round r (summed over the runs of that LLM)."""
    rows = []
    if prompts_by_round.empty:
        return pd.DataFrame(columns=CURVE_KEYS + ["round", "prompts"])
    spend = usage_by_round(usage)
    run_model = {}
    if runs is not None and not runs.empty and "config" in runs:
        for rid, config in zip(runs["run_id"], runs["config"], strict=True):
            cfg = json.loads(config or "{}")
            run_model[rid] = (cfg.get("llm_identity") or {}).get("model") or cfg.get("llm") or ""
    for gkey, g in prompts_by_round.groupby([*CURVE_KEYS, "round"], sort=True):
        row: dict[str, Any] = dict(zip([*CURVE_KEYS, "round"], gkey, strict=True))
        row["prompts"] = int((g["scored"] > 0).sum())
        row["chains"] = int(g["scored"].sum())
        row["correct"] = int(g["correct"].sum())
        row["proficiency"] = _mean(g["proficiency"])
        for k in ks:
            row[f"pass_at_{k}"] = _mean(g[f"pass_at_{k}"])
        for k in ks:
            row[f"speedup_at_{k}"] = _mean(g.get(f"speedup_at_{k}", pd.Series(dtype=float)))
        # spend of this round by the prompts of this group: follow-ups are counted by their root prompt
        roots = set(zip(g["run_id"], g["prompt_id"], strict=True))
        mask = np.array([(rid, p) in roots for rid, p in zip(spend["run_id"], spend["root_prompt_id"], strict=True)],
                        dtype=bool)
        mine = spend.loc[mask]
        mine = mine[mine["round"] == row["round"]]
        row.update(requests=int(mine["requests"].sum()), cached_requests=int(mine["cached_requests"].sum()),
                   prompt_tokens=int(mine["prompt_tokens"].sum()), completion_tokens=int(mine["completion_tokens"].sum()))
        cost = NAN
        if prices is not None and not mine.empty:
            per_run = mine.groupby("run_id")[["prompt_tokens", "completion_tokens"]].sum()
            parts = [cost_usd(run_model.get(rid, ""), int(m["prompt_tokens"]), int(m["completion_tokens"]), prices)
                     for rid, m in per_run.iterrows()]
            cost = NAN if any(c is None for c in parts) else float(sum(parts))
        row["cost_usd"] = cost
        rows.append(row)
    return pd.DataFrame(rows)


def _mean(values: pd.Series) -> float:
    v = pd.to_numeric(values, errors="coerce").to_numpy(dtype=float)
    v = v[np.isfinite(v)]
    return float(v.mean()) if v.size else NAN


def round_lines(store: Any, run_id: str, model: str, prices: dict[str, Price] | None) -> list[str]:
    """The run summary's lines per round: pass@1 after r rounds over the chains, and that round's spend."""
    frame = annotate(store.results(run_id))
    if frame.empty:
        return []
    config = store.db.execute("SELECT config FROM runs WHERE run_id=?", (run_id,)).fetchone()
    rounds = max(int(frame["round"].max()), int(json.loads(config[0] if config else "{}").get("rounds") or 1))
    spend = usage_by_round(store.usage(run_id)).groupby("round")[["requests", "prompt_tokens",
                                                                   "completion_tokens"]].sum()
    lines = []
    for r in range(1, rounds + 1):
        chains = after_round(frame, r)
        chains = chains[~chains["verdict"].isin(sorted(UNSCORED))]
        per = chains.groupby("prompt_id")["verdict"].agg(n="size", c=lambda v: int((v == CORRECT).sum()))
        p1 = [pass_at_k(int(n), int(c), 1) for n, c in zip(per["n"], per["c"], strict=True) if n >= 1]
        asked = int((frame["round"] == r).sum())
        line = (f"round {r}: pass@1 {np.mean(p1):.3f} after {r} round(s) ({int(per['c'].sum())}/{int(per['n'].sum())}"
                f" chains correct; {asked} suggestion(s) this round)") if p1 else f"round {r}: nothing scored"
        if r in spend.index:
            s = spend.loc[r]
            line += f"; {int(s['requests'])} requests, {int(s['prompt_tokens'])} + {int(s['completion_tokens'])} tokens"
            if prices is not None:
                cost = cost_usd(model, int(s["prompt_tokens"]), int(s["completion_tokens"]), prices)
                line += f", ${cost:.4f}" if cost is not None else ""
        lines.append(line)
    return lines


def load_usage(paths: Sequence[Any]) -> pd.DataFrame:
    """The llm_requests rows of the stores under `paths` (read-only; none for a published CSV)."""
    import sqlite3

    from hpceval.report.load import read_only_stores

    frames = []
    for con in read_only_stores(paths):
        try:
            frames.append(pd.read_sql_query("SELECT * FROM llm_requests", con))
        except (sqlite3.DatabaseError, pd.errors.DatabaseError):
            continue
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
