"""Import ParEval's published LLM outputs (Nichols et al., HPDC'24) into replay JSONL, one file per LLM.

Why a third importer: ParEval's outputs are JSON (../shared/corpus/pareval-sample/README.md): a list of prompts,
each with `name` (the problem), `parallelism_model`, `prompt` (a file start ending with the function's `{`), the
sampling parameters and 20 `outputs` (continuations). A suggestion is prompt + "\n" + output, exactly as ParEval
compiles it (its driver wrapper writes `prompt + "\n" + output`): an output that begins at the signature's `{`
with a directive (CodeLlama's `#pragma omp parallel for`) then starts its own line, as it did for ParEval, instead
of a stray `#` on the signature line. The record's text is that and nothing else (`meta.complete`: no extraction),
so the LLM's bytes reach the harness unchanged.

ParEval compiles a suggestion after its benchmark file's standard includes, so a body may use `std::vector` or
`std::accumulate` without including them. Graded without them, such a suggestion would fail for a header ParEval
gave it: the record carries them as `meta.prelude` (hpceval.prelude), which the evaluator puts before the code in
the unit it builds and names in the evidence; the suggestion's text is not touched. ParEval's own utilities header
(MPI helpers) is not reproduced: no problem imported here uses it.

What maps (everything else is listed as not imported, with the reason):

    03_dense_la_axpy -> axpy   (out of place, z = alpha*x + y: AXPY's `out_of_place` variant)
    04_dense_la_gemv -> gemv   (row-major M x N)
    02_dense_la_gemm -> gemm   (row-major, A M x K, B K x N)
    omp -> cpp-openmp, kokkos -> cpp-kokkos, cuda -> cpp-cuda, hip -> cpp-hip

Not mapped on purpose: `47_sparse_la_spmv` is y = alpha*A*x + beta*y over a list of COO structs (unsorted,
duplicates allowed): another storage format and interface than hpceval's CSR SpMV, whose validation sets and
structural edge cases are CSR's; `53_stencil_2d_jacobi_5-point_stencil` is one 2-D 5-point averaging sweep (the
centre included, zero outside the grid, every point written) where hpceval's Jacobi is a 3-D 7-point sweep that
keeps the boundary. Calling either hpceval's kernel would put different tasks in one row. Serial, MPI and
MPI+OpenMP have no hpceval programming model.

Records follow the replay schema (docs/replay.md): llm = the LLM's name (from the file name), prompt_id
"<kernel>/<model>/paper/none" (ParEval's signatures are not hpceval's canonical ones, so the suggestions go through
signature inference, as free-form code does), rank = the output's position (ParEval does not rank), and meta:
source "pareval", file, pareval_problem, pareval_problem_type, pareval_model, pareval_prompt, sample (0-based),
params (temperature, top_p, max_new_tokens, do_sample, prompted), key, sha, complete, prelude, prelude_source.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter, defaultdict
from pathlib import Path

from rich.table import Table

from hpceval.importers.copilot import REPLAY_SCHEMA

PROBLEMS = {"03_dense_la_axpy": "axpy", "04_dense_la_gemv": "gemv", "02_dense_la_gemm": "gemm"}
MODELS = {"omp": "cpp-openmp", "kokkos": "cpp-kokkos", "cuda": "cpp-cuda", "hip": "cpp-hip"}
NOT_THE_KERNEL = {
    "47_sparse_la_spmv": "COO SpMV with alpha and beta over a list of structs: not hpceval's CSR SpMV (another "
                         "storage format and interface; hpceval's SpMV validation is CSR's)",
    "53_stencil_2d_jacobi_5-point_stencil": "a 2-D 5-point averaging sweep (centre included, zeros outside, every "
                                            "point written): not hpceval's 3-D 7-point Jacobi that keeps the boundary",
}
NO_MODEL = {"serial": "serial code: no hpceval programming model", "mpi": "MPI: no hpceval programming model",
            "mpi+omp": "MPI+OpenMP: no hpceval programming model"}
# The standard headers ParEval's benchmark drivers include before the suggestion (its README); the utilities
# header (MPI and timing helpers) is not reproduced.
PRELUDE = "".join(f"#include <{h}>\n" for h in ("algorithm", "cmath", "numeric", "random", "vector"))
PRELUDE_SOURCE = "ParEval compiles the suggestion after these standard includes of its benchmark file"
PARAMS = ("temperature", "top_p", "max_new_tokens", "do_sample", "prompted")
_FILE = re.compile(r"^output_[0-9a-f]+_(?P<llm>.+?)(?:_prompted)?(?:_temp[\d.]+)?$")


class ParEvalFormatError(ValueError):
    """The file is not ParEval's output format (one line for the user)."""


def llm_name(path: Path) -> str:
    """The LLM a ParEval output file is of, from its name: `output_a8724ee8_codellama--CodeLlama-13b-hf_prompted_
    temp0.2.json` -> `codellama/CodeLlama-13b-hf` (ParEval writes the Hugging Face id's `/` as `--`)."""
    m = _FILE.match(path.stem)
    return (m.group("llm") if m else path.stem).replace("--", "/")


def load(path: Path) -> list[dict]:
    """The prompts of one output file, checked for the fields the importer reads."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ParEvalFormatError(f"{path}: not a ParEval output file ({exc})") from None
    if not isinstance(data, list) or not all(isinstance(e, dict) for e in data):
        raise ParEvalFormatError(f"{path}: not a ParEval output file (expected a JSON list of prompts)")
    for i, entry in enumerate(data):
        missing = [k for k in ("name", "parallelism_model", "prompt", "outputs") if k not in entry]
        if missing or not isinstance(entry["outputs"], list):
            raise ParEvalFormatError(f"{path}: prompt {i} lacks {', '.join(missing) or 'a list of outputs'}")
    return data


def why_not(entry: dict) -> str | None:
    """Why a ParEval prompt is not imported, or None when it maps to an hpceval kernel and model."""
    name, model = entry["name"], entry["parallelism_model"]
    if name not in PROBLEMS:
        return NOT_THE_KERNEL.get(name, f"no hpceval kernel for ParEval's problem ({entry.get('problem_type', '?')})")
    if model not in MODELS:
        return NO_MODEL.get(model, f"no hpceval programming model for {model!r}")
    if entry.get("language", "cpp") != "cpp":
        return f"language {entry['language']!r}: ParEval's C++ prompts only are mapped"
    return None


def records(path: Path) -> tuple[list[dict], list[tuple[str, str, int]]]:
    """(replay records of one file's mapped outputs, [(problem/model, why not imported, outputs)])."""
    path = Path(path)
    llm = llm_name(path)
    out: list[dict] = []
    skipped: list[tuple[str, str, int]] = []
    for entry in load(path):
        reason = why_not(entry)
        where = f"{entry['name']}/{entry['parallelism_model']}"
        if reason is not None:
            skipped.append((where, reason, len(entry["outputs"])))
            continue
        kernel, model = PROBLEMS[entry["name"]], MODELS[entry["parallelism_model"]]
        params = {k: entry[k] for k in PARAMS if k in entry}
        for sample, output in enumerate(entry["outputs"]):
            if not isinstance(output, str):
                skipped.append((f"{where}#{sample}", "the output is not text", 1))
                continue
            text = entry["prompt"] + "\n" + output  # ParEval's own join (test_single_output)
            meta = {"source": "pareval", "file": path.name, "pareval_problem": entry["name"],
                    "pareval_problem_type": entry.get("problem_type"), "pareval_model": entry["parallelism_model"],
                    "pareval_prompt": entry["prompt"], "sample": sample, "params": params,
                    "key": f"{path.name}#{where}.{sample}", "sha": hashlib.sha1(text.encode()).hexdigest()[:12],
                    "complete": True, "prelude": PRELUDE, "prelude_source": PRELUDE_SOURCE}
            out.append({"schema": REPLAY_SCHEMA, "llm": llm, "prompt_id": f"{kernel}/{model}/paper/none",
                        "language": "cpp", "model": model, "kernel": kernel, "style": "paper", "hint": "none",
                        "rank": sample + 1, "text": text, "meta": meta})
    return out, skipped


def slug(llm: str) -> str:
    """A file name for an LLM's replay file (`codellama/CodeLlama-13b-hf` -> `CodeLlama-13b-hf`)."""
    return re.sub(r"[^\w.+-]", "_", llm.rsplit("/", 1)[-1])


def import_pareval(files: list[Path], out_dir: Path) -> tuple[dict[str, Path], Table, list[tuple[str, str]]]:
    """Import each file into `out_dir/<llm>.jsonl`; returns ({llm: file written}, counts table, [(what, why)] of the
    prompts not imported, one entry per ParEval problem/model with the LLMs and outputs it covers)."""
    out_dir = Path(out_dir)
    if out_dir.suffix == ".jsonl":
        raise ParEvalFormatError(f"--out {out_dir}: give a folder (one replay file per LLM is written in it)")
    written: dict[str, Path] = {}
    counts: dict[tuple[str, str, str], Counter] = defaultdict(Counter)
    not_imported: dict[tuple[str, str], list[int]] = {}
    for path in files:
        if not Path(path).is_file():
            raise FileNotFoundError(f"{path}: no such file")
        recs, skipped = records(Path(path))
        llm = llm_name(Path(path))
        target = out_dir / f"{slug(llm)}.jsonl"
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_suffix(".jsonl.tmp")
        with tmp.open("w", encoding="utf-8") as f:
            for r in recs:
                f.write(json.dumps(r, ensure_ascii=False) + "\n")
        tmp.replace(target)
        written[llm] = target
        for r in recs:
            c = counts[(llm, r["model"], r["kernel"])]
            c["outputs"] += 1
            c["prompts"] += int(r["rank"] == 1)
        for where, reason, n in skipped:
            seen = not_imported.setdefault((where, reason), [0, 0])
            seen[0] += 1
            seen[1] += n
    table = Table(title="ParEval outputs imported")
    for name in ("llm", "model", "kernel", "prompts", "outputs"):
        table.add_column(name, justify="right" if name in ("prompts", "outputs") else "left")
    for (llm, model, kernel), c in sorted(counts.items()):
        table.add_row(llm, model, kernel, str(c["prompts"]), str(c["outputs"]))
    table.add_row("total", "", "", str(sum(c["prompts"] for c in counts.values())),
                  str(sum(c["outputs"] for c in counts.values())), style="bold")
    skipped_lines = [(where, f"{reason} ({files_n} file{'s' * (files_n != 1)}, {outputs} outputs)")
                     for (where, reason), (files_n, outputs) in sorted(not_imported.items())]
    return written, table, skipped_lines
