"""Driver access: a suggestion must not reach into the harness's driver, its clock or its record.

The driver and the suggestion share a process (and, in C/C++, a translation unit), so a suggestion can in principle
reach anything the driver holds. The drivers make the usual routes harmless (the clock bound before the suggestion
loads, a raw clock system call, macros of the suggestion undone after its file, a first constructor that reads and
removes the inputs); this check makes an attempt a verdict, with the route named, instead of a silent no-op, and
closes what the drivers cannot see (code that runs before that constructor: the order of a program's initialisers
differs between compilers, so the driver cannot tell the suggestion's from the toolchain's at run time). Refused,
in the suggestion's source:

* any language: a name the driver defines or uses (`hpceval_timed`, `hpceval_rt_now_ns`, `hpt_secs`, taken from
  the driver templates), changing page protections (`mprotect`: patching the driver's code), raw system calls
  (`syscall`) or writing another process's memory (`process_vm_writev`, `/proc/self/mem`);
* C/C++: running code before the driver's first constructor (a constructor priority, `init_priority`,
  `.preinit_array`/`.init_array`/`.ctors` sections, `ifunc` resolvers);
* Python: the caller's frames (`sys._getframe`, `inspect.currentframe`/`stack`, `f_back`/`f_locals`/`f_globals`,
  traceback frames, `PyFrame_LocalsToFast`), the driver's module (`__main__` other than in the `__name__ ==
  "__main__"` test, `sys.modules`), the garbage collector's object lists, functions' insides (`__defaults__`,
  `__closure__`, `__globals__`, `__code__`), namespaces (`vars(module)`, `__dict__`), names computed at run time
  (`getattr(sys, "_get" + "frame")`, `import_module("__" + "main__")`), and replacing an attribute of an imported
  module (`np.multiply = ...`, `setattr(time, ...)`): the driver uses those modules after the suggestion has run.

Nothing here is in a kernel that computes its result: every name above is about the harness or the process, not
the arithmetic.
"""

from __future__ import annotations

import ast
import re

from hpceval.analysis.pyparse import parse_python
from hpceval.bind.shield import C_COMMENT
from hpceval.checks.base import Job, check
from hpceval.contracts import Evaluation, Verdict
from hpceval.paths import DRIVERS_DIR


def _driver_names() -> re.Pattern:
    """The names the drivers define or use (hpceval_timed, hpceval_rt_now_ns, hpt_secs, ...), from the templates
    themselves: a suggestion that writes one targets the driver (a marker of its own that merely starts with
    `hpceval` does not)."""
    text = "\n".join(path.read_text() for path in sorted(DRIVERS_DIR.iterdir()) if path.is_file())
    names = sorted(set(re.findall(r"\b(?:hpceval|HPCEVAL|hpt|hp)_\w+", text)), key=len, reverse=True)
    return re.compile(r"\b(?:" + "|".join(map(re.escape, names)) + r")\b", re.I)


_ANY = [
    (_driver_names(), "names the driver's {}"),
    (re.compile(r"\b(?:pkey_)?mprotect\b"), "changes page protections ({}: patching code)"),
    (re.compile(r"process_vm_writev|/proc/self/mem|/proc/\w+/mem\b"), "writes process memory ({})"),
    (re.compile(r"\bsyscall\b"), "makes raw system calls ({}: the driver's clock is one)"),
]
_CPP = [
    (re.compile(r"\b(?:pre)?init_array\b|\.ctors\b|\binit_priority\b|\bifunc\b"),
     "runs code before the driver's first constructor ({})"),
    (re.compile(r"\bconstructor\s*\(\s*[\w(][^)]*\)"), "runs code before the driver's first constructor (a constructor "
                                                "priority: {})"),
]
_F_COMMENT = re.compile(r"![^\n]*")
_PY_FRAME_ATTRS = frozenset({
    "_getframe", "f_back", "f_locals", "f_globals", "f_builtins", "tb_frame", "gi_frame", "cr_frame", "ag_frame",
    "PyFrame_LocalsToFast", "PyFrame_FastToLocals", "PyFrame_FastToLocalsWithError", "currentframe",
    "getouterframes", "getinnerframes", "get_referrers", "get_referents", "get_objects",
    "__defaults__", "__kwdefaults__", "__code__", "__closure__", "__globals__", "cell_contents", "pythonapi",
    "__dict__",
})
_COMPUTED = {"getattr", "setattr", "delattr", "hasattr", "__import__", "import_module"}  # only with a literal name
_DRIVER_MODULES = frozenset({"numpy", "time", "os", "sys", "builtins", "io", "threading", "importlib", "ctypes", "gc",
                             "cupy", "cuda"})
_PY_MODULE_ATTRS = {("sys", "modules"), ("inspect", "stack"), ("inspect", "trace")}  # (`__dict__`: a frame attr)


def _python_route(source: str) -> str | None:
    """The first way a Python suggestion reaches the driver, or None (or None when it does not parse)."""
    try:
        tree = parse_python(source)
    except (SyntaxError, ValueError):
        return None
    modules: set[str] = set()  # local names of the modules the driver uses after the suggestion ran
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            if any(a.name == "__main__" for a in node.names):
                return "imports __main__ (the driver's module)"
            modules.update((a.asname or a.name).split(".")[0] for a in node.names
                           if a.name.split(".")[0] in _DRIVER_MODULES)
        elif isinstance(node, ast.ImportFrom) and node.module:
            if node.module == "__main__":
                return "imports from __main__ (the driver's module)"
            if node.module.split(".")[0] in _DRIVER_MODULES:
                modules.update(a.asname or a.name for a in node.names)
    name_tests = {id(c) for node in ast.walk(tree) if isinstance(node, ast.Compare)
                  for c in [node.left, *node.comparators]
                  if any(isinstance(x, ast.Name) and x.id == "__name__" for x in [node.left, *node.comparators])}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            if node.attr in _PY_FRAME_ATTRS:
                return f"reads the caller's frames or the interpreter's objects ({node.attr})"
            if isinstance(node.value, ast.Name) and (node.value.id, node.attr) in _PY_MODULE_ATTRS:
                return f"reaches the driver's module ({node.value.id}.{node.attr})"
        elif isinstance(node, ast.Call) and _called(node) in _COMPUTED:
            index = 0 if _called(node) in {"__import__", "import_module"} else 1
            if len(node.args) <= index or not isinstance(node.args[index], ast.Constant):
                return f"names what it reaches by a computed name ({_called(node)})"
            if index == 0 and node.args[0].value == "__main__":
                return "reaches __main__ (the driver's module)"
        elif isinstance(node, ast.Call) and _called(node) == "vars" and node.args:
            return "reaches a module's namespace (vars)"
        elif isinstance(node, ast.Name) and node.id in {"__builtins__", "_getframe"}:
            return f"reaches the interpreter's internals ({node.id})"
        elif isinstance(node, ast.Constant) and node.value == "__main__" and id(node) not in name_tests:
            return "reaches __main__ (the driver's module)"
        targets = []
        if isinstance(node, (ast.Assign, ast.Delete)):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in {"setattr", "delattr"} \
                and node.args and isinstance(node.args[0], (ast.Name, ast.Attribute)):
            name = node.args[1].value if len(node.args) > 1 and isinstance(node.args[1], ast.Constant) else "..."
            targets = [ast.Attribute(value=node.args[0], attr=str(name))]
        for target in targets:
            root = target
            while isinstance(root, ast.Attribute):
                root = root.value
            if isinstance(target, ast.Attribute) and isinstance(root, ast.Name) and root.id in modules:
                return f"replaces an attribute of the module {root.id} ({ast.unparse(target)})"
    return None


def _called(call: ast.Call) -> str:
    """The name a call calls (`getattr`, `importlib.import_module` -> `import_module`)."""
    func = call.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""


def route(source: str, lang: str, function: str = "") -> str | None:
    """How the suggestion reaches into the driver (a sentence), or None. `function`: the bound function's name,
    which a C/C++ suggestion must not define as a macro (the driver's call would become the macro's text)."""
    name = function.split("::")[-1]
    own = [(re.compile(rf"^\s*#\s*define\s+{re.escape(name)}\b", re.M),
            "defines its own function's name as a macro ({}: the driver's call would run the macro's text)")] \
        if lang == "cpp" and name else []
    rules = _ANY + (_CPP + own if lang == "cpp" else [])
    text = C_COMMENT.sub(" ", source) if lang == "cpp" else _F_COMMENT.sub(" ", source) if lang == "fortran" \
        else source
    for pattern, what in rules:
        found = pattern.search(text)
        if found:
            return what.format(found.group(0))
    return _python_route(source) if lang == "python" else None


@check("driver access")
def reaches_no_driver(job: Job) -> Evaluation | None:
    """The suggestion as given: the harness's own glue (Kokkos launchers, the Fortran module wrapper) is not its."""
    what = route(job.suggestion, job.lang.id, job.function)
    if what:
        return job.verdict(Verdict.wrong_result, f"the suggestion {what} (driver tampering)")
    return None
