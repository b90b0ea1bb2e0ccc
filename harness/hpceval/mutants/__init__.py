"""Mutants of a known-correct kernel, derived automatically from its source text: the validator's self-test.

A mutant is the reference solution with one small, realistic bug: an off-by-one loop bound, swapped index
variables, a dropped term of a sum, a swapped arithmetic operator, a zeroed or unwritten output, a removed
parallel construct, a wrong reduction or data-sharing clause, a wrong accumulator initialisation, or a wrong
data-movement clause of an offload directive. A validator that accepts a mutant has a hole.

Operators are general source-level rules per language, never special cases of a kernel or file. Sites
(loop headers, subscripts, assignments, binary operators) are found with tree-sitter, so comments, strings and
#include lines are never touched; directives (#pragma, !$omp/!$acc sentinels, numba decorators) are rewritten
with regexes over their own text. Rules that would give mutants known to be equivalent are left out:
  * an index expression symmetric in the swapped variables (`A[i + j]`), `x * 1` -> `x / 1`, `x + 0` -> `x - 0`;
  * removing from private() a variable the language makes private anyway (the loop variable of the associated
    loop in C/C++, every do-loop variable in Fortran), and private() of OpenACC (scalars are firstprivate);
  * the bound of a loop that also ends otherwise (a `break`/`exit` in its body, a second condition such as
    `it < max_iter && r > tol`): it is only a safeguard, so changing it by one changes nothing;
  * sites inside a branch taken only when a floating-point value is exactly zero (`if (bnorm == 0.0)`), a
    degenerate input that random validation data never produces;
  * arithmetic of addresses and index temporaries (`double *c = C + i*n`, `long c = (i*ny + j)*nz + k` used
    as a subscript) is left to the index operators (swapped index), not to the arithmetic ones;
  * mutants that can only over-provision a GPU launch (a grid dimension that never gets smaller, grid and block
    exchanged): see gpu_launch.py.
Mutants whose text equals the original or an earlier mutant (whitespace ignored) are dropped. CUDA C source held in
Python string literals (pyCUDA, CuPy) is mutated with the C++ operators (python.py).

    mutants = generate_mutants(code, "cpp")            # deduplicated, capped, every operator kind represented
    every = generate_mutants(code, "cpp", cap=None)     # all of them

The package: core.py (the Mutant type, sampling, candidate edits, tree-sitter plumbing), analyzer.py (the operator
framework and the assembly of mutants), gpu_launch.py (launch geometry: equivalent over-provisioning mutants),
directives.py (OpenMP/OpenACC clause operators), and one analyzer per language: cpp.py, fortran.py, python.py. This
module holds the registry of languages and the entry point.
"""

from __future__ import annotations

from hpceval.mutants.analyzer import Analyzer
from hpceval.mutants.core import DEFAULT_CAP, KINDS, Mutant, UnsupportedLanguage, sample
from hpceval.mutants.cpp import CppAnalyzer
from hpceval.mutants.fortran import FortranAnalyzer
from hpceval.mutants.python import PythonAnalyzer

__all__ = ["DEFAULT_CAP", "KINDS", "SUPPORTED_LANGUAGES", "Mutant", "UnsupportedLanguage", "generate_mutants",
           "sample"]

SUPPORTED_LANGUAGES: tuple[str, ...] = ("cpp", "fortran", "python")
_ANALYZERS: dict[str, type[Analyzer]] = {"cpp": CppAnalyzer, "fortran": FortranAnalyzer, "python": PythonAnalyzer}


def generate_mutants(code: str, language: str, *, cap: int | None = DEFAULT_CAP) -> list[Mutant]:
    """All mutants of `code` (deduplicated, in a deterministic order), sampled down to `cap` if given."""
    analyzer = _ANALYZERS.get(language)
    if analyzer is None:
        raise UnsupportedLanguage(f"no mutation operators for language {language!r}; "
                                  f"supported: {', '.join(SUPPORTED_LANGUAGES)}")
    found = analyzer(code).mutants()
    return sample(found, cap) if cap is not None else found
