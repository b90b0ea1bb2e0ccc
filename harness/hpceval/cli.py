"""The `hpceval` command line (typer): run, list, selftest, doctor, report, import, images, export-generations, recover.

Bad input (unknown names, broken specs, bad numbers, an unusable --out, a damaged store, a replay file that
matches nothing, unreachable endpoints, missing engines, malformed options) ends in one red line that says what to
do and exit code 2, never a traceback, and is found before anything is created (preflight.py); Ctrl-C leaves the
results directory consistent and the same command resumes. One run at a time writes a results directory.
"""

from __future__ import annotations

import codecs
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from hpceval.cli_errors import UserError, console, error, friendly
from hpceval.cli_import import import_dumps

app = typer.Typer(add_completion=False, no_args_is_help=True, help=__doc__.splitlines()[0])


def _split(value: str | None) -> list[str] | None:
    return [v.strip() for v in value.split(",") if v.strip()] if value else None


def _version_callback(value: bool) -> None:
    if value:
        from hpceval import __version__

        print(f"hpceval {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: Annotated[bool, typer.Option("--version", is_eager=True, callback=_version_callback,
                                          help="print the version and exit")] = False,
) -> None:
    """Grade LLM-written HPC kernels: kernel x programming model prompts -> suggestions -> sandboxed verdicts."""


KernelsDir = Annotated[Path | None, typer.Option(help="a user kernels folder added to the built-in kernels (its "
                                                 "models.toml adds programming models); also HPCEVAL_KERNELS_SPEC "
                                                 "(docs/extending.md)")]
PromptsDir = Annotated[Path | None, typer.Option(help="a user prompt templates folder: each STYLE.j2 in it is a "
                                                 "style for --style; also HPCEVAL_PROMPTS_DIR (docs/extending.md)")]


def _use_folders(kernels_dir: Path | None, prompts_dir: Path | None) -> None:
    """Point the catalog and the templates at the user's folders: through the environment, so that worker
    processes (local jobs, Dask workers started here) load the same kernels."""
    from hpceval.prompts import PROMPTS_ENV
    from hpceval.spec import KERNELS_ENV

    for value, name, option in ((kernels_dir, KERNELS_ENV, "--kernels-dir"), (prompts_dir, PROMPTS_ENV,
                                                                               "--prompts-dir")):
        if value is None:
            continue
        if not value.is_dir():
            raise UserError(f"{option} {value}: not a directory")
        os.environ[name] = str(value.resolve())


@app.command()
@friendly
def run(
    llm: Annotated[str | None, typer.Option(help="reference | local | openai:MODEL | replay:FILE.jsonl (default: local, or openai when OPENAI_API_KEY is set)")] = None,
    models: Annotated[str, typer.Option(help="programming models: ids or bare names (openmp, cuda, ...), comma-separated, or all")] = "all",
    kernels: Annotated[str, typer.Option(help="kernels, comma-separated, or all")] = "all",
    languages: Annotated[str | None, typer.Option(help="narrow to languages: cpp,fortran,python,julia")] = None,
    style: Annotated[str, typer.Option(help="prompt style: chat, paper, a user style (--prompts-dir) or all")] = "chat",
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
    executor: Annotated[str, typer.Option(help="local (nsjail sandbox), docker, or dask (Dask workers, each with the local sandbox; docs/cluster.md)")] = "local",
    jobs: Annotated[int, typer.Option(help="concurrent build/run jobs (default: CPU count); with --executor dask and no address: LocalCluster workers")] = 0,
    scheduler: Annotated[str | None, typer.Option(help="--executor dask: join this Dask scheduler (tcp://HOST:PORT)")] = None,
    cluster: Annotated[str | None, typer.Option(help="--executor dask: start adaptive worker jobs on slurm, pbs or lsf (dask-jobqueue)")] = None,
    cluster_config: Annotated[Path | None, typer.Option(help="--cluster: TOML with queue, account, walltime, cores, memory, gpus, env (docs/cluster.md)")] = None,
    timing: Annotated[bool, typer.Option(help="time correct kernels at the timing size")] = True,
    logprobs: Annotated[bool | None, typer.Option("--logprobs/--no-logprobs", help="ask the server for token log-probabilities and rank suggestions by their mean (default: on for OpenAI's API, off for other servers, where they slow generation; off ranks by order)")] = None,
    out: Annotated[Path, typer.Option(help="results directory (rerun the same command to resume)")] = Path("results/run"),
    rounds: Annotated[int, typer.Option(help="feedback rounds: 1 = one shot; R > 1 asks again, in the same conversation, for each suggestion that is not correct, with the harness's evidence (docs/rounds.md)")] = 1,
    optimize: Annotated[bool, typer.Option(help="with --rounds: also ask correct suggestions below --optimize-below to be faster")] = False,
    optimize_below: Annotated[float, typer.Option(help="--optimize threshold: fraction of the roofline (else speedup over the reference solution)")] = 0.5,
    dry_run: Annotated[bool, typer.Option(help="print the plan (LLM, endpoint, prompts, requests, estimated tokens and cost) and exit: no request, nothing created")] = False,
    strict: Annotated[bool, typer.Option(help="a model the endpoint's /models does not list is an error, not a warning")] = False,
    kernels_dir: KernelsDir = None,
    prompts_dir: PromptsDir = None,
    llm_label: Annotated[str | None, typer.Option(help="the LLM's name in the results (default: replay: the LLM its records name; else the --llm spec)")] = None,
) -> None:
    """Generate suggestions, evaluate them in the sandbox, store verdicts, export DIR/evaluations.csv."""
    from contextlib import nullcontext

    from hpceval import preflight
    from hpceval.dispatch import open_dispatcher, sandbox_of
    from hpceval.evaluate import Evaluator
    from hpceval.executors import get_executor
    from hpceval.llm import GenerationParams, get_backend, load_price_table
    from hpceval.pipeline import Progress as RunProgress
    from hpceval.pipeline import RunConfig, default_jobs
    from hpceval.pipeline import run as run_pipeline
    from hpceval.prompts import DEFAULT_HINTS, DEFAULT_STYLES, HINTS, all_styles, plan, select
    from hpceval.runplan import choose_llm, header_lines, plan_rows, plan_table, price_of, unlisted_model
    from hpceval.spec import catalog
    from hpceval.store import RunLock, Store, check_results_dir

    # everything that can be refused is refused before anything is created (preflight.py)
    preflight.check_numbers(n, concurrency, jobs, max_tokens, temperature, top_p, request_timeout)
    _use_folders(kernels_dir, prompts_dir)
    cat = catalog()
    choice = choose_llm(llm, base_url)
    llm = choice.spec
    kernel_specs = cat.select_kernels(_split(kernels))
    model_specs = cat.select_models(_split(models), _split(languages))
    if not model_specs:
        raise UserError("no programming model left after --languages; see `hpceval list models`")
    styles = select(style, all_styles(), DEFAULT_STYLES, "style")
    hint_list = select(hints, HINTS, DEFAULT_HINTS, "hint")
    prompts = plan(cat, kernel_specs, model_specs, styles, hint_list)
    preflight.check_prompts(prompts)
    check_results_dir(out)
    stops = [codecs.decode(s, "unicode_escape") for s in stop or []]
    params = GenerationParams(n=n, temperature=temperature, top_p=top_p, max_tokens=max_tokens, seed=seed, stop=stops)
    prices = load_price_table(price_table) if price_table else None
    options: dict[str, Any] = {"base_url": base_url, "concurrency": concurrency, "fresh": fresh,
                               "timeout": request_timeout, "logprobs": logprobs}  # each backend takes those it knows
    per_prompt = 1 if choice.kind == "reference" else n  # the reference backend answers one solution per prompt
    for line in header_lines(choice, prompts, per_prompt, price_of(choice, prices) is not None):
        console.print(line, highlight=False, soft_wrap=True)
    if dry_run:
        wide = console if console.is_terminal else Console(file=console.file, width=160, color_system=None)
        wide.print(plan_table(plan_rows(prompts, choice, n, max_tokens, prices)))
        console.print(f"dry run: nothing was asked and nothing was written; without --dry-run the results go to "
                      f"{out}", highlight=False, soft_wrap=True)
        return
    backend = get_backend(llm, **options)
    if hasattr(backend, "on_event"):  # retries are told as they happen, above the progress bars
        backend.on_event = lambda line: error(line, label="retry:", style="yellow")
    try:
        from hpceval.rounds import check_backend  # feedback rounds need a backend that holds a conversation

        check_backend(backend, styles, rounds, optimize, timing, optimize_below)
        note = preflight.check_replay(backend, prompts, n)
        dispatcher = open_dispatcher(executor, scheduler=scheduler, cluster=cluster, cluster_config=cluster_config,
                                     workers=jobs, announce=lambda line: console.print(line, highlight=False))
        ex = get_executor(sandbox_of(executor))  # dask: the workers' local sandbox
        preflight.check_endpoint(backend)
        warning = unlisted_model(getattr(backend, "listed_models", None), choice.model, choice.endpoint)
        if warning and strict:
            raise UserError(warning + " (--strict)")
        if warning:
            error(warning, label="warning:", style="yellow")
        evaluator = Evaluator(cat, ex, seed=seed, timing=timing,
                              canaries=llm != "reference")  # a reference run is its own canary
        label, label_note = _run_label(llm, backend, llm_label)
        if label_note:
            error(label_note, label="note:", style="yellow")
        config = RunConfig(llm=label, kernels=[k.id for k in kernel_specs], models=[m.id for m in model_specs],
                           styles=styles, hints=hint_list, generation=params, seed=seed, executor=executor,
                           timing=timing, llm_identity=_identity(backend), rounds=rounds, optimize=optimize,
                           optimize_below=optimize_below)
        if note:
            error(note, label="note:", style="yellow")
        with RunLock(out), dispatcher or nullcontext():  # a Dask cluster is released when the run ends
            store = Store(out)
            try:
                before = store.request_ids(config.run_id())
                resumed = _resume_line(store, config.run_id(), len(prompts) * per_prompt)
                if resumed:
                    console.print(resumed, highlight=False)
                run_id = _run_with_progress(lambda hooks: run_pipeline(config, cat, store, backend, evaluator,
                                                                       jobs or default_jobs(), hooks,
                                                                       dispatcher=dispatcher), RunProgress)
                frame = store.results(run_id)
                usage = preflight.usage_lines(store, run_id, before, config.llm_identity.get("model") or label, prices)
                if rounds > 1:
                    from hpceval.report.rounds import round_lines

                    usage += round_lines(store, run_id, config.llm_identity.get("model") or label, prices)
                failed, all_failed = preflight.generation_outcome(store, run_id)
                if timing and not frame.empty:  # the ceilings the timing check used, for `hpceval report DIR`
                    from hpceval.ceilings import write_run_ceilings

                    timed = frame[frame["time_median_s"].notna()]
                    write_run_ceilings(out, set(timed["device"].dropna()))
            finally:
                store.close()
    finally:
        backend.close()
    _summary(frame)
    for line in usage:
        console.print(line, highlight=False)
    console.print(f"run {run_id}: {len(frame)} suggestions -> {out / 'evaluations.csv'} and {out / 'results.sqlite'}",
                  highlight=False, soft_wrap=True)
    answered = config.llm_identity.get("model") or label
    console.print(f"LLM: {label}" + (f" (answered as {answered})" if answered not in label else "")
                  + f"; next: hpceval report {out}", highlight=False, soft_wrap=True)
    if failed:
        error(failed, label="error:" if all_failed else "note:", style="red" if all_failed else "yellow")
    if all_failed:
        raise typer.Exit(1)


def _resume_line(store: Any, run_id: str, planned: int) -> str | None:
    """'resuming run ID: N of M done, K to go' when the store already holds evaluations of this run."""
    try:
        done = len(store.results(run_id))
    except Exception:  # noqa: BLE001 - informative only; the run itself reports a damaged store
        return None
    if not done:
        return None
    return f"resuming run {run_id}: {done} of {planned} suggestions done, {max(0, planned - done)} to go"


def _run_with_progress(start: Callable[[Any], str], hooks_type: Any) -> str:
    """Run the pipeline under two progress bars (generate, evaluate); returns the run id."""
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
               TextColumn("{task.fields[last]}"))
    with Progress(*columns, console=console, transient=False) as bar:
        gen_task = bar.add_task("generate", total=None, last="")
        eval_task = bar.add_task("evaluate", total=None, last="")
        hooks = hooks_type(
            on_generated=lambda done, total: bar.update(gen_task, completed=done, total=total),
            on_evaluated=lambda done, total, verdict: bar.update(eval_task, completed=done, total=total, last=verdict))
        return start(hooks)


def _run_label(spec: str, backend: Any, label: str | None) -> tuple[str, str]:
    """(the LLM's name in the results, a note when it had to be guessed). A replayed LLM is named by the LLM its
    records name, never by the replay file's path (which names no model and would publish the user's paths)."""
    if label is not None:
        if not label.strip():
            raise UserError("--llm-label is empty; give the LLM's name, e.g. --llm-label gpt-4o-mini")
        return label.strip(), ""
    if not spec.startswith("replay:"):
        return spec, ""
    named = sorted(getattr(backend, "llms", ()) or ())
    if len(named) == 1:
        return named[0], ""
    stem = Path(spec.split(":", 1)[1]).stem
    why = "name no LLM (field `llm`)" if not named else f"name {len(named)} LLMs ({', '.join(named[:3])})"
    return stem, f"the replay records {why}: the LLM is labelled {stem!r} after the file name; pass --llm-label NAME"


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
    what: Annotated[str, typer.Argument(help="models | kernels | styles | prompts")],
    models: Annotated[str, typer.Option(help="for prompts: models")] = "all",
    kernels: Annotated[str, typer.Option(help="for prompts: kernels")] = "all",
    style: Annotated[str, typer.Option(help="for prompts: chat, paper, a user style or all (default: as `run`)")] = "chat",
    hints: Annotated[str, typer.Option(help="for prompts: none, keyword or all (default: as `run`)")] = "none",
    show_text: Annotated[bool, typer.Option("--text", help="print the prompt texts")] = False,
    fmt: Annotated[str, typer.Option("--format", help="table | csv | json (tables are never cut when piped)")] = "table",
    kernels_dir: KernelsDir = None,
    prompts_dir: PromptsDir = None,
) -> None:
    """List the programming models, kernels, styles, or the prompts of the matrix."""
    from hpceval.prompts import DEFAULT_HINTS, DEFAULT_STYLES, HINTS, all_styles, plan, select
    from hpceval.spec import catalog, unknown_name
    from hpceval.tables import check_format, emit

    check_format(fmt)
    if what not in ("models", "kernels", "styles", "prompts"):
        raise UserError(unknown_name("list", what, ("models", "kernels", "styles", "prompts")))
    _use_folders(kernels_dir, prompts_dir)
    cat = catalog()
    if what == "styles":
        emit(("style",), [(s,) for s in all_styles()], fmt, console)
        return
    if what == "models":
        emit(("id", "language", "name", "study words", "toolchain", "device", "aliases"),
             [(m.id, m.language, m.name, m.words, m.toolchain, m.device, ", ".join(m.aliases))
              for m in cat.models.values()], fmt, console)
        return
    if what == "kernels":
        emit(("id", "function", "summary", "study words", "dtype", "sizes"),
             [(k.id, k.function, k.summary, k.words, k.dtype, str(len(k.sizes.validation)))
              for k in cat.kernels.values()], fmt, console)
        return
    styles = select(style, all_styles(), DEFAULT_STYLES, "style")
    hint_list = select(hints, HINTS, DEFAULT_HINTS, "hint")
    prompts = plan(cat, cat.select_kernels(_split(kernels)), cat.select_models(_split(models)), styles, hint_list)
    if fmt != "table":
        header = ("prompt_id", "kernel", "model", "language", "style", "hint") + (("text",) if show_text else ())
        emit(header, [(p.prompt_id, p.kernel, p.model, p.language, p.style, p.hint) + ((p.text,) if show_text else ())
                      for p in prompts], fmt, console)
        return
    for p in prompts:
        if show_text:
            console.rule(p.prompt_id)
            console.print(p.text, markup=False, highlight=False, soft_wrap=True)
        else:
            console.print(p.prompt_id, highlight=False, soft_wrap=True)
    console.print(f"{len(prompts)} prompts")


@app.command()
@friendly
def selftest(
    models: Annotated[str, typer.Option(help="programming models (ids or bare names) or all")] = "all",
    kernels: Annotated[str, typer.Option(help="kernels or all")] = "all",
    jobs: Annotated[int, typer.Option(help="concurrent jobs (default: CPU count)")] = 0,
    min_kill: Annotated[float, typer.Option(help="required fraction of mutants killed per cell")] = 0.9,
    markdown: Annotated[Path | None, typer.Option(help="also write the table as Markdown")] = None,
    executor: Annotated[str, typer.Option(help="local or docker")] = "local",
    kernels_dir: KernelsDir = None,
) -> None:
    """Run every reference solution (must pass) and its automatic mutants (must be rejected)."""
    from hpceval.evaluate import Evaluator
    from hpceval.executors import get_executor
    from hpceval.pipeline import default_jobs
    from hpceval.selftest import run_selftest
    from hpceval.spec import catalog

    _use_folders(kernels_dir, None)
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
    markdown: Annotated[bool, typer.Option("--markdown", help="print a Markdown table (for the README); same as --format markdown")] = False,
    fmt: Annotated[str, typer.Option("--format", help="table | csv | json | markdown (csv and json: the model rows only)")] = "table",
) -> None:
    """One row per programming model: toolchain found (version), can build here, can run here, how to get it."""
    from hpceval.spec import catalog
    from hpceval.tables import check_format, emit, wide_console
    from hpceval.toolchains import UnknownToolchain, get_toolchain
    from hpceval.toolchains.cuda import nvidia_gpu, offload_compilers
    from hpceval.toolchains.hip import amd_gpu_arch

    fmt = "markdown" if markdown else check_format(fmt, extra=("markdown",))
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
    from hpceval.canary import failing

    canaries = [f"{c['kernel']}/{c['model']} ({c['toolchain']} {c['version']}, {c['when']}): reference "
                f"{c['verdict']}: {' '.join(c['evidence'].split())[:200]}" for c in failing()]
    canary_line = ("Environment canaries failing (these models' rows are infra_error here): " + "; ".join(canaries)
                   if canaries else "Environment canaries: none failing")
    if fmt in ("csv", "json"):
        emit(header, rows, fmt, console)
        return
    if fmt == "markdown":
        print(f"GPU devices: {devices}  \nGPU offload compilers (OpenMP target / OpenACC): {offload}  \n"
              f"GPU memory checker: {memcheck}  \n{canary_line}\n")
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
        for row in rows:
            print("| " + " | ".join(cell.replace("|", "\\|") or "–" for cell in row) + " |")
        return
    console.print(f"GPU devices: {devices}\nGPU offload compilers (OpenMP target / OpenACC): {offload}\n"
                  f"GPU memory checker: {memcheck}\n{canary_line}", highlight=False, soft_wrap=True)
    table = Table(*header)
    for row in rows:
        table.add_row(*row)
    wide_console(console, header, rows).print(table)


@app.command()
@friendly
def report(
    runs: Annotated[list[Path], typer.Argument(help="results directories (each with results.sqlite)")],
    out: Annotated[Path, typer.Option(help="where to write CSV, HTML, Markdown and PNG files")] = Path("results/report"),
    rubric: Annotated[Path | None, typer.Option(help="proficiency rubric TOML (default: DESIGN.md's five levels)")] = None,
    ceilings: Annotated[list[Path] | None, typer.Option(help="ceilings.json/.csv with measured GFLOP/s and GB/s per device")] = None,
    baseline: Annotated[list[Path] | None, typer.Option(help="reference run(s) whose timings are the speedup baseline")] = None,
    ks: Annotated[str, typer.Option(help="k values for pass@k and speedup@k, comma-separated")] = "1,3,5,10",
    price_table: Annotated[Path | None, typer.Option(help="TOML/JSON: model -> {prompt, completion} US$ per million tokens; the cost per feedback round in rounds.csv")] = None,
    merge: Annotated[bool, typer.Option(help="the runs of one LLM are one evaluation split across machines (CPU and GPU): per suggestion the executed row replaces the infra_error ones")] = False,
    combined: Annotated[bool, typer.Option(help="also a combined leaderboard (combined.csv, first on the page) of the LLMs on the kernel x programming model cells all of them answered, e.g. LLMs of different publications")] = False,
    caveat: Annotated[str | None, typer.Option(help="the combined leaderboard's caveat, shown on the page and in every combined.csv row (implies --combined)")] = None,
    caveat_file: Annotated[Path | None, typer.Option(help="a file whose text is the caveat (implies --combined)")] = None,
    pages: Annotated[bool, typer.Option(help="write the drill-down pages (one per suggestion and per table cell); --no-pages for a folder to publish")] = True,
) -> None:
    """Scores (proficiency, pass@k, speedup@k with CIs) -> leaderboard CSVs, HTML page, Markdown, figures."""
    from hpceval.report import build_report
    from hpceval.report.combined import read_caveat

    if caveat_file is not None and not caveat_file.is_file():
        raise UserError(f"--caveat-file {caveat_file}: no such file")
    combined = combined or caveat is not None or caveat_file is not None

    try:
        k_values = [int(k) for k in ks.split(",") if k.strip()]
    except ValueError:
        raise UserError(f"--ks takes integers, e.g. 1,3,5,10 (got {ks!r})") from None
    from hpceval.llm import load_price_table

    prices = load_price_table(price_table) if price_table else None
    paths = build_report(runs, out, rubric=rubric, ceilings=ceilings or None, baseline_runs=baseline or (), ks=k_values,
                         prices=prices, merge=merge, combined=combined,
                         caveat=read_caveat(caveat, caveat_file) if combined else None, pages=pages)
    for path in paths:
        console.print(str(path), highlight=False)


app.command("import")(import_dumps)

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


@app.command()
@friendly
def recover(
    run_dir: Annotated[Path, typer.Argument(help="results directory whose results.sqlite is damaged")],
) -> None:
    """Copy what is readable of a damaged results.sqlite into a new store; the damaged file is kept beside it."""
    from hpceval.salvage import recover as do_recover

    console.print(do_recover(run_dir).summary(), highlight=False, soft_wrap=True)


def main() -> None:
    """The console script: malformed options and arguments are one line too (exit 2), not a box of help."""
    usage_error = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "UsageError")  # typer's own click
    if not sys.stdout.isatty():  # piped help: click's plain text, not boxes squeezed to a default 80 columns
        from typer import core as typer_core

        typer_core.HAS_RICH = False
    try:
        code = app(standalone_mode=False)
    except usage_error as exc:
        if type(exc).__name__ == "NoArgsIsHelpError" and exc.ctx is not None:  # `hpceval` alone: the help
            help_text = exc.ctx.get_help()
            if help_text:
                print(help_text)
            sys.exit(2)
        where = f" (see `{exc.ctx.command_path} --help`)" if exc.ctx else ""
        error(" ".join(exc.format_message().split()) + where)
        sys.exit(2)
    except (typer.Abort, KeyboardInterrupt):
        error("everything finished so far is saved; rerun the same command to resume", label="interrupted:",
              style="yellow")
        sys.exit(130)
    except BrokenPipeError:
        sys.exit(0)
    sys.exit(code if isinstance(code, int) else 0)


if __name__ == "__main__":
    main()
