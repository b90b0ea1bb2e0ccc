"""Glue: the driver code that feeds the canonical data to a suggested function through the mapping found.

The drivers hold the canonical inputs (C++: std::vector<T> per array and scalars named as in the spec; Fortran:
allocatable arrays; Python: ns["name"]). The glue computes each argument expression and, where the suggestion wants
its data differently, a temporary built before the timed calls and copied back after them (inputs too, so a kernel
that clobbers an input is still caught):

* element type: a suggestion declaring double for a float kernel (or real(8), or float for a double kernel) gets
  its data converted to its own type and back; bytes are never reinterpreted (the precision the result has is
  then what validation sees);
* containers: float** row pointers, std::vector<std::vector<T>>, std::vector<T> of another type;
* layout: a matrix read column-major where the canonical storage is row-major (or transposed in Fortran);
* square variant: inputs zero-padded to k x k, k = max(m, n);
* variant extras at their canonical values (alpha = 1, beta = 0, incx = 1, lda = leading dimension, trans = 'N');
  thread counts and block sizes get harmless values;
* outputs the function reads before writing (y += A*x, beta*y) are zeroed before the call (instead of NaN-poisoned).

The decisions are the same for every language (glue.common); spelling them is not, so each driver language has its
own module (glue.cpp, glue.python, glue.fortran, glue.julia) and this package only picks one (make_glue).
"""

from __future__ import annotations

from hpceval.bind.glue.common import Glue, Plan, in_place_note, in_place_output, qualified, spec_dim
from hpceval.bind.glue.cpp import cpp_glue
from hpceval.bind.glue.fortran import fortran_glue
from hpceval.bind.glue.julia import julia_glue
from hpceval.bind.glue.python import python_glue
from hpceval.bind.mapping import Mapping
from hpceval.bind.roles import KernelRoles

__all__ = ["Glue", "Plan", "cpp_glue", "fortran_glue", "julia_glue", "make_glue", "python_glue", "qualified",
           "spec_dim"]


# the output that an input's parameter carries (Mapping.in_place) starts as a copy of that input
COPY_IN = {"cpp": "{out} = {src};", "fortran": "{out} = {src}", "python": 'ns["{out}"][...] = ns["{src}"]'}


def make_glue(m: Mapping, kr: KernelRoles, lang: str) -> Glue:
    if lang == "julia":
        return julia_glue(m, kr)  # no setup slot: it copies in its own let block
    g = {"cpp": cpp_glue, "python": python_glue, "fortran": fortran_glue}[lang](m, kr)
    if (out := in_place_output(m, kr)) is not None:
        g.setup.insert(0, COPY_IN[lang].format(out=out, src=m.in_place))
        g.notes.append(in_place_note(out, m.in_place))
    return g
