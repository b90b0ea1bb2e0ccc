"""How a suggested function delivers an output the kernel declares: through its parameter, as its return value,
or in an input's array updated in place (Jacobi's grid through the suggestion's own temporary).

Split from bind.mapping, which decides the assignment of parameters to roles; these helpers answer, for one
assignment, where the outputs that have no parameter of their own come from.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from hpceval.bind.parse import SFunction
from hpceval.bind.roles import KernelRoles, Role

if TYPE_CHECKING:
    from hpceval.bind.mapping import Mapping


def norm(name: str, lang: str) -> str:
    """A name as the name lists compare it: Fortran's case folded, and a member's decoration dropped (`_x`, `x_`,
    `m_x`: a functor's members and a class's fields carry the parameter names they stand for; `x_ptr`: a Triton
    kernel's pointer to x)."""
    name = name.lower() if lang == "fortran" else name
    bare = re.sub(r"^(?:m_|_+)|(?:_ptr)?_*$", "", name)
    return bare or name


def looks_like_result(fn: SFunction, lang: str, scalar: bool = False) -> tuple[bool, int | None]:
    """Whether the function returns its result (an array; with `scalar`, a kernel whose spec declares a returned
    scalar, a floating-point value too), not a timing, status or nothing, and its tuple index."""
    if lang == "fortran":
        return fn.kind == "function", None
    if lang == "cpp":
        res = fn.result.replace("const", "").strip()
        if scalar and re.fullmatch(r"(?:long\s+)?double|float|real_t|auto|[A-Za-z_]\w*_t|T|Real|Scalar", res):
            return res != "auto" or bool(fn.facts.returns), None
        if res in ("void", "", "int", "bool", "double", "float", "long", "size_t", "auto") and "*" not in res:
            return res == "auto" and bool(fn.facts.returns), None
        return True, None
    array_params = {p.name for p in fn.params}
    best: tuple[bool, int | None] = (False, None)
    for names in fn.facts.return_names:
        for i, ids in enumerate(names):
            if "<time>" in ids or not ids or ids <= _counters(fn):
                continue
            if ids & array_params or ids - {"np", "numpy", "cp", "None", "True", "False"}:
                return True, (i if len(names) > 1 else None)
    return best


def _counters(fn: SFunction) -> set[str]:
    """Python/Julia names that count iterations (a loop variable, `k = 0` ... `k += 1`): a function returning one
    (the sweeps a tolerance loop took) returns no array."""
    names = set(fn.facts.loops)
    for name in set(re.findall(r"^\s*([A-Za-z_]\w*)\s*=\s*\d+\s*$", fn.text, re.M)):
        if re.search(rf"\b{name}\s*\+=\s*1\b", fn.text):
            names.add(name)
    return names


def carry_in_place(m: Mapping, out: Role, kr: KernelRoles, lang: str) -> bool:
    """An output without a parameter that the kernel lets an input's array carry (Jacobi's unew in u, the grid
    updated through the suggestion's own temporary), where the body writes that parameter: the parameter takes the
    output's role and the driver hands it a copy of the input (bind.glue), so the result is graded as the output
    and an update without a temporary (Gauss-Seidel) fails on its values."""
    source = kr.in_place.get(out.name)
    written = {norm(w, lang) for w in m.fn.facts.writes}
    for pos, role in m.assign.items():
        if role is not None and role.name == source and norm(m.fn.params[pos].name, lang) in written \
                and m.fn.params[pos].intent != "in":
            m.assign[pos] = out
            m.in_place = source
            return True
    return False


def boxed_scalars(fn: SFunction) -> set[str]:
    """C/C++ array parameters that carry one number: the body reads them only at constant subscripts (`a(0)`, the
    scalar of AXPY kept in a one-element View; `alpha[0]`) and never writes them. Such a parameter may take a real
    scalar role; the glue hands it a one-element array holding the value (glue/cpp._c_scalar)."""
    if fn.lang != "cpp":
        return set()
    seen: dict[str, bool] = {}
    for name, dims, _ in fn.facts.subscripts:
        seen[name] = seen.get(name, True) and all(not d for d in dims)
    return {p.name for p in fn.params if p.array and (p.rank or 1) == 1 and seen.get(p.name)
            and p.name not in fn.facts.writes}


def scratch_as_output(assign: dict[int, Role | None], fn: SFunction, lang: str) -> str | None:
    """Why a mapping must not read an unnamed written array as a variant's separate output (None when it may): the
    array the separate output stands in for (out-of-place AXPY's y) is itself written by the body, so the unnamed
    array is scratch beside the real output (`tmp[i] = a*x[i]; y[i] += tmp[i]`), and grading it would call a
    correct in-place kernel wrong. A separate output with a listed name (`z`) is taken as before."""
    for pos, role in assign.items():
        if role is None or not role.extra or not (role.canonical or "").startswith("output:"):
            continue
        p = fn.params[pos]
        if norm(p.name, lang) in {norm(n, lang) for n in role.names}:
            continue
        target = role.canonical.split(":", 1)[1]
        written = [fn.params[q].name for q, r in assign.items()
                   if r is not None and r.name == target and fn.params[q].name in fn.facts.writes]
        if written:
            return f"{p.name} is written beside {written[0]} ({target}): scratch, not a separate output"
    return None
