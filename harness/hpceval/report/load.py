"""Loading: results directories (results.sqlite, or a published evaluations.csv) and roofline ceiling files.

The readers of the report's inputs, kept apart from the scoring so that notebooks and scripts can load the
suggestions of several runs into one frame (one row per suggestion, with display labels for the LLMs) and
inspect them without pulling in the statistics, the figures or the HTML rendering. Stores are opened read-only
and checked first: a damaged one stops the report with one line (StoreError) that points at `hpceval recover`,
and is never written to (a published, read-only results directory can be reported on).
"""

from __future__ import annotations

import json
import math
import sqlite3
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pandas as pd

from hpceval.metrics import NAN
from hpceval.redact import relative_paths
from hpceval.store import RESULT_COLUMNS, Store, StoreError, check_store_file, recover_hint


class ReportError(FileNotFoundError):
    """A results directory or input file is missing or unreadable (shown as one line by the CLI)."""



def _sqlite_of(path: Path) -> Path | None:
    if path.is_file() and path.suffix in (".sqlite", ".db"):
        return path
    candidate = path / "results.sqlite"
    return candidate if candidate.is_file() else None


def _llm_label(spec: str, identity: dict[str, Any]) -> str:
    """`reference` and `openai:MODEL` name themselves; `local` gets the model it served; `replay:FILE` the LLM its
    records name when they name one (`replay:github-copilot-2023`), else the file."""
    named = identity.get("llm") if isinstance(identity, dict) and identity.get("backend") == "replay" else None
    if spec.startswith("replay:") and isinstance(named, list) and len(named) == 1:
        return f"replay:{named[0]}"
    model = identity.get("model") if isinstance(identity, dict) else None
    if spec == "reference" or ":" in spec or not model or model == spec:
        return spec
    return f"{spec}:{model}"


def read_only_stores(paths: Iterable[str | Path]) -> Iterator[sqlite3.Connection]:
    """Each results directory's results.sqlite opened read-only, in turn (directories without one are skipped);
    a connection is closed when the caller moves on."""
    for raw in paths:
        db = _sqlite_of(Path(raw))
        if db is None:
            continue
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        try:
            yield con
        finally:
            con.close()


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
        check_store_file(db)
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        try:
            for run_id, created, llm, config, env in con.execute(
                    "SELECT run_id, created, llm, config, environment FROM runs ORDER BY created"):
                cfg = json.loads(config or "{}")
                rows.append({"run_id": run_id, "llm_spec": llm, "created": created,
                             "llm_identity": json.dumps(cfg.get("llm_identity", {}), sort_keys=True),
                             "config": config, "environment": env, "run_dir": str(db.parent)})
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{db} is damaged ({exc}); {recover_hint(db.parent)}") from None
        finally:
            con.close()
    columns = ["run_id", "llm_spec", "created", "llm_identity", "config", "environment", "run_dir"]
    return pd.DataFrame(rows, columns=columns).drop_duplicates("run_id").reset_index(drop=True)


def load_results(runs: Iterable[str | Path], merge: bool = False) -> pd.DataFrame:
    """One row per suggestion over all runs (Store.results columns), with `llm` as a display label.

    Each path is a results directory (results.sqlite, else a published evaluations.csv) or a .sqlite file.
    Added columns: llm_spec (what --llm said), run_dir. An LLM that appears in several runs gets the run id in
    its label ("local:m [abc123]"), so prompts of different runs are never pooled by accident.

    merge: the runs of one LLM are one evaluation split across machines (`hpceval report CPU_DIR GPU_DIR
    --merge`: the same replayed suggestions, the GPU models executed on a GPU machine): see merge_machines.
    """
    runs = [Path(r) for r in runs]
    if not runs:
        raise ReportError("no results directory given")
    frames = []
    for path in runs:
        db = _sqlite_of(path)
        if db is not None:
            store = Store(db.parent, readonly=True)
            try:
                frame = store.results()
            except sqlite3.DatabaseError as exc:
                raise StoreError(f"{db} is damaged ({exc}); {recover_hint(db.parent)}") from None
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
    frame["llm"] = [labels[(rid, spec)] + (f" [{rid[:6]}]" if not merge and len(runs_per_label[labels[(rid, spec)]]) > 1
                                           else "")
                    for rid, spec in zip(frame["run_id"], frame["llm_spec"], strict=True)]
    if merge:
        frame = merge_machines(frame)
    # evidence stored before paths were made relative to the cache and the checkout: published reports and CSVs
    # name no folder of this machine either way
    frame["evidence"] = frame["evidence"].map(lambda e: relative_paths(e) if isinstance(e, str) else e)
    for col in ("max_rel_error", "time_median_s", "time_min_s", "time_iqr_s", "gflops", "gbytes_per_s"):
        frame[col] = pd.to_numeric(frame[col], errors="coerce").astype(float)
    frame["rank"] = pd.to_numeric(frame["rank"], errors="coerce").astype(int)
    for col in ("llm", "language", "model", "kernel", "style", "hint", "prompt_id", "verdict", "device", "run_id"):
        frame[col] = frame[col].fillna("").astype(str).astype(object)
    return frame


def merge_machines(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per (LLM, prompt, rank) over runs of the same LLM made on different machines.

    Why: a GPU model's suggestions are `infra_error` ("cannot run here") on a CPU machine and are executed on a GPU
    machine; the study's replay is one evaluation, evaluated in two places. Per suggestion the row that was
    executed (any verdict but infra_error) replaces the infra_error ones. Two executed rows that disagree mean
    two different evaluations (another sample of a sampling LLM, another harness version): refused, never pooled.
    """
    executed = frame["verdict"] != "infra_error"
    keys = ["llm", "prompt_id", "rank"]
    clash = frame[executed].groupby(keys)["verdict"].nunique()
    clash = clash[clash > 1]
    if not clash.empty:
        llm, prompt, rank = clash.index[0]
        raise ReportError(f"cannot merge: {llm} {prompt} #{rank} was executed in more than one run with different "
                          f"verdicts ({len(clash)} such suggestions): these runs are separate evaluations, report "
                          f"them without --merge")
    order = frame.assign(_executed=executed).sort_values(keys + ["_executed"], ascending=[True, True, True, False],
                                                          kind="stable")
    merged = order.drop_duplicates(keys).drop(columns="_executed").sort_index().reset_index(drop=True)
    # one evaluation: its prompts are scored once, under the run that holds most of the LLM's rows; where each row
    # was evaluated stays in `evaluated_in_run`
    primary = frame.groupby("llm")["run_id"].agg(lambda ids: ids.value_counts().index[0])
    merged["evaluated_in_run"] = merged["run_id"]
    merged["run_id"] = merged["llm"].map(primary)
    return merged


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
