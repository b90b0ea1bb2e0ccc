"""Python glue: the statements the Python driver runs around the call of a suggested function.

The Python driver keeps its canonical arrays in a namespace (ns["name"]) and calls the suggestion as `kernel`, so
this glue is written as Python source over ns: NumPy temporaries for conversion, padding, transposition and
flattening, keyword arguments once a parameter is skipped, and returned arrays (possibly an element of a returned
tuple) taken as outputs. The decisions themselves come from glue.common.
"""

from __future__ import annotations

import re

from hpceval.bind.adapt.python import DEVICE, build_record
from hpceval.bind.glue.common import (
    Glue,
    Plan,
    array_plans,
    extra,
    fill_note,
    leading_dims,
    scale_outputs,
)
from hpceval.bind.mapping import Mapping
from hpceval.bind.parse import SParam
from hpceval.bind.roles import KernelRoles, Role
from hpceval.spec import KernelSpec


def _py_np(dtype: str) -> str:
    return f"np.{dtype}"


def python_glue(m: Mapping, kr: KernelRoles) -> Glue:
    spec = kr.spec
    g = Glue()
    g.types = m.fn.types
    merged = m.merged
    if merged is not None:
        g.setup.append(f"hp_k = max({', '.join(_py_expr(s) for s in merged.merged)})")
    plans = array_plans(m, kr, "python")
    lead = leading_dims(plans, lambda role, axis: _py_expr(role.shape[axis]), column_major=False)
    use_keywords = False
    for p in m.fn.params:
        role = m.assign.get(p.position)
        if role is None:
            use_keywords = True
            continue
        if role.merged:
            expr = "hp_k"
        elif role.fields:
            expr = _py_record(g, p, role, kr)
        elif role.extra and not role.graded:
            expr = _py_extra(g, m, kr, p, role, lead)
        elif not role.is_array:
            expr = _py_expr(role.name)
        else:
            at = len(g.teardown)
            expr = _py_array(g, plans[role.name], spec)
            expr = _py_device(g, p, role, expr, at, returned=role.name == m.returned)
        if not role.is_array and not role.fields:
            expr = _py_scalar(g, p, role, expr)
        g.arg(p.position, f"{p.name}={expr}" if use_keywords or p.keyword_only else expr)
    scale_outputs(g, m, kr, lambda name: f'ns["{name}"][...] *= {m.scale!r}', g.teardown)
    call = f"kernel({', '.join(g.args)})"
    if m.returned:
        g.returns = m.returned
        if m.return_index is not None:
            call += f"[{m.return_index}]"
        role = kr.role(m.returned)
        pl = plans.get(role.name)
        if merged is not None and role.is_array:
            size = _py_expr(role.shape[0])
            call = f"np.asarray(host_value({call}))[:{size}]" if len(role.shape) == 1 else call
        elif pl is not None and pl.layout != "natural":
            call = f"np.asarray(host_value({call})).T"
        g.notes.append(f"the return value is {role.name}")
    g.call = call
    return g


def _py_device(g: Glue, p: SParam, role: Role, host: str, at: int, returned: bool = False) -> str:
    """The array argument `host` as the device array the suggestion's code asks for (bind.adapt.python), made in
    the setup and copied back first thing in the teardown (before a temporary goes back to the driver's array);
    not where the function returns that output instead (the returned value is what the driver keeps). Its guard
    zone is checked either way."""
    t = g.types.get(p.name)
    if t is None or not t.device:
        return host
    built = DEVICE[t.kind].build(f"hp_dev_{p.name}", host, role.name, role.is_output)
    g.setup.extend(built.setup)
    g.teardown[at:at] = built.teardown if not returned else built.teardown[1:]
    g.notes.append(f"{p.name}: {built.note} ({t.why})")
    return built.arg


def _py_scalar(g: Glue, p: SParam, role: Role, expr: str) -> str:
    """A scalar as the driver holds it (a NumPy scalar of the kernel's type: NumPy and Numba code computes in it),
    or as a Python float/int where it reaches a Triton kernel, whose launcher refuses NumPy scalars."""
    t = g.types.get(p.name)
    casts = {"real": "float", "int": "int", "index": "int", "bool": "bool"}
    if t is None or not t.native or role.kind not in casts:
        return expr
    cast = casts[role.kind]
    g.notes.append(f"{p.name}: passed as a Python {cast} ({t.native})")
    return f"{cast}({expr})"


def _py_record(g: Glue, p: SParam, role: Role, kr: KernelRoles) -> str:
    """A record parameter (SciPy matrix, own dataclass or NamedTuple, object with fields, dict, tuple) made of the
    driver's arrays, field by field (bind.adapt.python)."""
    t = g.types[p.name]
    fields = {f: f'ns["{c}"]' for f, c in role.fields}
    rows = f'({fields["indptr"]}.size - 1)' if "indptr" in fields else "0"
    outputs = {f for f, c in role.fields if kr.role(c).is_output}
    built = build_record(t, f"hp_rec_{p.name}", fields, rows, outputs)
    g.setup.extend(built.setup)
    g.teardown[0:0] = built.teardown
    g.notes.append(f"{p.name}: {built.note} ({t.why})")
    return built.arg


def _py_expr(expr: str) -> str:
    return re.sub(r"\b([A-Za-z_]\w*)\b", lambda mm: f'ns["{mm.group(1)}"]', expr)


def _py_array(g: Glue, pl: Plan, spec: KernelSpec) -> str:
    name = pl.role.name
    src = f'ns["{name}"]'
    if pl.fill is not None:
        g.setup.append(f"{src}[...] = {pl.fill}")
        g.notes.append(fill_note(name, pl.fill))
    if not (pl.convert or any(pl.pad) or pl.layout != "natural" or pl.flat):
        return src
    tmp = f"hp_{name}"
    dtype = _py_np(pl.dtype)
    what = []
    if any(pl.pad):
        shape = ", ".join("hp_k" if pad else _py_expr(d) for pad, d in zip(pl.pad, pl.role.shape, strict=False))
        g.setup.append(f"{tmp} = np.zeros(({shape},), dtype={dtype})")
        sl = ", ".join(f":{_py_expr(d)}" for d in pl.role.shape)
        g.setup.append(f"{tmp}[{sl}] = {src}")
        back = f"{tmp}[{sl}]"
        what.append("zero-padded to k x k")
    else:
        g.setup.append(f"{tmp} = np.array({src}, dtype={dtype})")
        back = tmp
    if pl.layout != "natural":
        g.setup.append(f"{tmp} = np.ascontiguousarray({tmp}.T)")
        back = f"{tmp}.T" if not any(pl.pad) else back.replace(tmp, f"{tmp}.T", 1)
        what.append("transposed")
    arg = tmp
    if pl.flat:
        arg = f"{tmp}.reshape(-1)"
        what.append("flattened")
    if pl.convert:
        what.append(f"converted to {pl.dtype}")
    if not (pl.narrowing and not pl.role.is_output):
        g.teardown.append(f"{src}[...] = {back}")
    g.notes.append(f"{name}: {', '.join(what)}")
    return arg


def _py_extra(g: Glue, m: Mapping, kr: KernelRoles, p: SParam, role: Role, lead: dict[str, str]) -> str:
    what, value = extra(role)
    if what == "lead":
        expr = lead.get(value) or _py_expr(kr.role(value).shape[1])
    elif what == "notrans":
        expr = "'N'" if re.search(r"""['"][NnTt]['"]""", m.fn.text) else "False"
    elif what == "threads":
        expr = 'int(os.environ.get("OMP_NUM_THREADS", "1"))'
    elif what == "output":
        target = value
        g.setup.append(f'hp_{role.name} = np.full_like(ns["{target}"], np.nan)')
        g.teardown.append(f'ns["{target}"][...] = hp_{role.name}')
        g.notes.append(f"{p.name} is a separate output, copied to {target}")
        return f"hp_{role.name}"
    elif what == "real":
        expr = f"{float(value)!r}"
    else:
        expr = _py_expr(value)  # a literal, or a canonical size (ncols = n) read from the namespace
    g.notes.append(f"{p.name} = {expr}")
    return expr
