"""Probe by execution: where signature inference found a few equally plausible mappings (Binding.alternatives, at
most four in all, only when the mapper reports a near tie that nothing in the suggestion contradicts), each is run
on one small validation case before the full run, and the first that validates is kept.

Growing name lists cannot settle `f(p, q, A, x, y)` with no loop that tells rows from columns; running it can, in
one build per candidate on the smallest case whose sizes all differ (a 1 x 1 case tells nothing apart). The
mapping kept and what was tried go into the evidence; when none validates, the reading under which the suggestion
got furthest (FURTHEST; the best-scored on ties) is graded as usual (its failure is the suggestion's, since every
plausible reading failed).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from hpceval.bind.graded import graded_spec
from hpceval.contracts import Binding
from hpceval.spec import KernelSpec, ProgrammingModel

if TYPE_CHECKING:
    from hpceval.evaluate import Evaluator


def distinguishing_case(spec: KernelSpec) -> dict:
    """The smallest validation case whose integer sizes are all at least 2 and pairwise different (else the one
    with the most different sizes, smallest first)."""
    cases = [dict(c) for c in spec.sizes.validation]

    def key(c: dict) -> tuple:
        sizes = [v for v in c.values() if isinstance(v, int)]
        distinct = len(set(sizes)) == len(sizes) and min(sizes, default=2) >= 2
        product = 1
        for v in sizes:
            product *= max(1, v)
        return (not distinct, -len(set(sizes)), product)

    return min(cases, key=key)


def probe(evaluator: Evaluator, code: str, spec: KernelSpec, model: ProgrammingModel, binding: Binding
          ) -> tuple[Binding, str]:
    """The binding to grade (alternatives cleared) and the evidence note of the probe."""
    candidates = [binding.model_copy(update={"alternatives": []}), *binding.alternatives][:4]
    quiet = dataclasses.replace(evaluator, timing=False)
    tried = []
    furthest: tuple[int, int] | None = None  # (how far, index): the reading under which the suggestion got furthest
    for i, cand in enumerate(candidates):
        graded = graded_spec(spec, cand)
        case = distinguishing_case(graded)
        small = graded.model_copy(update={"sizes": graded.sizes.model_copy(update={"validation": [case]})})
        e = quiet.evaluate(code, spec, model, cand, graded=small)
        mapping = ", ".join(f"{k}->{v}" for k, v in cand.mapping.items() if not k.startswith("<"))
        tried.append(f"{mapping}: {e.verdict.value}")
        if e.verdict.value == "correct":
            note = (f"probe: {len(candidates)} equally plausible mappings run on case "
                    f"{', '.join(f'{k}={v}' for k, v in case.items())}; kept {mapping}"
                    + (f" (before it: {'; '.join(tried[:-1])})" if i else ""))
            return cand, note
        reached = FURTHEST.index(e.verdict.value) if e.verdict.value in FURTHEST else len(FURTHEST)
        if furthest is None or reached < furthest[0]:
            furthest = (reached, i)
    keep = furthest[1] if furthest is not None else 0
    kept = f"; graded: {tried[keep].rsplit(':', 1)[0]}" if keep else ""
    return candidates[keep], f"probe: none of {len(candidates)} plausible mappings validated ({'; '.join(tried)}){kept}"


# When no reading validates, the one under which the suggestion got furthest is graded: right numbers by another
# model's work, then a wrong answer, then a timeout, then a crash. A crash under one reading beside a run under
# another is the reading's fault (a matrix handed with the other matrix's shape), not the suggestion's; ties keep
# the best-scored reading.
FURTHEST = ["wrong_model", "wrong_result", "timeout", "runtime_error"]
