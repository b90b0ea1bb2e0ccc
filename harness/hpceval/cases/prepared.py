"""Validation cases and their references, made once per graded kernel and shared by every suggestion of it.

Why: every suggestion of a kernel (variant, precision) is validated on the same cases, the same seeded inputs at
the same sizes and structures, against the same references; drawing them and computing the references again for
each suggestion was the largest part of the harness's own time per evaluation (results/overhead: SpMV's
structured inputs alone took 0.2-0.3 s a suggestion). So they are made once per process (kept in memory) and
kept in the harness cache (`paths.cache_dir()/cases/<key>.npz`) for the next process.

Trust: the key hashes everything that decides the cases and their references: the graded spec as data (its
variant's private settings included), the kernel folder's spec and reference files, the seed, the text of the
harness modules that draw cases and compute references (CODE_FILES: stricter than EVALUATOR_VERSION, which this
module cannot import without a cycle) and the versions of NumPy and SciPy. A file is used only if it names that key and its digest (SHA-256 of its
manifest and of every array's dtype, shape, order and bytes) matches; anything else (truncated, edited, another
key's file, an array of objects: it is read with allow_pickle=False) is recomputed and written again. The cache
folder lies outside every job's sandbox (its home and /tmp are private mounts there; tests/test_prepared_cases.py
runs a sandboxed job that tries to write it), and a suggestion's own files are never read back into it.
Shared arrays are read-only: code that tried to change a case in place would fail loudly instead of changing the
next suggestion's case. The timing run's inputs are never cached on disk: they come from a per-process secret
seed (cases/timing.py).
"""

from __future__ import annotations

import hashlib
import io
import json
import threading
from collections import OrderedDict
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from hpceval.cases import generate
from hpceval.cases.compare import reference_and_scale
from hpceval.cases.io import Case
from hpceval.paths import PACKAGE_DIR, cache_dir, save_bytes_cache
from hpceval.spec import KernelSpec

FORMAT = "1"  # the file layout below; part of the key
DISK_LIMIT = 256 * 2**20  # bytes of arrays beyond which a kernel's cases stay in memory only
_KEEP = 64  # kernels (variant, precision, seed) kept in memory per process, least recently used dropped

_MEMORY: OrderedDict[str, list[Case]] = OrderedDict()
_LOCK = threading.Lock()
_KEY_LOCKS: dict[str, threading.Lock] = {}


class _Unstorable(Exception):
    """A value the file format does not hold exactly (the cases then stay in memory only)."""


def validation_cases(spec: KernelSpec, seed: int) -> list[Case]:
    """generate.validation_cases(spec, seed), each case with its reference (Case.reference), made once."""
    key = cases_key(spec, seed)
    with _LOCK:
        lock = _KEY_LOCKS.setdefault(key, threading.Lock())
    with lock:  # one thread makes a kernel's cases; the others wait for them
        with _LOCK:
            known = _MEMORY.get(key)
            if known is not None:
                _MEMORY.move_to_end(key)
                return list(known)
        path = cache_path(key)
        cases = load(path, key)
        if cases is None:
            cases = fresh(spec, seed)
            store(path, key, cases)
        with _LOCK:
            _MEMORY[key] = cases
            while len(_MEMORY) > _KEEP:
                _MEMORY.popitem(last=False)
        return list(cases)


def forget() -> None:
    """Drop the in-memory cases (tests: the next call reads the file, as a new process would)."""
    with _LOCK:
        _MEMORY.clear()


def fresh(spec: KernelSpec, seed: int) -> list[Case]:
    """The cases made now, with their references, read-only."""
    cases = generate.validation_cases(spec, seed)
    for case in cases:
        case.reference = _reference(spec, case)
        _freeze(case)
    return cases


def _reference(spec: KernelSpec, case: Case) -> tuple[dict, dict] | None:
    """The reference and its scale; None for a kernel graded by its own check, or a reference that fails (the
    comparison then computes it, and fails, as it always did)."""
    if spec.custom_check is not None:
        return None
    try:
        return reference_and_scale(spec, case.inputs)
    except Exception:  # noqa: BLE001 - reported where it always was: when the case is compared
        return None


def _freeze(case: Case) -> None:
    for values in (case.inputs, *(case.reference or ())):
        for value in values.values():
            if isinstance(value, np.ndarray):
                value.flags.writeable = False


# ---------------------------------------------------------------------------------------------- the key


@cache
def _versions() -> str:
    from importlib.metadata import PackageNotFoundError, version

    out = [f"numpy={np.__version__}"]
    for name in ("scipy",):
        try:
            out.append(f"{name}={version(name)}")
        except PackageNotFoundError:
            out.append(f"{name}=none")
    return ",".join(out)


def _folder_digest(folder: Path) -> str:
    """The kernel folder's own files (spec, reference, variants; not its solutions), by content."""
    h = hashlib.sha256()
    for path in sorted(p for p in folder.iterdir() if p.is_file() and p.suffix in (".toml", ".py")):
        h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


# The harness code that draws cases and computes references (relative to the package): its text is part of the key,
# so any change to it (which EVALUATOR_VERSION bumps would not always follow) makes new cases.
CODE_FILES = ("cases/generate.py", "cases/io.py", "cases/compare.py", "cases/prepared.py", "bind/graded.py", "spec.py")


@cache
def _code_digest() -> str:
    h = hashlib.sha256()
    for rel in CODE_FILES:
        h.update(rel.encode() + b"\0" + (PACKAGE_DIR / rel).read_bytes() + b"\0")
    return h.hexdigest()


def cases_key(spec: KernelSpec, seed: int) -> str:
    private = sorted((getattr(spec, "__pydantic_private__", None) or {}).items())
    payload = {"format": FORMAT, "code": _code_digest(), "versions": _versions(), "seed": int(seed),
               "class": type(spec).__name__, "spec": spec.model_dump(mode="json"), "private": repr(private),
               "folder": _folder_digest(spec.folder)}
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=repr).encode()).hexdigest()[:32]


def cache_path(key: str) -> Path:
    return cache_dir() / "cases" / f"{key}.npz"


# ---------------------------------------------------------------------------------------------- the file


def _digest(manifest: bytes, arrays: list[np.ndarray]) -> str:
    h = hashlib.sha256(manifest)
    for a in arrays:
        order = "F" if a.flags.f_contiguous and not a.flags.c_contiguous else "C"
        h.update(f"\0{a.dtype.str}{a.shape}{order}\0".encode())
        h.update(a.tobytes(order=order))
    return h.hexdigest()


def encode(key: str, cases: list[Case]) -> bytes:
    """The cases as an .npz: a JSON manifest (labels, sizes, scalars with their exact types), the arrays, a digest.
    _Unstorable for a value it cannot hold exactly (an object, a strided view)."""
    arrays: list[np.ndarray] = []

    def put(value: Any) -> dict:
        if isinstance(value, np.ndarray):
            if value.dtype.hasobject or not (value.flags.c_contiguous or value.flags.f_contiguous):
                raise _Unstorable(f"array {value.dtype} not stored as it is")
            arrays.append(value)
            return {"a": len(arrays) - 1}
        if isinstance(value, np.generic):
            arrays.append(np.asarray(value))
            return {"s": len(arrays) - 1}
        for tag, kind in (("b", bool), ("i", int), ("f", float)):
            if type(value) is kind:
                return {tag: value}
        raise _Unstorable(type(value).__name__)

    def put_all(values: dict) -> dict:
        return {name: put(v) for name, v in values.items()}

    entries = [{"label": c.label, "size": c.size, "reps": c.reps, "warmup": c.warmup,
                "write_outputs": c.write_outputs, "structure": c.structure, "inputs": put_all(c.inputs),
                "reference": [put_all(part) for part in c.reference] if c.reference is not None else None}
               for c in cases]
    manifest = json.dumps({"key": key, "arrays": len(arrays), "cases": entries}).encode()
    if sum(a.nbytes for a in arrays) > DISK_LIMIT:
        raise _Unstorable("too large")
    buffer = io.BytesIO()
    named = {f"a{i}": a for i, a in enumerate(arrays)}
    np.savez(buffer, manifest=np.frombuffer(manifest, dtype=np.uint8),
             digest=np.frombuffer(_digest(manifest, arrays).encode(), dtype=np.uint8), **named)
    return buffer.getvalue()


def decode(data: bytes | Path, key: str) -> list[Case] | None:
    """The cases of a file, or None unless it is whole, of this key and unaltered (its digest matches)."""
    try:
        with np.load(data if isinstance(data, Path) else io.BytesIO(data), allow_pickle=False) as z:
            manifest = bytes(z["manifest"])
            digest = bytes(z["digest"]).decode()
            info = json.loads(manifest)
            if info.get("key") != key:
                return None
            arrays = [z[f"a{i}"] for i in range(int(info["arrays"]))]
        if _digest(manifest, arrays) != digest:
            return None

        def get(ref: dict) -> Any:
            (tag, value), = ref.items()
            if tag == "a":
                return arrays[value]
            if tag == "s":
                return arrays[value][()]
            return {"b": bool, "i": int, "f": float}[tag](value)

        cases = []
        for e in info["cases"]:
            case = Case(label=e["label"], size=dict(e["size"]), inputs={n: get(r) for n, r in e["inputs"].items()},
                        reps=e["reps"], warmup=e["warmup"], write_outputs=e["write_outputs"], structure=e["structure"])
            if e["reference"] is not None:
                expected, scale = ({n: get(r) for n, r in part.items()} for part in e["reference"])
                case.reference = (expected, scale)
            _freeze(case)
            cases.append(case)
        return cases
    except Exception:  # noqa: BLE001 - whatever is wrong with the file, it is recomputed, never trusted
        return None


def load(path: Path, key: str) -> list[Case] | None:
    if not path.is_file():
        return None
    return decode(path, key)


def store(path: Path, key: str, cases: list[Case]) -> bool:
    try:
        data = encode(key, cases)
    except _Unstorable:
        return False
    return save_bytes_cache(path, data)
