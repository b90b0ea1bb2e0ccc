"""Launch geometry of GPU kernels: the mutants that can only over-provision a launch, which are equivalent.

A kernel launched with a rounded-up (ceil-division) grid must bound-check its global index (`if (i < n)`), so extra
blocks do nothing: a mutant of a grid dimension that is never smaller than the original's for any positive sizes
(`(n + 255) / 256` -> `(n + 255) * 256`, `(m + b - 1) / b` -> `(m + b) / b`) is equivalent, and so is exchanging the
grid and block of a launch (`k[blocks, threads]` -> `k[threads, blocks]`: grid*block stays the same in every
dimension) unless the kernel depends on the block's shape (shared memory, barriers, warp shuffles). Grid dimensions
are the grid argument of `k<<<grid, block>>>`, `hipLaunchKernelGGL(k, grid, block, ...)`, `cudaLaunchKernel`, numba
`k[grid, block](...)`, pyCUDA `k(..., grid=...)` and CuPy RawKernel `k(grid, block, args)`, split into dim3/tuple
components, followed into variables (`dim3 grid(...)`, `blocks = ...`) used only as such grids. Whether a mutant only
enlarges is decided by evaluating both dimension expressions on many positive sizes, small ones included; mutants
that can give fewer threads (`(n + 255) / 256` -> `n / 256`, `+` -> `-`) are real bugs that awkward sizes expose,
and are kept.

It is a module of its own because it is a separate analysis (of launch configurations, and of integer extents through
hpceval.analysis.cexpr) that the operator framework only consults to drop candidates; each language module supplies
the syntax of its launches through the hooks of LaunchGeometry.
"""

from __future__ import annotations

import ast
import random
import re

from tree_sitter import Node

from hpceval.analysis.cexpr import CALLS as _EXTENT_CALLS
from hpceval.analysis.cexpr import evaluate as _extent_value
from hpceval.analysis.cexpr import strip_c_casts
from hpceval.analysis.pyparse import parse_python
from hpceval.mutants.core import Cand, SourceText

_BLOCK_SHAPED = re.compile(r"syncthreads|__shared__|shared\.array|shfl|\bwarp_?size\b", re.IGNORECASE)
"""Kernel features whose result depends on the block's shape, so grid and block are not interchangeable."""
_EXTENT_ATOM = re.compile(r"(?<![\w.])[A-Za-z_]\w*(?:\s*(?:\.|::|->)\s*[A-Za-z_]\w*)*(?:\s*\[[^\[\]]*\])*")
_EXTENT_SAMPLES = (1, 2, 3, 4, 7, 8, 15, 16, 17, 31, 32, 33, 127, 128, 255, 256, 257, 1000, 1023, 4097)


def _extent_expression(text: str, atoms: dict[str, str], c_division: bool) -> ast.Expression | None:
    """A grid-extent expression as Python syntax whose variables stand for its operands (names, subscripts,
    members), or None if it holds anything but arithmetic and monotone functions."""
    if c_division:
        text = strip_c_casts(text)
    parts, pos = [], 0
    for m in _EXTENT_ATOM.finditer(text):
        parts.append(text[pos:m.start()])
        pos = m.end()
        if text[pos:].lstrip().startswith("("):  # a function: only the monotone ones are understood
            name = re.split(r"\.|::|->", m.group(0))[-1].strip()
            if name not in _EXTENT_CALLS:
                return None
            parts.append(name)
        else:
            key = re.sub(r"\s+", "", m.group(0))
            parts.append(atoms.setdefault(key, f"v{len(atoms)}"))
    parts.append(text[pos:])
    try:
        return parse_python("".join(parts).strip(), mode="eval")
    except SyntaxError:
        return None


def only_enlarges(before: str, after: str, *, c_division: bool) -> bool:
    """Whether the grid extent `after` is at least `before` for every positive value of their operands (sampled:
    small and awkward sizes included), i.e. the change can only launch more threads."""
    atoms: dict[str, str] = {}
    old, new = _extent_expression(before, atoms, c_division), _extent_expression(after, atoms, c_division)
    if old is None or new is None:
        return False
    rng = random.Random(4321)
    names = sorted(atoms.values())
    for trial in range(256):
        values = {n: rng.choice(_EXTENT_SAMPLES) if trial < 192 else rng.randint(1, 1 << 20) for n in names}
        try:
            if _extent_value(new, values, c_division) < _extent_value(old, values, c_division):
                return False
        except (ArithmeticError, ValueError, TypeError):
            return False
    return True


class LaunchGeometry(SourceText):
    """The GPU kernel launches of one source text and the grid dimensions they use; subclasses supply the syntax of
    their language's launches (launches, dim_parts, definitions, occurrences)."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self._grid_dims: list[tuple[int, int]] | None = None
        self._launch_spans: list[tuple[tuple[int, int], tuple[int, int] | None]] | None = None

    def launches(self) -> list[tuple[tuple[int, int], tuple[int, int] | None]]:
        """(grid, block) byte spans of the configuration of each GPU kernel launch."""
        return []

    def dim_parts(self, node: Node) -> list[Node] | None:
        """The per-dimension parts of a composite grid value (dim3(a, b), a tuple), or None if not composite."""
        if node.type == "parenthesized_expression" and node.named_child_count == 1:
            return [node.named_children[0]]
        return None

    def definitions(self) -> list[tuple[Node, Node]]:
        """(name, value) of each plain `name = value` definition of a variable."""
        return []

    def occurrences(self, name: str) -> list[Node]:
        """Every reference to the variable `name` (definitions included)."""
        return []

    def launch_spans(self) -> list[tuple[tuple[int, int], tuple[int, int] | None]]:
        if self._launch_spans is None:
            self._launch_spans = self.launches()
        return self._launch_spans

    def _node_at(self, start: int, end: int) -> Node | None:
        node = self.root.descendant_for_byte_range(start, end)
        return node if node is not None and (node.start_byte, node.end_byte) == (start, end) else None

    def grid_dimensions(self) -> list[tuple[int, int]]:
        """Byte spans of the expressions that give one dimension of a launch's grid: the grid arguments split
        into their dim3/tuple components, followed into variables that are used only as (parts of) grids."""
        if self._grid_dims is not None:
            return self._grid_dims
        defs: dict[str, list[tuple[Node, Node]]] = {}
        for target, value in self.definitions():
            defs.setdefault(self.name(target), []).append((target, value))
        covered = [grid for grid, _ in self.launch_spans()]
        queue, dims, resolved = list(covered), [], set()
        while queue:
            while queue:
                start, end = queue.pop()
                node = self._node_at(start, end)
                parts = self.dim_parts(node) if node is not None else None
                if parts is not None:
                    queue += [(p.start_byte, p.end_byte) for p in parts]
                else:
                    dims.append((start, end))
            for start, end in list(dims):
                name = self.src[start:end].decode().strip()
                name = name.lower() if self.casefold else name
                if name in resolved or name not in defs or not self._used_only_within(name, defs[name], covered):
                    continue
                resolved.add(name)
                for _, value in defs[name]:
                    covered.append((value.start_byte, value.end_byte))
                    queue.append((value.start_byte, value.end_byte))
        self._grid_dims = dims
        return dims

    def _used_only_within(self, name: str, defs: list[tuple[Node, Node]], spans: list[tuple[int, int]]) -> bool:
        targets = {t.id for t, _ in defs}
        return all(n.id in targets or any(s <= n.start_byte and n.end_byte <= e for s, e in spans)
                   for n in self.occurrences(name))

    def launch_equivalent(self, c: Cand) -> bool:
        """Whether a candidate can only over-provision a GPU launch (an equivalent mutant: the kernel bound-checks):
        every edit lies in a grid dimension whose value never decreases, or the edits exchange grid and block."""
        launches = self.launch_spans()
        if not launches or not c.edits:
            return False
        spans = sorted((s, e) for s, e, _ in c.edits)
        new = {(s, e): t.strip() for s, e, t in c.edits}
        for grid, block in launches:
            if block is not None and spans == sorted([grid, block]) and not _BLOCK_SHAPED.search(self.code) and \
                    new[grid] == self.src[block[0]:block[1]].decode().strip() and \
                    new[block] == self.src[grid[0]:grid[1]].decode().strip():
                return True
        dims = self.grid_dimensions()
        touched = set()
        for s, e, _ in c.edits:
            around = [d for d in dims if d[0] <= s and e <= d[1]]
            if not around:
                return False
            touched.add(max(around, key=lambda d: d[1] - d[0]))
        c_division = self.ts_name != "python"
        return all(only_enlarges(self.src[lo:hi].decode(), self.apply(c.edits, lo, hi), c_division=c_division)
                   for lo, hi in touched)
