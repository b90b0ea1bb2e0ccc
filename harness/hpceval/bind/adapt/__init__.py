"""Type adapters: how the driver builds a value of the type a suggested function expects from the kernel's arrays,
and how it reads such a value back into its own arrays.

The drivers hold every canonical array in one host form (NumPy in Python, std::vector in C++, ...). A suggestion
declares, or shows by what it does with a parameter, that it wants something else: a device array, a sparse
matrix, a record of several of the kernel's arrays. One adapter per such type, per language (adapt.python, ...),
says how to make it (statements before the timed call), what to pass, and how to read it back (statements after
the call). Glue code (bind.glue) asks the language's adapter module which adapter a parameter needs; a new type is
one new adapter, never a change to the mapping.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol


@dataclass
class Built:
    """What the driver runs to hand a parameter its value: setup before the clock starts, the argument expression,
    teardown after the clock stops (outputs, and inputs a call may have clobbered, copied back)."""

    setup: list[str] = field(default_factory=list)
    arg: str = ""
    teardown: list[str] = field(default_factory=list)
    note: str = ""


class TypeAdapter(Protocol):
    """One parameter type of one language."""

    kind: str

    def build(self, var: str, host: str) -> Built:
        """Statements that make `var`, of this type, from the driver's host array expression `host`, and copy it
        back into `host` after the call."""
        ...

    def read_back(self, value: str) -> str:
        """An expression that turns `value`, of this type, into the driver's host form."""
        ...
