"""The timing run's data: fresh inputs for every call, every call's outputs validated, nothing the job can foresee.

Why: a timing run that calls the kernel repeatedly on the same inputs and never looks at the outputs rewards
kernels that shortcut at the timing size, cache results across calls, count calls, skip work when the inputs look
unchanged, or read the inputs the harness wrote (issue 13, kinds a, b, d, e, g, k). So here:

* inputs come from a per-run secret seed (never the default seed a suggestion could regenerate them from), as
  `sets` base sets. Call k gets base set s_k with every element of the arrays that the outputs are linear in
  multiplied by 2^e, e its scale class's exponent for that call (exact in floating point). An element's class is
  a function of popcount(its bit pattern XOR a secret per-set key) (`class_table`: most elements in class 0, a
  few in each other), the same in every driver; the exponents are
  drawn per call and class. So no call's inputs are a uniform rescaling of an earlier call's: a cache that keeps
  a result and multiplies it by the ratio it reads off a few elements returns wrong outputs. With one class
  fewer than the distinct calls a set gets (each class costs a reference per set), at most the last call on a
  set could be solved from the earlier calls' outputs, and only by a kernel that works out the classes from the
  ratios: one fast call of three or more timed ones does not move the median, which is what is reported. The
  expected outputs are the classes' references combined (cases/timing_check.py). Consecutive calls
  differ in set, and no two calls get the same inputs, except one trap call that repeats its predecessor's
  inputs exactly: a kernel that skips work when the inputs look unchanged leaves that call's re-poisoned outputs
  unwritten. Which arrays scale is found, per graded spec, by trying it on a small case (uniform scaling must
  scale the outputs, per-class scaling must add up; a kernel graded by its own check needs neither sum).
* the driver rewrites the scaled arrays (the largest that do: a cache of something derived from them, keyed on
  their pointer, then serves stale values) and restores inout arrays before each call, and hands every other
  input to the call as its set's own array (swapped in, never copied). Rotating two sets doubles what the timed
  calls read: where one set fits the last-level cache and two do not, the calls read memory where the old run,
  which repeated one set, read the cache (the NumPy GEMV on a 300 MB L3: 1.9 ms rotated, 1.1 ms with set 0
  repeated, `bench/timing_ablation.py`); that is the point of rotating.
* the driver poisons pure outputs (NaN) before every call and returns a fingerprint of every call's outputs
  (a weighted sum); the calls the plan marks `full` (all of them when their outputs are small or the kernel is
  graded by its own check, else a few chosen at random) also return their outputs in full, compared with the
  same tolerance as the validation sizes, so precision lost only at scale (float accumulation in a double
  kernel) fails here.
* the warm-up count is random (1-3 of the reps + 1 calls) and written only into the plan, which the driver reads
  into memory and removes, with every input file, before the suggestion's code runs: the job cannot read later
  calls' inputs, the keys and exponents, which calls are compared in full, or how many calls are warm-ups.
* the driver's timing record carries a per-run nonce from the plan, so a record the suggestion forges is refused.

Layout of the timing case c0 (besides cases/io.write_cases' scalars.txt and set 0's arrays):

    c0/plan.txt               "hpceval-plan 2", "<nonce> <calls> <sets> <classes>", one 0/1 per array parameter
                              (scaled), one key per set, then per call "<set> <full> <exponent per class>"
    c0/s<j>/<name>.bin        the input arrays (in and inout) of set j >= 1
    c0[/s<j>]/<name>.class<c> languages with class_indices (Python): per set and scaled array, for each class
                              c >= 1, the flat indices (in the language's order; int32, int64 from 2^31
                              elements) of its elements
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
from pathlib import Path
from typing import Any

import numpy as np

from hpceval.cases.compare import reference_and_scale
from hpceval.cases.generate import make_case, size_label
from hpceval.cases.io import (
    Case,
    MissingOutput,
    array_dtype,
    array_shape,
    laid_out,
    open_output,
    read_optional_text,
    remove_case_dirs,
    write_cases,
)
from hpceval.cases.scale_classes import class_share, element_classes, scaled_by_class
from hpceval.spec import KernelSpec, Language, Param

SETS = 2
EXPONENTS = tuple(range(-8, 9))
MIN_CLASSES = 2  # scale classes per scaled array: at least this, and one fewer than the distinct calls a set gets
FULL_BYTES = 48 * 2**20  # every call's outputs are compared in full when together they fit in this
FULL_SUBSET = 2  # else this many timed calls (chosen at random when the plan is made), at least one per set
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
    exps: tuple[int, ...]  # per scale class, the power of two its elements are multiplied by
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
    keys: list[int]  # per set, the secret its elements' scale classes are drawn with
    classes: int
    # per set: element classes and references (cases/timing_check.py), shared by the plans on the same sets
    _refs: dict[tuple, Any] = field(default_factory=dict, repr=False)

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

    def element_classes(self, s: int, name: str) -> np.ndarray:
        """The scale class of each element of scaled array `name` of set s (as the driver stores the array)."""
        key = ("classes", s, name)
        if key not in self._refs:
            stored = np.asarray(self.sets[s][name], dtype=array_dtype(self.spec.param(name), self.spec))
            self._refs[key] = element_classes(stored, self.keys[s], self.classes)
        return self._refs[key]

    def class_indices(self, s: int, name: str, shape: tuple[int, ...], order: str) -> list[np.ndarray]:
        """Per class c >= 1, the flat indices (the array in `shape`, stored in `order`) of the elements of set s's
        scaled array `name` in class c: the driver's fix-up after scaling the whole array with class 0's factor."""
        key = ("indices", s, name, order)
        if key not in self._refs:
            flat = self.element_classes(s, name).reshape(shape).ravel(order=order)
            kind = np.int32 if flat.size < 2**31 else np.int64
            self._refs[key] = [np.flatnonzero(flat == c).astype(kind) for c in range(1, self.classes)]
        return self._refs[key]

    def laid_out(self, s: int, param: Param, lang: Language) -> np.ndarray:
        """Set s's array `param` as the language's file holds it (io.laid_out), made once per set, order and index
        base, read-only: a Fortran GEMV's 4096 x 4096 sets are transposed once per process, not per suggestion."""
        key = ("layout", s, param.name, lang.array_order, lang.index_base)
        if key not in self._refs:
            flat = laid_out(param, self.sets[s], self.spec, lang)
            flat.flags.writeable = False
            self._refs[key] = flat
        return self._refs[key]

    def arrays_of_set(self, s: int) -> list[Param]:  # the arrays with files: all in set 0, inputs in the others
        return [p for p in self.spec.params if p.is_array and (s == 0 or p.intent != "out")]

    def factors(self, k: int) -> np.ndarray:
        return np.ldexp(1.0, np.asarray(self.calls[k].exps))

    def inputs(self, k: int) -> dict[str, Any]:
        """The inputs of call k: its set with each element of the scaled arrays times 2^(its class's exponent)."""
        call = self.calls[k]
        base = self.sets[call.set]
        exps = np.asarray(call.exps)
        return {name: (scaled_by_class(value, self.element_classes(call.set, name), exps)
                       if name in self.scaled else value) for name, value in base.items()}

    def class_inputs(self, s: int, c: int) -> dict[str, Any]:
        """Set s with the scaled arrays' elements outside class c set to 0 (its reference is class c's share)."""
        if self.classes == 1:
            return self.sets[s]
        return {name: (class_share(value, self.element_classes(s, name), c) if name in self.scaled else value)
                for name, value in self.sets[s].items()}

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
            if _homogeneous(spec, case.inputs, names) and (spec.custom_check is not None
                                                            or _additive(spec, case.inputs, names)):
                found = tuple(p.name for p in spec.params if p.name in names)
                break
    _SCALABLE[key] = found
    return found


def _additive(spec: KernelSpec, inputs: dict[str, Any], names: set[str]) -> bool:
    """Whether the outputs of per-class scaled arrays are the classes' references combined (checked on a small
    case, three classes): what cases/timing_check.py computes the expected outputs of every call with."""
    classes, exps = 3, np.array([-3, 2, 5])
    cls = {name: element_classes(np.asarray(inputs[name], dtype=array_dtype(spec.param(name), spec)), 0x5DEECE66D,
                                 classes) for name in names}
    try:
        whole = spec.reference({k: (scaled_by_class(v, cls[k], exps) if k in names else v)
                                for k, v in inputs.items()})
        parts = [spec.reference({k: (class_share(v, cls[k], c) if k in names else v) for k, v in inputs.items()})
                 for c in range(classes)]
        scale = reference_and_scale(spec, _scaled_inputs(spec, inputs, names, int(exps.max())))[1]
    except Exception:  # noqa: BLE001 - a reference that cannot take it: no scaling
        return False
    for name, value in whole.items():
        got = sum(np.ldexp(np.asarray(part[name], dtype=np.float64), int(e)) for part, e in zip(parts, exps, strict=True))
        want = np.asarray(value, dtype=np.float64)
        bound = 1e-10 * np.abs(np.asarray(scale[name], dtype=np.float64)) + 1e-300
        if got.shape != want.shape or not np.all(np.abs(got - want) <= bound):
            return False
    return True


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
    sets, per-call and per-class scaling.

    Without `rng` (a run, not a test) the input sets, their keys and their references come from a per-process
    secret seed and are shared by every suggestion timed at this size in this process (a suggestion sees only
    its own run, whose plan and files are gone before its code runs); the calls, exponents, trap, warm-ups and
    full calls are drawn for each plan."""
    if rng is None:
        rng = random.SystemRandom()
        plan = shared_plan(spec, size, reps, sets)
    else:
        inputs = _input_sets(spec, size, sets, rng)
        plan = TimingPlan(spec=spec, size=dict(size), sets=inputs, calls=[], warmup=0, nonce="",
                          scaled=scalable(spec), keys=[rng.getrandbits(62) for _ in inputs],
                          classes=scale_classes(spec, reps, sets))
    # as many calls as one warm-up and `reps` timed calls always took, of which 1-3 are warm-ups (at least 3 timed)
    plan.warmup = rng.randint(1, max(1, min(3, reps - 2)))
    calls = _calls(rng, reps + 1, plan.warmup, len(plan.sets), plan.classes if plan.scaled else 0)
    plan.calls = _mark_full(rng, spec, plan.sets[0], calls, plan.warmup, len(plan.sets))
    plan.nonce = secrets.token_hex(12)
    return plan


def scale_classes(spec: KernelSpec, reps: int, sets: int = SETS) -> int:
    """The classes of a plan: reps distinct calls over the sets (the trap repeats one); a class fewer than the
    busiest set gets, at least MIN_CLASSES (1 when nothing scales)."""
    return max(MIN_CLASSES, -(-reps // max(sets, 1)) - 1) if scalable(spec) else 1


def shared_plan(spec: KernelSpec, size: dict[str, int], reps: int, sets: int = SETS) -> TimingPlan:
    """A plan on this process's shared sets for (spec, size), without calls: what their references are computed
    on ahead of the first timing run (cases/timing_check.prepare_references)."""
    inputs, keys, refs = _shared_sets(spec, size, reps, sets)
    return TimingPlan(spec=spec, size=dict(size), sets=inputs, calls=[], warmup=0, nonce="", scaled=scalable(spec),
                      keys=keys, classes=scale_classes(spec, reps, sets), _refs=refs)


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


_SHARED: dict[tuple, tuple[list, list, dict]] = {}  # the last few (spec, size) input sets of this process, newest last
_SHARED_KEEP = 3
_SHARED_LOCK = threading.Lock()
# What checks.timing.prepare has started making ahead for the shared sets now kept: a shared key, and (key, layout)
# per language layout. Forgotten with the sets they were made for: sets made again after an eviction (a run over
# more kernels than are kept, a Dask worker serving several runs) are prepared again, not computed in the first
# timing check's comparison.
PREPARED: set[tuple] = set()
PREPARED_LOCK = threading.Lock()


def _forget_prepared(key: tuple) -> None:
    with PREPARED_LOCK:
        PREPARED.difference_update({e for e in PREPARED if e == key or e[0] == key})


def shared_key(spec: KernelSpec, size: dict[str, int], reps: int, sets: int = SETS) -> tuple:
    """What the shared sets of a (spec, size) are kept under: plans with the same key share sets and references."""
    return (_spec_key(spec), tuple(sorted(size.items())), sets, scale_classes(spec, reps, sets))


def _shared_sets(spec: KernelSpec, size: dict[str, int], reps: int, sets: int) -> tuple[list, list[int], dict]:
    key = shared_key(spec, size, reps, sets)
    with _SHARED_LOCK:
        if key not in _SHARED:
            rng = random.SystemRandom()
            inputs = _input_sets(spec, size, sets, rng)
            _SHARED[key] = (inputs, [rng.getrandbits(62) for _ in inputs], {})
            while len(_SHARED) > _SHARED_KEEP:
                evicted = next(iter(_SHARED))
                _SHARED.pop(evicted)
                _forget_prepared(evicted)
        entry = _SHARED.pop(key)
        _SHARED[key] = entry
        return entry


def _calls(rng: random.Random, n: int, warmup: int, nsets: int, classes: int) -> list[tuple[int, tuple[int, ...]]]:
    """(set, exponent per class) per call (classes 0: nothing scales, every exponent 0). The sets rotate; a set's
    calls get exponent vectors whose powers of two are linearly independent while there are no more of them than
    classes (then no call's outputs are a combination of earlier ones'), and never a uniform rescaling of one
    before."""
    trap = rng.randint(warmup + 1, n - 1) if n - 1 >= warmup + 1 else -1
    out: list[tuple[int, tuple[int, ...]]] = []
    for k in range(n):
        if k == trap:
            out.append(out[-1])
            continue
        s = (out[-1][0] + 1) % nsets if out else rng.randrange(nsets)
        if not classes:
            out.append((s, (0,)))
            continue
        mine = [e for t, e in out if t == s]
        for _ in range(1000):
            exps = tuple(rng.choice(EXPONENTS) for _ in range(classes))
            if any(len({a - b for a, b in zip(exps, e, strict=True)}) == 1 for e in mine):
                continue  # a uniform rescaling of an earlier call on the set
            rows = np.ldexp(1.0, np.array(mine + [exps]))
            if len(rows) > classes or np.linalg.matrix_rank(rows) == len(rows):
                break
        out.append((s, exps))
    return out


def _mark_full(rng: random.Random, spec: KernelSpec, inputs: dict[str, Any], calls: list[tuple[int, tuple]],
               warmup: int, nsets: int) -> list[Call]:
    out_bytes = sum(np.asarray(inputs[p.name]).nbytes for p in spec.outputs if p.is_array)
    if out_bytes * len(calls) <= FULL_BYTES or spec.custom_check is not None:
        return [Call(s, e, True) for s, e in calls]
    timed = list(range(warmup, len(calls)))
    full: set[int] = set()
    for s in range(nsets):  # every set gets a call compared in full
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
    write_cases(workdir, spec, lang, [plan.case], layout=lambda p, values: plan.laid_out(0, p, lang))
    arrays = [p for p in spec.params if p.is_array]
    lines = ["hpceval-plan 2", f"{plan.nonce} {len(plan.calls)} {len(plan.sets)} {plan.classes}",
             " ".join("1" if p.name in plan.scaled else "0" for p in arrays) or "0",
             " ".join(str(key) for key in plan.keys),
             *(f"{c.set} {int(c.full)} " + " ".join(str(e) for e in c.exps) for c in plan.calls)]
    case_fd = os.open(workdir / "c0", _DIR)
    try:
        with _new_file(case_fd, "plan.txt") as f:
            f.write(("\n".join(lines) + "\n").encode())
        for j, inputs in enumerate(plan.sets):
            if j:
                os.mkdir(f"s{j}", 0o755, dir_fd=case_fd)
            set_fd = os.open(f"s{j}" if j else ".", _DIR, dir_fd=case_fd)
            try:
                for p in arrays:
                    if j and p.intent != "out":  # set 0's arrays are the case's own (write_cases)
                        with _new_file(set_fd, f"{p.name}.bin") as f:
                            plan.laid_out(j, p, lang).tofile(f)
                    if lang.class_indices and p.name in plan.scaled:
                        shape = array_shape(p, inputs)
                        for c, where in enumerate(plan.class_indices(j, p.name, shape, lang.array_order), start=1):
                            with _new_file(set_fd, f"{p.name}.class{c}") as f:
                                where.tofile(f)
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
