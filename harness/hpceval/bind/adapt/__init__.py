"""Type adapters: how the driver builds a value of the type a suggested function expects from the kernel's arrays,
and how it reads such a value back into its own arrays. One module per language, the same shape as bind.parse.

The drivers hold every canonical array in one host form (NumPy in Python, std::vector in C++, arrays in Fortran).
The mapping (bind.mapping) decides which kernel role each parameter takes; the glue (bind.glue) spells the driver's
statements. Types a suggestion declares, or shows by what it does with a parameter, are adapted here:

* records: the suggestion's own structs, classes and Fortran derived types (adapt.cpp, adapt.fortran), and Python
  classes whose fields the mapping must place (adapt.python_records). `flatten`
  turns each record parameter into its fields (a CSR struct into n, row_ptr, col_idx, values), so the same mapping
  machinery that maps plain parameters maps the fields to the kernel's roles; `collapse` then builds the record
  from the fields' glue (aggregate fields, a constructor, or Fortran components) and reads output fields back;
* context parameters (a `sycl::queue`, a CUDA stream) that take no kernel role: created by the driver and passed;
* containers with their own read-back (a `std::vector` output handed to the function as itself, not `.data()`);
* Python (adapt.python): device arrays (CuPy, Torch, numba.cuda, pyCUDA) in both directions, SciPy sparse
  matrices, dataclasses, NamedTuples, dicts and tuples grouping the kernel's arrays; each a `TypeAdapter` that says
  how to make the value (before the clock starts), what to pass, and how to read it back (after it stops).

A new type is one adapter in its language's module, never a change to the mapping.
"""

from __future__ import annotations

from hpceval.bind.adapt.common import Built, Field, Flat, Group, Record, TypeAdapter, collapse, flatten
from hpceval.bind.parse import SParam

__all__ = ["Built", "TypeAdapter", "Field", "Flat", "Group", "Record", "collapse", "context_param", "flatten", "flatten_records",
           "record_language"]


def context_param(p: SParam, lang: str) -> bool:
    """A parameter the driver creates itself (it takes no kernel role): a queue, a stream."""
    if lang != "cpp":
        return False
    from hpceval.bind.adapt.cpp import context_kind

    return context_kind(p) is not None


def record_language(lang: str):
    """The record adapter of a language (adapt.cpp, adapt.fortran, adapt.python_records), None where it has none."""
    if lang == "cpp":
        from hpceval.bind.adapt.cpp import RECORDS

        return RECORDS
    if lang == "fortran":
        from hpceval.bind.adapt.fortran import RECORDS as FORTRAN_RECORDS

        return FORTRAN_RECORDS
    if lang == "python":
        from hpceval.bind.adapt.python_records import RECORDS as PYTHON_RECORDS

        return PYTHON_RECORDS
    return None


def flatten_records(fn, code: str, lang: str) -> Flat | None:
    """fn with its record parameters replaced by their fields (adapt.common.flatten), None where it has none."""
    rl = record_language(lang)
    return flatten(fn, code, rl) if rl is not None and fn.params else None
