"""Architecture rules of the hpceval package, checked statically: no import cycles, no oversized modules.

Import graph (test_no_import_cycles). Nodes are the modules of harness/hpceval (a package is its __init__.py).
Edges come from parsing every .py file with `ast`, without importing anything:

* every `import hpceval.x.y` and `from hpceval.x import name` counts, and so does every relative import
  (`from . import name`, `from ..x import name`), resolved against the importing module's package;
* `from pkg import name` is an edge to the submodule `pkg.name` when that module exists, else to `pkg`
  (name is then a function, class or constant defined in or re-exported by pkg);
* `import a.b.c` is an edge to the deepest existing module of that dotted name; it is not also an edge to the
  parent packages a and a.b, although Python runs their __init__ first. A package __init__ that re-exports its
  submodules' API (a facade) would otherwise make any two sibling modules that import each other's package
  cyclic; what is forbidden is a submodule importing back a facade that imports it;
* imports at module level and imports inside functions or methods both count. A function-level import only
  defers a cycle to call time; it still couples the modules both ways, and moving an import into a function
  to silence a cycle is exactly what this test should not let through;
* imports under `if TYPE_CHECKING:` (or `typing.TYPE_CHECKING`) do not count: they never run and exist for
  annotations only. Their `else:` branch does count.

Any strongly connected component of more than one module (or a module importing itself) fails the test, with
one cycle of each component spelled out as file:line of every edge.

Module size (test_no_module_is_longer_than_the_limit): no .py file under harness/hpceval may exceed
MAX_LINES lines. LONG_MODULES lists deliberate exceptions (data tables only), each with its reason.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

PACKAGE_ROOT = Path(__file__).resolve().parents[1] / "harness" / "hpceval"
MAX_LINES = 600
# path relative to harness/hpceval -> why it may be longer than MAX_LINES (data tables only; keep this small)
LONG_MODULES: dict[str, str] = {}


@dataclass(frozen=True)
class Edge:
    """One import statement that makes module `source` depend on module `target`."""

    source: str
    target: str
    path: Path
    line: int
    in_function: bool

    def where(self, root: Path) -> str:
        return f"{self.path.relative_to(root.parent).as_posix()}:{self.line}" + (" (in a function)" if
                                                                               self.in_function else "")


# ---------------------------------------------------------------------------------------------- import graph
def module_name(path: Path, root: Path) -> str:
    """harness/hpceval/a/b.py -> hpceval.a.b; harness/hpceval/a/__init__.py -> hpceval.a."""
    parts = [root.name, *path.relative_to(root).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_type_checking(test: ast.expr) -> bool:
    return ((isinstance(test, ast.Name) and test.id == "TYPE_CHECKING")
            or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"))


class _ImportCollector(ast.NodeVisitor):
    """(node, in_function) of every import statement outside `if TYPE_CHECKING:` bodies."""

    def __init__(self) -> None:
        self.found: list[tuple[ast.Import | ast.ImportFrom, bool]] = []
        self.depth = 0

    def visit_If(self, node: ast.If) -> None:
        if _is_type_checking(node.test):
            for child in node.orelse:
                self.visit(child)
        else:
            self.generic_visit(node)

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> None:
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _function

    def visit_Import(self, node: ast.Import) -> None:
        self.found.append((node, self.depth > 0))

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        self.found.append((node, self.depth > 0))


def _deepest(name: str, modules: set[str]) -> str | None:
    """The deepest existing module that `name` is or lies in (None outside the package)."""
    parts = name.split(".")
    while parts:
        if ".".join(parts) in modules:
            return ".".join(parts)
        parts.pop()
    return None


def import_edges(root: Path) -> list[Edge]:
    """Every import edge between modules of the package at `root` (see the module docstring for the rules)."""
    files = sorted(p for p in root.rglob("*.py") if "__pycache__" not in p.parts)
    names = {path: module_name(path, root) for path in files}
    modules = set(names.values())
    edges = []
    for path, source in names.items():
        package = source if path.name == "__init__.py" else source.rpartition(".")[0]
        collector = _ImportCollector()
        collector.visit(ast.parse(path.read_text(encoding="utf-8"), filename=str(path)))
        for node, in_function in collector.found:
            targets: list[str | None] = []
            if isinstance(node, ast.Import):
                targets = [_deepest(alias.name, modules) for alias in node.names]
            else:
                if node.level:
                    base_parts = package.split(".")
                    base_parts = base_parts[:len(base_parts) - (node.level - 1)]
                    base = ".".join(base_parts + ([node.module] if node.module else []))
                else:
                    base = node.module or ""
                for alias in node.names:
                    sub = f"{base}.{alias.name}"
                    targets.append(sub if sub in modules else _deepest(base, modules))
            for target in dict.fromkeys(targets):
                if target is not None:
                    edges.append(Edge(source, target, path, node.lineno, in_function))
    return edges


def graph_of(edges: Iterable[Edge]) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for e in edges:
        graph.setdefault(e.source, set()).add(e.target)
        graph.setdefault(e.target, set())
    return graph


def cyclic_components(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with a cycle (Tarjan): sorted members, components sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            components.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return sorted(c for c in components if len(c) > 1 or c[0] in graph.get(c[0], ()))


def find_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle [a, b, ..., a] per cyclic component: a shortest one through its first module."""
    cycles = []
    for component in cyclic_components(graph):
        start = component[0]
        members = set(component)
        # breadth-first from start to start inside the component: a shortest cycle through start
        parent: dict[str, str] = {}
        frontier = [start]
        while frontier and start not in parent:
            nxt = []
            for v in frontier:
                for w in sorted(graph[v] & members):
                    if w not in parent:
                        parent[w] = v
                        nxt.append(w)
            frontier = nxt
        path = [start]
        v = parent[start]
        while v != start:
            path.append(v)
            v = parent[v]
        path.append(start)
        cycles.append(path[::-1])
    return sorted(cycles)


def describe_cycle(cycle: list[str], edges: list[Edge], root: Path) -> str:
    lines = [" -> ".join(cycle)]
    for a, b in zip(cycle, cycle[1:], strict=False):
        where = ", ".join(e.where(root) for e in edges if e.source == a and e.target == b)
        lines.append(f"    {a} -> {b}: {where}")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------- the rules
def test_no_import_cycles():
    edges = import_edges(PACKAGE_ROOT)
    assert len({e.source for e in edges}) > 10, "the import graph came out (nearly) empty: is PACKAGE_ROOT right?"
    graph = graph_of(edges)
    components = cyclic_components(graph)
    report = "\n".join(f"{{{', '.join(members)}}}, e.g. {describe_cycle(cycle, edges, PACKAGE_ROOT)}"
                       for members, cycle in zip(components, find_cycles(graph), strict=True))
    assert not components, f"{len(components)} group(s) of modules that import each other in hpceval:\n{report}"


def test_no_module_is_longer_than_the_limit():
    too_long = {}
    for path in sorted(PACKAGE_ROOT.rglob("*.py")):
        rel = path.relative_to(PACKAGE_ROOT).as_posix()
        n = len(path.read_text(encoding="utf-8").splitlines())
        if n > MAX_LINES and rel not in LONG_MODULES:
            too_long[rel] = n
    stale = [rel for rel in LONG_MODULES if not (PACKAGE_ROOT / rel).is_file()
             or len((PACKAGE_ROOT / rel).read_text(encoding="utf-8").splitlines()) <= MAX_LINES]
    assert not stale, f"LONG_MODULES entries that are gone or no longer long: {stale}"
    assert not too_long, (f"modules over {MAX_LINES} lines (split them by concern, or add a data table to "
                          f"LONG_MODULES with a reason): " + ", ".join(f"{k} ({v})" for k, v in too_long.items()))


# ---------------------------------------------------------------------------------------------- the checker itself
def test_find_cycles_finds_a_cycle_and_only_cycles():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"a"}, "f": {"f"}, "g": {"h"}, "h": set()}
    assert cyclic_components(graph) == [["a", "b", "c"], ["f"]]
    assert find_cycles(graph) == [["a", "b", "c", "a"], ["f", "f"]]
    assert find_cycles({"a": {"b"}, "b": {"c"}, "c": set(), "d": {"b", "c"}}) == []
    # two cycles in one component: one is spelled out, the shortest through the first module
    assert find_cycles({"a": {"b", "c"}, "b": {"a"}, "c": {"d"}, "d": {"a"}}) == [["a", "b", "a"]]


def test_import_edges_resolve_relative_submodule_and_function_imports(tmp_path: Path):
    root = tmp_path / "pkg"
    (root / "sub").mkdir(parents=True)
    files = {
        "__init__.py": "from pkg.sub import helper\n",                    # facade: edge to pkg.sub only
        "sub/__init__.py": "",
        "sub/helper.py": "from .. import util\n",                           # relative, resolves to a submodule
        "util.py": ("from typing import TYPE_CHECKING\n"
                    "if TYPE_CHECKING:\n    from pkg.sub.helper import X\n"  # not counted
                    "else:\n    import os\n"
                    "def f():\n    from . import leaf\n    return leaf\n"),   # function-level: counted
        "leaf.py": "import pkg.sub.helper as h\nfrom pkg.sub import helper\n",  # closes leaf -> helper -> util -> leaf
    }
    for rel, text in files.items():
        (root / rel).write_text(text)
    edges = import_edges(root)
    got = {(e.source, e.target, e.in_function) for e in edges}
    assert got == {("pkg", "pkg.sub.helper", False), ("pkg.sub.helper", "pkg.util", False),
                   ("pkg.util", "pkg.leaf", True), ("pkg.leaf", "pkg.sub.helper", False)}
    cycles = find_cycles(graph_of(edges))
    assert cycles == [["pkg.leaf", "pkg.sub.helper", "pkg.util", "pkg.leaf"]]
    text = describe_cycle(cycles[0], edges, root)
    assert "pkg/util.py:7 (in a function)" in text and "pkg/leaf.py:1, pkg/leaf.py:2" in text
