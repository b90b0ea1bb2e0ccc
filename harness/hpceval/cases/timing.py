"""The timing run's data: fresh inputs for every call, every call's outputs validated, nothing the job can foresee.

Why: a timing run that calls the kernel repeatedly on the same inputs and never looks at the outputs rewards
kernels that shortcut at the timing size, cache results across calls, count calls, skip work when the inputs look
unchanged, or read the inputs the harness wrote (issue 13, kinds a, b, d, e, g, k). So here:

* inputs come from a per-run secret seed (never the default seed a suggestion could regenerate them from), as
  `sets` base sets; call k gets base set s_k with the arrays that the outputs are linear in scaled by 2^e_k
  (exact in floating point, so the expected outputs are the base set's reference times 2^e_k). Consecutive calls
  differ in set and exponent, and no two calls get the same inputs, except one trap call that repeats its
  predecessor's inputs exactly: a kernel that skips work when the inputs look unchanged leaves that call's
  re-poisoned outputs unwritten. Which arrays scale is found, per graded spec, by trying it on a small case.
* the driver rewrites the scaled arrays (the largest that do: a cache of something derived from them, keyed on
  their pointer, then serves stale values) and restores inout arrays before each call, and hands every other
  input to the call as its set's own array (swapped in, never copied). Rotating two sets doubles what the timed
  calls read: where one set fits the last-level cache and two do not, the calls read memory where the old run,
  which repeated one set, read the cache (the NumPy GEMV on a 300 MB L3: 1.9 ms rotated, 1.1 ms with set 0
  repeated, `bench/timing_ablation.py`); that is the point of rotating.
* the driver poisons pure outputs (NaN) before every call and returns a fingerprint of every call's outputs
  (a weighted sum, `weights`); the calls the plan marks `full` (all of them when their outputs are small, else
  a few chosen at random) also return their outputs in full, compared with the same tolerance as the validation
  sizes, so precision lost only at scale (float accumulation in a double kernel) fails here.
* the warm-up count is random (1-3 of the reps + 1 calls) and written only into the plan, which the driver reads into memory and
  removes, with every input file, before the suggestion's code runs: the job cannot read later calls' inputs,
  which calls are compared in full, or how many calls are warm-ups.
* the driver's timing record carries a per-run nonce from the plan, so a record the suggestion forges is refused.

Layout of the timing case c0 (besides cases/io.write_cases' scalars.txt and set 0's arrays):

    c0/plan.txt               "hpceval-plan 1", "<nonce> <calls> <sets>", one 0/1 per array parameter (scaled),
                              then per call "<set> <exponent> <full>"
    c0/s<j>/<name>.bin        the input arrays (in and inout) of set j >= 1
    c0/timing.txt  (driver)   "hpceval-timing <nonce>", per call "call <k> <seconds> <fingerprint per output>",
                              "live <k> <what>"/"changed <k>" (work continued after call k returned) or
                              "early <k> <what>" (threads worked as its inputs were written), then "end <nonce>"
    c0/out_<name>.<k>.bin     (driver) the outputs of call k, for the calls marked full
"""

from __future__ import annotations

import ctypes
import os
import random
import secrets
import stat
import threading
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from hpceval.cases.compare import CaseCheck, reference_and_scale, within_bound
from hpceval.cases.generate import make_case, size_label
from hpceval.cases.io import (
    Case,
    MissingOutput,
    array_dtype,
    array_shape,
    open_output,
    read_optional_text,
    remove_case_dirs,
    write_cases,
)
from hpceval.spec import KernelSpec, Language, eval_expr

SETS = 2
EXPONENTS = tuple(range(-8, 9))
FULL_BYTES = 48 * 2**20  # every call's outputs are compared in full when together they fit in this
FULL_SUBSET = 2  # else this many timed calls (chosen at random when the plan is made), at least one per set
CUSTOM_RTOL = 1e-5  # fingerprint agreement of calls on the same set for kernels graded by their own check (CG)
# One timing run's references and comparisons at a time per process, and one BLAS thread in the harness's own
# process: OpenBLAS's threaded DGEMM hung when two jobs' threads called it at once (both waiting on its level-3
# lock), and its fork handler (pthread_atfork: shut the pool down) hung while another thread started a sandboxed
# run. The jobs themselves are unaffected (their environment is their own); the CPU ceilings are measured in a
# process of their own (hpceval.ceilings).
NUMPY_LOCK = threading.RLock()
_BLAS_SETTERS = ("scipy_openblas_set_num_threads64_", "scipy_openblas_set_num_threads", "openblas_set_num_threads64_",
                 "openblas_set_num_threads", "MKL_Set_Num_Threads")


def one_blas_thread() -> None:
    """Limit the BLAS that NumPy loaded into this process to one thread (no pool, nothing for fork to shut down)."""
    try:
        with open("/proc/self/maps") as f:
            paths = {line.split()[-1] for line in f if ("openblas" in line or "mkl_rt" in line)
                     and line.split()[-1].startswith("/")}
    except OSError:
        return
    for path in sorted(paths):
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        setter = next((getattr(lib, name) for name in _BLAS_SETTERS if hasattr(lib, name)), None)
        if setter is not None:
            setter(1)


one_blas_thread()


@dataclass(frozen=True)
class Call:
    set: int
    exp: int
    full: bool


@dataclass
class TimingPlan:
    """What the timing run calls the kernel with, call by call; the harness's secret until the run is over."""

    spec: KernelSpec
    size: dict[str, int]
    sets: list[dict[str, Any]]
    calls: list[Call]
    warmup: int
    nonce: str
    scaled: tuple[str, ...]
    _refs: dict[tuple, Any] = field(default_factory=dict, repr=False)  # (set, order) -> _SetReference (shared)

    @property
    def label(self) -> str:
        return size_label(self.size)

    @property
    def case(self) -> Case:
        """Set 0 as a Case (its folder holds set 0's arrays and the scalars every set shares)."""
        return Case(label=self.label, size=self.size, inputs=self.sets[0], reps=1, warmup=0, write_outputs=False)

    @property
    def timed(self) -> range:
        return range(self.warmup, len(self.calls))

    def inputs(self, k: int) -> dict[str, Any]:
        """The inputs of call k: its set with the scaled arrays times 2^exp (exact)."""
        call = self.calls[k]
        base = self.sets[call.set]
        return {name: (np.ldexp(value, call.exp).astype(value.dtype) if name in self.scaled else value)
                for name, value in base.items()}

    def describe(self, k: int) -> str:
        kind = "warm-up" if k < self.warmup else "timed"
        return f"timing size {self.label}, call {k + 1} of {len(self.calls)} ({kind})"


# ---------------------------------------------------------------------------------------------- the plan


def _scaled_inputs(spec: KernelSpec, inputs: dict[str, Any], names: set[str], exp: int) -> dict[str, Any]:
    return {k: (np.ldexp(v, exp).astype(v.dtype) if k in names else v) for k, v in inputs.items()}


def _homogeneous(spec: KernelSpec, inputs: dict[str, Any], names: set[str]) -> bool:
    """Whether scaling these arrays by 2^3 scales every reference output by 2^3 (checked on a small case)."""
    if not names:
        return False
    try:
        ref = spec.reference(inputs)
        scaled = spec.reference(_scaled_inputs(spec, inputs, names, 3))
    except Exception:  # noqa: BLE001 - a reference that cannot take it: no scaling
        return False
    rtol = 1e-7 if spec.custom_check is not None else 1e-10
    seen = False
    for name, value in ref.items():
        a, b = np.asarray(value, dtype=np.float64), np.asarray(scaled[name], dtype=np.float64)
        if a.shape != b.shape or not np.all(np.isfinite(a)):
            return False
        if not np.allclose(b, 8.0 * a, rtol=rtol, atol=1e-300):
            return False
        seen = seen or bool(np.any(a != 0))
    return seen


def _spec_key(spec: KernelSpec) -> tuple:
    return (spec.id, getattr(spec, "variant", ""), spec.dtype, tuple((p.name, p.intent, p.kind, tuple(p.shape))
                                                                       for p in spec.params))


_SCALABLE: dict[tuple, tuple[str, ...]] = {}


def scalable(spec: KernelSpec) -> tuple[str, ...]:
    """The real input arrays whose scaling by 2^e scales the outputs by 2^e: the inout ones plus the largest further
    input array that makes it so (A for GEMV, the values for SpMV), tried on a small validation case; () when none
    does. The largest, because it is what a suggestion would cache something derived from (a transposed or
    repacked matrix, keyed on its pointer): the driver rewrites a scaled array in place before every call, so such
    a cache serves the next call stale values and the call fails its comparison. A pure input that is not scaled
    is handed to the call as its set's own array (swapped in, never copied)."""
    key = _spec_key(spec)
    if key in _SCALABLE:
        return _SCALABLE[key]
    with NUMPY_LOCK:
        return _scalable(spec, key)


def _scalable(spec: KernelSpec, key: tuple) -> tuple[str, ...]:
    found: tuple[str, ...] = ()
    case = _small_case(spec)
    if case is not None:
        reals = [p.name for p in spec.params if p.is_array and p.kind == "real" and p.intent != "out"]
        reals.sort(key=lambda name: -np.asarray(case.inputs[name]).size)  # stable: parameter order among equals
        base = {p.name for p in spec.params if p.is_array and p.kind == "real" and p.intent == "inout"}
        tries = [base] + [base | {name} for name in reals if name not in base] + [set(reals)]
        for names in tries:
            if _homogeneous(spec, case.inputs, names):
                found = tuple(p.name for p in spec.params if p.name in names)
                break
    _SCALABLE[key] = found
    return found


def _small_case(spec: KernelSpec) -> Case | None:
    """A validation case with 8 to 2000 output elements (the smallest above 8 when none is that small)."""
    best = None
    for size in sorted(spec.sizes.validation, key=lambda s: sum(s.values())):
        try:
            case = make_case(spec, size, 1)
        except Exception:  # noqa: BLE001 - a size the generator cannot make here
            continue
        count = max([int(np.asarray(case.inputs[p.name]).size) for p in spec.outputs if p.is_array] or [0])
        if 8 <= count <= 2000:
            return case
        if count > 2000 and best is None:
            best = case
    return best


def secret_seed() -> int:
    """A seed nobody can guess: the timing inputs are not the default seed's, so a suggestion cannot regenerate them."""
    return secrets.randbits(63)


def make_plan(spec: KernelSpec, size: dict[str, int], reps: int, *, rng: random.Random | None = None,
              sets: int = SETS) -> TimingPlan:
    """The timing run's calls: reps + 1 in all, a random number of them (1-3) warm-ups, secret inputs, rotating
    sets, per-call scaling.

    Without `rng` (a run, not a test) the input sets come from a per-process secret seed and are shared by every
    suggestion timed at this size in this process, with their references (a suggestion sees only its own run,
    whose plan and files are gone before its code runs); the calls, exponents, trap, warm-ups and full calls are
    drawn for each plan."""
    if rng is None:
        rng = random.SystemRandom()
        inputs, refs = _shared_sets(spec, size, sets)
    else:
        inputs, refs = _input_sets(spec, size, sets, rng), {}
    scaled = scalable(spec)
    # as many calls as one warm-up and `reps` timed calls always took, of which 1-3 are warm-ups (at least 3 timed)
    warmup = rng.randint(1, max(1, min(3, reps - 2)))
    calls = _calls(rng, reps + 1, warmup, len(inputs), bool(scaled))
    calls = _mark_full(rng, spec, inputs[0], calls, warmup, len(inputs))
    return TimingPlan(spec=spec, size=dict(size), sets=inputs, calls=calls, warmup=warmup,
                      nonce=secrets.token_hex(12), scaled=scaled, _refs=refs)


def _input_sets(spec: KernelSpec, size: dict[str, int], sets: int, rng: random.Random) -> list[dict[str, Any]]:
    base = make_case(spec, size, rng.getrandbits(63))
    inputs = [base.inputs]
    scalars = [p for p in spec.params if not p.is_array]
    for _ in range(1, max(sets, 1)):
        other = make_case(spec, size, rng.getrandbits(63)).inputs
        same = all(int(other[p.name]) == int(base.inputs[p.name]) for p in scalars if p.kind != "real")
        same = same and all(np.shape(other[p.name]) == np.shape(base.inputs[p.name]) for p in spec.params
                            if p.is_array)
        if same:  # one size for every set: the driver allocates once; real scalars (a, alpha, tol) are shared
            inputs.append({**other, **{p.name: base.inputs[p.name] for p in scalars}})
    return inputs


_SHARED: dict[tuple, tuple[list, dict]] = {}  # the last few (spec, size) input sets of this process, newest last
_SHARED_KEEP = 3
_SHARED_LOCK = threading.Lock()


def _shared_sets(spec: KernelSpec, size: dict[str, int], sets: int) -> tuple[list[dict[str, Any]], dict]:
    key = (_spec_key(spec), tuple(sorted(size.items())), sets)
    with _SHARED_LOCK:
        if key not in _SHARED:
            _SHARED[key] = (_input_sets(spec, size, sets, random.SystemRandom()), {})
            while len(_SHARED) > _SHARED_KEEP:
                _SHARED.pop(next(iter(_SHARED)))
        entry = _SHARED.pop(key)
        _SHARED[key] = entry
        return entry


def _calls(rng: random.Random, n: int, warmup: int, nsets: int, scaling: bool) -> list[tuple[int, int]]:
    trap = rng.randint(warmup + 1, n - 1) if n - 1 >= warmup + 1 else -1
    used: set[tuple[int, int]] = set()
    out: list[tuple[int, int]] = []
    for k in range(n):
        if k == trap:
            out.append(out[-1])
            continue
        s = (out[-1][0] + 1) % nsets if out else rng.randrange(nsets)
        prev = out[-1][1] if out else None
        choices = [e for e in EXPONENTS if e != prev and (s, e) not in used] if scaling else [0]
        choices = choices or [e for e in EXPONENTS if e != prev]
        e = rng.choice(choices)
        used.add((s, e))
        out.append((s, e))
    return out


def _mark_full(rng: random.Random, spec: KernelSpec, inputs: dict[str, Any], calls: list[tuple[int, int]],
               warmup: int, nsets: int) -> list[Call]:
    out_bytes = sum(np.asarray(inputs[p.name]).nbytes for p in spec.outputs if p.is_array)
    if out_bytes * len(calls) <= FULL_BYTES:
        return [Call(s, e, True) for s, e in calls]
    timed = list(range(warmup, len(calls)))
    full: set[int] = set()
    for s in range(nsets):  # every set gets a call compared in full (kernels with their own check need it)
        mine = [k for k in timed if calls[k][0] == s] or [k for k in range(len(calls)) if calls[k][0] == s]
        if mine:
            full.add(rng.choice(mine))
    rest = [k for k in timed if k not in full]
    rng.shuffle(rest)
    full.update(rest[:max(0, FULL_SUBSET - len(full))])
    return [Call(s, e, k in full) for k, (s, e) in enumerate(calls)]


# ---------------------------------------------------------------------------------------------- files


_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def _new_file(dir_fd: int, name: str):
    fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644, dir_fd=dir_fd)
    return os.fdopen(fd, "wb")


def write_plan(workdir: Path, spec: KernelSpec, lang: Language, plan: TimingPlan) -> None:
    """The timing case: c0 with set 0 (cases.txt says one call: the plan, read and removed by the driver, rules),
    the plan and the other sets."""
    remove_case_dirs(workdir)
    write_cases(workdir, spec, lang, [plan.case])
    arrays = [p for p in spec.params if p.is_array]
    lines = ["hpceval-plan 1", f"{plan.nonce} {len(plan.calls)} {len(plan.sets)}",
             " ".join("1" if p.name in plan.scaled else "0" for p in arrays) or "0",
             *(f"{c.set} {c.exp} {int(c.full)}" for c in plan.calls)]
    case_fd = os.open(workdir / "c0", _DIR)
    try:
        with _new_file(case_fd, "plan.txt") as f:
            f.write(("\n".join(lines) + "\n").encode())
        for j, inputs in enumerate(plan.sets[1:], start=1):
            os.mkdir(f"s{j}", 0o755, dir_fd=case_fd)
            set_fd = os.open(f"s{j}", _DIR, dir_fd=case_fd)
            try:
                for p in arrays:
                    if p.intent == "out":
                        continue
                    arr = np.asarray(inputs[p.name], dtype=array_dtype(p, spec)).reshape(array_shape(p, inputs))
                    if p.kind == "index":
                        arr = arr + np.int32(lang.index_base)
                    with _new_file(set_fd, f"{p.name}.bin") as f:
                        arr.ravel(order=lang.array_order).tofile(f)
            finally:
                os.close(set_fd)
    finally:
        os.close(case_fd)


@dataclass
class TimingRecord:
    """What the driver reported: per call its seconds and output fingerprints; where work continued after a call."""

    times: list[float] = field(default_factory=list)
    fingerprints: list[list[float]] = field(default_factory=list)
    live: tuple[int, str] | None = None
    early: tuple[int, str] | None = None  # C/C++/Fortran: threads worked while the driver wrote call k's inputs
    problem: str | None = None  # the record is missing, forged or malformed (the evidence)


def read_record(workdir: Path, plan: TimingPlan) -> TimingRecord:
    record = TimingRecord()
    try:
        stray = open_output(workdir, "c0/times.txt")
    except MissingOutput:
        stray = -1
    if stray is not None:
        if stray >= 0:
            os.close(stray)
        record.problem = ("the suggestion wrote c0/times.txt (timing tampering: the driver writes no such file; "
                          "its record is c0/timing.txt, tagged with a per-run nonce)")
        return record
    text = read_optional_text(workdir, "c0/timing.txt")
    if text is None:
        record.problem = "no timing record c0/timing.txt: the run ended before the driver wrote it"
        return record
    lines = [line.split() for line in text.splitlines() if line.strip()]
    if not lines or lines[0] != ["hpceval-timing", plan.nonce] or lines[-1] != ["end", plan.nonce]:
        record.problem = ("the timing record c0/timing.txt does not carry this run's nonce (timing tampering: it "
                          "was not written by the driver, or rewritten)")
        return record
    outputs = [p for p in plan.spec.outputs if p.is_array]
    for words in lines[1:-1]:
        try:
            if words[0] == "call" and len(words) == 3 + len(outputs) and int(words[1]) == len(record.times):
                record.times.append(float(words[2]))
                record.fingerprints.append([float(w) for w in words[3:]])
                continue
            if words[0] in ("live", "changed"):
                what = " ".join(words[2:]) if words[0] == "live" else "the outputs changed after the call returned"
                record.live = (int(words[1]), what)
                continue
            if words[0] == "early":
                record.early = (int(words[1]), " ".join(words[2:]))
                continue
        except (ValueError, IndexError):
            pass
        record.problem = f"the timing record c0/timing.txt has a malformed line: {' '.join(words)[:120]}"
        return record
    if record.live is None and record.early is None and len(record.times) != len(plan.calls):
        record.problem = (f"the timing record c0/timing.txt has {len(record.times)} calls, the plan "
                          f"{len(plan.calls)}")
    return record


def read_call_outputs(workdir: Path, spec: KernelSpec, lang: Language, plan: TimingPlan, k: int) -> dict[str, np.ndarray]:
    """The outputs of full call k, in canonical shape (MissingOutput when absent, short or not a plain file)."""
    inputs = plan.sets[plan.calls[k].set]
    result = {}
    for p in spec.outputs:
        if not p.is_array:
            continue
        shape, dtype = array_shape(p, inputs), array_dtype(p, spec)
        fd = open_output(workdir, f"c0/out_{p.name}.{k}.bin")
        if fd is None:
            raise MissingOutput(f"output {p.name} of call {k + 1} not written")
        with os.fdopen(fd, "rb") as f:
            wanted = int(np.prod(shape))
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode) or os.fstat(f.fileno()).st_size != wanted * dtype.itemsize:
                raise MissingOutput(f"output {p.name} of call {k + 1} has the wrong size")
            raw = np.fromfile(f, dtype=dtype, count=wanted)
        result[p.name] = raw.reshape(shape, order=lang.array_order)
    return result


# ---------------------------------------------------------------------------------------------- validation


@cache
def _weights(n: int) -> np.ndarray:
    """w_i = 1 + ((i * 2654435761) mod 2^32) / 2^32: the drivers' fingerprint weights (hpceval_runtime.c)."""
    h = (np.arange(n, dtype=np.uint64) * np.uint64(2654435761)) & np.uint64(0xFFFFFFFF)
    return 1.0 + h.astype(np.float64) * 2.0**-32


def weights(n: int) -> np.ndarray:
    return _weights(int(n))


def fingerprint(values: np.ndarray, order: str) -> float:
    flat = np.asarray(values, dtype=np.float64).ravel(order=order)
    return float(np.dot(weights(flat.size), flat))


@dataclass
class CallsCheck:
    ok: bool
    detail: str = ""
    call: int | None = None
    worst: float = 0.0
    full: int = 0


@dataclass
class _SetReference:
    """One set's reference, computed once for every call on it: outputs, the bound's scale, the reduction length,
    and per output and storage order the fingerprint sums the calls are checked against."""

    expected: dict
    scale: dict
    reduction: float
    sums: dict[tuple[str, str], tuple[float, float, float, float]]  # (output, order) -> w.ref, w.scale, w.|ref|, sum(w)

    def fingerprint_sums(self, p, inputs: dict, order: str) -> tuple[float, float, float, float]:
        key = (p.name, order)
        if key not in self.sums:
            shape = array_shape(p, inputs)
            ref = np.asarray(self.expected[p.name], dtype=np.float64).reshape(shape).ravel(order=order)
            sc = np.asarray(self.scale[p.name], dtype=np.float64).reshape(shape).ravel(order=order)
            w = weights(ref.size)
            self.sums[key] = (float(np.dot(w, ref)), float(np.dot(w, sc)), float(np.dot(w, np.abs(ref))),
                              float(w.sum()))
        return self.sums[key]


def _set_reference(spec: KernelSpec, lang: Language, plan: TimingPlan, s: int) -> _SetReference:
    """The set's reference (shared by every plan on the same sets: see make_plan)."""
    if s not in plan._refs:
        inputs = plan.sets[s]
        expected, scale = reference_and_scale(spec, inputs)
        plan._refs[s] = _SetReference(expected, scale, float(eval_expr(spec.tolerance.reduction, inputs)), {})
    return plan._refs[s]


def check_calls(workdir: Path, spec: KernelSpec, lang: Language, plan: TimingPlan, record: TimingRecord) -> CallsCheck:
    """Every call of the run: full ones against the reference with the validation tolerance, all by fingerprint."""
    with NUMPY_LOCK:
        return _check_calls(workdir, spec, lang, plan, record)


def _check_calls(workdir: Path, spec: KernelSpec, lang: Language, plan: TimingPlan, record: TimingRecord) -> CallsCheck:
    outputs = [p for p in spec.outputs if p.is_array]
    custom = spec.custom_check is not None
    worst, full_count = 0.0, 0
    anchors: dict[int, list[tuple[float, float, int]]] = {}  # custom kernels: per set, fingerprints of full calls
    order = sorted(range(len(record.times)), key=lambda k: not plan.calls[k].full)  # full calls first
    for k in order:
        call = plan.calls[k]
        factor = 2.0 ** call.exp
        if call.full:
            try:
                got = read_call_outputs(workdir, spec, lang, plan, k)
            except MissingOutput as exc:
                return CallsCheck(False, f"{plan.describe(k)}: {exc}", k, worst, full_count)
            result = _full_check(spec, lang, plan, k, got)
            worst = max(worst, result.max_rel_error if np.isfinite(result.max_rel_error) else worst)
            if not result.ok:
                return CallsCheck(False, f"{plan.describe(k)}: {result.detail}", k, worst, full_count)
            full_count += 1
            if custom:
                anchors.setdefault(call.set, []).append(
                    tuple(x / factor for x in _custom_anchor(got, outputs, lang)) + (k,))
        prints = record.fingerprints[k]
        bad = [p.name for p, f in zip(outputs, prints, strict=True) if not np.isfinite(f)]
        if bad:
            return CallsCheck(False, f"{plan.describe(k)}: {bad[0]} has NaN/Inf elements (unwritten or invalid: "
                                     f"its fingerprint is {prints[outputs.index(spec.param(bad[0]))]})", k, worst,
                              full_count)
        problem = (_custom_fingerprint(plan, k, prints, anchors) if custom
                   else _fingerprint_problem(spec, lang, plan, k, prints))
        if problem:
            return CallsCheck(False, f"{plan.describe(k)}: {problem}", k, worst, full_count)
    return CallsCheck(True, "", None, worst, full_count)


def _full_check(spec: KernelSpec, lang: Language, plan: TimingPlan, k: int, got: dict[str, np.ndarray]) -> CaseCheck:
    if spec.custom_check is not None:
        inputs = plan.inputs(k)
        ok, err, detail = spec.custom_check(inputs, {**inputs, **got}, spec.np_dtype)
        return CaseCheck(bool(ok), float(err), detail)
    ref = _set_reference(spec, lang, plan, plan.calls[k].set)
    # the outputs divided by 2^exp (exact) against the set's reference: the validation sizes' bound
    unscaled = {name: np.ldexp(np.asarray(v, dtype=np.float64), -plan.calls[k].exp) for name, v in got.items()}
    result = within_bound(spec, unscaled, ref.expected, ref.scale, ref.reduction)
    if not result.ok and plan.calls[k].exp:
        result.detail += f" (values of the set before its scaling by 2^{plan.calls[k].exp})"
    return result


def _fingerprint_problem(spec: KernelSpec, lang: Language, plan: TimingPlan, k: int, prints: list[float]) -> str | None:
    ref = _set_reference(spec, lang, plan, plan.calls[k].set)
    factor = 2.0 ** plan.calls[k].exp
    eps = float(np.finfo(spec.np_dtype).eps)
    outputs = [p for p in spec.outputs if p.is_array]
    for p, got in zip(outputs, prints, strict=True):
        if p.name not in ref.expected:
            continue
        wref, wscale, wabs, wsum = ref.fingerprint_sums(p, plan.sets[plan.calls[k].set], lang.array_order)
        size = int(np.prod(array_shape(p, plan.sets[plan.calls[k].set])))
        want = factor * wref
        bound = (spec.tolerance.factor * eps * max(ref.reduction, 1.0) * factor * wscale
                 + spec.tolerance.floor * wsum + 8 * size * np.finfo(np.float64).eps * factor * wabs)
        if not abs(got - want) <= bound:
            return (f"{p.name}: output fingerprint {got:.17g}, expected {want:.17g} +- {bound:.3g} (the outputs of "
                    "this call are wrong; the calls compared in full were right)")
    return None


def _custom_anchor(got: dict[str, np.ndarray], outputs: list, lang: Language) -> tuple[float, ...]:
    """Fingerprints (and weighted absolute sums) of a full call's outputs, per output."""
    out: list[float] = []
    for p in outputs:
        flat = np.asarray(got[p.name], dtype=np.float64).ravel(order=lang.array_order)
        w = weights(flat.size)
        out += [float(np.dot(w, flat)), float(np.dot(w, np.abs(flat)))]
    return tuple(out)


def _custom_fingerprint(plan: TimingPlan, k: int, prints: list[float],
                        anchors: dict[int, list[tuple[float, ...]]]) -> str | None:
    """Kernels graded by their own check (CG): a call not compared in full must agree with a full call on the same
    set, after scaling, to CUSTOM_RTOL of the weighted absolute sum."""
    call = plan.calls[k]
    if call.full or not anchors.get(call.set):
        return None
    factor = 2.0 ** call.exp
    ref = anchors[call.set][0]
    for i, got in enumerate(prints):
        want, size = factor * ref[2 * i], factor * ref[2 * i + 1]
        if not abs(got - want) <= CUSTOM_RTOL * size:
            return (f"output fingerprint {got:.17g} differs from {want:.17g} (call {ref[-1] + 1}, the same inputs "
                    f"scaled, compared in full and right)")
    return None
