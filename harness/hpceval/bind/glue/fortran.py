"""Fortran glue: the declarations and statements the Fortran driver runs around the call of a suggested subroutine.

Fortran needs what the other languages do not: every temporary declared up front (allocatable, of the right kind),
column-major storage (leading dimensions are column lengths; a matrix the suggestion reads the other way round is
transposed into its temporary), scalars whose kind or integer width differ from the driver's, explicit-shape
dummies of another rank (reshape), and functions whose result is assigned rather than passed. The decisions come
from glue.common; this module spells them in Fortran.
"""

from __future__ import annotations

import re

from hpceval.bind.glue.common import (
    Glue,
    Plan,
    array_plans,
    extra,
    fill_note,
    leading_dims,
    returned_call,
    scale_outputs,
    spec_dim,
)
from hpceval.bind.mapping import Mapping
from hpceval.bind.parse import SParam
from hpceval.bind.roles import KernelRoles, Role
from hpceval.spec import KernelSpec


def _f_kind(dtype: str) -> str:
    return "real32" if dtype == "float32" else "real64"


def _f_scalar_type(p: SParam, role: Role, spec: KernelSpec) -> str:
    t = p.type_text.lower().replace(" ", "")
    if p.kind == "int":
        m = re.match(r"integer(\*(\d+)|\((kind=)?(\w+)\))?", t)
        k = (m.group(2) or m.group(4)) if m else None
        return "integer(int64)" if k in ("8", "int64", "i8", "c_long", "c_long_long") else "integer"
    if p.kind == "char":
        return "character(len=1)"
    if p.kind == "bool":
        return "logical"
    dtype = p.dtype or ("float32" if p.type_text == "implicit" else spec.dtype)
    return f"real({_f_kind(dtype)})"


def fortran_glue(m: Mapping, kr: KernelRoles) -> Glue:
    spec = kr.spec
    g = Glue()
    merged = m.merged
    if merged is not None:
        g.decls.append("integer :: hp_k")
        g.setup.append(f"hp_k = max({', '.join(merged.merged)})")
    plans = array_plans(m, kr, "fortran")
    lead = leading_dims(plans, spec_dim, column_major=True)
    skipped = False  # an optional dummy left out: the arguments after it go by keyword
    for p in m.fn.params:
        role = m.assign.get(p.position)
        if role is None:
            skipped = True
            continue
        if role.merged:
            expr = _f_scalar(g, p, role, spec, "hp_k")
        elif role.extra and not role.graded:
            expr = _f_extra(g, m, kr, p, role, lead)
        elif not role.is_array:
            expr = _f_scalar(g, p, role, spec, role.name)
        else:
            expr = _f_array(g, plans[role.name], spec)
        g.arg(p.position, f"{p.name}={expr}" if skipped else expr)
    if m.returned:
        role = kr.role(m.returned)
        g.call = returned_call("fortran", m.fn.name, g.args, role.name)
        g.notes.append(f"the function result is {role.name}")
    scale_outputs(g, m, kr, lambda name: f"{name} = {m.scale!r} * {name}", g.teardown)
    return g


def _f_scalar(g: Glue, p: SParam, role: Role, spec: KernelSpec, expr: str) -> str:
    ftype = _f_scalar_type(p, role, spec)
    canon = "integer" if role.kind in ("int", "index") else f"real({_f_kind(spec.dtype)})"
    if expr == role.name and ftype == canon and not role.merged:
        return expr
    return _f_temp(g, p, ftype, expr)


def _f_temp(g: Glue, p: SParam, ftype: str, expr: str) -> str:
    """A scalar temporary of the suggestion's own type, set to `expr` (converted to its real kind)."""
    tmp = f"hp_s_{p.name}"
    g.decls.append(f"{ftype} :: {tmp}")
    if ftype.startswith("real"):
        g.setup.append(f"{tmp} = real({expr}, {ftype[5:-1]})")
    else:
        g.setup.append(f"{tmp} = {expr}")
    return tmp


def _f_extra(g: Glue, m: Mapping, kr: KernelRoles, p: SParam, role: Role, lead: dict[str, str]) -> str:
    what, value = extra(role)
    if what == "lead":
        expr = lead.get(value) or spec_dim(kr.role(value), 0)
    elif what == "notrans":
        expr = "'N'" if p.kind in ("char", "unknown") else ".false." if p.kind == "bool" else "0"
    elif what == "threads":
        expr = "1"
    elif what == "output":
        target = kr.role(value)
        kind = _f_kind(p.dtype or kr.spec.dtype)
        g.decls.append(f"real({kind}), allocatable :: hp_{role.name}(:)")
        g.setup.append(f"if (allocated(hp_{role.name})) deallocate(hp_{role.name})")
        g.setup.append(f"allocate(hp_{role.name}(size({target.name})))")
        g.setup.append(f"hp_{role.name} = huge(1.0_{kind})")
        g.teardown.append(f"{target.name} = real(hp_{role.name}, {_f_kind(kr.spec.dtype)})")
        g.notes.append(f"{p.name} is a separate output, copied to {target.name}")
        return f"hp_{role.name}"
    else:
        expr = value if what != "real" else f"{float(value)!r}"
    g.notes.append(f"{p.name} = {expr}")
    return _f_temp(g, p, _f_scalar_type(p, role, kr.spec), expr)


def _f_array(g: Glue, pl: Plan, spec: KernelSpec) -> str:
    name = pl.role.name
    canon_kind = "integer" if pl.role.kind in ("int", "index") else _f_kind(spec.dtype)
    rank_mismatch = pl.p.rank is not None and pl.p.rank != pl.rank and pl.p.dims and pl.p.dims[-1] not in ("*",)
    if pl.fill is not None:
        g.setup.append(f"{name} = {pl.fill}")
        g.notes.append(fill_note(name, pl.fill))
    needs = pl.convert or any(pl.pad) or pl.layout != "natural" or rank_mismatch
    if not needs:
        return name
    tmp = f"hp_{name.lower()}_t"
    kind = _f_kind(pl.dtype) if pl.role.kind == "real" else None
    conv = (lambda e: f"real({e}, {kind})") if kind else (lambda e: e)
    back_conv = (lambda e: f"real({e}, {canon_kind})") if kind else (lambda e: e)
    what = []
    ftype = f"real({kind})" if kind else "integer"
    if pl.rank == 2:
        g.decls.append(f"{ftype}, allocatable :: {tmp}(:,:)")
        g.setup.append(f"if (allocated({tmp})) deallocate({tmp})")
        r0, r1 = (f"({pl.role.shape[0]})", f"({pl.role.shape[1]})")
        p0 = "hp_k" if pl.pad[0] else r0
        p1 = "hp_k" if pl.pad[1] else r1
        if pl.layout != "natural":
            g.setup.append(f"allocate({tmp}({p1}, {p0}))")
            g.setup.append(f"{tmp} = 0")
            g.setup.append(f"{tmp}(1:{r1}, 1:{r0}) = {conv(f'transpose({name})')}")
            g.teardown.append(f"{name} = {back_conv(f'transpose({tmp}(1:{r1}, 1:{r0}))')}")
            what.append("transposed")
        else:
            g.setup.append(f"allocate({tmp}({p0}, {p1}))")
            g.setup.append(f"{tmp} = 0")
            g.setup.append(f"{tmp}(1:{r0}, 1:{r1}) = {conv(name)}")
            g.teardown.append(f"{name} = {back_conv(f'{tmp}(1:{r0}, 1:{r1})')}")
        if any(pl.pad):
            what.append("zero-padded to k x k")
        arg = tmp
        if rank_mismatch and (pl.p.rank or 0) == 1:
            g.decls.append(f"{ftype}, allocatable :: {tmp}1(:)")
            g.setup.append(f"{tmp}1 = reshape({tmp}, [size({tmp})])")
            g.teardown.insert(0, f"{tmp} = reshape({tmp}1, shape({tmp}))")
            arg = f"{tmp}1"
            what.append("flattened")
    else:
        dims = ",".join(":" for _ in pl.role.shape)
        g.decls.append(f"{ftype}, allocatable :: {tmp}({dims})")
        if any(pl.pad):  # any rank (x(n), u(n,n,n)): padded extents, the canonical array in its leading section
            extents = ", ".join("hp_k" if pad else f"size({name}, {d + 1})" for d, pad in enumerate(pl.pad))
            section = ", ".join(f"1:size({name}, {d + 1})" for d in range(pl.rank))
            g.setup.append(f"if (allocated({tmp})) deallocate({tmp})")
            g.setup.append(f"allocate({tmp}({extents}))")
            g.setup.append(f"{tmp} = 0")
            g.setup.append(f"{tmp}({section}) = {conv(name)}")
            g.teardown.append(f"{name} = {back_conv(f'{tmp}({section})')}")
            what.append("zero-padded")
        else:
            g.setup.append(f"{tmp} = {conv(name)}")
            g.teardown.append(f"{name} = {back_conv(tmp)}")
        arg = tmp
    if pl.convert:
        what.append(f"converted to {ftype}")
    if pl.narrowing and not pl.role.is_output:
        g.teardown = [t for t in g.teardown if not t.startswith(f"{name} = ") and not t.startswith(f"{tmp} = reshape")]
    g.notes.append(f"{name}: {', '.join(what)}")
    return arg
