"""What a suggested function's body and declarations say about one complete parameter-to-role assignment.

bind.mapping enumerates the type-compatible assignments and scores names, types, intent and position; this module
scores the evidence that only the code carries: which size bounds the loop whose index subscripts which array
(y[i] with i < m), declared extents (Fortran x(n), A(lda,*)), the product term of a flat matrix subscript
(A[i*n + j]: row-major, A[j*m + i]: column-major), one size bounding several axes (the square kernels' merged
size), and writes to parameters mapped to inputs. It also picks each 2-D role's orientation (natural or
transposed) and marks roles passed as flat storage, on the Mapping it scores.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from hpceval.bind.delivery import norm
from hpceval.bind.roles import KernelRoles, Role

if TYPE_CHECKING:
    from hpceval.bind.mapping import Mapping

# a flat subscript's stride (A[i*n + j]: n) is the extent of the minor axis; a mapping that gives it the other axis
# reads past the matrix (a crash charged to the suggestion) and is never used (find_mapping)
STRIDE_AGAINST = "is the stride of"


def size_idents(expr: str) -> list[str]:
    return re.findall(r"[A-Za-z_]\w*", expr)


def body_evidence(m: Mapping, kr: KernelRoles, lang: str) -> tuple[float, list[str]]:
    """Score the body's and declarations' evidence against a complete assignment; pick 2-D layouts."""
    fn = m.fn
    facts = fn.facts
    by_name = {norm(p.name, lang): (p, m.assign.get(p.position)) for p in fn.params}
    sizes_of: dict[str, set[str]] = {}
    for pname, (_p, role) in by_name.items():
        if role is not None and role.size:
            sizes_of[pname] = set(role.covers)
        elif role is not None and role.extra and role.name == "lda":
            sizes_of[pname] = {"@lead"}
    score = 0.0
    problems: list[str] = []
    seen: set[tuple] = set()

    def check(size_param: str, expected: str, weight: float, why: str) -> float:
        got = sizes_of.get(size_param)
        if not got or (size_param, expected, why) in seen:
            return 0.0
        seen.add((size_param, expected, why))
        if expected in got or "@lead" in got:
            return weight
        problems.append(f"{size_param} {why}, but is mapped to {'/'.join(sorted(got))}")
        return -2.0 * weight

    def expected_dim(role: Role, dim: int) -> str | None:
        if dim >= len(role.shape):
            return None
        ids = size_idents(role.shape[dim])
        return ids[0] if len(ids) == 1 else None

    def loop_sizes(var: str) -> set[str]:
        return {s for s in facts.loops.get(var, set()) if s in sizes_of}

    # 2-D roles: try both orientations, keep the better (natural on ties)
    two_d = {pname: role for pname, (p, role) in by_name.items() if role is not None and len(role.shape) >= 2}
    for pname, (p, role) in by_name.items():
        if role is None or not role.is_array:
            continue
        subs = [s for s in facts.subscripts if norm(s[0], lang) == pname]
        declared = [d for d in p.dims] if p.dims else []
        orientations = ("natural", "transposed") if pname in two_d and len(role.shape) == 2 else ("natural",)
        best = None
        for orient in orientations:
            probs_before = len(problems)
            s = 0.0
            shape_order = list(range(len(role.shape)))
            if orient == "transposed":
                shape_order = [1, 0]
            # declared extents (Fortran): x(n), A(m,n), A(lda,*)
            if declared and len(declared) == len(role.shape):
                for d, text in enumerate(declared):
                    bound = text.split(":")[-1]
                    ids = [i.lower() for i in size_idents(bound)]
                    if len(ids) == 1 and ids[0] in sizes_of:
                        exp = expected_dim(role, shape_order[d])
                        if exp:
                            s += check(ids[0], exp, 3.0, f"is declared as extent {d + 1} of {p.name}")
            for _arr, per_dim, prods in subs:
                if len(per_dim) == len(role.shape) and len(per_dim) > 0:
                    for d, ids in enumerate(per_dim):
                        exp = expected_dim(role, shape_order[d]) if d < len(shape_order) else None
                        if not exp:
                            continue
                        for v in ids:
                            for sz in loop_sizes(v):
                                s += check(sz, exp, 1.0, f"bounds the loop of index {v} of {p.name}")
                elif len(per_dim) == 1 and len(role.shape) == 2 and per_dim[0]:  # C[:] = ... is not flat
                    m.flat.add(role.name)
                    major, strides, minor = _flat_axes(per_dim[0], prods, facts.loops, sizes_of, lang)
                    rows_first = orient == "natural"
                    # natural flat storage: row-major in C/C++/Python, column-major in Fortran/Julia
                    if lang in ("fortran", "julia"):
                        rows_first = not rows_first
                    e_major = expected_dim(role, 0 if rows_first else 1)
                    e_minor = expected_dim(role, 1 if rows_first else 0)
                    for v in major:
                        for sz in loop_sizes(v):
                            s += check(sz, e_major, 1.0, f"bounds the row loop ({v}) of {p.name}")
                    for v in minor:
                        for sz in loop_sizes(v):
                            s += check(sz, e_minor, 1.0, f"bounds the column loop ({v}) of {p.name}")
                    for st in strides:
                        if st in sizes_of:
                            s += check(st, e_minor, 1.5, f"{STRIDE_AGAINST} {p.name}'s subscript")
            if best is None or s > best[0]:
                best = (s, orient, problems[probs_before:])
            del problems[probs_before:]
        if best is not None:
            score += best[0]
            problems.extend(best[2])
            if best[1] != "natural":
                m.layout[role.name] = best[1]
    # vectors: y[i] with i < m
    for pname, (p, role) in by_name.items():
        if role is None or not role.is_array or len(role.shape) != 1:
            continue
        exp = expected_dim(role, 0)
        if p.dims and len(p.dims) == 1:
            ids = [i.lower() for i in size_idents(p.dims[0].split(":")[-1])]
            if len(ids) == 1 and exp:
                score += check(ids[0], exp, 3.0, f"is declared as the extent of {p.name}")
        for _arr, per_dim, _prods in (s for s in facts.subscripts if norm(s[0], lang) == pname):
            if len(per_dim) == 1 and exp:
                for v in per_dim[0]:
                    for sz in loop_sizes(v):
                        # a vector's length is unambiguous (a matrix subscript may also read as transposed)
                        score += check(sz, exp, 3.0, f"bounds the loop of index {v} of {p.name}")
    score += _axes_evidence(m, facts, by_name, kr, lang)
    if lang == "python":
        score += _reshape_evidence(m, fn.text, by_name, check, expected_dim)
    # reads and writes
    written = {norm(w, lang) for w in facts.writes}
    for pname, (p, role) in by_name.items():
        if role is None or not role.is_array:
            continue
        if role.is_output and (pname in written or m.returned == role.name):
            score += 2.0
        elif not role.is_output and pname in written:
            score -= 3.0
            problems.append(f"{p.name} is written but mapped to the input {role.name}")
    return score, problems


# Python: `A.reshape(rows, cols)` / `np.reshape(A, (rows, cols))` names the extents the array has, in order; an array
# written whole from a flat expression (`C[:] = (a @ b).reshape(-1)`, `.ravel()`, `.flatten()`) is 1-D storage
_RESHAPED = (r"(?:(?:\bn(?:umpy|p)\s*\.\s*(?:asarray|array|ascontiguousarray)\s*\(\s*{p}\s*\)|\b{p})\s*\.\s*reshape"
             r"\s*\(|\bn(?:umpy|p)\s*\.\s*reshape\s*\(\s*{p}\s*,)\s*\(?([\w\s.,]*?)\)?\s*\)")
_FLAT_WHOLE = r"^\s*{p}\s*\[\s*(?::|\.\.\.)\s*\]\s*=.*(?:\.reshape\s*\(\s*-1\s*\)|\.ravel\s*\(\s*\)|\.flatten\s*\(\s*\))\s*$"


def _reshape_evidence(m: Mapping, text: str, by_name: dict, check, expected_dim) -> float:
    """Python: the sizes a 2-D array is reshaped to are its extents, in order (a record's `A.data.reshape(A.rows,
    A.cols)` tells which of its sizes is m and which k); a 2-D array never subscripted in two dimensions that the
    function writes whole from a flat expression takes flat storage (m.flat), as a flat subscript does."""
    score = 0.0
    two_d_subscripted = {s[0] for s in m.fn.facts.subscripts if len(s[1]) >= 2}
    for p, role in by_name.values():
        if role is None or not role.is_array or len(role.shape) != 2:
            continue
        for got in re.finditer(_RESHAPED.format(p=re.escape(p.name)), text):
            dims = [d.strip() for d in got.group(1).split(",") if d.strip()]
            if len(dims) == 2 and all(re.fullmatch(r"\w+", d) for d in dims):
                for axis, d in enumerate(dims):
                    score += check(d, expected_dim(role, axis), 1.0, f"is extent {axis + 1} that {p.name} is reshaped to")
        if p.name not in two_d_subscripted and re.search(_FLAT_WHOLE.format(p=re.escape(p.name)), text, re.MULTILINE):
            m.flat.add(role.name)
    return score


def _flat_axes(ids: set[str], prods: list[tuple[str, str]], loops: dict[str, set[str]], sizes: dict[str, set[str]],
               lang: str) -> tuple[set[str], set[str], list[str]]:
    """Read a flat matrix subscript as (row-axis indices, strides, column-axis loop indices) of its storage order.

    The stride is the factor that is one of the function's sizes (a parameter mapped to a size or a leading
    dimension): what it multiplies is the index of the axis laid out in rows of that length (`row` in
    `A[row*K + t*TILE + tx]`, a thread index or a loop variable alike), and everything else is the other axis,
    however compound (`t*TILE + tx`, `kk + k`, `j0 + jj`: TILE, a block size, is no size of the matrix). Without
    such a factor (a stride held in a local variable) a loop variable times a non-loop name is the row term."""
    sized = {(a, b) for a, b in prods if norm(b, lang) in sizes and norm(a, lang) not in sizes}
    if not sized:
        sized = {(a, b) for a, b in prods if a in loops and b not in loops}
    major = {a for a, _b in sized}
    strides = {b for _a, b in sized}
    minor = [v for v in ids if v in loops and v not in major]
    return major, strides, minor


def _axes_evidence(m: Mapping, facts, by_name: dict, kr: KernelRoles, lang: str) -> float:
    """One size that bounds the loops over several axes of one array (u[(i*N + j)*N + k], a(i,j) with i, j < n) is
    the kernel's square size, whatever its name or position: it scores for the merged role and against a single
    axis (which would leave the other axes to be implied, contradicting the suggestion's own loops)."""
    if not kr.square:
        return 0.0
    score = 0.0
    for pname, (_p, role) in by_name.items():
        if role is None or not role.size:
            continue
        bounded = {norm(v, lang) for v, bounds in facts.loops.items() if pname in {norm(b, lang) for b in bounds}}
        if len(bounded) < 2:
            continue
        axes = 0
        for arr, per_dim, _prods in facts.subscripts:
            target = by_name.get(norm(arr, lang), (None, None))[1]
            if target is None or len(target.shape) < 2:
                continue
            used = {norm(v, lang) for ids in per_dim for v in ids}
            axes = max(axes, len(bounded & used))
        if axes >= 2:
            score += 2.0 * axes if role.merged else -2.0 * axes
    return score
