"""The `hpceval` command line (typer): run, list, selftest, doctor, report, import, images, export-generations.

Bad input (unknown names, broken specs, unreachable endpoints, missing engines) ends in one red line that says
what to do, never a traceback; Ctrl-C leaves the results directory consistent and the same command resumes.
"""

from __future__ import annotations

import codecs
import os
import sys
from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

app = typer.Typer(add_completion=False, no_args_is_help=True, help=__doc__.splitlines()[0])
console = Console()
err_console = Console(stderr=True)

DEFAULT_MODEL_ENV = "HPCEVAL_OPENAI_MODEL"


class UserError(Exception):
    """An error the user can fix; printed as one line."""


def _user_errors() -> tuple[type[BaseException], ...]:
    from hpceval.bind import BindError
    from hpceval.executors import ExecutorUnavailable
    from hpceval.llm import BackendError
    from hpceval.metrics import RubricError
    from hpceval.spec import SpecError, UnknownNameError

    return (UserError, UnknownNameError, SpecError, BackendError, ExecutorUnavailable, BindError, FileNotFoundError,
            RubricError)


def friendly(func: Callable[..., Any]) -> Callable[..., Any]:
    """Turn expected failures into one-line errors (exit 2) and Ctrl-C into a resumable stop (exit 130)."""

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except KeyboardInterrupt:
            err_console.print("[yellow]interrupted: everything finished so far is saved; rerun the same command to resume[/]")
            raise typer.Exit(130) from None
        except _user_errors() as exc:
            err_console.print(f"[red]error:[/] {exc}", highlight=False, soft_wrap=True)
            raise typer.Exit(2) from None

    return wrapper


def _split(value: str | None) -> list[str] | None:
    return [v.strip() for v in value.split(",") if v.strip()] if value else None


def _default_llm() -> str:
    if os.environ.get("OPENAI_API_KEY") or os.environ.get("OPENAI_BASE_URL"):
        return f"openai:{os.environ.get(DEFAULT_MODEL_ENV, 'gpt-4o-mini')}"
    return "local"


@app.command()
@friendly
def run(
    llm: Annotated[str | None, typer.Option(help="reference | local | openai:MODEL | replay:FILE.jsonl (default: local, or openai when OPENAI_API_KEY is set)")] = None,
    models: Annotated[str, typer.Option(help="programming models: ids or bare names (openmp, cuda, ...), comma-separated, or all")] = "all",
    kernels: Annotated[str, typer.Option(help="kernels, comma-separated, or all")] = "all",
    languages: Annotated[str | None, typer.Option(help="narrow to languages: cpp,fortran,python,julia")] = None,
    style: Annotated[str, typer.Option(help="prompt style: chat, paper or all")] = "chat",
    hints: Annotated[str, typer.Option(help="hint variants: none, keyword or all")] = "none",
    n: Annotated[int, typer.Option("-n", "--n", help="suggestions per prompt")] = 10,
    temperature: Annotated[float, typer.Option(help="sampling temperature")] = 0.2,
    top_p: Annotated[float, typer.Option(help="nucleus sampling")] = 0.95,
    max_tokens: Annotated[int, typer.Option(help="token limit per suggestion")] = 1024,
    seed: Annotated[int, typer.Option(help="seed for sampling and for the validation inputs")] = 1234,
    base_url: Annotated[str | None, typer.Option(help="OpenAI-compatible endpoint (else OPENAI_BASE_URL)")] = None,
    concurrency: Annotated[int, typer.Option(help="concurrent LLM requests")] = 4,
    fresh: Annotated[bool, typer.Option(help="ignore cached generations")] = False,
    stop: Annotated[list[str] | None, typer.Option(help="stop sequence (repeatable; \\n escapes); default: per-language ones for --style paper")] = None,
    request_timeout: Annotated[float | None, typer.Option(help="seconds before an LLM request is retried")] = None,
    price_table: Annotated[Path | None, typer.Option(help="TOML/JSON: model -> {prompt, completion} US$ per million tokens; adds the cost to the summary")] = None,
    executor: Annotated[str, typer.Option(help="local (nsjail sandbox) or docker")] = "local",
    jobs: Annotated[int, typer.Option(help="concurrent build/run jobs (default: CPU count)")] = 0,
    timing: Annotated[bool, typer.Option(help="time correct kernels at the timing size")] = True,
    out: Annotated[Path, typer.Option(help="results directory (rerun the same command to resume)")] = Path("results/run"),
) -> None:
    """Generate suggestions, evaluate them in the sandbox, store verdicts, export DIR/evaluations.csv."""
    from hpceval.evaluate import Evaluator
    from hpceval.executors import get_executor
    from hpceval.llm import GenerationParams, get_backend, load_price_table, usage_summary
    from hpceval.pipeline import Progress as RunProgress
    from hpceval.pipeline import RunConfig, default_jobs
    from hpceval.pipeline import run as run_pipeline
    from hpceval.prompts import HINTS, STYLES
    from hpceval.spec import catalog
    from hpceval.store import Store

    cat = catalog()
    llm = llm or _default_llm()
    kernel_specs = cat.select_kernels(_split(kernels))
    model_specs = cat.select_models(_split(models), _split(languages))
    if not model_specs:
        raise UserError("no programming model left after --languages; see `hpceval list models`")
    styles = list(STYLES) if style == "all" else _split(style) or ["chat"]
    hint_list = list(HINTS) if hints == "all" else _split(hints) or ["none"]
    stops = [codecs.decode(s, "unicode_escape") for s in stop or []]
    params = GenerationParams(n=n, temperature=temperature, top_p=top_p, max_tokens=max_tokens, seed=seed, stop=stops)
    prices = load_price_table(price_table) if price_table else None
    options: dict[str, Any] = {"base_url": base_url, "concurrency": concurrency, "fresh": fresh,
                               "timeout": request_timeout}  # each backend takes the options it knows
    backend = get_backend(llm, **options)
    ex = get_executor(executor)
    evaluator = Evaluator(cat, ex, seed=seed, timing=timing)
    config = RunConfig(llm=llm, kernels=[k.id for k in kernel_specs], models=[m.id for m in model_specs],
                       styles=styles, hints=hint_list, generation=params, seed=seed, executor=executor,
                       timing=timing, llm_identity=_identity(backend))
    store = Store(out)
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
               TextColumn("{task.fields[last]}"))
    try:
        with Progress(*columns, console=console, transient=False) as bar:
            gen_task = bar.add_task("generate", total=None, last="")
            eval_task = bar.add_task("evaluate", total=None, last="")
            hooks = RunProgress(
                on_generated=lambda done, total: bar.update(gen_task, completed=done, total=total),
                on_evaluated=lambda done, total, verdict: bar.update(eval_task, completed=done, total=total, last=verdict))
            run_id = run_pipeline(config, cat, store, backend, evaluator, jobs or default_jobs(), hooks)
        frame = store.results(run_id)
        usage = store.usage(run_id)
    finally:
        backend.close()
        store.close()
    _summary(frame)
    line = usage_summary(usage, config.llm_identity.get("model") or llm, prices)
    if line:
        console.print(line, highlight=False)
    console.print(f"run {run_id}: {len(frame)} suggestions -> {out / 'evaluations.csv'} and {out / 'results.sqlite'}")


def _identity(backend: Any) -> dict:
    try:
        return backend.describe()
    except Exception:  # noqa: BLE001 - identity is informative only
        return {}


def _summary(frame) -> None:
    """Correct / total per programming model x kernel, and the verdict counts."""
    if frame.empty:
        console.print("no results")
        return
    kernels = list(dict.fromkeys(frame["kernel"]))
    table = Table(title="correct / suggestions")
    table.add_column("model")
    for k in kernels:
        table.add_column(k, justify="right")
    for model, group in frame.groupby("model", sort=False):
        cells = []
        for k in kernels:
            sub = group[group["kernel"] == k]
            cells.append("–" if sub.empty else f"{int((sub['verdict'] == 'correct').sum())}/{len(sub)}")
        table.add_row(model, *cells)
    console.print(table)
    counts = frame["verdict"].value_counts()
    console.print("verdicts: " + ", ".join(f"{v}={c}" for v, c in counts.items()))


@app.command("list")
@friendly
def list_(
    what: Annotated[str, typer.Argument(help="models | kernels | prompts")],
    models: Annotated[str, typer.Option(help="for prompts: models")] = "all",
    kernels: Annotated[str, typer.Option(help="for prompts: kernels")] = "all",
    style: Annotated[str, typer.Option(help="for prompts: chat, paper or all")] = "all",
    hints: Annotated[str, typer.Option(help="for prompts: none, keyword or all")] = "all",
    show_text: Annotated[bool, typer.Option("--text", help="print the prompt texts")] = False,
) -> None:
    """List the programming models, kernels, or the prompts of the matrix."""
    from hpceval.prompts import HINTS, STYLES, plan
    from hpceval.spec import catalog

    cat = catalog()
    if what == "models":
        table = Table("id", "language", "name", "study words", "toolchain", "device", "aliases")
        for m in cat.models.values():
            table.add_row(m.id, m.language, m.name, m.words, m.toolchain, m.device, ", ".join(m.aliases))
        console.print(table)
    elif what == "kernels":
        table = Table("id", "function", "summary", "study words", "dtype", "sizes")
        for k in cat.kernels.values():
            table.add_row(k.id, k.function, k.summary, k.words, k.dtype, str(len(k.sizes.validation)))
        console.print(table)
    elif what == "prompts":
        styles = list(STYLES) if style == "all" else _split(style)
        hint_list = list(HINTS) if hints == "all" else _split(hints)
        prompts = plan(cat, cat.select_kernels(_split(kernels)), cat.select_models(_split(models)), styles, hint_list)
        for p in prompts:
            if show_text:
                console.rule(p.prompt_id)
                console.print(p.text, markup=False, highlight=False)
            else:
                console.print(p.prompt_id, highlight=False)
        console.print(f"{len(prompts)} prompts")
    else:
        raise UserError(f"unknown list {what!r}; valid: models, kernels, prompts")


@app.command()
@friendly
def selftest(
    models: Annotated[str, typer.Option(help="programming models (ids or bare names) or all")] = "all",
    kernels: Annotated[str, typer.Option(help="kernels or all")] = "all",
    jobs: Annotated[int, typer.Option(help="concurrent jobs (default: CPU count)")] = 0,
    min_kill: Annotated[float, typer.Option(help="required fraction of mutants killed per cell")] = 0.9,
    markdown: Annotated[Path | None, typer.Option(help="also write the table as Markdown")] = None,
    executor: Annotated[str, typer.Option(help="local or docker")] = "local",
) -> None:
    """Run every reference solution (must pass) and its automatic mutants (must be rejected)."""
    from hpceval.evaluate import Evaluator
    from hpceval.executors import get_executor
    from hpceval.pipeline import default_jobs
    from hpceval.selftest import run_selftest
    from hpceval.spec import catalog

    cat = catalog()
    evaluator = Evaluator(cat, get_executor(executor), timing=False)
    report = run_selftest(cat, evaluator, cat.select_kernels(_split(kernels)), cat.select_models(_split(models)),
                          jobs=jobs or default_jobs())
    console.print(report.to_table())
    if report.survivors:
        console.print(f"{len(report.survivors)} surviving mutants:")
        for s in report.survivors:
            console.print(f"  {s}", highlight=False, markup=False)
    if markdown:
        markdown.write_text(report.to_markdown())
    if not report.ok(min_kill):
        raise typer.Exit(1)


@app.command()
@friendly
def doctor(
    markdown: Annotated[bool, typer.Option("--markdown", help="print a Markdown table (for the README)")] = False,
) -> None:
    """One row per programming model: toolchain found (version), can build here, can run here, how to get it."""
    from hpceval.spec import catalog
    from hpceval.toolchains import UnknownToolchain, get_toolchain
    from hpceval.toolchains.cuda import nvidia_gpu, offload_compilers
    from hpceval.toolchains.hip import amd_gpu_arch

    cat = catalog()
    gpu = nvidia_gpu()
    amd = amd_gpu_arch()
    devices = ", ".join(filter(None, [gpu.describe() if gpu else "", f"AMD {amd}" if amd else ""])) or "none"
    rows = []
    for m in cat.models.values():
        try:
            toolchain = get_toolchain(m.toolchain)
            info = toolchain.model_info(m, toolchain.detect())
        except UnknownToolchain as exc:
            rows.append((m.id, m.toolchain, "", "no", "no", str(exc)))
            continue
        except Exception as exc:  # noqa: BLE001 - one broken toolchain must not hide the others
            rows.append((m.id, m.toolchain, "", "no", "no", f"detection failed: {type(exc).__name__}: {exc}"))
            continue
        build = "yes" if info.available else "no"
        run_here = "yes" if info.available and info.can_run else "no"
        missing = "" if run_here == "yes" else (info.note + "; " if info.note else "") + info.how_to_get
        rows.append((m.id, m.toolchain, info.version or "–", build, run_here, missing.strip("; ")))
    header = ("model", "toolchain", "version", "build", "run", "how to get what is missing")
    offload = ", ".join(offload_compilers()) or ("none (offload models use their CPU route: gcc host fallback, "
                                                 "clang x86-64 offload)")
    from hpceval.toolchains.cuda import sanitizer

    checker = sanitizer()
    memcheck = (f"compute-sanitizer ({checker}): GPU jobs are validated again under memcheck" if checker else
                "none (GPU jobs run without the out-of-bounds device check; it comes with the CUDA toolkit)")
    if markdown:
        print(f"GPU devices: {devices}  \nGPU offload compilers (OpenMP target / OpenACC): {offload}  \n"
              f"GPU memory checker: {memcheck}\n")
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
        for row in rows:
            print("| " + " | ".join(cell.replace("|", "\\|") or "–" for cell in row) + " |")
        return
    console.print(f"GPU devices: {devices}\nGPU offload compilers (OpenMP target / OpenACC): {offload}\n"
                  f"GPU memory checker: {memcheck}", highlight=False)
    table = Table(*header)
    for row in rows:
        table.add_row(*row)
    console.print(table)


@app.command()
@friendly
def report(
    runs: Annotated[list[Path], typer.Argument(help="results directories (each with results.sqlite)")],
    out: Annotated[Path, typer.Option(help="where to write CSV, HTML, Markdown and PNG files")] = Path("results/report"),
    rubric: Annotated[Path | None, typer.Option(help="proficiency rubric TOML (default: DESIGN.md's five levels)")] = None,
    ceilings: Annotated[list[Path] | None, typer.Option(help="ceilings.json/.csv with measured GFLOP/s and GB/s per device")] = None,
    baseline: Annotated[list[Path] | None, typer.Option(help="reference run(s) whose timings are the speedup baseline")] = None,
    ks: Annotated[str, typer.Option(help="k values for pass@k and speedup@k, comma-separated")] = "1,3,5,10",
) -> None:
    """Scores (proficiency, pass@k, speedup@k with CIs) -> leaderboard CSVs, HTML page, Markdown, figures."""
    from hpceval.report import build_report

    try:
        k_values = [int(k) for k in ks.split(",") if k.strip()]
    except ValueError:
        raise UserError(f"--ks takes integers, e.g. 1,3,5,10 (got {ks!r})") from None
    paths = build_report(runs, out, rubric=rubric, ceilings=ceilings or None, baseline_runs=baseline or (), ks=k_values)
    for path in paths:
        console.print(str(path), highlight=False)


import_app = typer.Typer(help="Import suggestion dumps into the replay schema.")
app.add_typer(import_app, name="import")


@import_app.command("copilot")
@friendly
def import_copilot(
    source: Annotated[Path, typer.Argument(help="folder of the study's Copilot dumps (KERNEL/LANGUAGE/*_outputs.*)")],
    out: Annotated[Path, typer.Option(help="replay JSONL to write")] = Path("results/copilot.jsonl"),
) -> None:
    """Parse GitHub Copilot panel dumps of the study into replay JSONL; prints counts per language x model x kernel."""
    from hpceval.importers.copilot import import_copilot as do_import

    table = do_import(source, out)
    Console(width=max(console.width, 132)).print(table)  # a narrow terminal would elide the model ids
    console.print(f"wrote {out}; evaluate with: hpceval run --llm replay:{out} --style paper --hints all --models all "
                  "(-n 30 keeps the suggestions of prompts the study asked more than once)", soft_wrap=True)


images_app = typer.Typer(help="Per-toolchain container images.")
app.add_typer(images_app, name="images")


@images_app.command("build")
@friendly
def images_build(
    offline: Annotated[bool, typer.Option(help="build from a debootstrap rootfs (no registry needed)")] = False,
    toolchains: Annotated[str | None, typer.Option(help="toolchains to build, comma-separated (default: all)")] = None,
) -> None:
    """Build the toolchain images (containers/<toolchain>/Dockerfile, or offline from Debian's mirror)."""
    from hpceval.images import build_images

    for line in build_images(offline=offline, toolchains=_split(toolchains)):
        console.print(line, highlight=False)


@app.command("export-generations")
@friendly
def export_generations(
    run_dir: Annotated[Path, typer.Argument(help="results directory of a run")],
    out: Annotated[Path, typer.Option(help="replay JSONL to write")] = Path("generations.jsonl"),
    run_id: Annotated[str | None, typer.Option(help="one run of the store (default: all)")] = None,
) -> None:
    """Write a run's generations in the replay schema, to evaluate them elsewhere with --llm replay:FILE."""
    from hpceval.llm.replay import export_generations as do_export

    count = do_export(run_dir, out, run_id)
    console.print(f"wrote {count} generations to {out}")


def main() -> None:
    try:
        app()
    except BrokenPipeError:
        sys.exit(0)


if __name__ == "__main__":
    main()
