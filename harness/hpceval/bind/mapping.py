"""Map a suggested function's parameters to the kernel's roles by name, type, intent, position and body usage.

The search is exhaustive over the type-compatible assignments (functions have few parameters) and scores each:

* type: element kind, scalar/array, rank and container must fit the role (hard);
* names: a parameter named like a role (its canonical name or a listed synonym) scores for that role; one named
  like *another* role cannot take this one (hard: a mapping never contradicts the suggestion's own names), except
  for conventional size names (`m`, `n`, ...) that the suggestion's own loops outrank;
* intent: Fortran intent(in) / C++ const cannot receive an output (hard); writing a parameter mapped to an input
  costs points;
* body: which size bounds the loop whose index subscripts which array (y[i] with i < m), declared extents
  (Fortran x(n)), the product term of a flat matrix subscript (A[i*n + j]: row-major, A[j*m + i]: column-major),
  scored by bind.body_evidence;
* position in the canonical signature (a tie-breaker).

Extras (variant and tuning parameters) are only taken by name. The result says which variant the signature is, how
matrices are laid out, whether an output is read before it is written (the accumulate variant, graded with a
random output on entry: never zero-filled) and why a function cannot be bound when it cannot.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field

from hpceval.bind.adapt import context_param
from hpceval.bind.body_evidence import STRIDE_AGAINST, body_evidence, size_idents
from hpceval.bind.delivery import boxed_scalars, carry_in_place, looks_like_result, norm, scratch_as_output
from hpceval.bind.parse import SFunction, SParam
from hpceval.bind.roles import DERIVED_SIZES, KernelRoles, Role, shape_idents
from hpceval.bind.structure import MAX_ALTERNATIVES, NEAR_TIE, index_base_variant, structure_problem

# std::array maps like a vector: whether its compile-time extent can take the case's sizes is the adapter's to say
# (bind.adapt.cpp.fixed_extent), after the mapping has shown which kernel array it is
UNSUPPORTED_CONTAINERS = {"valarray": "a std::valarray", "span_fixed": "a std::span of fixed extent",
                          "array2d": "a fixed-extent 2-D array",
                          "thrust2": "a Thrust vector of vectors"}
# containers that know their own size: a size the kernel needs may come from them
SIZED_CONTAINERS = ("vector", "vector2", "view", "template", "array", "span", "device_vector", "host_vector",
                    "universal_vector")


@dataclass
class Mapping:
    fn: SFunction
    assign: dict[int, Role | None]  # parameter position -> role (None: left to its default)
    score: float
    layout: dict[str, str] = field(default_factory=dict)  # 2-D role -> natural | transposed
    flat: set[str] = field(default_factory=set)  # 2-D roles passed as 1-D storage
    returned: str | None = None  # output role delivered by the return value
    return_index: int | None = None
    zero: set[str] = field(default_factory=set)  # outputs read before written: the accumulate variant
    implied: list[str] = field(default_factory=list)  # sizes the function derives from its arrays
    notes: list[str] = field(default_factory=list)
    ambiguous: str = ""
    in_place: str | None = None  # the input whose parameter carries the output (given a copy of that input)
    base: str | None = None  # the index-base variant (bind.structure): 1-based CSR in C++, 0-based in Fortran
    alternatives: list[Mapping] = field(default_factory=list)  # near ties the evaluator may probe (bind.structure)

    def role_of(self, name: str) -> SParam | None:
        for pos, role in self.assign.items():
            if role is not None and name in role.covers and not role.extra:
                return self.fn.params[pos]
        return None

    @property
    def scale(self) -> float:
        """Factor the outputs are multiplied by after the call (extras evaluated at a scaled point)."""
        f = 1.0
        for r in self.assign.values():
            if r is not None and r.extra and r.scale:
                f *= float(r.scale)
        return f

    @property
    def prefill(self) -> str | None:
        """Value the outputs hold on entry (None: NaN-poisoned, or zeroed when read before written)."""
        return next((r.prefill for r in self.assign.values() if r is not None and r.extra and r.prefill), None)

    @property
    def merged(self) -> Role | None:
        return next((r for r in self.assign.values() if r is not None and r.merged), None)

    @property
    def variant(self) -> str:
        ids = []
        for r in self.assign.values():
            if r is not None and r.variant and r.variant not in ids:
                ids.append(r.variant)
        if "blas" in ids and "alpha_beta" in ids:
            ids.remove("alpha_beta")
        if self.in_place:
            ids.append("in_place")
        if self.zero and "accumulate" not in ids:
            ids.append("accumulate")
        if self.merged is not None:
            ids.append("square")
        if self.base:
            ids.append(self.base)
        for role, how in self.layout.items():
            if how != "natural":
                ids.append(f"{how}({role})")
        return "+".join(ids) or "canonical"


class NoMapping(Exception):
    """No consistent mapping: the message is the unbindable evidence."""


def _names(role: Role, lang: str) -> set[str]:
    return {norm(n, lang) for n in role.names}


def _type_problem(p: SParam, r: Role, lang: str) -> str | None:
    """Why parameter p cannot take role r (None when it can)."""
    if r.kind == "space":  # a Kokkos execution space instance: a template type, or one that names a space
        typed = p.container == "template" or bool(re.search(r"Space\b|Kokkos::(?:Cuda|OpenMP|Serial|HIP)\b", p.type_text))
        return None if lang == "cpp" and typed else f"{p.name} is no execution space"
    if p.kind == "complex":
        return f"{p.name} is complex"
    if p.container in UNSUPPORTED_CONTAINERS:
        return f"{p.name} is {UNSUPPORTED_CONTAINERS[p.container]}"
    if r.is_array:
        if p.array is False:
            return f"{p.name} is a scalar, {r.name} an array"
        if r.kind == "real" and p.kind not in ("real", "real_generic", "unknown"):
            return f"{p.name} has {p.kind} elements, {r.name} real ones"
        if r.kind in ("index", "int") and p.kind not in ("int", "unknown", "real_generic"):
            return f"{p.name} has {p.kind} elements, {r.name} integer ones"
        if p.rank is not None and p.rank > len(r.shape):
            return f"{p.name} has rank {p.rank}, {r.name} {len(r.shape)}"
        if p.fixed_extent:
            return f"{p.name} has a fixed extent"
        return None
    if p.array is True:
        if p.pointer_scalar or (lang == "cpp" and p.rank == 1 and p.container == "pointer" and r.kind != "real"
                                and p.kind == "int"):
            return None
        return f"{p.name} is an array, {r.name} a scalar"
    if r.kind == "real" and p.kind not in ("real", "real_generic", "unknown"):
        return f"{p.name} is {p.kind}, {r.name} real"
    if r.kind == "int" and p.kind not in ("int", "unknown", "real_generic"):
        return f"{p.name} is {p.kind}, {r.name} an integer"
    if r.kind == "char" and p.kind not in ("char", "unknown", "bool", "int"):
        return f"{p.name} is {p.kind}, {r.name} a character"
    return None


def _pair_score(p: SParam, r: Role, kr: KernelRoles, lang: str) -> float | None:
    """Score of parameter p taking role r, None when impossible."""
    if _type_problem(p, r, lang):
        return None
    name = norm(p.name, lang)
    # a record's field renamed apart from a local of its name (`A.ncols` beside `const int ncols = A.ncols`) is
    # still named by the field (bind.adapt.common.flatten sets p.field where the record type is not shared)
    if p.field and name not in _names(r, lang):
        name = norm(p.field, lang)
    weak = {norm(w, lang) for w in kr.weak}
    own = _names(r, lang) if not r.merged else set().union(*(_names(kr.role(c), lang) for c in r.merged))
    score = 0.0
    if r.extra:
        if name in own:
            return 5.0 if not r.tuning else 3.0
        # a separate output (z = a*x + y) needs no name where the body writes it (find_mapping checks the write)
        unnamed_output = (r.canonical or "").startswith("output:") and p.array is not False and p.default is None
        return 0.5 if unnamed_output else None
    if name in own:
        exact = name == norm(r.name, lang) or (r.merged and name in {norm(c, lang) for c in r.merged})
        score += (1.0 if name in weak else 8.0) if exact else (0.75 if name in weak else 5.0)
    else:
        for other in kr.all:
            if other is r or other.name in r.covers:
                continue
            if name in _names(other, lang) and _type_problem(p, other, lang) is None:
                if (name in weak or p.record_field is not None) and r.size and other.size:
                    # m vs n: the body's loops decide; a record's `cols` names its own matrix's columns (a GEMM's
                    # A.cols is k), not the kernel's n: its record's arrays decide (record_extents)
                    score -= 0.5
                    break
                return None  # the suggestion's own name says it is another parameter
    if name not in own and p.kind in ("unknown", "real_generic") and p.array is None and p.default is not None:
        return None  # an untyped optional parameter with another name keeps its default
    if r.position == p.position and not r.merged:
        score += 1.5
    if r.is_output and p.intent == "in" and not _delivered_elsewhere(r, kr):
        return None
    if not r.is_output and p.intent in ("out",):
        score -= 4.0
    if r.is_array and p.intent == "inout" and not r.is_output:
        score -= 1.0
    return score


def _delivered_elsewhere(r: Role, kr: KernelRoles) -> bool:
    """A variant delivers output r through a parameter of its own (axpy's z = a*x + y): r may then be read-only."""
    return any(e.canonical == f"output:{r.name}" for e in kr.extras)


def _merged_role(kr: KernelRoles) -> Role | None:
    if len(kr.square) < 2:
        return None
    names = [n for c in kr.square for n in kr.role(c).names]
    return Role(name="=".join(kr.square), kind="int", names=names, size=True, merged=tuple(kr.square), position=-1)


def _implied_ok(fn: SFunction, r: Role, assigned_arrays: dict[str, SParam], kr: KernelRoles, lang: str) -> bool:
    """Whether the function can know size r without a parameter (from its arrays)."""
    if lang in ("python", "julia"):
        return True
    if any(src in assigned_arrays for src in DERIVED_SIZES.get(r.name, ())):
        return True
    users = [a for a in kr.canonical if a.is_array and r.name in {i for e in a.shape for i in size_idents(e)}]
    for a in users:
        p = assigned_arrays.get(a.name)
        if p is None:
            continue
        if p.container in SIZED_CONTAINERS:
            return True
        if lang == "fortran" and p.dims and all(d.strip() in (":",) for d in p.dims):
            return True
    return False


def _used_as(p: SParam, r: Role, fn: SFunction, lang: str) -> bool:
    """For an untyped parameter whose name says nothing: does the body use it like role r?"""
    name = norm(p.name, lang)
    facts = fn.facts
    if r.is_array:
        return any(norm(a, lang) == name for a, _d, _p in facts.subscripts) or name in {
            norm(x, lang) for x in facts.shape_refs} or any(name in ids for rn in facts.return_names for ids in rn) or (
            lang == "python" and re.search(PY_ARRAY_USE.format(p=re.escape(p.name)), fn.text) is not None)
    if r.kind in ("int", "index"):
        return any(name in {norm(b, lang) for b in bounds} for bounds in facts.loops.values()) or any(
            name in {norm(i, lang) for d in dims for i in d} for _a, dims, _p in facts.subscripts) or (
            r.size and lang == "python" and re.search(PY_SHAPED_BY.format(p=re.escape(p.name)), fn.text) is not None)
    return name in {norm(i, lang) for i in facts.idents}


# Python: a name the body uses as an array (`v.reshape(...)`, `v[:]`, `A @ v`, `np.dot(v, w)`)
PY_ARRAY_USE = (r"(?<![\w.]){p}\s*(?:\.\s*(?:reshape|ravel|flatten|shape|size|dot|T|astype|copy|fill|sum)\b|\[|@)"
                r"|@\s*{p}\b|\bn(?:p|umpy)\.(?:dot|vdot|matmul|inner|outer|einsum|tensordot|sum|asarray|"
                r"ascontiguousarray|copyto|add|subtract|multiply|divide|ravel|reshape|transpose|zeros_like|empty_like|"
                r"ones_like|full_like|linalg\.\w+)\(\s*(?:[^()]*,\s*)?{p}\b")  # not np.int32(n): a scalar
# Python: a size the body shapes an array with (`vals.reshape(nr, nc)`, `np.zeros((nr,))`, `np.empty(nr)`)
PY_SHAPED_BY = (r"(?:\.reshape|\b(?:zeros|empty|ones|full)(?:_like)?)\s*\((?:[^()]|\([^()]*\))*?(?<![\w.]){p}\b(?!\s*[.(\[])")


def subscripted_as_arrays(fn: SFunction, lang: str) -> list[SParam]:
    """fn's parameters, an untyped one that the body subscripts (`a[i] += b[i]`) declared an array: a scalar cannot
    be indexed, so a name like a scalar role's (AXPY's `a`) does not make it that scalar. The role is then missing,
    and the one not-the-kernel rule decides as for a typed `float *a` (evaluate._missing_data_inputs)."""
    indexed = {norm(a, lang) for a, _d, _p in fn.facts.subscripts}
    return [dataclasses.replace(p, array=True) if p.array is None and p.default is None
            and norm(p.name, lang) in indexed else p for p in fn.params]


def find_mapping(fn: SFunction, kr: KernelRoles, lang: str) -> Mapping:
    """The best consistent mapping of fn's parameters, or NoMapping with the reason."""
    roles = list(kr.all)
    merged = _merged_role(kr)
    if merged is not None:
        roles.append(merged)
    params = subscripted_as_arrays(fn, lang)
    for p in params:
        if p.kind == "complex":
            raise NoMapping(f"{p.name} is complex; the kernel is real")
        if p.container in UNSUPPORTED_CONTAINERS and p.default is None:
            raise NoMapping(f"{p.name} is {UNSUPPORTED_CONTAINERS[p.container]}, which the glue cannot pass")
    options: list[list[tuple[Role | None, float]]] = []
    boxed = boxed_scalars(fn)
    for p in params:
        opts = []
        own = fn.types.get(p.name)
        record = own.role(kr, p.name) if own is not None else None
        if record is None and own is not None and getattr(own, "kind", "") == "record" and own.cls:
            # an object of the suggestion's own class that no record role fits: an array in its place fails on
            # its first attribute ('numpy.ndarray' object has no attribute 'rows'), the harness's fault
            raise NoMapping(f"{p.name} is the suggestion's own {own.cls}({', '.join(own.fields)}), which the glue "
                            f"cannot build for this kernel")
        if record is not None:  # a record of the kernel's arrays (bind.adapt): scored per array it carries
            # only `A @ x` says so: a SciPy matrix where nothing else binds (a dense variant keeps its matrix)
            opts.append((record, 3.0 * len(record.covers) if own.record else 0.5))
        for r in roles:
            sc = _pair_score(p, r, kr, lang)
            if sc is None and p.name in boxed and r.kind == "real" and not r.is_array and not r.extra:
                sc = 5.0 if norm(p.name, lang) in _names(r, lang) else 1.0  # `a(0)`: a scalar in a box
            if sc is None:
                continue
            named = {norm(n, lang) for n in (p.name, p.field) if n} & _names(r, lang)
            if r.extra and not named and p.name not in fn.facts.writes:
                continue  # an unnamed separate output the body never writes (a stream, a handle)
            untyped = p.kind in ("unknown",) and p.array is None
            if untyped and not r.extra and not named and not r.merged \
                    and not _used_as(p, r, fn, lang):
                continue  # nothing but its position would say so
            opts.append((r, sc))
        if p.default is not None or p.keyword_only:
            opts.append((None, -0.5))
        elif p.record_field is not None and lang == "python":  # a field the function never needs: None in it
            opts.append((None, -1.0))
        elif context_param(p, lang):  # a queue or stream: the driver creates it (bind.adapt)
            opts = [(None, 0.0)]
        if not opts:
            raise NoMapping(_no_role_reason(p, kr, lang))
        opts.sort(key=lambda o: -o[1])
        options.append(opts)
    result_like, ret_index = looks_like_result(fn, lang, kr.spec.returned is not None)
    best: Mapping | None = None
    runner_up: Mapping | None = None
    reasons: list[str] = []
    pool: list[Mapping] = []
    contradicted: list[str] = []  # stride contradictions of the mappings set aside (the refusal's evidence)
    count = 0

    def complete(assign: dict[int, Role | None], base: float) -> None:
        nonlocal best, runner_up, count
        count += 1
        taken = {c for r in assign.values() if r is not None for c in r.covers}
        for r in assign.values():  # a variant's extra stands in for canonical parameters (dense A for CSR)
            if r is not None and r.extra:
                taken |= kr.replaced_by(r.variant)
        assigned_arrays = {r.name: params[pos] for pos, r in assign.items() if r is not None and r.is_array}
        m = Mapping(fn=fn, assign=dict(assign), score=base)
        if (clash := structure_problem(m.variant.split("+"), kr, fn) or scratch_as_output(assign, fn, lang)
                or record_extents(assign, params)) is not None:
            return reasons.append(clash)
        missing = []
        for r in kr.canonical:
            if r.name in taken:
                continue
            if r.is_output and r.is_array and carry_in_place(m, r, kr, lang):
                if result_like and m.returned is None:  # u updated in place and returned: the same array
                    m.returned, m.return_index = r.name, ret_index
                continue
            if r.is_output and r.is_array and result_like and m.returned is None:
                if r.intent == "out" or any(x.name == r.name for x in assign.values() if x is not None):
                    m.returned, m.return_index = r.name, ret_index
                    continue
                if r.intent == "inout" and r.name not in kr.returnable:
                    missing.append(r.name)
                    continue
                if r.intent == "inout":
                    m.returned, m.return_index = r.name, ret_index
                    continue
            if r.size and _implied_ok(fn, r, assigned_arrays, kr, lang):
                m.implied.append(r.name)
                continue
            missing.append(r.name)
        if missing:
            reasons.append(f"no parameter for {', '.join(missing)}")
            return
        held = [r.name for r in assign.values() if r is not None]
        if m.implied and len(held) != len(set(held)):  # records' fields could carry that size: they must
            reasons.append(f"{', '.join(m.implied)} left to the arrays while records' fields repeat other sizes")
            return
        if result_like and m.returned is None:  # y const, the result returned: the separate output (z = a*x + y)
            for pos, r in assign.items():
                if r is not None and r.is_output and not r.extra and params[pos].intent == "in" \
                        and _delivered_elsewhere(r, kr):
                    m.returned, m.return_index = r.name, ret_index
        read_only = [params[pos].name for pos, r in assign.items() if r is not None and r.is_output and not r.extra
                     and m.returned != r.name
                     and params[pos].intent == "in" and not any(x is not None and x.canonical == f"output:{r.name}"
                                                               for x in assign.values())]
        if read_only:  # the suggestion's own const/intent(in) says it is no output
            reasons.append(f"{', '.join(read_only)} is read-only but would be the output")
            return
        # an output given as a parameter but rebound or returned (Python/Julia functional style)
        for pos, r in assign.items():
            if r is None or not r.is_array or not r.is_output or m.returned:
                continue
            pname = params[pos].name
            if lang in ("python", "julia") and result_like and (pname in fn.facts.rebinds or pname not in fn.facts.writes):
                m.returned, m.return_index = r.name, ret_index
        ev, problems = body_evidence(m, kr, lang)
        if any("mapped to" in p and "input" not in p for p in problems) and ev < 0:
            reasons.append("; ".join(problems[:2]))
            if ev < -6:
                return
        m.score += ev
        m.notes.extend(problems)
        stride = [p for p in problems if STRIDE_AGAINST in p]
        if stride:  # the suggestion's own flat subscript says this size is the other axis: never used
            contradicted.append(stride[0])
            return
        # an output read before it is written: the accumulate variant (y += A*x) where the kernel declares one,
        # graded with a random output on entry; never when the suggestion itself declares it intent(out)
        for pos, r in assign.items():
            if r is None or not r.is_array or r.intent != "out" or "accumulate" not in kr.variants:
                continue
            if params[pos].intent == "out" or any(x is not None and x.extra and r.name in x.reads
                                                  for x in assign.values()):
                continue
            if norm(params[pos].name, lang) in {norm(x, lang) for x in fn.facts.reads_first}:
                m.zero.add(r.name)
        pool.append(m)
        if len(pool) > 64:  # only the best few can be near ties
            pool.sort(key=lambda x: -x.score)
            del pool[8:]
        if best is None or m.score > best.score:
            runner_up, best = best, m
        elif runner_up is None or m.score > runner_up.score:
            runner_up = m

    def search(i: int, assign: dict[int, Role | None], used: set[str], base: float) -> None:
        if count > 20000:
            return
        if i == len(params):
            complete(assign, base)
            return
        for r, sc in options[i]:
            if r is not None:
                cov = set(r.covers)
                if cov & used and not _shared_size(r, i, assign, params):
                    continue
                assign[i] = r
                search(i + 1, assign, used | cov, base + sc)
            else:
                assign[i] = None
                search(i + 1, assign, used, base + sc)
            del assign[i]

    search(0, {}, set(), 0.0)
    if best is None and contradicted:
        raise NoMapping(f"every mapping is contradicted by the suggestion's own subscripts (evidence against: "
                        f"{_summarize(contradicted)})")
    if best is None:
        reason = _summarize(reasons) or "no consistent assignment of the parameters"
        raise NoMapping(reason)
    if runner_up is not None and abs(runner_up.score - best.score) < 1e-9 and _differs(best, runner_up):
        best.ambiguous = describe(runner_up, lang)
    best.alternatives = _near_ties(best, pool)
    offsets = {a for srcs in DERIVED_SIZES.values() for a in srcs}  # row_ptr: its `[i+1] - 1` is no base evidence
    cols = [fn.params[pos].name for pos, r in best.assign.items()
            if r is not None and r.kind == "index" and r.is_array and r.name not in offsets]
    best.base = index_base_variant(fn.text, cols[0] if cols else None, kr, lang)
    return best


def _shared_size(r: Role, i: int, assign: dict[int, Role | None], params: list[SParam]) -> bool:
    """Whether parameter i may take size role r that others took already: a field of a record parameter (`unew.nx_`
    beside `u.nx_`; the rows and columns of a GEMM's three Matrix objects) beside the fields of other record
    parameters; never a plain parameter."""
    owner = params[i].record_field
    if not r.size or owner is None:
        return False
    holders = [params[j].record_field for j, x in assign.items() if x is not None and x.name == r.name]
    # a field the kernel reads may repeat a size too: each must be an extent of its own record's arrays
    # (record_extents, checked on the whole mapping)
    return all(h is not None and h != owner for h in holders)


def record_extents(assign: dict[int, Role | None], params: list[SParam]) -> str | None:
    """Why a mapping gives a record a size field that is not an extent of the arrays it carries, or None.

    A record that carries arrays carries their shape: three Matrix objects of a GEMM each hold (rows, cols, data),
    and their six fields repeat m, n and k, each as its own matrix's extent; a CSR class's row count is an extent
    of its row pointers. A size field that is no extent of its own record's arrays is a record the harness would
    build inconsistent (its `cols` is not its data's column count), and two size fields of one record are two
    extents (a record that keeps rows and cols apart is not read as a square matrix, where a bound taken from the
    wrong matrix would go unseen). A merged size (m=n=k) is not mixed with its own parts. Records without arrays
    are not constrained."""
    extents: dict[str, set[str]] = {}
    for j, a in assign.items():
        owner = params[j].record_field
        if a is not None and a.is_array and owner is not None:
            extents.setdefault(owner, set()).update(d for e in a.shape for d in shape_idents(e))
    sizes = {r.name for r in assign.values() if r is not None and r.size}
    taken: dict[tuple[str, str], str] = {}
    for pos, r in assign.items():
        owner = params[pos].record_field
        if r is None or not r.size or owner not in extents:
            continue
        parts = set(r.name.split("="))  # a merged role (m=n=k: a square implementation) is each of its sizes
        if not parts & extents[owner]:
            return f"{params[pos].name} takes {r.name}, which no array of its own record has as an extent"
        if len(parts) > 1 and parts & sizes:
            return f"{params[pos].name} takes {r.name} beside {', '.join(sorted(parts & sizes))} itself"
        if (owner, r.name) in taken:  # a record that keeps rows and cols apart is no square matrix
            return f"{params[pos].name} and {taken[owner, r.name]} both take {r.name}"
        taken[owner, r.name] = params[pos].name
    return None


def _near_ties(best: Mapping, pool: list[Mapping]) -> list[Mapping]:
    """Mappings nearly as plausible as the best that nothing in the suggestion contradicts (no evidence against
    them, unlike a mapping whose loops say otherwise): the evaluator tries them on a small case (hpceval.probe)."""
    out: list[Mapping] = []
    for m in sorted(pool, key=lambda x: -x.score):
        if m is best or best.score - m.score >= NEAR_TIE or m.notes or not _differs(best, m):
            continue
        if any(not _differs(m, o) for o in out):
            continue
        out.append(m)
        if len(out) == MAX_ALTERNATIVES - 1:
            break
    return out


def _differs(a: Mapping, b: Mapping) -> bool:
    return {k: (r.name if r else None) for k, r in a.assign.items()} != {k: (r.name if r else None) for k, r in b.assign.items()}


def _summarize(reasons: list[str]) -> str:
    if not reasons:
        return ""
    counts: dict[str, int] = {}
    for r in reasons:
        counts[r] = counts.get(r, 0) + 1
    return min(counts, key=lambda r: (len(r), -counts[r]))


def _no_role_reason(p: SParam, kr: KernelRoles, lang: str) -> str:
    typ = p.type_text or p.kind
    problems = [_type_problem(p, r, lang) for r in kr.canonical]
    named = [r for r in kr.all if norm(p.name, lang) in _names(r, lang)]
    if named:
        prob = _type_problem(p, named[0], lang)
        if prob:
            return f"parameter {p.name} ({typ}): {prob}"
    if all(problems):
        return f"parameter {p.name} ({typ}) fits no parameter of {kr.spec.function}: {problems[0]}"
    return f"parameter {p.name} ({typ}) matches no parameter of {kr.spec.function} (by name or type) and has no default"


def describe(m: Mapping, lang: str) -> str:
    parts = []
    for p in m.fn.params:
        r = m.assign.get(p.position)
        if r is None:
            parts.append(f"{p.name}=default")
        elif r.merged:
            parts.append(f"{p.name}->{'='.join(r.merged)}")
        elif r.graded:
            parts.append(f"{p.name}->{r.name} (random)")
        elif r.extra:
            parts.append(f"{p.name}->{r.name}:{r.canonical}")
        else:
            parts.append(f"{p.name}->{r.name}")
    return ", ".join(parts)
