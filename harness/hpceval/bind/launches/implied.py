"""The launch a CUDA/HIP kernel's own index arithmetic implies, where nothing in the suggestion launches it.

A tiled kernel that computes its global index as `blockIdx.y * TS + threadIdx.y` (not `blockIdx.y * blockDim.y +
threadIdx.y`), with `__shared__` tiles of TS x TS, is correct only on blocks of TS threads in that dimension: the
stride of its block index *is* its block size. LLMs write such kernels without a `main` (`#define TILE 32`,
`constexpr int TS = 32;`, `template <int T>`). Launched on the harness's default 16x16 blocks, right code would
fail. So, before the documented default, the block each indexed dimension needs is read from that stride:

* a macro or a file-level constant: its value, read where it is (launches.cpp._resolve, as a launch from `main`);
* one of the kernel's own parameters: nothing is implied (`blockIdx.x * n + threadIdx.x` is an indexing slip
  far more often than a block size, and one block of n threads would hide it);
* a non-type template parameter of the kernel (`template <int T>`): instantiated with the default block size of
  that many dimensions (256, 16 or 8), the block then that size (the kernel is correct for any T it was written
  for; the harness picks one and says which);
* `blockDim.x` (or no recognisable stride): nothing is implied, and the default launch stands.

The grid covers the largest size in every indexed dimension, as the default launch's does. A kernel whose
arithmetic implies a block but that is still wrong fails on that launch like any other.
"""

from __future__ import annotations

import re

from hpceval.bind.launches import Found, split_top
from hpceval.bind.launches.cpp import _COMMENTS, _macros, _resolve, _Unresolved
from hpceval.bind.parse import SFunction, Unit

DEFAULT_BLOCK = {1: "256", 2: "16", 3: "8"}
_OPERAND = r"(?<![\w.])(?P<e>[A-Za-z_]\w*|\d+|\([^()]*\))(?![\w.(])"
_NON_TYPE = re.compile(r"^(?:const\s+)?(?:unsigned\s+|signed\s+)?(?:int|long|short|unsigned|size_t|std::size_t|"
                       r"u?int(?:8|16|32|64)_t|auto)\s+(?P<name>[A-Za-z_]\w*)\s*(?P<default>=.*)?$", re.DOTALL)
_TYPE = re.compile(r"^(?:typename|class)\s+(?P<name>[A-Za-z_]\w*)\s*(?P<default>=.*)?$", re.DOTALL)


def _thread_index(body: str, d: str) -> str:
    """A pattern for the thread index of dimension d: `threadIdx.d` or a variable the kernel set to it."""
    own = rf"threadIdx\s*\.\s*{d}\b"
    aliases = re.findall(rf"\b([A-Za-z_]\w*)\s*=\s*(?:\(\s*\w+\s*\)\s*)?{own}\s*[;,)]", body)
    return "(?:" + "|".join([own, *(rf"(?<![\w.]){re.escape(a)}\b" for a in aliases)]) + ")"


def block_stride(body: str, d: str) -> str | None:
    """The expression that multiplies blockIdx.d where the kernel adds the thread index to it, unless it is
    blockDim.d (then the kernel runs on any block): `blockIdx.y * TS + threadIdx.y` -> `TS`."""
    t, b = _thread_index(body, d), rf"blockIdx\s*\.\s*{d}\b"
    for pattern in (rf"{b}\s*\*\s*{_OPERAND}\s*\+\s*{t}", rf"{_OPERAND}\s*\*\s*{b}\s*\+\s*{t}",
                    rf"{t}\s*\+\s*{b}\s*\*\s*{_OPERAND}", rf"{t}\s*\+\s*{_OPERAND}\s*\*\s*{b}"):
        mm = re.search(pattern, body)
        if mm:
            return mm.group("e")
    return None


def _template_params(kernel: SFunction) -> list[tuple[str, str, bool]]:
    """(kind 'type' | 'value' | 'other', name, has a default) of the kernel's template parameters, in order."""
    mm = re.match(r"\s*template\s*<", kernel.text)
    if not mm:
        return []
    depth, i = 1, mm.end()
    while i < len(kernel.text) and depth:
        depth += {"<": 1, ">": -1}.get(kernel.text[i], 0)
        i += 1
    out = []
    for part in split_top(kernel.text[mm.end():i - 1]):
        for kind, pat in (("type", _TYPE), ("value", _NON_TYPE)):
            pm = pat.match(part)
            if pm:
                out.append((kind, pm.group("name"), pm.group("default") is not None))
                break
        else:
            out.append(("other", part, "=" in part))
    return out


def implied_launch(unit: Unit, kernel: SFunction, dims: int, elem: str) -> Found | str:
    """The launch `kernel`'s index arithmetic implies (grid over the driver's `hp_extent`), or why none is.

    elem: the graded element type (for a type template parameter that must be spelled before a value one)."""
    body = _COMMENTS.sub(" ", kernel.text)
    body = body[body.find("{"):] if "{" in body else body
    strides = {d: block_stride(body, d) for d in "xyz"[:dims]}
    if not any(strides.values()):
        return "its index arithmetic uses blockDim (any block size)"
    params = {p.name for p in kernel.params}
    named = {nm for stride in strides.values() if stride for nm in re.findall(r"[A-Za-z_]\w*", stride)}
    if named & params:
        return f"its block stride is its own parameter {sorted(named & params)[0]} (not a block size)"
    default = DEFAULT_BLOCK[dims]
    template = _template_params(kernel)
    values = {name: default for kind, name, _ in template if kind == "value" and name in strides.values()}
    explicit: list[str] = []
    last = max((i for i, (kind, name, has_default) in enumerate(template) if name in values
                or (kind == "value" and not has_default)), default=-1)
    for kind, name, _has_default in template[:last + 1]:
        if kind == "value" and name not in values:
            return f"its template parameter {name} is not a block size the harness can choose"
        if kind == "other":
            return f"its template parameter `{name}` is not one the harness can instantiate"
        explicit.append(values[name] if kind == "value" else elem)
    subst = dict(values)
    macros = _macros(unit)
    file_names = {n for it in unit.items for n in it.defines} - set(macros)
    block_exprs = [strides[d] or default for d in "xyz"[:dims]]
    try:
        block, setup, uses = _resolve(block_exprs, "", subst, file_names, macros, set())
    except _Unresolved as exc:
        return f"its block stride uses {exc}"
    grid = [f"(unsigned)((hp_extent + ({b}) - 1) / ({b}))" for b in block] + ["1"] * (3 - dims)
    written = ", ".join(f"blockIdx.{d} * {s}" for d, s in strides.items() if s)
    if values:
        written += f"; {', '.join(f'{n} = {v}' for n, v in values.items())} chosen by the harness"
    return Found(grid=", ".join(grid), block=", ".join(block + ["1"] * (3 - dims)), targs=", ".join(explicit),
                 setup=setup, uses=uses, written=written, where="kernel's index arithmetic")
