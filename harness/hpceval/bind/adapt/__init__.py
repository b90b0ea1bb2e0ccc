"""Type adapters: how the driver builds a value of a parameter type the suggestion declares, and reads it back.

The mapping (bind.mapping) decides which kernel role each parameter takes; the glue (bind.glue) spells the
driver's statements for the types every suggestion uses (pointers, std::vector, Views, Fortran arrays). Types a
suggestion brings itself are adapted here, one module per language (the same shape as bind.parse):

* records: the suggestion's own structs, classes and Fortran derived types. `flatten` turns each record parameter
  into its fields (a CSR struct into n, row_ptr, col_idx, values), so the same mapping machinery that maps plain
  parameters maps the fields to the kernel's roles; `collapse` then builds the record from the fields' glue
  (aggregate fields, a constructor, or Fortran components) and reads output fields back after the call;
* context parameters (a `sycl::queue`, a CUDA stream) that take no kernel role: created by the driver and passed;
* containers with their own read-back (a `std::vector` output handed to the function as itself, not `.data()`).

A new type is one adapter in its language's module, not a change to the mapping.
"""

from __future__ import annotations

from hpceval.bind.adapt.common import Field, Flat, Group, Record, collapse, flatten
from hpceval.bind.parse import SParam

__all__ = ["Field", "Flat", "Group", "Record", "collapse", "context_param", "flatten", "flatten_records",
           "record_language"]


def context_param(p: SParam, lang: str) -> bool:
    """A parameter the driver creates itself (it takes no kernel role): a queue, a stream."""
    if lang != "cpp":
        return False
    from hpceval.bind.adapt.cpp import context_kind

    return context_kind(p) is not None


def record_language(lang: str):
    """The record adapter of a language (adapt.cpp, adapt.fortran), None where it has none."""
    if lang == "cpp":
        from hpceval.bind.adapt.cpp import RECORDS

        return RECORDS
    if lang == "fortran":
        from hpceval.bind.adapt.fortran import RECORDS as FORTRAN_RECORDS

        return FORTRAN_RECORDS
    return None


def flatten_records(fn, code: str, lang: str) -> Flat | None:
    """fn with its record parameters replaced by their fields (adapt.common.flatten), None where it has none."""
    rl = record_language(lang)
    return flatten(fn, code, rl) if rl is not None and fn.params else None
