"""Python pruning keeps the transitive closure of what the bound function needs (issue 14): a module-level constant
computed by a helper (`X = helper()`), a function passed as a value, a statement that fills a kept table. The
import-time code of kept statements then runs as written, inside the sandbox: it must happen there (the kernel's
result depends on it) and nowhere else (no marker on the host)."""

from __future__ import annotations

import os
from pathlib import Path

from hpceval.bind import choose_binding
from hpceval.bind.signature import infer_binding

CLOSURE = '''
import numpy as np
import sys
import json

def _load_scale():
    return json.loads("2.0") / 2.0

def _helper_unused():
    return undefined_name

SCALE = _load_scale()
TABLE = {}
TABLE["scale"] = SCALE

def _axpy_elem(a, x, y):
    return a * x + y

def axpy(n, a, x, y):
    y[:] = np.vectorize(_axpy_elem)(a, x, y) * TABLE["scale"]

if __name__ == "__main__":
    x = np.ones(4)
    axpy(4, 2.0, x, x)
    print(undefined_name)
'''


def test_closure_keeps_helpers_of_constants_and_values(catalog):
    b = infer_binding(CLOSURE, catalog.kernels["axpy"], "python")
    assert b.error is None, b.error
    src = b.source
    for needed in ("def _load_scale", "SCALE = _load_scale()", 'TABLE["scale"] = SCALE', "def _axpy_elem", "import json"):
        assert needed in src, needed
    for dropped in ("_helper_unused", "__main__"):  # every import is kept (issue 28), as C++ keeps its includes
        assert dropped not in src, dropped
    compile(src, "kernel.py", "exec")


def test_module_constant_from_a_function_is_correct(catalog, evaluator):
    spec, model = catalog.kernels["axpy"], catalog.models["python-numpy"]
    b = choose_binding(CLOSURE, spec, catalog.languages["python"], "paper", model)
    e = evaluator.evaluate(CLOSURE, spec, model, b)
    assert e.verdict.value == "correct", e.evidence


def test_import_time_code_runs_in_the_sandbox_only(catalog, evaluator, tmp_path):
    """The helper writes a marker in its working directory and reads it back (the result is right only if it ran
    there) and tries to write one beside the host's test directory: neither may appear on the host."""
    host_marker = tmp_path / "escaped_marker.txt"
    code = f'''
import os
import numpy as np

def _probe():
    with open("hpceval_import_marker.txt", "w") as f:
        f.write("1.0")
    try:
        with open({str(host_marker)!r}, "w") as f:
            f.write("escaped")
    except OSError:
        pass
    with open("hpceval_import_marker.txt") as f:
        return float(f.read())

ONE = _probe()

def axpy(n, a, x, y):
    y[:] = ONE * (a * x + y)
'''
    spec, model = catalog.kernels["axpy"], catalog.models["python-numpy"]
    b = choose_binding(code, spec, catalog.languages["python"], "paper", model)
    assert b.error is None and "ONE = _probe()" in b.source
    e = evaluator.evaluate(code, spec, model, b)
    assert e.verdict.value == "correct", e.evidence  # ONE came from the marker: the import-time code ran
    assert not host_marker.exists()
    assert not (Path(os.getcwd()) / "hpceval_import_marker.txt").exists()
    assert not (Path(__file__).parent / "hpceval_import_marker.txt").exists()
