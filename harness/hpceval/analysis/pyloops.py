"""NumPy: Python-level loops over elements in the bound function (read with Python's `ast`).

`import numpy` satisfies the usage check, so a triple Python loop computing a GEMM element by element passed as
NumPy. A loop is the model's failure when its trip count scales with the problem (not `range(3)`, not a literal
list) and its body does scalar element work with the loop's variable: arithmetic on single elements
(`A[i, p] * B[p, j]`, `s += values[k] * x[col_idx[k]]`), an element update (`y[i] += ...`) or an element copy.
A loop whose body is vectorised NumPy is the model's own way of working: CG's iteration loop, a row loop
`y[i] = A[i, :] @ x`, a loop over a few axes. Comprehensions and generator expressions are loops too.

Read: the bound function, the functions nested in it, and the module-level functions it calls (transitively);
unused siblings (a naive version kept for comparison) are not. An element is an access whose every index is a
scalar expression of a loop variable, with as many indices as the array has dimensions where the spec says so
(`A[i]` of a 2-D `A` is a row). Code the rules cannot parse is left alone.
"""

from __future__ import annotations

import ast

from hpceval.analysis.pyparse import parse_python

_ARITH = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow)


def element_loop_problem(code: str, function: str, ndims: dict[str, int]) -> str | None:
    """None when no scaling Python loop does element work; else the evidence (which loop, which element)."""
    try:
        tree = parse_python(code)
    except SyntaxError:
        return None
    top = {node.name: node for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}
    if function not in top:
        return None
    seen, todo = [], [function]
    while todo:
        name = todo.pop()
        if name in seen or name not in top:
            continue
        seen.append(name)
        todo += [c.func.id for c in ast.walk(top[name]) if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)]
    for name in seen:
        finder = _Finder(ndims if name == function else {})
        finder.visit(top[name])
        if finder.found:
            loop, element = finder.found
            where = f" in {name}()" if name != function else ""
            return (f"Python-level loop over elements{where}: `{loop}` (line {finder.line}) does scalar element work "
                    f"(`{element}`); NumPy code works on whole arrays")
    return None


def _scales(iter_node: ast.expr) -> bool:
    """Whether a loop's iterable grows with the problem (not `range(3)`, not a literal tuple/list)."""
    if isinstance(iter_node, (ast.Tuple, ast.List, ast.Set)):
        return False
    if isinstance(iter_node, ast.Call) and isinstance(iter_node.func, ast.Name) and iter_node.func.id == "range":
        return not all(isinstance(a, ast.Constant) for a in iter_node.args)
    return True


def _targets(node: ast.expr) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


class _Finder(ast.NodeVisitor):
    """Walks a function with the stack of enclosing scaling loops' variables; records the first element work."""

    def __init__(self, ndims: dict[str, int]):
        self.ndims = ndims
        self.loops: list[tuple[set[str], str, int]] = []  # (loop variables, loop header text, line)
        self.found: tuple[str, str] | None = None
        self.line = 0

    # ---------------------------------------------------------------- loops
    def visit_For(self, node: ast.For) -> None:
        self._loop(node, _targets(node.target) if _scales(node.iter) else None,
                   f"for {ast.unparse(node.target)} in {ast.unparse(node.iter)}", [*node.body, *node.orelse])
        self.visit(node.iter)

    def visit_While(self, node: ast.While) -> None:
        counters = {t.target.id for t in ast.walk(node) if isinstance(t, ast.AugAssign) and isinstance(t.target, ast.Name)}
        self._loop(node, counters | _targets(node.test), f"while {ast.unparse(node.test)}", [*node.body, *node.orelse])

    def _loop(self, node: ast.stmt, names: set[str] | None, header: str, body: list[ast.stmt]) -> None:
        if names is None:  # a fixed small trip count: its body is judged with the enclosing loops only
            for stmt in body:
                self.visit(stmt)
            return
        self.loops.append((names, header, node.lineno))
        for stmt in body:
            self.visit(stmt)
        self.loops.pop()

    def _comprehension(self, node, elements: list[ast.expr]) -> None:
        pushed = 0
        for gen in node.generators:
            if _scales(gen.iter):
                self.loops.append((_targets(gen.target), f"for {ast.unparse(gen.target)} in {ast.unparse(gen.iter)}",
                                   node.lineno))
                pushed += 1
        for element in [*elements, *(cond for gen in node.generators for cond in gen.ifs)]:
            self.visit(element)
        for _ in range(pushed):
            self.loops.pop()

    def visit_ListComp(self, node: ast.ListComp) -> None:
        self._comprehension(node, [node.elt])

    visit_SetComp = visit_GeneratorExp = visit_ListComp  # noqa: N815 - ast.NodeVisitor naming

    def visit_DictComp(self, node: ast.DictComp) -> None:
        self._comprehension(node, [node.key, node.value])

    # ---------------------------------------------------------------- element work
    def visit_BinOp(self, node: ast.BinOp) -> None:
        if isinstance(node.op, _ARITH):
            for side in (node.left, node.right):
                self._element(side)
        self.generic_visit(node)

    def visit_UnaryOp(self, node: ast.UnaryOp) -> None:
        self._element(node.operand)
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self._element(node.target)
        self._element(node.value)
        self.generic_visit(node)

    def visit_Assign(self, node: ast.Assign) -> None:
        if any(self._is_element(t) for t in node.targets):
            self._element(node.value)
        self.generic_visit(node)

    def _element(self, node: ast.expr) -> None:
        if self.found is None and self.loops and self._is_element(node):
            mine = [loop for loop in self.loops if _targets(node) & loop[0]] or self.loops
            _, header, self.line = mine[0]  # the outermost loop whose variable indexes the element
            self.found = (header, ast.unparse(node))

    def _is_element(self, node: ast.expr) -> bool:
        """A single element: every index scalar (no slice, no array-valued index), one mentioning a loop variable."""
        if not isinstance(node, ast.Subscript) or not self.loops:
            return False
        index = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        for item in index:
            if isinstance(item, ast.Slice) or any(isinstance(n, (ast.Slice, ast.List, ast.Call, ast.Starred))
                                                  for n in ast.walk(item)):
                return False
        loop_vars = set().union(*(names for names, _, _ in self.loops))
        if not any(_targets(item) & loop_vars for item in index):
            return False
        base = node.value
        while isinstance(base, ast.Subscript):  # A[i][j]: count the indices of the whole chain
            inner = base.slice.elts if isinstance(base.slice, ast.Tuple) else [base.slice]
            index = [*inner, *index]
            base = base.value
        name = base.id if isinstance(base, ast.Name) else None
        return name not in self.ndims or len(index) >= self.ndims[name]
