"""A Python suggestion whose module fails to import did not build: `build_error`, or the environment's fault.

Why: Python's build step is a byte-compile, so an import that fails (`import numbaa`, `from numpy import
fancy_thing`, a submodule nobody wrote, module-level code that raises) surfaced only when the driver imported the
suggestion, as a `runtime_error`. Compile-first says what a Python build is: the unit parsed and imported in the
sandbox (checks.builds_alone), and the precedence is no_code > incomplete > build_error > runtime_error. The driver
says when the import failed (DRIVER_SAYS), so a failure inside the kernel's call stays a runtime_error.

Whose fault: a missing top-level module that is one of the programming model's own libraries (its name, e.g.
`numba`, or a package its reference solutions import) is the environment's: the model's reference would fail the
same way, so `infra_error`. So is a missing top-level package that exists (the harness's own interpreter finds it,
or it is one of the field's well-known packages, PUBLISHED): a suggestion that imports matplotlib for its demo,
or CuPy beside its Numba kernel, is graded where that package is missing, not wrong. Any other missing module
(misspelt, invented, a submodule a present package lacks) is the LLM's.
"""

from __future__ import annotations

import re
from functools import cache

from hpceval.analysis.pyparse import parse_python
from hpceval.analysis.source import python_imports
from hpceval.contracts import Verdict
from hpceval.spec import ProgrammingModel

DRIVER_SAYS = "hpceval driver: importing the suggestion failed"
_NO_MODULE = re.compile(r"ModuleNotFoundError: No module named '([\w.]+)'")
_ERROR_LINE = re.compile(r"^\w+(?:\.\w+)*(Error|Exception|Exit|Interrupt)\b.*$", re.MULTILINE)


@cache
def model_libraries(model_id: str, aliases: tuple[str, ...]) -> frozenset[str]:
    """The top-level packages the model's reference solutions import (every kernel's), and its aliases."""
    from hpceval.paths import kernels_dir

    names = set(aliases)
    for path in kernels_dir().glob(f"*/solutions/{model_id}*.py"):
        try:
            tree = parse_python(path.read_text())
        except (OSError, SyntaxError):
            continue
        names |= {dotted.split(".")[0] for dotted in python_imports(tree).values()}  # (no relative imports there)
    return frozenset(names)


# packages of the field that exist whether or not this environment has them (top-level import names)
PUBLISHED = frozenset({"numpy", "scipy", "numba", "llvmlite", "cupy", "cupyx", "torch", "triton", "pycuda", "jax",
                       "jaxlib", "tensorflow", "mpi4py", "matplotlib", "pandas", "seaborn", "sklearn", "dask",
                       "distributed", "h5py", "numexpr", "pyopencl", "dpctl", "dpnp", "cuda", "cuquantum", "tqdm",
                       "pytest", "Cython", "pythran", "taichi", "warp", "nvmath", "cunumeric", "legate"})


def _exists(name: str) -> bool:
    """A top-level package that exists: one the harness's own interpreter finds, or a PUBLISHED one."""
    import importlib.util

    if name in PUBLISHED:
        return True
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def missing_library(output: str, model: ProgrammingModel) -> str | None:
    """The evidence when the import failed for a missing library (the environment's fault), else None."""
    missing = _NO_MODULE.findall(output)
    if model.language != "python" or not missing or "." in missing[-1]:
        return None
    name = missing[-1]
    if name in model_libraries(model.id, tuple(model.aliases)):
        return (f"the environment lacks `{name}`, a library of {model.name} (its reference solutions import it): "
                f"the suggestion could not be imported")
    if _exists(name):
        return f"the environment lacks `{name}`, a published package the suggestion imports: it could not be imported"
    return None


def import_failure(output: str, model: ProgrammingModel) -> tuple[Verdict, str] | None:
    """(verdict, evidence) when the driver says the suggestion's import failed, else None."""
    if DRIVER_SAYS not in output:
        return None
    text = output[:output.rindex(DRIVER_SAYS)]
    environment = missing_library(text, model)
    if environment:
        return Verdict.infra_error, environment
    errors = [m.group(0) for m in _ERROR_LINE.finditer(text)]
    where = [ln.strip() for ln in text.splitlines() if re.match(r'\s*File ".*kernel\.py"', ln)][-1:]
    said = " | ".join([*where, *(errors[-1:] if errors else text.strip().splitlines()[-1:])])[:1200]
    return Verdict.build_error, f"the suggestion fails when imported (Python: parsed and imported in the sandbox): {said}"
