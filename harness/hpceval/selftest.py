"""Mutation self-test: the validator must accept every reference solution and reject its mutants.

For each kernel x programming model with a reference solution (kernels_spec/<kernel>/solutions/<model>.<ext>),
the reference is evaluated (it must be `correct`), then every mutant from hpceval.mutants (a mutant is killed
when its verdict is anything but `correct`). A surviving mutant is either an equivalent mutant (an operator to
improve) or a wrong kernel that the harness accepts (a hole in the validator).

    report = run_selftest(catalog, evaluator, catalog.select_kernels(None), catalog.select_models(["cpu"]))
    console.print(report.to_table()); print(report.to_markdown()); sys.exit(0 if report.ok() else 1)
"""

from __future__ import annotations

import dataclasses
import os
import time
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from hpceval.contracts import Evaluation, Verdict
from hpceval.evaluate import Evaluator
from hpceval.mutants import DEFAULT_CAP, Mutant, UnsupportedLanguage, generate_mutants
from hpceval.mutants.core import sample
from hpceval.mutants.equivalent import set_aside
from hpceval.spec import Catalog, KernelSpec, ProgrammingModel

MISSING = "–"


@dataclass
class MutantOutcome:
    mutant: Mutant
    verdict: Verdict
    evidence: str = ""
    index: int = 0
    seconds: float = 0.0

    @property
    def killed(self) -> bool:
        return self.verdict not in (Verdict.correct, Verdict.infra_error)

    @property
    def inconclusive(self) -> bool:
        return self.verdict == Verdict.infra_error


@dataclass
class Survivor:
    kernel: str
    model: str
    kind: str
    description: str
    diff: str

    def __str__(self) -> str:
        return f"{self.kernel} × {self.model} [{self.kind}] {self.description}"


@dataclass
class Cell:
    """One kernel x model: status is ok, missing (no reference), reference_failed, infra_error or unsupported."""

    kernel: str
    model: str
    status: str
    reference: Evaluation | None = None
    outcomes: list[MutantOutcome] = field(default_factory=list)
    original: str = ""
    note: str = ""
    equivalent: list[tuple[Mutant, str]] = field(default_factory=list)  # set aside before sampling, with why

    @property
    def total(self) -> int:
        return sum(1 for o in self.outcomes if not o.inconclusive)

    @property
    def killed(self) -> int:
        return sum(1 for o in self.outcomes if o.killed)

    @property
    def inconclusive(self) -> int:
        return sum(1 for o in self.outcomes if o.inconclusive)

    @property
    def kill_ratio(self) -> float | None:
        return self.killed / self.total if self.total else None

    @property
    def unexpected(self) -> list[MutantOutcome]:
        """Killed, but not with the verdict the bug implies (e.g. a removed construct not called wrong_model)."""
        return [o for o in self.outcomes if o.killed and o.mutant.expect and o.verdict.value != o.mutant.expect]


@dataclass
class SelftestReport:
    kernels: list[str]
    models: list[str]
    cells: dict[tuple[str, str], Cell]
    wall_s: float = 0.0
    jobs: int = 1

    @property
    def survivors(self) -> list[Survivor]:
        out = []
        for cell in self.cells.values():
            for o in cell.outcomes:
                if o.verdict == Verdict.correct:
                    out.append(Survivor(cell.kernel, cell.model, o.mutant.kind, o.mutant.description,
                                        o.mutant.diff(cell.original)))
        return out

    def ok(self, min_kill: float = 0.9, strict: bool = False) -> bool:
        """Every reference correct and every cell kills >= min_kill of its mutants. Cells whose toolchain is
        unavailable (infra_error) only fail the check when strict."""
        for cell in self.cells.values():
            if cell.status in ("missing", "unsupported"):
                continue
            if cell.status == "infra_error":
                if strict:
                    return False
                continue
            if cell.status != "ok":
                return False
            ratio = cell.kill_ratio
            if ratio is not None and ratio < min_kill:
                return False
            if strict and cell.inconclusive:
                return False
        return True

    def totals(self) -> tuple[int, int]:
        cells = [c for c in self.cells.values() if c.status == "ok"]
        return sum(c.killed for c in cells), sum(c.total for c in cells)

    # ------------------------------------------------------------------ rendering

    def _cell_text(self, cell: Cell | None, min_kill: float) -> tuple[str, str]:
        """(text, rich style) of one cell."""
        if cell is None or cell.status == "missing":
            return MISSING, "dim"
        if cell.status == "unsupported":
            return "no operators", "dim"
        if cell.status == "infra_error":
            return "infra_error", "yellow"
        if cell.status == "reference_failed":
            verdict = cell.reference.verdict.value if cell.reference else "error"
            return f"REF FAIL {verdict}", "bold red"
        ratio = cell.kill_ratio
        if ratio is None:
            return "✓ 0 mutants", "yellow"
        text = f"✓ {cell.killed}/{cell.total} {ratio:.0%}"
        if cell.inconclusive:
            text += f" (+{cell.inconclusive} infra)"
        return text, "green" if ratio >= min_kill else "red"

    def to_table(self, min_kill: float = 0.9) -> Table:
        killed, total = self.totals()
        table = Table(title=f"Mutation self-test: {killed}/{total} mutants killed"
                            f" ({killed / total if total else 0:.0%}) in {self.wall_s:.0f} s, {self.jobs} jobs",
                      caption="✓ reference correct, then killed/total mutants; – = no reference solution")
        table.add_column("kernel", style="bold")
        for model in self.models:
            table.add_column(model, justify="center")
        for kernel in self.kernels:
            row = []
            for model in self.models:
                text, style = self._cell_text(self.cells.get((kernel, model)), min_kill)
                row.append(f"[{style}]{text}[/{style}]")
            table.add_row(kernel, *row)
        return table

    def survivors_table(self) -> Table:
        table = Table(title=f"Surviving mutants ({len(self.survivors)})", show_lines=True)
        for col in ("kernel", "model", "kind", "mutant", "diff"):
            table.add_column(col, overflow="fold")
        for s in self.survivors:
            table.add_row(s.kernel, s.model, s.kind, s.description, s.diff)
        return table

    def to_markdown(self, min_kill: float = 0.9) -> str:
        killed, total = self.totals()
        lines = [f"## Mutation self-test: {killed}/{total} mutants killed "
                 f"({killed / total if total else 0:.0%}), {self.wall_s:.0f} s wall with {self.jobs} jobs", "",
                 "Cell: ✓ = the reference is correct, then killed/total mutants; – = no reference solution; "
                 "infra_error = toolchain unavailable; REF FAIL = the reference itself was rejected.", "",
                 "| kernel | " + " | ".join(self.models) + " |",
                 "|---|" + "---|" * len(self.models)]
        for kernel in self.kernels:
            cells = []
            for model in self.models:
                text, _ = self._cell_text(self.cells.get((kernel, model)), min_kill)
                ratio = (self.cells.get((kernel, model)) or Cell(kernel, model, "missing")).kill_ratio
                cells.append(f"**{text}**" if ratio is not None and ratio < min_kill else text)
            lines.append(f"| {kernel} | " + " | ".join(cells) + " |")
        problems = [c for c in self.cells.values() if c.status in ("reference_failed", "infra_error")]
        if problems:
            lines += ["", "### References not evaluated as correct", ""]
            for c in problems:
                ev = c.reference
                lines.append(f"- {c.kernel} × {c.model}: {ev.verdict.value if ev else c.status} — "
                             f"{(ev.evidence if ev else c.note)[:300]}")
        survivors = self.survivors
        if survivors:
            by_operator: dict[str, list[Survivor]] = {}
            for cell in self.cells.values():
                for o in cell.outcomes:
                    if o.verdict == Verdict.correct:
                        by_operator.setdefault(o.mutant.operator or o.mutant.kind, []).append(
                            Survivor(cell.kernel, cell.model, o.mutant.kind, o.mutant.description, ""))
            lines += ["", "### Survivors by operator", "", "| operator | survivors | models |", "|---|---|---|"]
            for op, found in sorted(by_operator.items(), key=lambda kv: -len(kv[1])):
                lines.append(f"| {op} | {len(found)} | {', '.join(sorted({f.model for f in found}))} |")
        lines += ["", f"### Surviving mutants ({len(survivors)})", ""]
        if not survivors:
            lines.append("None.")
        for s in survivors:
            lines += [f"- **{s.kernel} × {s.model}** [{s.kind}] {s.description}", "", "  ```diff",
                      *("  " + ln for ln in s.diff.splitlines()), "  ```"]
        equivalent = [(c, m, why) for c in self.cells.values() for m, why in c.equivalent]
        if equivalent:
            lines += ["", f"### Equivalent mutants set aside before sampling ({len(equivalent)})", "",
                      "Declared by the kernel's folder (`equivalent_mutants.toml`): they cannot change any result.", ""]
            for c, m, why in equivalent:
                lines.append(f"- {c.kernel} × {c.model}: {m.description}: {why}")
        unexpected = [(c, o) for c in self.cells.values() for o in c.unexpected]
        if unexpected:
            lines += ["", "### Killed with an unexpected verdict", ""]
            for c, o in unexpected:
                lines.append(f"- {c.kernel} × {c.model}: {o.mutant.description}: {o.verdict.value} "
                             f"(expected {o.mutant.expect}) — {o.evidence[:200]}")
        return "\n".join(lines) + "\n"


def run_selftest(catalog: Catalog, evaluator: Evaluator, kernels: list[KernelSpec], models: list[ProgrammingModel],
                 jobs: int | None = None, *, cap: int | None = DEFAULT_CAP, progress: bool = True,
                 mutant_wall_s: float | None = None) -> SelftestReport:
    """Evaluate every reference solution and its mutants, `jobs` evaluations at a time.

    Mutants first run with a wall limit of max(15 s, 5 x the reference's run time) (or `mutant_wall_s`), capped
    by the evaluator's own limit, so that the many mutants that loop forever do not stall the test; a mutant that
    times out under that shorter limit runs again under the evaluator's own limit, so that `killed` always means
    what the evaluator itself would decide.
    """
    jobs = jobs or os.cpu_count() or 1
    evaluator = dataclasses.replace(evaluator, timing=False)
    start = time.monotonic()
    cells: dict[tuple[str, str], Cell] = {}
    todo: list[tuple[KernelSpec, ProgrammingModel, str]] = []
    for spec in kernels:
        for model in models:
            path = spec.solution_path(model, catalog)
            if not path.is_file():
                cells[(spec.id, model.id)] = Cell(spec.id, model.id, "missing")
                continue
            code = path.read_text()
            cells[(spec.id, model.id)] = Cell(spec.id, model.id, "pending", original=code)
            todo.append((spec, model, code))

    bar = Progress(TextColumn("[bold]self-test"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                   TextColumn("{task.description}"), disable=not progress, transient=False)
    with bar, ThreadPoolExecutor(max_workers=jobs) as pool:
        total = len(todo)
        task = bar.add_task("references", total=total)
        pending: dict[Future, _Job] = {}

        def submit(job: _Job, code: str) -> None:
            pending[pool.submit(_evaluate, job.evaluator, code, job.spec, job.model)] = job

        for spec, model, code in todo:
            submit(_Job(spec, model, evaluator), code)
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for fut in done:
                job = pending.pop(fut)
                evaluation, seconds = fut.result()
                cell = cells[(job.spec.id, job.model.id)]
                if job.mutant is not None:
                    if evaluation.verdict == Verdict.timeout and \
                            job.evaluator.run_limits.wall_s < evaluator.run_limits.wall_s:
                        submit(dataclasses.replace(job, evaluator=evaluator), job.mutant.code)
                        continue  # confirm under the evaluator's own limit
                    bar.advance(task)
                    cell.outcomes.append(MutantOutcome(job.mutant, evaluation.verdict, evaluation.evidence, job.index,
                                                       seconds))
                    continue
                bar.advance(task)
                cell.reference = evaluation
                if evaluation.verdict == Verdict.infra_error:
                    cell.status = "infra_error"
                    continue
                if evaluation.verdict != Verdict.correct:
                    cell.status = "reference_failed"
                    continue
                try:
                    found = generate_mutants(cell.original, job.model.language, cap=None)
                except UnsupportedLanguage as exc:
                    cell.status, cell.note = "unsupported", str(exc)
                    continue
                mutants, cell.equivalent = set_aside(found, cell.original, str(job.spec.folder))
                mutants = sample(mutants, cap) if cap is not None else mutants
                cell.status = "ok"
                mutant_eval = _mutant_evaluator(evaluator, evaluation, mutant_wall_s)
                total += len(mutants)
                bar.update(task, total=total, description="mutants")
                for i, m in enumerate(mutants):
                    submit(_Job(job.spec, job.model, mutant_eval, m, i), m.code)
    for cell in cells.values():  # outcomes in generation order, whatever order they finished in
        cell.outcomes.sort(key=lambda o: o.index)
    return SelftestReport([k.id for k in kernels], [m.id for m in models], cells, time.monotonic() - start, jobs)


@dataclass
class _Job:
    spec: KernelSpec
    model: ProgrammingModel
    evaluator: Evaluator
    mutant: Mutant | None = None
    index: int = 0


def _mutant_evaluator(evaluator: Evaluator, reference: Evaluation, wall_s: float | None) -> Evaluator:
    limit = wall_s if wall_s is not None else max(15.0, 5.0 * (reference.run_s or 0.0))
    limit = min(limit, evaluator.run_limits.wall_s)
    return dataclasses.replace(evaluator, run_limits=dataclasses.replace(evaluator.run_limits, wall_s=limit))


def _evaluate(evaluator: Evaluator, code: str, spec: KernelSpec, model: ProgrammingModel) -> tuple[Evaluation, float]:
    start = time.monotonic()
    try:
        evaluation = evaluator.evaluate(code, spec, model)
    except Exception as exc:  # noqa: BLE001 - a harness fault is reported, never a verdict on the mutant
        evaluation = Evaluation(verdict=Verdict.infra_error, evidence=f"harness error: {type(exc).__name__}: {exc}")
    return evaluation, time.monotonic() - start


__all__ = ["Cell", "MutantOutcome", "SelftestReport", "Survivor", "run_selftest"]
