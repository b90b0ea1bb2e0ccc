"""The harness side of the driver contract: write case inputs, read outputs and timings back.

Layout inside a job's work dir (the driver of every language reads and writes exactly this):

    cases.txt              one line per case: "<dir> <reps> <warmup> <write_outputs>"
    <dir>/scalars.txt      the scalar parameters, one per line, in canonical order
    <dir>/<name>.bin       each array parameter, raw, in the language's array order and index base
    <dir>/out_<name>.bin   written by the driver: every array after the call (inputs too, to catch clobbering)
    <dir>/times.txt        written by the driver: seconds per timed call, one per line
    <dir>/threads.txt      written by a thread-probing driver (DriverHooks.thread_probe): the most threads seen
                           running the kernel in this case's calls (first token), then how that was seen (free text)

Arrays go to the driver in the language's natural layout of the *logical* shape (row-major for C++/Python,
column-major for Fortran/Julia), so a Fortran kernel sees A(m,n) and a C++ kernel A[i*n+j] for the same matrix.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from hpceval.spec import KernelSpec, Language, Param, eval_expr


@dataclass
class Case:
    """One call of the kernel: its size, the inputs given, and how often to call it."""

    label: str
    size: dict[str, int]
    inputs: dict[str, Any]
    reps: int = 1
    warmup: int = 0
    write_outputs: bool = True


def array_dtype(param: Param, spec: KernelSpec) -> np.dtype:
    return np.dtype(np.int32) if param.kind in ("int", "index") else spec.np_dtype


def array_shape(param: Param, values: dict[str, Any]) -> tuple[int, ...]:
    return tuple(int(eval_expr(e, values)) for e in param.shape)


def format_scalar(value: Any, param: Param, spec: KernelSpec) -> str:
    if param.kind == "int":
        return str(int(value))
    digits = 9 if spec.dtype == "float32" else 17
    return f"{float(value):.{digits}g}"


def write_cases(workdir: Path, spec: KernelSpec, lang: Language, cases: list[Case]) -> None:
    lines = []
    for i, case in enumerate(cases):
        name = f"c{i}"
        folder = workdir / name
        folder.mkdir(parents=True, exist_ok=True)
        scalars = [format_scalar(case.inputs[p.name], p, spec) for p in spec.params if not p.is_array]
        (folder / "scalars.txt").write_text("\n".join(scalars) + "\n")
        for p in spec.params:
            if p.is_array:
                arr = np.asarray(case.inputs[p.name], dtype=array_dtype(p, spec))
                if p.kind == "index":
                    arr = arr + np.int32(lang.index_base)
                expected = array_shape(p, case.inputs)
                arr = arr.reshape(expected)
                arr.ravel(order=lang.array_order).tofile(folder / f"{p.name}.bin")
        lines.append(f"{name} {case.reps} {case.warmup} {int(case.write_outputs)}")
    (workdir / "cases.txt").write_text("\n".join(lines) + "\n")


class MissingOutput(Exception):
    """The driver did not write an output file (the program died or the kernel broke the driver)."""


def read_arrays(workdir: Path, index: int, spec: KernelSpec, lang: Language, case: Case) -> dict[str, np.ndarray]:
    folder = workdir / f"c{index}"
    result = {}
    for p in spec.params:
        if not p.is_array:
            continue
        path = folder / f"out_{p.name}.bin"
        shape = array_shape(p, case.inputs)
        dtype = array_dtype(p, spec)
        if not path.is_file():
            raise MissingOutput(f"output {p.name} not written")
        raw = np.fromfile(path, dtype=dtype)
        if raw.size != int(np.prod(shape)):
            raise MissingOutput(f"output {p.name} has {raw.size} elements, expected {int(np.prod(shape))}")
        arr = raw.reshape(shape, order=lang.array_order)
        if p.kind == "index":
            arr = arr - np.int32(lang.index_base)
        result[p.name] = arr
    return result


def read_times(workdir: Path, index: int) -> list[float]:
    path = workdir / f"c{index}" / "times.txt"
    if not path.is_file():
        return []
    out = []
    for line in path.read_text().split():
        try:
            out.append(float(line))
        except ValueError:
            continue
    return out


def read_threads(workdir: Path, index: int) -> tuple[int, str] | None:
    """A thread-probing driver's evidence for case `index`: (most threads seen, how); None if not recorded or
    unreadable (0 threads: the driver could not count them)."""
    path = workdir / f"c{index}" / "threads.txt"
    if not path.is_file():
        return None
    words = path.read_text(errors="replace").split(None, 1)
    try:
        count = int(words[0])
    except (IndexError, ValueError):
        return None
    if count <= 0:
        return None
    return count, " ".join(words[1].split()) if len(words) > 1 else ""
