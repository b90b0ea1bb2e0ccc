"""Shared runner of the per-kernel variant tests (tests/test_variants_<kernel>.py): free-form signatures written
as an unseen LLM would, bound by signature inference and graded by the real evaluator, two at a time.

Each case is (id, model, code, variant, verdict): `variant` is the binding's variant (a prefix of it) or, for a
suggestion that must be refused (`unbindable`), has no complete kernel (`incomplete`) or is another operation
the binder cannot map (`wrong_result` with a binding error: a function without a data input), a text its evidence
must hold; `verdict` the evaluation's verdict (None: binding only, e.g. Julia, which has no toolchain here). Refusals
are cheap (the evaluator stops before any build); the others build and run on every validation size."""

from __future__ import annotations

import textwrap
from concurrent.futures import ThreadPoolExecutor

import pytest

from hpceval.bind import choose_binding

PREFIX = {"cpp": "cpp-", "fortran": "f-", "python": "py-", "julia": "jl-"}
LANGS = list(PREFIX)
# building and running every C++/Fortran signature takes minutes: deselect with -m "not slow" (their bindings and
# refusals are still checked by the fast binding tests)
GRADED = [pytest.param(lang, marks=pytest.mark.slow) if lang in ("cpp", "fortran") else lang for lang in LANGS
          if lang != "julia"]


def check(catalog, evaluator, kernel: str, cases: list[tuple], lang: str, grade: bool) -> None:
    """Assert every case of one language binds (and, with grade, evaluates) as expected."""
    mine = [c for c in cases if c[0].startswith(PREFIX[lang])]
    assert mine, f"no {lang} cases"
    problems = bind_and_grade(catalog, evaluator, kernel, mine, grade)
    assert not problems, "\n".join(problems)


def bind_and_grade(catalog, evaluator, kernel: str, cases: list[tuple], grade: bool = True) -> list[str]:
    """Problems found (empty: every case as expected)."""

    def one(case):
        cid, model, code, variant, verdict = case
        spec, m = catalog.kernels[kernel], catalog.models[model]
        code = textwrap.dedent(code).strip() + "\n"
        b = choose_binding(code, spec, catalog.languages[m.language], "paper", m)
        if verdict in ("unbindable", "incomplete") or (b.error and verdict == "wrong_result"):  # refused or not the kernel
            if verdict == "unbindable" and b.error is None:
                return f"{cid}: expected unbindable ({variant}), bound as {b.evidence}"
            e = evaluator.evaluate(code, spec, m, b)
            if e.verdict.value == "infra_error" and b.error:  # no toolchain here (Julia): the binder's refusal only
                return None if variant in b.error else f"{cid}: expected {verdict} ({variant}), got {b.error}"
            ok = e.verdict.value == verdict and variant in e.evidence
            return None if ok else f"{cid}: expected {verdict} ({variant}), got {e.verdict.value}: {e.evidence[:300]}"
        if b.error:
            return f"{cid}: {b.error}"
        if not b.variant.startswith(variant):
            return f"{cid}: variant {b.variant}, expected {variant} ({b.evidence})"
        if verdict is None or not grade:
            return None
        e = evaluator.evaluate(code, spec, m, b)
        if e.verdict.value != verdict:
            return f"{cid}: {e.verdict.value}, expected {verdict}: {e.evidence[:300]} [{b.evidence[:300]}]"
        return None

    with ThreadPoolExecutor(2) as pool:
        return [p for p in pool.map(one, cases) if p]
