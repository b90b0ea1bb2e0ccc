"""The roles a suggested function's parameters can take: the kernel's canonical parameters, its variants' extras.

Built from the kernel spec (canonical parameters, in order) and the kernel folder's optional variants.toml (names
free-form code gives the parameters, variants with their extra parameters and the value at which each computes the
canonical kernel, a mergeable "square" size set). Tuning parameters that do not change the result (a thread count,
a block size) are known to every kernel.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from functools import cache

from hpceval.spec import KernelSpec

# Names the study's suggestions use for parameters of any kernel, beyond the canonical name itself.
GENERIC_NAMES: dict[str, list[str]] = {
    "n": ["n", "N", "size", "len", "length", "dim", "num"],
    "m": ["m", "M", "rows", "nrows", "num_rows"],
    "k": ["k", "K", "inner", "kdim"],
    "x": ["x", "X", "vec", "v", "d_x", "x_in"],
    "y": ["y", "Y", "out", "result", "res", "d_y"],
    "b": ["b", "B", "rhs", "f"],
    "A": ["A", "a", "mat", "matrix", "d_A"],
    "B": ["B", "b", "d_B", "mat_b"],
    "C": ["C", "c", "d_C", "out", "result"],
    "u": ["u", "U", "uold", "u_old", "in", "grid", "a"],
    "unew": ["unew", "u_new", "unext", "out", "v", "b", "new_u", "uout"],
    "nx": ["nx", "NX", "Nx", "n1", "ni"],
    "ny": ["ny", "NY", "Ny", "n2", "nj"],
    "nz": ["nz", "NZ", "Nz", "n3", "nk"],
    "nnz": ["nnz", "NNZ", "nz_count", "num_nonzeros", "nonzeros"],
    "row_ptr": ["row_ptr", "rowptr", "row_ptrs", "rowPtr", "ia", "Ap", "row_offsets", "indptr", "ptr", "rowptrs", "IA"],
    "col_idx": ["col_idx", "colidx", "col_ind", "colInd", "ja", "Aj", "col_indices", "indices", "cols", "col", "JA"],
    "values": ["values", "vals", "val", "a", "A", "Ax", "data", "v", "AA"],
    "tol": ["tol", "tolerance", "eps", "epsilon", "rtol"],
    "max_iter": ["max_iter", "maxiter", "max_iters", "maxit", "niter", "iters", "max_iterations", "itmax"],
}

# Sizes a function can derive from another of its arrays, so a signature may leave them out (CSR: nnz = row_ptr[n]).
DERIVED_SIZES: dict[str, tuple[str, ...]] = {"nnz": ("row_ptr",)}

TUNING = [
    {"name": "threads", "kind": "int", "canonical": "threads",
     "names": ["nthreads", "num_threads", "numThreads", "n_threads", "threads", "nthread", "thread_count", "nt",
               "NUM_THREADS", "nThreads", "numthreads"]},
    {"name": "block", "kind": "int", "canonical": "64",
     "names": ["block_size", "blockSize", "bs", "blocksize", "block", "tile", "tile_size", "tileSize", "chunk",
               "chunk_size", "chunkSize", "BLOCK_SIZE", "BS", "TILE", "nb"]},
    {"name": "device", "kind": "int", "canonical": "0", "names": ["device", "dev", "device_id", "deviceId", "gpu_id"]},
    # a Kokkos execution space instance (`template <class ExecSpace> void gemv(const ExecSpace &space, ...)`): the
    # build's default space, where an unspecified dispatch runs too
    {"name": "space", "kind": "space", "canonical": "Kokkos::DefaultExecutionSpace()",
     "names": ["space", "exec_space", "execution_space", "exec", "ex", "execSpace", "exec_instance", "instance",
               "policy_space"]},
]


@dataclass
class Role:
    name: str
    kind: str  # int | real | index | char | bool
    shape: list[str] = field(default_factory=list)
    intent: str = "in"
    names: list[str] = field(default_factory=list)
    position: int = -1
    extra: bool = False
    variant: str | None = None
    canonical: str | None = None  # value at the canonical point (extras)
    tuning: bool = False
    size: bool = False  # a canonical integer that appears in array shapes
    merged: tuple[str, ...] = ()  # the canonical sizes a merged (square) size stands for
    scale: str = ""  # extras: the outputs are multiplied by this after the call (alpha = 2 -> 0.5)
    prefill: str = ""  # extras: the outputs hold this value on entry (beta = 0 with y = 1)
    random: str = ""  # extras graded at random values: how to draw them (hpceval.bind.graded), "" = canonical only
    reads: tuple[str, ...] = ()  # extras: canonical outputs the kernel reads once this extra is given (beta -> y)
    # a record parameter (a SciPy matrix, a dataclass, a dict, a tuple: bind.adapt.python): field -> canonical name
    fields: tuple[tuple[str, str], ...] = ()

    @property
    def graded(self) -> bool:
        """An extra the harness draws at random per case and passes by name (not a fixed canonical value)."""
        return self.extra and not self.tuning and bool(self.random)

    @property
    def is_array(self) -> bool:
        return bool(self.shape)

    @property
    def is_output(self) -> bool:
        return self.intent in ("out", "inout")

    @property
    def covers(self) -> tuple[str, ...]:
        return self.merged or tuple(dict.fromkeys(c for _f, c in self.fields)) or (self.name,)


@dataclass
class KernelRoles:
    spec: KernelSpec
    canonical: list[Role]
    extras: list[Role]
    weak: set[str]
    square: tuple[str, ...]
    pad: str
    variants: dict[str, dict]
    pinned_precision: bool = False  # the prompt names the precision (saxpy): grade at the spec's dtype always
    returnable: tuple[str, ...] = ()  # inout outputs a suggestion may return instead of updating (CG's x)
    # output -> input whose array may carry it (Jacobi updating u in place through its own temporary)
    in_place: dict[str, str] = field(default_factory=dict)

    def replaced_by(self, variant: str | None) -> set[str]:
        """Canonical parameters a variant stands in for (a dense matrix for the CSR arrays)."""
        return set(self.variants.get(variant or "", {}).get("replaces", []))

    @property
    def all(self) -> list[Role]:
        return self.canonical + self.extras

    def role(self, name: str) -> Role:
        return next(r for r in self.all if r.name == name)


def shape_idents(expr: str) -> set[str]:
    """The names in one extent expression of a role's shape (`n + 2` -> {n})."""
    return set(re.findall(r"[A-Za-z_]\w*", str(expr)))


@cache
def _load(folder: str) -> dict:
    from pathlib import Path

    path = Path(folder) / "variants.toml"
    if not path.is_file():
        return {}
    with path.open("rb") as f:
        return tomllib.load(f)


def kernel_roles(spec: KernelSpec) -> KernelRoles:
    data = _load(str(spec.folder))
    names = data.get("names", {})
    size_names = set()
    for p in spec.params:
        for e in p.shape:
            size_names |= shape_idents(e)
    canonical = []
    for i, p in enumerate(spec.params):
        syn = list(dict.fromkeys([p.name, *names.get(p.name, GENERIC_NAMES.get(p.name, []))]))
        canonical.append(Role(name=p.name, kind=p.kind, shape=[str(e) for e in p.shape], intent=p.intent, names=syn,
                              position=i, size=(p.kind == "int" and not p.shape and p.name in size_names)))
    extras = []
    variants = {}
    for v in data.get("variants", []):
        variants[v["id"]] = dict(v)
        for j, ep in enumerate(v.get("params", [])):
            extras.append(Role(name=ep["name"], kind=ep.get("kind", "int"), shape=list(ep.get("shape", [])),
                               intent=ep.get("intent", "in"), names=list(dict.fromkeys([ep["name"], *ep.get("names", [])])),
                               position=len(spec.params) + j, extra=True, variant=v["id"],
                               canonical=str(ep.get("canonical", "")), scale=str(ep.get("scale", "")),
                               prefill=str(ep.get("prefill", "")), random=str(ep.get("random", "")),
                               reads=tuple(ep.get("reads", ()))))
    for t in TUNING:
        extras.append(Role(name=t["name"], kind=t["kind"], names=t["names"], extra=True, tuning=True,
                           canonical=t["canonical"], variant=None))
    square = tuple(data.get("square", {}).get("sizes", ()))
    return KernelRoles(spec=spec, canonical=canonical, extras=extras, weak=set(names.get("weak", [])),
                       square=square, pad=data.get("square", {}).get("pad", ""), variants=variants,
                       pinned_precision=bool(data.get("precision", {}).get("pinned", False)),
                       returnable=tuple(data.get("returnable", ())), in_place=dict(data.get("in_place", {})))
