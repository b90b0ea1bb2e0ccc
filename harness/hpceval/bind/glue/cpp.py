"""C++ glue: the statements the C/C++ driver runs around the call of a suggested function.

C++ suggestions disagree with the driver's std::vector<T> storage in the most ways: raw pointers, row pointers
(float**), nested std::vector, std::vector of another element type, Kokkos Views (which must wrap host data
unmanaged), scalars by pointer or by non-const reference, typedef'd element types the temporaries must be declared
with. This module spells the shared decisions of glue.common (plans, extras, scaling) in C++ with the driver's
helpers (hpceval_pack/unpack, hpceval_rows, hpceval_nest, hpceval_assign).
"""

from __future__ import annotations

import re

from hpceval.bind.adapt.cpp import context_arg, thrust_container, vector_output
from hpceval.bind.glue.common import (
    Glue,
    Plan,
    array_plans,
    c_canon,
    c_real,
    extra,
    fill_note,
    leading_dims,
    qualified,
    returned_call,
    scale_outputs,
    spec_dim,
)
from hpceval.bind.mapping import Mapping
from hpceval.bind.parse import SParam
from hpceval.bind.parse.cpp import THRUST_VECTORS
from hpceval.bind.roles import KernelRoles, Role
from hpceval.spec import KernelSpec


def _dims(role: Role) -> list[str]:
    return [f"({d})" for d in role.shape]


_VECTOR = re.compile(r"^\s*(?:std::|thrust::)?(?:vector|span|device_vector|host_vector|universal_vector)\s*<(.*)>\s*$",
                     re.DOTALL)


def _c_elem(p: SParam, spec: KernelSpec, role: Role) -> str:
    """The element type to build a temporary of: the suggestion's own spelling, its scalar type names resolved."""
    t = re.sub(r"\b(const|volatile|struct)\b", " ", p.spelled)
    m = _VECTOR.match(t.strip())
    while m:
        t = m.group(1)
        m = _VECTOR.match(t.strip())
    t = " ".join(t.replace("*", " ").replace("&", " ").split())
    if p.container == "view":
        m = re.search(r"View\s*<\s*(?:const\s+)?([\w:]+(?:\s+\w+)?)", p.spelled)
        t = m.group(1) if m else ""
    if not t or p.kind == "real_generic" or t == "auto" or p.container == "template":
        return c_canon(spec, role) if not p.dtype else c_real(p.dtype)
    return t


def cpp_glue(m: Mapping, kr: KernelRoles) -> Glue:
    spec = kr.spec
    g = Glue()
    merged = m.merged
    kokkos = bool(re.search(r"Kokkos|KOKKOS", m.fn.text))
    space = kokkos and kokkos_space_pointers(m.fn.text)
    if merged is not None:
        g.setup.append(f"const int hp_k = std::max({{{', '.join(merged.merged)}}});")
    plans = array_plans(m, kr, "cpp")
    lead = leading_dims(plans, spec_dim, column_major=False)
    late: list[str] = []  # copies of separate outputs to their targets, after every other copy back
    for p in m.fn.params:
        role = m.assign.get(p.position)
        if role is None:
            if p.default is None:  # a context the driver creates (adapt.cpp), else a value-initialised one
                g.arg(p.position, context_arg(g, p) or "{}")
        elif role.merged:
            g.arg(p.position, _c_scalar(g, p, "hp_k"))
        elif role.extra and not role.graded:
            g.arg(p.position, _c_extra(g, m, kr, p, role, lead, plans, late, kokkos, space))
        elif not role.is_array:
            g.arg(p.position, _c_scalar(g, p, role.name))
        else:
            g.arg(p.position, _c_array(g, plans[role.name], spec, kokkos, space))
    g.teardown.extend(late)
    for role_name, pl in plans.items():
        if pl.fill is not None and not _needs_temp(pl):
            g.setup.append(f"std::fill({role_name}.begin(), {role_name}.end(), ({c_canon(spec, pl.role)}){pl.fill});")
            g.notes.append(fill_note(role_name, pl.fill))
    scale_outputs(g, m, kr, lambda name: f"for (auto &hp_v : {name}) hp_v *= {m.scale!r};", g.teardown)
    if m.returned:
        role = kr.role(m.returned)
        g.call = returned_call("cpp", qualified(m), g.args, role.name)
        g.notes.append(f"the return value is {role.name}")
    return g


def _needs_temp(pl: Plan) -> bool:
    return (pl.convert or any(pl.pad) or pl.layout != "natural" or pl.p.container in ("pointer2", "vector2")
            or (pl.p.container == "vector" and pl.convert))


# Names by which a Kokkos function says its raw pointers are host memory it copies from itself.
_KOKKOS_HOST_SPACE = re.compile(r"\b(?:HostSpace|HostMirror|host_mirror\w*|create_mirror\w*|DefaultHostExecutionSpace|"
                                r"HostPinnedSpace|Kokkos::Serial|Kokkos::OpenMP)\b")
_KOKKOS_DEVICE_USE = re.compile(r"\bparallel_(?:for|reduce|scan)\b|View\s*<[^;{}]*>\s*\w+\s*[({]\s*\w+\s*,")


def kokkos_space_pointers(fn_text: str) -> bool:
    """A Kokkos function whose raw pointers live in Kokkos' default memory space: it reads them inside a dispatch
    (a KOKKOS_LAMBDA capturing them, a functor holding them) or wraps them in Views of the default space, and
    never names a host space or mirror to copy them from. The driver hands it buffers of that space (on a host
    backend: the host arrays themselves), as the CUDA glue hands device pointers to a host function that launches
    on its own pointers (glue.launch.takes_device_pointers)."""
    return bool(_KOKKOS_DEVICE_USE.search(fn_text)) and not _KOKKOS_HOST_SPACE.search(fn_text)


def _kokkos_space(g: Glue, name: str, ptr: str, vtype: str, dims: list[str]) -> tuple[str, str]:
    """The View of type `vtype` over the host array `ptr` in the space the function reads it from (the Kokkos
    toolchain's hpceval_kokkos_in: the array itself where that space reads host memory), and the teardown line
    that copies it back (a no-op in that case). Every array goes back, so a kernel that writes an input is seen
    as on a host backend."""
    var = f"hp_kv_{name}"
    g.setup.append(f"auto {var} = hpceval_kokkos_in<{vtype}>({ptr}, {', '.join(dims)});")
    return var, f"hpceval_kokkos_out({var}, {ptr}, {', '.join(dims)});"


def _view_type(p: SParam, default: str) -> str:
    """The Kokkos::View type a parameter declares (`View<const double *>` spelled with its namespace), or `default`."""
    m = re.search(r"(?:Kokkos::)?View\s*<.*>", p.spelled, re.DOTALL)
    vtype = m.group(0) if m else default
    return vtype if vtype.startswith("Kokkos::") else "Kokkos::" + vtype


def _c_view(g: Glue, pl: Plan, spec: KernelSpec, ptr: str) -> tuple[str, str]:
    """A Kokkos::View of the host data in the View type's own space (see _kokkos_space), or for an unconstrained
    template type a default-space View; returns the argument and its copy-back line."""
    p, role = pl.p, pl.role
    dims = ["hp_k" if pad else spec_dim(role, d) for d, pad in enumerate(pl.pad)] if pl.rank <= 2 else \
        ["*".join(_dims(role))]
    if p.container == "view":
        vtype = _view_type(p, f"Kokkos::View<{c_canon(spec, role)}{'*' * max(1, pl.rank)}>")
        stars = re.match(r"Kokkos::View\s*<\s*[^,*>]*?(\**)\s*[,>]", vtype)
        if pl.rank >= 3 and stars and len(stars.group(1)) == pl.rank:
            dims = [spec_dim(role, d) for d in range(pl.rank)]  # a View of the grid's own rank (double ***)
    else:
        vtype = f"Kokkos::View<{c_canon(spec, role) if not pl.convert else pl.dtype}{'*' * max(1, len(dims))}>"
    return _kokkos_space(g, role.name, ptr, vtype, dims)


def _space_pointer(g: Glue, pl: Plan, elem: str, ptr: str) -> tuple[str, str]:
    """A raw pointer of Kokkos' default memory space over the host array (kokkos_space_pointers)."""
    size = "*".join(_dims(pl.role)) if pl.rank else "1"
    var, back = _kokkos_space(g, pl.role.name, ptr, f"Kokkos::View<{elem} *>", [f"(size_t)({size})"])
    g.notes.append(f"{pl.role.name}: a buffer of Kokkos' default memory space (the function reads its pointers in "
                   f"a dispatch and names no host space)")
    return f"{var}.data()", back


def _c_array(g: Glue, pl: Plan, spec: KernelSpec, kokkos: bool = False, space: bool = False) -> str:
    role, p = pl.role, pl.p
    name = role.name
    if not _needs_temp(pl):
        if p.container == "view" or (p.container == "template" and kokkos):
            g.notes.append(f"{name}: passed as a Kokkos::View of the host data (in its own memory space)")
            arg, back = _c_view(g, pl, spec, f"{name}.data()")
            g.teardown.append(back)
            return arg
        if p.container == "pointer" and space:
            arg, back = _space_pointer(g, pl, _c_elem(p, spec, role), f"{name}.data()")
            g.teardown.append(back)
            return arg
        if p.container in THRUST_VECTORS:
            return thrust_container(g, p, _c_elem(p, spec, role), name)
        # a std::span (C++20) is a view of the driver's own vector: writes reach it, nothing to copy back
        if p.container == "span":
            return _span_of(p, _c_elem(p, spec, role), name)
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
        g.notes.append(fill_note(name, pl.fill))
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
        arg, back = _c_view(g, pl, spec, f"{tmp}.data()")
        teardown.insert(0, back)
    elif p.container == "pointer" and space:
        arg, back = _space_pointer(g, pl, elem, f"{tmp}.data()")
        teardown.insert(0, back)
    elif p.container == "span":
        arg = _span_of(p, elem, tmp)
    elif p.container in ("vector", "template"):
        arg = tmp
    elif p.container in THRUST_VECTORS:  # built from the packed temporary, back into it before its unpack
        mark = len(g.teardown)
        arg = thrust_container(g, p, elem, tmp)
        teardown[:0] = g.teardown[mark:]
        del g.teardown[mark:]
    elif p.container == "pointer2" and pl.rank >= 3 and (p.rank or 0) >= 3:  # double ***u: planes of row pointers
        d = _dims(role)
        g.setup.append(f"std::vector<{elem} *> {tmp}_rows = hpceval_rows({tmp}, ({d[0]}) * ({d[1]}), {'*'.join(d[2:])});")
        g.setup.append(f"std::vector<{elem} **> {tmp}_planes(({d[0]}) + 1, nullptr);")
        g.setup.append(f"for (long hp_p = 0; hp_p < ({d[0]}); ++hp_p) {tmp}_planes[(size_t)hp_p] = "
                       f"{tmp}_rows.data() + hp_p * ({d[1]});")
        arg = f"{tmp}_planes.data()"
        what.append("as planes of row pointers")
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
    t = " ".join(re.sub(r"\b(const|volatile)\b", " ", p.spelled).replace("*", " ").replace("&", " ").split()) or "int"
    if p.array and p.container == "view":  # a scalar in a one-element View (delivery.boxed_scalars)
        vtype = _view_type(p, "Kokkos::View<double *>")
        elem = re.search(r"View\s*<\s*(?:const\s+)?([\w:]+)", vtype)
        g.setup.append(f"{elem.group(1) if elem else 'double'} hp_s_{p.name} = ({expr});")
        g.setup.append(f"auto hp_kv_{p.name} = hpceval_kokkos_in<{vtype}>(&hp_s_{p.name}, (size_t)1);")
        g.notes.append(f"{p.name} carries {expr} in a one-element View")
        return f"hp_kv_{p.name}"
    if p.pointer_scalar or (p.array and p.container == "pointer"):
        g.setup.append(f"{t} hp_s_{p.name} = ({t})({expr});")
        return f"&hp_s_{p.name}"
    if p.reference and not p.const:
        g.setup.append(f"{t} hp_s_{p.name} = ({t})({expr});")
        return f"hp_s_{p.name}"
    return expr


def _c_extra(g: Glue, m: Mapping, kr: KernelRoles, p: SParam, role: Role, lead: dict[str, str],
             plans: dict[str, Plan], late: list[str], kokkos: bool = False, space: bool = False) -> str:
    what, value = extra(role)
    if what == "lead":
        expr = lead.get(value) or spec_dim(kr.role(value), 1)
    elif what == "notrans":
        expr = "'N'" if p.kind in ("char", "unknown") else "0"
    elif what == "threads":
        expr = "hpceval_threads()"
    elif what == "output":
        target = kr.role(value)
        elem = _c_elem(p, kr.spec, target)
        size = "*".join(_dims(target))
        g.notes.append(f"{p.name} is a separate output, copied to {target.name}")
        if (vec := vector_output(g, late, p, elem, size, target.name, f"hp_{role.name}")) is not None:
            return vec
        g.setup.append(f"std::vector<{elem}> hp_{role.name}((size_t)({size}), ({elem})NAN);")
        arg = f"hp_{role.name}" if p.container == "span" else f"hp_{role.name}.data()"
        if p.container == "view" or (p.container == "template" and kokkos):
            arg, back = _kokkos_space(g, role.name, arg, _view_type(p, f"Kokkos::View<{elem}*>"), [f"(size_t)({size})"])
            g.teardown.append(back)
        elif p.container == "pointer" and space:
            arg, back = _kokkos_space(g, role.name, arg, f"Kokkos::View<{elem} *>", [f"(size_t)({size})"])
            arg = f"{arg}.data()"
            g.teardown.append(back)
        # to its target after every other copy back: an input copied back from its converted temporary into the
        # same array (out-of-place AXPY: z into y, y read in another precision) would overwrite it
        late.append(f"hpceval_unpack(hp_{role.name}, {target.name}, {size}, 1, {size}, 1, false);")
        return arg
    elif what == "real":
        expr = f"({_c_elem(p, kr.spec, role)}){value}"
    else:
        expr = value
    g.notes.append(f"{p.name} = {expr}")
    return _c_scalar(g, p, expr)


def _span_of(p: SParam, elem: str, vector: str) -> str:
    """A std::span of the driver's vector, spelled out: a function template over `std::span<const T>` deduces T
    from a span, never from a vector (deduction does not look through the conversion)."""
    const = "const " if re.search(r"\bspan\s*<\s*const\b", p.type_text) else ""
    return f"std::span<{const}{elem}>({vector})"

