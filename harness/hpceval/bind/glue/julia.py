"""Julia glue: the expression the Julia driver evaluates in place of the call of a suggested function.

The Julia driver has no setup/teardown slots: it evaluates one call expression per timed run. So the Julia glue
is a `let` block that builds the temporaries, calls the function, copies back and scales the outputs, and yields
what the function returned (nothing when that is an output array already filled in place). Array temporaries are
column-major like the driver's arrays; the decisions come from glue.common.
"""

from __future__ import annotations

from hpceval.bind.glue.common import (
    Glue,
    array_plans,
    extra,
    fill_note,
    in_place_note,
    in_place_output,
    leading_dims,
    scale_outputs,
    spec_dim,
)
from hpceval.bind.mapping import Mapping
from hpceval.bind.roles import KernelRoles


def _jl_type(dtype: str) -> str:
    return "Float32" if dtype == "float32" else "Float64"


def julia_glue(m: Mapping, kr: KernelRoles) -> Glue:
    """The call as a Julia `let` block (the Julia driver has no setup/teardown slots): temporaries, the call, the
    copies back and the output scaling, evaluated afresh for every timed call; its value is the function's."""
    spec = kr.spec
    g = Glue()
    pre: list[str] = []
    post: list[str] = []
    if (out := in_place_output(m, kr)) is not None:
        pre.append(f"{out} .= {m.in_place}")
        g.notes.append(in_place_note(out, m.in_place))
    merged = m.merged
    if merged is not None:
        pre.append(f"hp_k = max({', '.join(merged.merged)})")
    plans = array_plans(m, kr, "julia")
    lead = leading_dims(plans, spec_dim, column_major=True)
    for p in m.fn.params:
        role = m.assign.get(p.position)
        if role is None:
            continue
        if role.merged:
            g.args.append("hp_k")
        elif role.extra and not role.graded:
            what, value = extra(role)
            if what == "lead":
                expr = lead.get(value, f"size({value}, 1)")
            elif what == "notrans":
                expr = "'N'"
            elif what == "threads":
                expr = "Threads.nthreads()"
            elif what == "output":
                target = value
                pre.append(f"hp_{role.name} = fill(convert(eltype({target}), NaN), size({target}))")
                post.append(f"{target} .= hp_{role.name}")
                expr = f"hp_{role.name}"
            elif what == "real":
                expr = f"{_jl_type(p.dtype or spec.dtype)}({value})"
            else:
                expr = value
            g.args.append(expr)
            g.notes.append(f"{p.name} = {expr}")
        elif not role.is_array:
            g.args.append(role.name if role.kind != "real" or not p.dtype else f"{_jl_type(p.dtype)}({role.name})")
        else:
            pl = plans[role.name]
            name = role.name
            if pl.fill is not None:
                pre.append(f"{name} .= {pl.fill}")
                g.notes.append(fill_note(name, pl.fill))
            if not (pl.convert or any(pl.pad) or pl.layout != "natural"):
                g.args.append(name)
                continue
            tmp = f"hp_{name}"
            src = f"permutedims({name})" if pl.layout != "natural" else name
            dims = list(pl.role.shape)
            if pl.layout != "natural":
                dims = dims[::-1]
            full = ", ".join("hp_k" if pl.pad[i if pl.layout == "natural" else len(dims) - 1 - i] else f"({d})"
                             for i, d in enumerate(dims))
            block = ", ".join(f"1:({d})" for d in dims)
            pre.append(f"{tmp} = zeros({_jl_type(pl.dtype)}, {full})")
            pre.append(f"{tmp}[{block}] .= {src}")
            back = f"{tmp}[{block}]"
            if not (pl.narrowing and not role.is_output):
                post.append(f"{name} .= {'permutedims(' + back + ')' if pl.layout != 'natural' else back}")
            g.args.append(tmp)
            g.notes.append(f"{name}: {'converted, ' if pl.convert else ''}{'padded, ' if any(pl.pad) else ''}"
                           f"{'transposed' if pl.layout != 'natural' else ''}".rstrip(", "))
    call = f"{m.fn.name}({', '.join(g.args)})"
    scale_outputs(g, m, kr, lambda name: f"{name} .*= {m.scale!r}", post)
    result = "hp_r"
    if m.returned:
        role = kr.role(m.returned)
        g.returns = role.name
        fix = f"hp_r[{m.return_index + 1}]" if m.return_index is not None else "hp_r"
        if merged is not None and len(role.shape) == 1:
            fix = f"{fix}[1:({role.shape[0]})]"
        scale = f" .* {m.scale!r}" if m.scale != 1.0 else ""
        result = f"({fix} === {role.name} ? nothing : {fix}{scale})"
        g.notes.append(f"the return value is {role.name}")
    if pre or post or m.returned:
        lines = [*pre, f"hp_r = {call}", *post, result]
        g.call = "let\n" + "\n".join("            " + ln for ln in lines) + "\n        end"
    return g
