"""Glue: the driver code that feeds the canonical data to a suggested function through the mapping found.

The drivers hold the canonical inputs (C++: std::vector<T> per array and scalars named as in the spec; Fortran:
allocatable arrays; Python: ns["name"]). The glue computes each argument expression and, where the suggestion wants
its data differently, a temporary built before the timed calls and copied back after them (inputs too, so a kernel
that clobbers an input is still caught):

* element type: a suggestion declaring double for a float kernel (or real(8), or float for a double kernel) gets
  its data converted to its own type and back; bytes are never reinterpreted (the precision the result has is
  then what validation sees);
* containers: float** row pointers, std::vector<std::vector<T>>, std::vector<T> of another type;
* layout: a matrix read column-major where the canonical storage is row-major (or transposed in Fortran);
* square variant: inputs zero-padded to k x k, k = max(m, n);
* variant extras at their canonical values (alpha = 1, beta = 0, incx = 1, lda = leading dimension, trans = 'N');
  thread counts and block sizes get harmless values;
* outputs the function reads before writing (y += A*x, beta*y) are zeroed before the call (instead of NaN-poisoned).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from hpceval.bind.mapping import Mapping
from hpceval.bind.parsing import SParam
from hpceval.bind.roles import KernelRoles, Role
from hpceval.spec import KernelSpec


@dataclass
class Glue:
    args: list[str] = field(default_factory=list)
    setup: list[str] = field(default_factory=list)
    teardown: list[str] = field(default_factory=list)
    decls: list[str] = field(default_factory=list)
    call: str | None = None
    returns: str | None = None
    notes: list[str] = field(default_factory=list)


def _c_canon(spec: KernelSpec, role: Role) -> str:
    if role.kind in ("int", "index"):
        return "int"
    return "float" if spec.dtype == "float32" else "double"


def _dims(role: Role) -> list[str]:
    return [f"({d})" for d in role.shape]


class _Plan:
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
        self.fill = m.prefill if (role.is_output and m.prefill) else ("0" if role.name in m.zero else None)
        self.zero = self.fill is not None


# ------------------------------------------------------------------------------------------------------ C++


def _c_elem(p: SParam, spec: KernelSpec, role: Role) -> str:
    """The element type to build a temporary of: the suggestion's own spelling (macros/typedefs included)."""
    t = re.sub(r"\b(const|volatile|struct)\b", " ", p.type_text)
    m = re.match(r"^\s*(?:std::)?vector\s*<(.*)>\s*$", t.strip(), re.DOTALL)
    while m:
        t = m.group(1)
        m = re.match(r"^\s*(?:std::)?vector\s*<(.*)>\s*$", t.strip(), re.DOTALL)
    t = " ".join(t.replace("*", " ").replace("&", " ").split())
    if p.container == "view":
        m = re.search(r"View\s*<\s*(?:const\s+)?([\w:]+(?:\s+\w+)?)", p.type_text)
        t = m.group(1) if m else ""
    if not t or p.kind == "real_generic" or t == "auto" or p.container == "template":
        return _c_canon(spec, role) if not p.dtype else ("float" if p.dtype == "float32" else "double")
    return t


def _array_plans(m: Mapping, kr: KernelRoles, lang: str) -> dict[str, _Plan]:
    """A conversion plan for every canonical array the suggestion takes (arrays it adds itself excluded)."""
    plans: dict[str, _Plan] = {}
    for p in m.fn.params:
        role = m.assign.get(p.position)
        if role is not None and role.is_array and not role.extra:
            plans[role.name] = _Plan(m, kr, lang, p, role)
    return plans


def _leading_dims(plans: dict[str, _Plan], dim: Callable[[Role, int], str], column_major: bool) -> dict[str, str]:
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


def cpp_glue(m: Mapping, kr: KernelRoles) -> Glue:
    spec = kr.spec
    g = Glue()
    merged = m.merged
    kokkos = bool(re.search(r"Kokkos|KOKKOS", m.fn.text))
    if merged is not None:
        g.setup.append(f"const int hp_k = std::max({{{', '.join(merged.merged)}}});")
    plans = _array_plans(m, kr, "cpp")
    lead = _leading_dims(plans, spec_dim, column_major=False)
    for p in m.fn.params:
        role = m.assign.get(p.position)
        if role is None:
            if p.default is None:
                g.args.append("{}")
            continue
        if role.merged:
            g.args.append(_c_scalar(g, p, "hp_k"))
            continue
        if role.extra:
            g.args.append(_c_extra(g, m, kr, p, role, lead, plans))
            continue
        if not role.is_array:
            g.args.append(_c_scalar(g, p, role.name))
            continue
        g.args.append(_c_array(g, plans[role.name], spec, kokkos))
    for role_name, pl in plans.items():
        if pl.fill is not None and not _needs_temp(pl):
            g.setup.append(f"std::fill({role_name}.begin(), {role_name}.end(), ({_c_canon(spec, pl.role)}){pl.fill});")
            g.notes.append(_fill_note(role_name, pl.fill))
    if m.scale != 1.0:
        for r in kr.canonical:
            if r.is_array and r.is_output:
                g.teardown.append(f"for (auto &hp_v : {r.name}) hp_v *= {m.scale!r};")
        g.notes.append(f"outputs multiplied by {m.scale!r} after the call (the extras' canonical point)")
    if m.returned:
        role = kr.role(m.returned)
        call = f"{qualified(m)}({', '.join(g.args)})"
        g.call = f"{{ auto hp_ret = {call}; hpceval_assign({role.name}, hp_ret); }}"
        g.notes.append(f"the return value is {role.name}")
    return g


def _fill_note(name: str, fill: str) -> str:
    if fill == "0":
        return f"{name} zeroed before the call (read before written)"
    return f"{name} holds {fill} on entry (the extras' canonical point)"


def spec_dim(role: Role, d: int) -> str:
    return f"({role.shape[d]})"


def qualified(m: Mapping) -> str:
    if m.fn.container and m.fn.container[0] == "namespace" and m.fn.container[1]:
        return f"{m.fn.container[1]}::{m.fn.name}"
    return m.fn.name


def _needs_temp(pl: _Plan) -> bool:
    return (pl.convert or any(pl.pad) or pl.layout != "natural" or pl.p.container in ("pointer2", "vector2")
            or (pl.p.container == "vector" and pl.convert))


def _c_view(pl: _Plan, spec: KernelSpec, ptr: str, kokkos: bool) -> str:
    """A Kokkos::View wrapping host data (unmanaged), or for an unconstrained template type the vector itself."""
    p, role = pl.p, pl.role
    dims = ["hp_k" if pad else spec_dim(role, d) for d, pad in enumerate(pl.pad)] if pl.rank <= 2 else \
        ["*".join(_dims(role))]
    if p.container == "view":
        m = re.search(r"(?:Kokkos::)?View\s*<.*>", p.type_text, re.DOTALL)
        vtype = m.group(0) if m else f"Kokkos::View<{_c_canon(spec, role)}{'*' * max(1, pl.rank)}>"
        if not vtype.startswith("Kokkos::"):
            vtype = "Kokkos::" + vtype
    else:
        vtype = f"Kokkos::View<{_c_canon(spec, role) if not pl.convert else pl.dtype}{'*' * max(1, len(dims))}>"
    return f"{vtype}({ptr}, {', '.join(dims)})"


def _c_array(g: Glue, pl: _Plan, spec: KernelSpec, kokkos: bool = False) -> str:
    role, p = pl.role, pl.p
    name = role.name
    if not _needs_temp(pl):
        if p.container == "view" or (p.container == "template" and kokkos):
            g.notes.append(f"{name}: passed as an unmanaged Kokkos::View of the host data")
            return _c_view(pl, spec, f"{name}.data()", kokkos)
        return name if p.container in ("vector", "template") else f"{name}.data()"
    elem = _c_elem(p, spec, role)
    if pl.rank >= 3:
        rows, cols, prows, pcols = "*".join(_dims(role)), "1", "*".join(_dims(role)), "1"
    elif pl.rank == 2:
        rows, cols = spec_dim(role, 0), spec_dim(role, 1)
        prows = "hp_k" if pl.pad[0] else rows
        pcols = "hp_k" if pl.pad[1] else cols
    else:
        rows, cols = spec_dim(role, 0), "1"
        prows, pcols = ("hp_k" if pl.pad[0] else rows), "1"
    col = "true" if pl.layout != "natural" else "false"
    tmp = f"hp_{name}"
    g.setup.append(f"std::vector<{elem}> {tmp} = hpceval_pack<{elem}>({name}, {rows}, {cols}, {prows}, {pcols}, {col});")
    if pl.fill is not None:
        g.setup.append(f"std::fill({tmp}.begin(), {tmp}.end(), ({elem}){pl.fill});")
        g.notes.append(_fill_note(name, pl.fill))
    teardown = [f"hpceval_unpack({tmp}, {name}, {rows}, {cols}, {prows}, {pcols}, {col});"]
    if pl.narrowing and not role.is_output:
        teardown = []  # a narrowed input cannot come back bit-identical: not copied back
    what = []
    if pl.convert:
        what.append(f"converted to {elem}")
    if any(pl.pad):
        what.append("zero-padded to k x k")
    if pl.layout != "natural":
        what.append("column-major")
    arg = f"{tmp}.data()"
    if p.container == "view" or (p.container == "template" and kokkos):
        arg = _c_view(pl, spec, f"{tmp}.data()", kokkos)
    elif p.container in ("vector", "template"):
        arg = tmp
    elif p.container == "pointer2":
        r, c = (pcols, prows) if pl.layout != "natural" else (prows, pcols)
        g.setup.append(f"std::vector<{elem} *> {tmp}_rows = hpceval_rows({tmp}, {r}, {c});")
        arg = f"{tmp}_rows.data()"
        what.append("as row pointers")
    elif p.container == "vector2":
        r, c = (pcols, prows) if pl.layout != "natural" else (prows, pcols)
        g.setup.append(f"std::vector<std::vector<{elem}>> {tmp}_2d = hpceval_nest({tmp}, {r}, {c});")
        teardown.insert(0, f"hpceval_unnest({tmp}_2d, {tmp});")
        arg = f"{tmp}_2d"
        what.append("as nested vectors")
    g.teardown.extend(teardown)
    if what:
        g.notes.append(f"{name}: {', '.join(what)}")
    return arg


def _c_scalar(g: Glue, p: SParam, expr: str) -> str:
    t = " ".join(re.sub(r"\b(const|volatile)\b", " ", p.type_text).replace("*", " ").replace("&", " ").split()) or "int"
    if p.pointer_scalar or (p.array and p.container == "pointer"):
        g.setup.append(f"{t} hp_s_{p.name} = ({t})({expr});")
        return f"&hp_s_{p.name}"
    if p.reference and not p.const:
        g.setup.append(f"{t} hp_s_{p.name} = ({t})({expr});")
        return f"hp_s_{p.name}"
    return expr


def _c_extra(g: Glue, m: Mapping, kr: KernelRoles, p: SParam, role: Role, lead: dict[str, str],
             plans: dict[str, _Plan]) -> str:
    value = role.canonical or "0"
    if value.startswith("lead:"):
        target = value.split(":", 1)[1]
        expr = lead.get(target) or spec_dim(kr.role(target), 1)
    elif value == "notrans":
        expr = "'N'" if p.kind in ("char", "unknown") else "0"
    elif value == "threads":
        expr = "hpceval_threads()"
    elif value.startswith("output:"):
        target = kr.role(value.split(":", 1)[1])
        elem = _c_elem(p, kr.spec, target)
        size = "*".join(_dims(target))
        g.setup.append(f"std::vector<{elem}> hp_{role.name}((size_t)({size}), ({elem})NAN);")
        g.teardown.append(f"hpceval_unpack(hp_{role.name}, {target.name}, {size}, 1, {size}, 1, false);")
        g.notes.append(f"{p.name} is a separate output, copied to {target.name}")
        return f"hp_{role.name}.data()"
    elif role.kind == "real":
        expr = f"({_c_elem(p, kr.spec, role)}){value}"
    else:
        expr = value
    g.notes.append(f"{p.name} = {expr}")
    return _c_scalar(g, p, expr)


# ------------------------------------------------------------------------------------------------------ Python


def _py_np(dtype: str) -> str:
    return f"np.{dtype}"


def python_glue(m: Mapping, kr: KernelRoles) -> Glue:
    spec = kr.spec
    g = Glue()
    merged = m.merged
    if merged is not None:
        g.setup.append(f"hp_k = max({', '.join(_py_expr(s) for s in merged.merged)})")
    plans = _array_plans(m, kr, "python")
    lead = _leading_dims(plans, lambda role, axis: _py_expr(role.shape[axis]), column_major=False)
    use_keywords = False
    for p in m.fn.params:
        role = m.assign.get(p.position)
        if role is None:
            use_keywords = True
            continue
        if role.merged:
            expr = "hp_k"
        elif role.extra:
            expr = _py_extra(g, m, kr, p, role, lead)
        elif not role.is_array:
            expr = _py_expr(role.name)
        else:
            expr = _py_array(g, plans[role.name], spec)
        g.args.append(f"{p.name}={expr}" if use_keywords or p.keyword_only else expr)
    if m.scale != 1.0:
        for r in kr.canonical:
            if r.is_array and r.is_output:
                g.teardown.append(f'ns["{r.name}"][...] *= {m.scale!r}')
        g.notes.append(f"outputs multiplied by {m.scale!r} after the call (the extras' canonical point)")
    call = f"kernel({', '.join(g.args)})"
    if m.returned:
        g.returns = m.returned
        if m.return_index is not None:
            call += f"[{m.return_index}]"
        role = kr.role(m.returned)
        pl = plans.get(role.name)
        if merged is not None and role.is_array:
            size = _py_expr(role.shape[0])
            call = f"np.asarray({call})[:{size}]" if len(role.shape) == 1 else call
        elif pl is not None and pl.layout != "natural":
            call = f"np.asarray({call}).T"
        g.notes.append(f"the return value is {role.name}")
    g.call = call
    return g


def _py_expr(expr: str) -> str:
    return re.sub(r"\b([A-Za-z_]\w*)\b", lambda mm: f'ns["{mm.group(1)}"]', expr)


def _py_array(g: Glue, pl: _Plan, spec: KernelSpec) -> str:
    name = pl.role.name
    src = f'ns["{name}"]'
    if pl.fill is not None:
        g.setup.append(f"{src}[...] = {pl.fill}")
        g.notes.append(_fill_note(name, pl.fill))
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
    value = role.canonical or "0"
    if value.startswith("lead:"):
        target = value.split(":", 1)[1]
        expr = lead.get(target) or _py_expr(kr.role(target).shape[1])
    elif value == "notrans":
        expr = "'N'" if re.search(r"""['"][NnTt]['"]""", m.fn.text) else "False"
    elif value == "threads":
        expr = 'int(os.environ.get("OMP_NUM_THREADS", "1"))'
    elif value.startswith("output:"):
        target = value.split(":", 1)[1]
        g.setup.append(f'hp_{role.name} = np.full_like(ns["{target}"], np.nan)')
        g.teardown.append(f'ns["{target}"][...] = hp_{role.name}')
        g.notes.append(f"{p.name} is a separate output, copied to {target}")
        return f"hp_{role.name}"
    elif role.kind == "real":
        expr = f"{float(value)!r}"
    else:
        expr = value
    g.notes.append(f"{p.name} = {expr}")
    return expr


# ------------------------------------------------------------------------------------------------------ Fortran


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
    plans = _array_plans(m, kr, "fortran")
    lead = _leading_dims(plans, lambda role, axis: f"({role.shape[axis]})", column_major=True)
    for p in m.fn.params:
        role = m.assign.get(p.position)
        if role is None:
            continue
        if role.merged:
            g.args.append(_f_scalar(g, p, role, spec, "hp_k"))
        elif role.extra:
            g.args.append(_f_extra(g, m, kr, p, role, lead))
        elif not role.is_array:
            g.args.append(_f_scalar(g, p, role, spec, role.name))
        else:
            g.args.append(_f_array(g, plans[role.name], spec))
    if m.returned:
        role = kr.role(m.returned)
        g.call = f"{role.name} = {m.fn.name}({', '.join(g.args)})"
        g.notes.append(f"the function result is {role.name}")
    if m.scale != 1.0:
        for r in kr.canonical:
            if r.is_array and r.is_output:
                g.teardown.append(f"{r.name} = {m.scale!r} * {r.name}")
        g.notes.append(f"outputs multiplied by {m.scale!r} after the call (the extras' canonical point)")
    return g


def _f_scalar(g: Glue, p: SParam, role: Role, spec: KernelSpec, expr: str) -> str:
    ftype = _f_scalar_type(p, role, spec)
    canon = "integer" if role.kind in ("int", "index") else f"real({_f_kind(spec.dtype)})"
    if expr == role.name and ftype == canon and not role.merged:
        return expr
    tmp = f"hp_s_{p.name}"
    g.decls.append(f"{ftype} :: {tmp}")
    if ftype.startswith("real"):
        g.setup.append(f"{tmp} = real({expr}, {ftype[5:-1]})")
    elif ftype.startswith("integer"):
        g.setup.append(f"{tmp} = {expr}")
    else:
        g.setup.append(f"{tmp} = {expr}")
    return tmp


def _f_extra(g: Glue, m: Mapping, kr: KernelRoles, p: SParam, role: Role, lead: dict[str, str]) -> str:
    value = role.canonical or "0"
    if value.startswith("lead:"):
        target = value.split(":", 1)[1]
        expr = lead.get(target) or f"({kr.role(target).shape[0]})"
    elif value == "notrans":
        expr = "'N'" if p.kind in ("char", "unknown") else ".false." if p.kind == "bool" else "0"
    elif value == "threads":
        expr = "1"
    elif value.startswith("output:"):
        target = kr.role(value.split(":", 1)[1])
        kind = _f_kind(p.dtype or kr.spec.dtype)
        g.decls.append(f"real({kind}), allocatable :: hp_{role.name}(:)")
        g.setup.append(f"if (allocated(hp_{role.name})) deallocate(hp_{role.name})")
        g.setup.append(f"allocate(hp_{role.name}(size({target.name})))")
        g.setup.append(f"hp_{role.name} = huge(1.0_{kind})")
        g.teardown.append(f"{target.name} = real(hp_{role.name}, {_f_kind(kr.spec.dtype)})")
        g.notes.append(f"{p.name} is a separate output, copied to {target.name}")
        return f"hp_{role.name}"
    else:
        expr = value if role.kind != "real" else f"{float(value)!r}"
    g.notes.append(f"{p.name} = {expr}")
    ftype = _f_scalar_type(p, role, kr.spec)
    tmp = f"hp_s_{p.name}"
    g.decls.append(f"{ftype} :: {tmp}")
    if ftype.startswith("real"):
        g.setup.append(f"{tmp} = real({expr}, {ftype[5:-1]})")
    else:
        g.setup.append(f"{tmp} = {expr}")
    return tmp


def _f_array(g: Glue, pl: _Plan, spec: KernelSpec) -> str:
    name = pl.role.name
    canon_kind = "integer" if pl.role.kind in ("int", "index") else _f_kind(spec.dtype)
    rank_mismatch = pl.p.rank is not None and pl.p.rank != pl.rank and pl.p.dims and pl.p.dims[-1] not in ("*",)
    if pl.fill is not None:
        g.setup.append(f"{name} = {pl.fill}")
        g.notes.append(_fill_note(name, pl.fill))
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
        if any(pl.pad):
            g.setup.append(f"if (allocated({tmp})) deallocate({tmp})")
            g.setup.append(f"allocate({tmp}(hp_k))")
            g.setup.append(f"{tmp} = 0")
            g.setup.append(f"{tmp}(1:size({name})) = {conv(name)}")
            g.teardown.append(f"{name} = {back_conv(f'{tmp}(1:size({name}))')}")
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


def _jl_type(dtype: str) -> str:
    return "Float32" if dtype == "float32" else "Float64"


def julia_glue(m: Mapping, kr: KernelRoles) -> Glue:
    """The call as a Julia `let` block (the Julia driver has no setup/teardown slots): temporaries, the call, the
    copies back and the output scaling, evaluated afresh for every timed call; its value is the function's."""
    spec = kr.spec
    g = Glue()
    pre: list[str] = []
    post: list[str] = []
    merged = m.merged
    if merged is not None:
        pre.append(f"hp_k = max({', '.join(merged.merged)})")
    plans = _array_plans(m, kr, "julia")
    lead = _leading_dims(plans, lambda role, axis: f"({role.shape[axis]})", column_major=True)
    for p in m.fn.params:
        role = m.assign.get(p.position)
        if role is None:
            continue
        if role.merged:
            g.args.append("hp_k")
        elif role.extra:
            value = role.canonical or "0"
            if value.startswith("lead:"):
                expr = lead.get(value.split(":", 1)[1], f"size({value.split(':', 1)[1]}, 1)")
            elif value == "notrans":
                expr = "'N'"
            elif value == "threads":
                expr = "Threads.nthreads()"
            elif value.startswith("output:"):
                target = value.split(":", 1)[1]
                pre.append(f"hp_{role.name} = fill(convert(eltype({target}), NaN), size({target}))")
                post.append(f"{target} .= hp_{role.name}")
                expr = f"hp_{role.name}"
            elif role.kind == "real":
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
                g.notes.append(_fill_note(name, pl.fill))
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
    outputs = [r.name for r in kr.canonical if r.is_array and r.is_output]
    if m.scale != 1.0:
        post += [f"{o} .*= {m.scale!r}" for o in outputs]
        g.notes.append(f"outputs multiplied by {m.scale!r} after the call (the extras' canonical point)")
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


def make_glue(m: Mapping, kr: KernelRoles, lang: str) -> Glue:
    if lang == "cpp":
        return cpp_glue(m, kr)
    if lang == "python":
        return python_glue(m, kr)
    if lang == "fortran":
        return fortran_glue(m, kr)
    return julia_glue(m, kr)
