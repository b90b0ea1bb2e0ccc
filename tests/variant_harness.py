"""Shared runner of the per-kernel variant tests (tests/test_variants_<kernel>.py): free-form signatures written
as an unseen LLM would, bound by signature inference and graded by the real evaluator, two at a time.

Each case is (id, model, code, variant, verdict): `variant` is the binding's variant (a prefix of it) or, for a
suggestion that must be refused, the text of the `unbindable` reason; `verdict` the evaluation's verdict (None:
binding only, e.g. Julia, which has no toolchain here)."""

from __future__ import annotations

import textwrap
from concurrent.futures import ThreadPoolExecutor

from hpceval.bind import choose_binding


def bind_and_grade(catalog, evaluator, kernel: str, cases: list[tuple]) -> list[str]:
    """Problems found (empty: every case as expected)."""

    def one(case):
        cid, model, code, variant, verdict = case
        spec, m = catalog.kernels[kernel], catalog.models[model]
        code = textwrap.dedent(code).strip() + "\n"
        b = choose_binding(code, spec, catalog.languages[m.language], "paper", m)
        if verdict == "unbindable":
            ok = b.error is not None and variant in b.error
            return None if ok else f"{cid}: expected unbindable ({variant}), got {b.error or b.evidence}"
        if b.error:
            return f"{cid}: {b.error}"
        if not b.variant.startswith(variant):
            return f"{cid}: variant {b.variant}, expected {variant} ({b.evidence})"
        if verdict is None:
            return None
        e = evaluator.evaluate(code, spec, m, b)
        if e.verdict.value != verdict:
            return f"{cid}: {e.verdict.value}, expected {verdict}: {e.evidence[:300]} [{b.evidence[:300]}]"
        return None

    with ThreadPoolExecutor(2) as pool:
        return [p for p in pool.map(one, cases) if p]
