"""Structural readings of a suggestion's body that decide a binding where names cannot: the index base of its
sparse index arrays, and the short list of alternative mappings the evaluator may probe by execution.

Names are the weakest evidence a free-form suggestion offers (a parameter called `n` may be the row count, an
array called `ia` may hold 0- or 1-based offsets); how the body uses a parameter is what it means. The mapper
(bind.mapping) scores loop bounds and subscripts; what it cannot settle by scoring is settled here:

* the index base: a C++/Python body that subscripts with `col_idx[j] - 1` reads a 1-based CSR, a Fortran/Julia
  body with `ja(j) + 1` a 0-based one; the binding then names the kernel's variant that shifts the index arrays
  (variants.toml `shift`), so a correct 1-based kernel is graded as such instead of crashing;
* alternatives: where the best mappings tie or nearly tie (and the suggestion's own use does not rule one out),
  up to MAX_ALTERNATIVES of them travel with the binding, and the evaluator runs each on the smallest validation
  case before the full run (evaluate.probe_alternatives), keeping the one that validates;
* the iteration's kind: a body that stops on a convergence test (a comparison with a real scalar parameter or a small
  literal) is a tolerance loop, so its `max_iter` is a cap, not a sweep count, whatever the name suggests
  (variants.toml `excludes = "convergence"`, `conflicts`).
"""

from __future__ import annotations

import re

from hpceval.bind.roles import KernelRoles

MAX_ALTERNATIVES = 4
NEAR_TIE = 3.5  # scores this close differ by position tie-breaks at most: equally plausible


def _shift_pattern(name: str, lang: str) -> tuple[re.Pattern, int]:
    """The subscript of `name` moved by one, and the base that reveals: name[j] - 1 (1-based in a 0-based
    language), name(j) + 1 (0-based in a 1-based language)."""
    n = re.escape(name)
    if lang in ("fortran",):
        return re.compile(rf"(?i)\b{n}\s*\([^()]*\)\s*\+\s*1\b"), -1
    if lang == "julia":
        return re.compile(rf"\b{n}\s*\[[^\[\]]*\]\s*\+\s*1\b"), -1
    return re.compile(rf"\b{n}\s*\[[^\[\]]*\]\s*-\s*1\b"), 1


def index_base_variant(text: str, col_param: str | None, kr: KernelRoles, lang: str) -> str | None:
    """The variant id of a suggestion whose column indices are in the other base, None when in its language's."""
    if col_param is None:
        return None
    pattern, shift = _shift_pattern(col_param, lang)
    body = re.sub(r"//[^\n]*|/\*.*?\*/", "", text, flags=re.DOTALL) if lang == "cpp" else text
    if not pattern.search(body):
        return None
    return next((vid for vid, v in kr.variants.items() if v.get("shift") == shift), None)


# a condition that compares something with a tolerance: `if (diff < tol) break`, `while err > tol`, `.lt. eps`, or
# against a small literal (`< 1e-6`): the body iterates to convergence instead of a fixed count
_COMPARE = r"(?:<=?|>=?|\.(?:lt|le|gt|ge)\.)"


def convergence_test(fn) -> bool:
    """Whether the function's body stops its iteration on a convergence test: a comparison with one of its real
    scalar parameters (a tolerance) or with a small floating literal, in a condition (if/while/until/exit)."""
    body = fn.text.split("\n", 1)[-1] if fn.lang in ("python", "fortran", "julia") else fn.text[fn.text.find("{") + 1:]
    body = re.sub(r"//[^\n]*|/\*.*?\*/|#[^\n]*" if fn.lang in ("cpp", "python") else r"![^\n]*", "", body,
                  flags=re.DOTALL)
    if fn.lang == "cpp":
        body = re.sub(r"\bfor\s*\([^;]*;[^;]*;", "", body)  # a loop's own bound is no test
    sizes = {b for bounds in fn.facts.loops.values() for b in bounds} | {a for a, _d, _p in fn.facts.subscripts}
    tols = [re.escape(p.name) for p in fn.params if p.kind in ("real", "real_generic", "unknown") and p.array is not True
            and not p.dims and p.name not in sizes]
    names = rf"\b(?:{'|'.join(tols)})\b" if tols else r"$^"
    literal = r"\d*\.?\d+[eEdD]-\d+"
    cond = re.compile(rf"(?i)(?:{_COMPARE}\s*\(?\s*(?:{names}|{literal}))|(?:(?:{names}|{literal})\s*\)?\s*{_COMPARE})")
    return bool(cond.search(body))


def structure_problem(variants: list[str], kr: KernelRoles, fn) -> str | None:
    """Why the variants a mapping names contradict the body's structure (None: they do not). variants.toml says
    `excludes = "convergence"` for a fixed sweep count (a body with a convergence test is the tolerance loop, whose
    max_iter is only a cap) and `conflicts = [ids]` for variants that cannot be combined."""
    for v in variants:
        d = kr.variants.get(v, {})
        if d.get("excludes") == "convergence" and convergence_test(fn):
            return f"the loop stops on a convergence test, not after a fixed count (variant {v})"
        clash = [c for c in d.get("conflicts", []) if c in variants]
        if clash:
            return f"variant {v} cannot be combined with {', '.join(clash)}"
    return None
