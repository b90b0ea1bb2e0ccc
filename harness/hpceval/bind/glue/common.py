"""Shared core of the per-language glue generators: the Glue record, array plans and the steps all languages take.

Every language's glue (glue.cpp, glue.python, glue.fortran, glue.julia) makes the same decisions from a Mapping:
which canonical arrays need a temporary (conversion, zero-padding, transposition, flattening: Plan), what the
leading dimension of a matrix is as the suggestion stores it, what a variant extra's canonical value asks for,
what outputs hold on entry and how outputs are scaled back. Those decisions are made once here so that the
languages cannot drift apart; the language modules only spell the resulting code.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from hpceval.bind.mapping import Mapping
from hpceval.bind.parse import SParam
from hpceval.bind.roles import KernelRoles, Role
from hpceval.spec import KernelSpec


@dataclass
class Glue:
    """What the driver template splices around and into the call of the suggested function."""

    args: list[str] = field(default_factory=list)
    setup: list[str] = field(default_factory=list)
    teardown: list[str] = field(default_factory=list)
    decls: list[str] = field(default_factory=list)
    call: str | None = None
    returns: str | None = None
    notes: list[str] = field(default_factory=list)
    uses: set[str] = field(default_factory=set)  # file-level names the glue reads (the pruning keeps them)
    types: dict = field(default_factory=dict)  # parameter name -> the type its adapter builds (bind.adapt)
    by_param: dict[int, str] = field(default_factory=dict)  # parameter position -> its argument (bind.adapt)

    def arg(self, position: int, expr: str) -> None:
        """The argument of the parameter at `position`, in call order."""
        self.args.append(expr)
        self.by_param[position] = expr


def c_real(dtype: str) -> str:
    """The C/C++ real type of a precision ("float32" -> float, else double)."""
    return "float" if dtype == "float32" else "double"


def c_canon(spec: KernelSpec, role: Role) -> str:
    """The C/C++ element type of a kernel role in the graded precision: int for sizes and indices."""
    return "int" if role.kind in ("int", "index") else c_real(spec.dtype)


class Plan:
    """Per array argument: what the temporary must do."""

    def __init__(self, m: Mapping, kr: KernelRoles, lang: str, p: SParam, role: Role):
        spec = kr.spec
        self.p, self.role = p, role
        self.rank = len(role.shape)
        merged = m.merged
        self.pad = [bool(merged and any(s == d.strip("() ") for s in merged.merged)) for d in role.shape]
        self.layout = m.layout.get(role.name, "natural")
        self.flat = self.rank >= 2 and (p.rank == 1 or role.name in m.flat)
        want = p.dtype
        self.convert = bool(want and role.kind == "real" and want != spec.dtype)
        self.dtype = want if self.convert else spec.dtype
        self.narrowing = self.convert and spec.dtype == "float64" and want == "float32"
        # what an output holds on entry: NaN (the driver's poison), zeros (read before written) or a variant's fill
        self.fill = m.prefill if (role.is_output and m.prefill) else None  # never zero-filled (see bind.graded)
        self.zero = self.fill is not None


def array_plans(m: Mapping, kr: KernelRoles, lang: str) -> dict[str, Plan]:
    """A conversion plan for every canonical array the suggestion takes (arrays it adds itself excluded)."""
    plans: dict[str, Plan] = {}
    for p in m.fn.params:
        role = m.assign.get(p.position)
        if role is not None and role.is_array and (not role.extra or role.graded):
            plans[role.name] = Plan(m, kr, lang, p, role)
    return plans


def leading_dims(plans: dict[str, Plan], dim: Callable[[Role, int], str], column_major: bool) -> dict[str, str]:
    """The leading dimension of each 2D array as the suggestion stores it (hp_k where padded): the row length in a
    row-major language's natural layout, the column length in a column-major one; the other when transposed."""
    lead: dict[str, str] = {}
    for name, pl in plans.items():
        if pl.rank == 2:
            rows = "hp_k" if pl.pad[0] else dim(pl.role, 0)
            cols = "hp_k" if pl.pad[1] else dim(pl.role, 1)
            natural = pl.layout == "natural"
            lead[name] = (rows if natural else cols) if column_major else (cols if natural else rows)
    return lead


# ------------------------------------------------------------------------------------------------------ shared steps


def in_place_output(m: Mapping, kr: KernelRoles) -> str | None:
    """The output whose parameter is an input's array updated in place (Mapping.in_place): before the call it
    must hold a copy of that input, after it the result."""
    if not m.in_place:
        return None
    return next(r.name for r in m.assign.values() if r is not None and kr.in_place.get(r.name) == m.in_place)


def in_place_note(out: str, source: str) -> str:
    return f"{out} is updated in place: it starts as a copy of {source}"


def fill_note(name: str, fill: str) -> str:
    if fill == "0":
        return f"{name} zeroed before the call (read before written)"
    return f"{name} holds {fill} on entry (the extras' canonical point)"


def spec_dim(role: Role, d: int) -> str:
    return f"({role.shape[d]})"


def qualified(m: Mapping) -> str:
    if m.fn.container and m.fn.container[0] == "namespace" and m.fn.container[1]:
        return f"{m.fn.container[1]}::{m.fn.name}"
    return m.fn.name


def extra(role: Role) -> tuple[str, str]:
    """What a variant extra's canonical value asks for, as (what, operand):

    ('lead', array): the leading dimension of an array; ('notrans', ''): no transposition; ('threads', ''): a
    thread count; ('output', array): a separate output, copied to that canonical array; ('real', value) or
    ('value', value): a literal (real or not)."""
    value = role.canonical or "0"
    if value.startswith("lead:"):
        return "lead", value.split(":", 1)[1]
    if value in ("notrans", "threads"):
        return value, ""
    if value.startswith("output:"):
        return "output", value.split(":", 1)[1]
    return ("real" if role.kind == "real" else "value"), value


def scale_outputs(g: Glue, m: Mapping, kr: KernelRoles, scaled: Callable[[str], str], into: list[str]) -> None:
    """Where the extras' canonical point scales the result (alpha != 1), multiply every output back after the call:
    `scaled(name)` is the language's statement, appended to `into` (the teardown, or Julia's let block)."""
    if m.scale == 1.0:
        return
    into.extend(scaled(r.name) for r in kr.canonical if r.is_array and r.is_output)
    g.notes.append(f"outputs multiplied by {m.scale!r} after the call (the extras' canonical point)")


def returned_call(lang: str, function: str, args: list[str], target: str) -> str | None:
    """The driver's statement that calls `function` and stores its returned value in the output `target` (an array;
    a returned scalar is a one-element one): C++ through hpceval_assign (arrays, pointers and scalars), Fortran by
    assignment (a scalar broadcasts into the array). Python and Julia store what is returned themselves."""
    call = f"{function}({', '.join(args)})"
    if lang == "cpp":
        return f"{{ auto hp_ret = {call}; hpceval_assign({target}, hp_ret); }}"
    if lang == "fortran":
        return f"{target} = {call}"
    return None
