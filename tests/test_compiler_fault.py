"""A compiler's own fault on an edge case is not the suggestion's (checks/outputs.py, Toolchain.interpreted_env).

Numba 0.68's parallel compilation raises an internal `AssertionError: Sizes of unew, $binop_truediv... do not
match` on a 1 x 1 x 1 grid for the textbook slicing Jacobi (`unew[1:-1, 1:-1, 1:-1] = (u[:-2, ...] + ...) / 6`)
that NumPy, and Numba without `parallel=True`, run correctly. The harness draws that grid on purpose (the
`no_interior` structure: nothing to compute, nothing may be written out of bounds), so right code was
`runtime_error`: an environment fault charged to the LLM.

When a validation run of a toolchain that can also run the code without compiling it (Numba: NUMBA_DISABLE_JIT=1)
crashes, the same cases are run interpreted. Only if the interpreted run is right on every case, the crash was the
compiler's: the compiled code is validated again on the other cases, and the cases where only the compiler failed
are named in the evidence. A crash on one of the kernel's plain sizes stays the suggestion's failure (the kernel's
ordinary domain must work as compiled), and so does every crash whose interpreted run is also wrong or also fails.
"""

from __future__ import annotations

import pytest

from hpceval.contracts import Verdict

V = Verdict

SLICES = """
import numba

@numba.njit(parallel=True)
def jacobi(u, unew):
    unew[1:-1, 1:-1, 1:-1] = (u[:-2, 1:-1, 1:-1] + u[2:, 1:-1, 1:-1] + u[1:-1, :-2, 1:-1] +
                              u[1:-1, 2:, 1:-1] + u[1:-1, 1:-1, :-2] + u[1:-1, 1:-1, 2:]) / 6.0
"""

LOOPS = """
import numba

@numba.njit(parallel=True)
def jacobi(u, unew):
    nx, ny, nz = u.shape
    for i in numba.prange(1, nx - 1):
        for j in range(1, ny - 1):
            for k in range(1, nz - 1):
                unew[i, j, k] = (u[i-1, j, k] + u[i+1, j, k] + u[i, j-1, k] + u[i, j+1, k] +
                                 u[i, j, k-1] + u[i, j, k+1]) / 6.0
"""
SHAPE = "    nx, ny, nz = u.shape\n"

CASES = [
    ("numba-slicing-jacobi", "jacobi", "python-numba", SLICES, V.correct),
    ("numba-slicing-jacobi-wrong-divisor", "jacobi", "python-numba", SLICES.replace("/ 6.0", "/ 5.0"),
     V.runtime_error),
    ("numba-slicing-jacobi-writes-the-boundary", "jacobi", "python-numba",
     SLICES.replace("unew[1:-1, 1:-1, 1:-1] =", "unew[:, :, :] = 0.0\n    unew[1:-1, 1:-1, 1:-1] ="), V.runtime_error),
    ("numba-own-exception-on-thin-grids", "jacobi", "python-numba", LOOPS.replace(SHAPE, SHAPE + """\
    if min(nx, ny, nz) < 3:
        raise ValueError("grid too small for a 7-point stencil")
"""), V.runtime_error),
    ("numba-loop-jacobi-unaffected", "jacobi", "python-numba", LOOPS, V.correct),
    # Numba cannot type `u.tolist()`: the compiled code fails on every size, plain ones first; interpreted it runs
    ("numba-typing-error-on-every-size", "jacobi", "python-numba", LOOPS.replace(SHAPE, SHAPE + "    rows = u.tolist()\n"),
     V.runtime_error),
    # gaming the differential: crash on the edge cases only when compiled, so that the interpreted run excuses them
    ("numba-code-that-reads-the-jit-switch", "jacobi", "python-numba", LOOPS.replace("def jacobi(", "def _sweep(") + """
def jacobi(u, unew):
    if min(u.shape) < 3 and not numba.config.DISABLE_JIT:
        raise AssertionError("Sizes of unew do not match")
    _sweep(u, unew)
""", V.runtime_error),
    ("numpy-slicing-jacobi", "jacobi", "python-numpy", SLICES.replace("import numba\n\n@numba.njit(parallel=True)\n", "import numpy as np\n\n"),
     V.correct),
]


@pytest.mark.parametrize("name,kernel,model,code,verdict", CASES, ids=[c[0] for c in CASES])
def test_compiler_fault_on_an_edge_case(name, kernel, model, code, verdict, paper_verdict):
    e = paper_verdict(code, kernel, model, verdict)
    if name == "numba-slicing-jacobi":
        assert "no_interior" in e.evidence and "NUMBA_DISABLE_JIT" in e.evidence, e.evidence


def test_only_numba_cpu_code_has_an_interpreted_run(catalog):
    from hpceval.toolchains import get_toolchain

    numba = catalog.models["python-numba"]
    tc = get_toolchain(numba.toolchain)
    assert tc.interpreted_env(numba, SLICES) == {"NUMBA_DISABLE_JIT": "1"}
    assert tc.interpreted_env(numba, "from numba import cuda\n@cuda.jit\ndef k(x):\n    pass\n") is None
    numpy = catalog.models["python-numpy"]
    assert get_toolchain(numpy.toolchain).interpreted_env(numpy, "def f(x):\n    return x\n") is None
    cpp = catalog.models["cpp-openmp"]
    assert get_toolchain(cpp.toolchain).interpreted_env(cpp, "void f() {}") is None
    for switch in ("numba.config.DISABLE_JIT", "os.environ['NUMBA_DISABLE_JIT']", "os.getenv('X')", "f.py_func"):
        assert tc.interpreted_env(numba, SLICES + f"\nflag = {switch}\n") is None, switch
