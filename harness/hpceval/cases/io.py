"""The harness side of the driver contract: write case inputs, read outputs and timings back.

Layout inside a job's work dir (the driver of every language reads and writes exactly this):

    cases.txt              one line per case: "<dir> <reps> <warmup> <write_outputs>"
    <dir>/scalars.txt      the scalar parameters, one per line, in canonical order
    <dir>/<name>.bin       each array parameter, raw, in the language's array order and index base
    <dir>/out_<name>.bin   written by the driver: every array after the call (inputs too, to catch clobbering)
    <dir>/timing.txt       the timing run's record, and its plan and input sets: cases/timing.py
    <dir>/threads.txt      written by a thread-probing driver (DriverHooks.thread_probe): the most threads seen
                           running the kernel in this case's calls (first token), then how that was seen (free text)

Arrays go to the driver in the language's natural layout of the *logical* shape (row-major for C++/Python,
column-major for Fortran/Julia), so a Fortran kernel sees A(m,n) and a C++ kernel A[i*n+j] for the same matrix.

Everything in the work dir may have been replaced by the job (hostile code runs there) and the harness may run as
root, so it never follows a link there: outputs are opened with `open_output` (each folder and the file itself
with O_NOFOLLOW, relative to the work dir's descriptor, and only a regular file with one link is read: a symlink
to a host file, a FIFO or a dir is a MissingOutput saying what it is), and case files are written into freshly
made folders with O_CREAT|O_EXCL|O_NOFOLLOW after whatever had their name was removed without following it.
"""

from __future__ import annotations

import os
import shutil
import stat
from collections.abc import Callable
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
    structure: str = ""  # the named structure (KernelSpec.structures) this case draws, "" for a plain size
    # the reference outputs and their scale (compare.reference_and_scale) when made ahead with the case
    # (cases/prepared.py: once per kernel, shared by its suggestions); None: computed when compared
    reference: tuple[dict[str, Any], dict[str, Any]] | None = None


def array_dtype(param: Param, spec: KernelSpec) -> np.dtype:
    return np.dtype(np.int32) if param.kind in ("int", "index") else spec.np_dtype


def array_shape(param: Param, values: dict[str, Any]) -> tuple[int, ...]:
    return tuple(int(eval_expr(e, values)) for e in param.shape)


def format_scalar(value: Any, param: Param, spec: KernelSpec) -> str:
    if param.kind == "int":
        return str(int(value))
    digits = 9 if spec.dtype == "float32" else 17
    return f"{float(value):.{digits}g}"


_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
TEXT_LIMIT = 64 * 1024 * 1024  # bytes read of a text output (times, threads, probe records)


class MissingOutput(Exception):
    """The driver did not write an output file (the program died or the kernel broke the driver), or what has its
    name is not a plain file of the job's (a symlink, FIFO, dir, hard link): the harness does not read it."""


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISLNK, "a symlink"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISDIR, "a directory"),
                       (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a device"), (stat.S_ISBLK, "a device")):
        if test(mode):
            return name
    return "a file"


def _lstat(name: str, dir_fd: int) -> os.stat_result | None:
    try:
        return os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return None


def _open_job_dir(workdir: Path, parts: list[str], relpath: str) -> int | None:
    """A descriptor of workdir/parts..., no link followed; None if a folder is missing."""
    fd = os.open(workdir, _DIR_FLAGS)
    for part in parts:
        try:
            info = _lstat(part, fd)
            if info is None:
                os.close(fd)
                return None
            if not stat.S_ISDIR(info.st_mode):
                os.close(fd)
                raise MissingOutput(f"output {relpath}: {part} is {_kind(info.st_mode)}, not a directory")
            child = os.open(part, _DIR_FLAGS, dir_fd=fd)
        except OSError as exc:  # swapped for a link after the check (ELOOP / ENOTDIR)
            os.close(fd)
            raise MissingOutput(f"output {relpath}: {part} is not a directory ({exc.strerror})") from None
        os.close(fd)
        fd = child
    return fd


def open_output(workdir: Path, relpath: str) -> int | None:
    """A read descriptor of the job's output `relpath` (e.g. "c0/out_y.bin"); None when it was not written.

    Raises MissingOutput when something else has the name: a symlink (to a host file, say), a FIFO, a directory,
    a file with other hard links. Nothing is followed, so the harness never reads outside the work dir.
    """
    *parts, name = relpath.split("/")
    dir_fd = _open_job_dir(workdir, parts, relpath)
    if dir_fd is None:
        return None
    try:
        info = _lstat(name, dir_fd)
        if info is None:
            return None
        if not stat.S_ISREG(info.st_mode):
            raise MissingOutput(f"output {relpath} is {_kind(info.st_mode)}, not a file")
        try:
            fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=dir_fd)
        except OSError as exc:
            raise MissingOutput(f"output {relpath} is not a plain file ({exc.strerror})") from None
        opened = os.fstat(fd)
        if not stat.S_ISREG(opened.st_mode) or opened.st_nlink != 1:
            os.close(fd)
            what = f"has {opened.st_nlink} hard links" if stat.S_ISREG(opened.st_mode) else f"is {_kind(opened.st_mode)}"
            raise MissingOutput(f"output {relpath} {what}, not a file of its own")
        return fd
    finally:
        os.close(dir_fd)


def read_output(workdir: Path, relpath: str, limit: int = TEXT_LIMIT) -> bytes | None:
    """At most `limit` bytes of an output (None: not written); MissingOutput as in open_output."""
    fd = open_output(workdir, relpath)
    if fd is None:
        return None
    with os.fdopen(fd, "rb") as f:
        return f.read(limit)


def read_optional_text(workdir: Path, relpath: str, limit: int = TEXT_LIMIT) -> str | None:
    """A text output that may be missing (times, threads, probe records): None when absent or not a plain file."""
    try:
        data = read_output(workdir, relpath, limit)
    except MissingOutput:
        return None
    return None if data is None else data.decode("utf-8", "replace")


def _remove_entry(dir_fd: int, name: str) -> None:
    """Remove whatever has `name` in the folder, without following a link."""
    info = _lstat(name, dir_fd)
    if info is None:
        return
    if stat.S_ISDIR(info.st_mode):
        shutil.rmtree(name, dir_fd=dir_fd)
    else:
        os.unlink(name, dir_fd=dir_fd)


def _write_new(dir_fd: int, name: str):
    """A new file in the folder (never an existing one, never through a link)."""
    fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644, dir_fd=dir_fd)
    return os.fdopen(fd, "wb")


def remove_case_dirs(workdir: Path) -> None:
    """Remove the case folders (c0, c1, ...) of an earlier run, whatever the job turned them into."""
    dir_fd = os.open(workdir, _DIR_FLAGS)
    try:
        for name in os.listdir(dir_fd):
            if name.startswith("c") and name[1:].isdigit():
                _remove_entry(dir_fd, name)
    finally:
        os.close(dir_fd)


def laid_out(param: Param, values: dict[str, Any], spec: KernelSpec, lang: Language) -> np.ndarray:
    """Array parameter `param` of a case as its file holds it: the harness's dtype, the language's index base and
    array order, flat (a view where nothing changes, else a copy)."""
    arr = np.asarray(values[param.name], dtype=array_dtype(param, spec))
    if param.kind == "index":
        arr = arr + np.int32(lang.index_base)
    return arr.reshape(array_shape(param, values)).ravel(order=lang.array_order)


def write_cases(workdir: Path, spec: KernelSpec, lang: Language, cases: list[Case],
                layout: Callable[[Param, dict[str, Any]], np.ndarray] | None = None) -> None:
    """The cases' files; `layout` gives an array's flat contents (default `laid_out`; the timing run passes the
    ones it made once for its shared input sets)."""
    lines = []
    work_fd = os.open(workdir, _DIR_FLAGS)
    try:
        for i, case in enumerate(cases):
            name = f"c{i}"
            _remove_entry(work_fd, name)
            os.mkdir(name, 0o755, dir_fd=work_fd)
            folder = os.open(name, _DIR_FLAGS, dir_fd=work_fd)
            try:
                scalars = [format_scalar(case.inputs[p.name], p, spec) for p in spec.params if not p.is_array]
                with _write_new(folder, "scalars.txt") as f:
                    f.write(("\n".join(scalars) + "\n").encode())
                for p in spec.params:
                    if p.is_array:
                        flat = layout(p, case.inputs) if layout else laid_out(p, case.inputs, spec, lang)
                        with _write_new(folder, f"{p.name}.bin") as f:
                            flat.tofile(f)
            finally:
                os.close(folder)
            lines.append(f"{name} {case.reps} {case.warmup} {int(case.write_outputs)}")
        _remove_entry(work_fd, "cases.txt")
        with _write_new(work_fd, "cases.txt") as f:
            f.write(("\n".join(lines) + "\n").encode())
    finally:
        os.close(work_fd)


def read_arrays(workdir: Path, index: int, spec: KernelSpec, lang: Language, case: Case) -> dict[str, np.ndarray]:
    result = {}
    for p in spec.params:
        if not p.is_array:
            continue
        shape = array_shape(p, case.inputs)
        dtype = array_dtype(p, spec)
        fd = open_output(workdir, f"c{index}/out_{p.name}.bin")
        if fd is None:
            raise MissingOutput(f"output {p.name} not written")
        with os.fdopen(fd, "rb") as f:
            count, wanted = os.fstat(f.fileno()).st_size // dtype.itemsize, int(np.prod(shape))
            if count != wanted:
                raise MissingOutput(f"output {p.name} has {count} elements, expected {wanted}")
            raw = np.fromfile(f, dtype=dtype, count=wanted)
        if raw.size != wanted:
            raise MissingOutput(f"output {p.name} has {raw.size} elements, expected {wanted}")
        arr = raw.reshape(shape, order=lang.array_order)
        if p.kind == "index":
            arr = arr - np.int32(lang.index_base)
        result[p.name] = arr
    return result


def read_times(workdir: Path, index: int) -> list[float]:
    text = read_optional_text(workdir, f"c{index}/times.txt")
    if text is None:
        return []
    out = []
    for line in text.split():
        try:
            out.append(float(line))
        except ValueError:
            continue
    return out


def read_threads(workdir: Path, index: int) -> tuple[int, str] | None:
    """A thread-probing driver's evidence for case `index`: (most threads seen, how); None if not recorded or
    unreadable (0 threads: the driver could not count them)."""
    text = read_optional_text(workdir, f"c{index}/threads.txt")
    if text is None:
        return None
    words = text.split(None, 1)
    try:
        count = int(words[0])
    except (IndexError, ValueError):
        return None
    if count <= 0:
        return None
    return count, " ".join(words[1].split()) if len(words) > 1 else ""
