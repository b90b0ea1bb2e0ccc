"""`hpceval import`: suggestion dumps (the study's Copilot panels, the Llama-2 dumps, ParEval's outputs) to replay
JSONL. Registered on the app by cli.py; the parsing itself lives in hpceval.importers."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from hpceval.cli_errors import UserError, console, friendly


@friendly
def import_dumps(
    args: Annotated[list[str], typer.Argument(help="[FORMAT] SOURCE...: a folder or file of dumps, optionally after its "
                                                   "format (copilot | llama2 | pareval), e.g. `import copilot DIR`, "
                                                   "`import pareval FILE.json...`")],
    fmt: Annotated[str, typer.Option("--format", help="auto (detect per file) | copilot | llama2 | pareval")] = "auto",
    out: Annotated[Path | None, typer.Option(help="replay JSONL to write (default results/<format>.jsonl); pareval: "
                                                  "the folder of one JSONL per LLM (default results/pareval)")] = None,
) -> None:
    """Parse suggestion dumps (the study's Copilot panels, the Llama-2 dumps, ParEval's outputs) into replay JSONL;
    prints counts per language x model x kernel and one line per file skipped (no dump: prompt files, READMEs)
    or output not imported, with the reason. Mixed or mismatched dump formats are refused, never parsed by guess."""
    from hpceval.importers import FORMATS, UnknownFormat
    from hpceval.importers import import_dumps as do_import

    if len(args) >= 2 and args[0] in FORMATS or len(args) == 2:
        if args[0] not in FORMATS or fmt not in ("auto", args[0]):
            raise UserError(f"unknown import format {args[0]!r} (known: {', '.join(FORMATS)})" if args[0] not in FORMATS
                            else f"format {args[0]!r} contradicts --format {fmt}")
        fmt, args = args[0], args[1:]
    if fmt == "auto" and args and all(a.endswith(".json") for a in args):
        fmt = "pareval"
    if fmt == "pareval":
        return _import_pareval([Path(a) for a in args], out or Path("results/pareval"))
    if len(args) != 1:
        raise UserError("usage: hpceval import [copilot|llama2] SOURCE [--format auto|copilot|llama2] [--out FILE] | "
                        "hpceval import pareval FILE.json... [--out DIR]")
    out = out or Path(f"results/{fmt if fmt != 'auto' else 'import'}.jsonl")
    try:
        found, table, skipped = do_import(Path(args[0]), out, fmt)
    except UnknownFormat as exc:
        raise UserError(str(exc)) from None
    Console(width=max(console.width, 132)).print(table)  # a narrow terminal would elide the model ids
    _print_skipped(skipped, "files")
    console.print(f"{found} dumps: wrote {out}; evaluate with: hpceval run --llm replay:{out} --style paper --hints all "
                  "--models all (-n 30 keeps the suggestions of prompts the study asked more than once)", soft_wrap=True)


def _print_skipped(skipped: list[tuple[str, str]], what: str) -> None:
    """One line per thing not imported (`skipped NAME: reason`), then the count per reason."""
    from collections import Counter

    for name, reason in skipped:
        console.print(f"skipped {name}: {reason}", highlight=False, soft_wrap=True)
    if skipped:
        kinds = Counter(reason.split(":")[0].split(" (")[0] for _, reason in skipped)
        console.print(f"{len(skipped)} {what} skipped: " + ", ".join(f"{n} {k}" for k, n in kinds.most_common()),
                      highlight=False, soft_wrap=True)


def _import_pareval(files: list[Path], out: Path) -> None:
    from hpceval.importers.pareval import ParEvalFormatError, import_pareval

    if not files:
        raise UserError("usage: hpceval import pareval FILE.json... [--out DIR]")
    try:
        written, table, skipped = import_pareval(files, out)
    except ParEvalFormatError as exc:
        raise UserError(str(exc)) from None
    Console(width=max(console.width, 132)).print(table)
    _print_skipped(skipped, "prompts")
    for llm, path in written.items():
        console.print(f"pareval {llm}: wrote {path}; evaluate with: hpceval run --llm replay:{path} --style paper "
                      "--models cpp-openmp,cpp-kokkos --kernels axpy,gemv,gemm -n 20", highlight=False, soft_wrap=True)
