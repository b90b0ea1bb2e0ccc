"""Offload models: every pointer the kernel uses is mapped, results come back, inputs go in.

The CPU routes of the offload models share memory with the host, so an unmapped pointer or a result mapped only
`to` the device gives the right numbers here and garbage on a GPU. The static analysis (analysis.datamap) sees
what the run cannot; what it finds is `wrong_result`.
"""

from __future__ import annotations

from hpceval.analysis.datamap import data_mapping_problem, out_only_arrays
from hpceval.analysis.source import strip_comments
from hpceval.checks.base import Job, check
from hpceval.contracts import Evaluation, Verdict
from hpceval.spec import KernelSpec, Language, ProgrammingModel


@check("data mapping")
def maps_data(job: Job) -> Evaluation | None:
    if not job.model.mapping_check:
        return None
    problem = data_mapping_problem(strip_comments(job.code, job.lang), job.lang)
    return job.verdict(Verdict.wrong_result, f"data mapping: {problem}") if problem else None


def graded_as_mapped(spec: KernelSpec, code: str, lang: Language, model: ProgrammingModel,
                     mapping: dict[str, str] | None) -> tuple[KernelSpec, str]:
    """The spec an offload suggestion is graded against, given its data clauses: an output it keeps in part
    (Jacobi's unew: the boundary is left as it is) but maps out only (`copyout(unew)`, `map(from: unew)`) starts
    undefined on a GPU, so it is graded as a pure output, undefined (NaN) on entry: right only where the device
    code writes all of it. The CPU routes share memory with the host and would hide it. Returns the spec and the
    evidence note ("" when nothing changed)."""
    if not model.mapping_check or not mapping:
        return spec, ""
    out_only = out_only_arrays(strip_comments(code, lang), lang)
    roles = {theirs for mine, theirs in mapping.items() if mine.split(".")[-1].lower() in out_only}
    kept = [p for p in spec.params if p.name in roles and p.is_array and p.intent == "inout"]
    if not kept:
        return spec, ""
    names = {p.name for p in kept}
    params = [p.model_copy(update={"intent": "out"}) if p.name in names else p for p in spec.params]
    shown = ", ".join(sorted(names))
    return spec.model_copy(update={"params": params}), (
        f"{shown} mapped out only (never copied to the device): graded undefined on entry, as on a GPU")

