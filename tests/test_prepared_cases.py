"""Validation cases shared by a kernel's suggestions (cases/prepared.py): byte-equal to fresh ones, never trusted
when the file is damaged or altered, out of a sandboxed job's reach, and the verdicts and evidence unchanged.

Why: the cache exists only to save time; the moment a cached case or reference differed from the one the
harness would draw now, a verdict could change. So every comparison here is of bytes, dtypes and scalar types,
over every kernel of the catalog and graded variants of several kinds.
"""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import numpy as np
import pytest

from hpceval.bind import canonical_binding
from hpceval.bind.graded import PRECISION_KEY, graded_spec
from hpceval.cases import generate, prepared
from hpceval.cases.compare import compare, reference_and_scale
from hpceval.contracts import Binding

SEED = 20230615


@pytest.fixture(autouse=True)
def cache_home(tmp_path, monkeypatch):
    monkeypatch.setenv("HPCEVAL_CACHE", str(tmp_path / "cache"))
    prepared.forget()
    yield tmp_path / "cache"
    prepared.forget()


def same_value(a, b) -> bool:
    """Equal as the harness uses them: type, dtype, shape, memory order and every byte."""
    if type(a) is not type(b):
        return False
    if isinstance(a, np.ndarray):
        return (a.dtype == b.dtype and a.shape == b.shape and a.flags.c_contiguous == b.flags.c_contiguous
                and a.flags.f_contiguous == b.flags.f_contiguous and a.tobytes(order="A") == b.tobytes(order="A"))
    if isinstance(a, np.generic):
        return a.dtype == b.dtype and a.tobytes() == b.tobytes()
    return a == b or (a != a and b != b)


def same_values(a: dict, b: dict) -> bool:
    return list(a) == list(b) and all(same_value(a[k], b[k]) for k in a)


def assert_same_cases(got, want, spec) -> None:
    assert [c.label for c in got] == [c.label for c in want]
    for g, w in zip(got, want, strict=True):
        assert (g.size, g.reps, g.warmup, g.write_outputs, g.structure) == (w.size, w.reps, w.warmup,
                                                                            w.write_outputs, w.structure)
        assert same_values(g.inputs, w.inputs), g.label
        if spec.custom_check is None:
            expected, scale = reference_and_scale(spec, w.inputs)  # what compare() computed for every suggestion
            assert g.reference is not None
            assert same_values(g.reference[0], expected) and same_values(g.reference[1], scale), g.label
        else:
            assert g.reference is None


def graded(catalog, kernel: str, variant: str = "canonical", mapping: dict | None = None, model: str = "cpp-openmp"):
    spec = catalog.kernels[kernel]
    lang = catalog.languages[catalog.models[model].language]
    base = canonical_binding(spec, lang)
    if mapping is None:
        return spec
    names = {p.name: p.name for p in spec.params}  # every canonical parameter bound by its own name
    return graded_spec(spec, base.model_copy(update={"variant": variant, "mapping": {**names, **mapping}}))


def all_kernels(catalog):
    return [catalog.kernels[k] for k in sorted(catalog.kernels)]


def test_cached_cases_are_byte_equal_to_fresh_ones_for_every_kernel(catalog):
    for spec in all_kernels(catalog):
        fresh = generate.validation_cases(spec, SEED)
        first = prepared.validation_cases(spec, SEED)  # made now, written to the cache
        again = prepared.validation_cases(spec, SEED)  # from memory
        prepared.forget()
        disk = prepared.validation_cases(spec, SEED)  # from the file, as a new process reads it
        for got in (first, again, disk):
            assert_same_cases(got, fresh, spec)


def test_graded_variants_and_precisions_are_byte_equal_and_keyed_apart(catalog):
    specs = [graded(catalog, "axpy", mapping={PRECISION_KEY: "float64"}),
             graded(catalog, "axpy", mapping={PRECISION_KEY: "float32"})]
    kr_variants = {"gemv": ["alpha_beta", "accumulate"], "spmv": ["one_based", "accumulate"], "gemm": ["alpha_beta"]}
    from hpceval.bind.roles import kernel_roles

    for kernel, wanted in kr_variants.items():
        kr = kernel_roles(catalog.kernels[kernel])
        for v in wanted:
            if v in kr.variants:
                extras = {r.name: r.name for r in kr.extras if r.graded and r.variant == v}
                specs.append(graded(catalog, kernel, variant=v, mapping=extras))
    keys = set()
    for spec in specs:
        keys.add(prepared.cases_key(spec, SEED))
        fresh = generate.validation_cases(spec, SEED)
        prepared.validation_cases(spec, SEED)
        prepared.forget()
        assert_same_cases(prepared.validation_cases(spec, SEED), fresh, spec)
    assert len(keys) == len(specs)  # no two graded specs share cases
    assert len(specs) == 7 and sum(type(s).__name__ == "GradedSpec" for s in specs) >= 5


def test_key_changes_with_seed_precision_and_the_harness_code(catalog, monkeypatch, tmp_path):
    spec = catalog.kernels["gemv"]
    key = prepared.cases_key(spec, SEED)
    assert prepared.cases_key(spec, SEED + 1) != key
    assert prepared.cases_key(spec.model_copy(update={"dtype": "float32"}), SEED) != key
    assert prepared.cases_key(catalog.kernels["axpy"], SEED) != key
    edited = tmp_path / "pkg"  # the case-drawing code as it would be after an edit
    for rel in prepared.CODE_FILES:
        (edited / rel).parent.mkdir(parents=True, exist_ok=True)
        (edited / rel).write_bytes((prepared.PACKAGE_DIR / rel).read_bytes())
    monkeypatch.setattr(prepared, "PACKAGE_DIR", edited)
    prepared._code_digest.cache_clear()
    try:
        assert prepared.cases_key(spec, SEED) == key  # the same text, the same key
        with (edited / "cases" / "generate.py").open("a") as f:
            f.write("\n# an edit\n")
        prepared._code_digest.cache_clear()
        assert prepared.cases_key(spec, SEED) != key
    finally:
        prepared._code_digest.cache_clear()


def _rewrite(path: Path, change) -> None:
    """Rewrite one member of the .npz (the digest left as it was)."""
    with zipfile.ZipFile(path) as z:
        members = {name: z.read(name) for name in z.namelist()}
    change(members)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        for name, data in members.items():
            z.writestr(name, data)
    path.write_bytes(buffer.getvalue())


def _npy(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    return buffer.getvalue()


def _poisoned_array(members: dict) -> None:
    """Change one element of the first float array (an input or a reference): a wrong reference would pass wrong
    kernels."""
    for name in sorted(n for n in members if n.startswith("a")):
        arr = np.load(io.BytesIO(members[name]))
        if arr.dtype.kind == "f" and arr.size:
            arr = arr.copy()
            arr.flat[0] = arr.flat[0] + 1.0
            members[name] = _npy(arr)
            return
    raise AssertionError("no float array")


def _other_key(members: dict) -> None:
    manifest = json.loads(np.load(io.BytesIO(members["manifest.npy"])).tobytes())
    manifest["key"] = "0" * 32
    members["manifest.npy"] = _npy(np.frombuffer(json.dumps(manifest).encode(), dtype=np.uint8))


def _object_array(members: dict) -> None:
    buffer = io.BytesIO()
    np.save(buffer, np.array([{"x": 1}], dtype=object), allow_pickle=True)
    members["a0.npy"] = buffer.getvalue()


@pytest.mark.parametrize("damage", ["truncated", "garbage", "poisoned array", "other key", "object array",
                                    "digest removed"])
def test_a_damaged_or_altered_cache_file_is_recomputed_never_trusted(catalog, damage):
    spec = catalog.kernels["spmv"]
    fresh = generate.validation_cases(spec, SEED)
    prepared.validation_cases(spec, SEED)
    path = prepared.cache_path(prepared.cases_key(spec, SEED))
    assert path.is_file()
    good = path.read_bytes()
    if damage == "truncated":
        path.write_bytes(good[: len(good) // 2])
    elif damage == "garbage":
        path.write_bytes(b"PK\x03\x04" + b"\x00" * 64)
    elif damage == "poisoned array":
        _rewrite(path, _poisoned_array)
    elif damage == "other key":
        _rewrite(path, _other_key)
    elif damage == "object array":
        _rewrite(path, _object_array)
    else:
        _rewrite(path, lambda m: m.pop("digest.npy"))
    assert prepared.decode(path, prepared.cases_key(spec, SEED)) is None
    prepared.forget()
    got = prepared.validation_cases(spec, SEED)
    assert_same_cases(got, fresh, spec)
    assert prepared.decode(path, prepared.cases_key(spec, SEED)) is not None  # written again, whole


def test_another_kernels_file_under_this_name_is_not_used(catalog):
    axpy, gemv = catalog.kernels["axpy"], catalog.kernels["gemv"]
    prepared.validation_cases(axpy, SEED)
    src = prepared.cache_path(prepared.cases_key(axpy, SEED))
    dst = prepared.cache_path(prepared.cases_key(gemv, SEED))
    dst.write_bytes(src.read_bytes())
    prepared.forget()
    assert_same_cases(prepared.validation_cases(gemv, SEED), generate.validation_cases(gemv, SEED), gemv)


def test_an_unwritable_cache_folder_costs_only_the_recomputation(catalog, cache_home):
    cache_home.parent.mkdir(parents=True, exist_ok=True)
    cache_home.write_text("a file where the folder should be")
    spec = catalog.kernels["axpy"]
    got = prepared.validation_cases(spec, SEED)
    assert_same_cases(got, generate.validation_cases(spec, SEED), spec)


def test_shared_cases_are_read_only_and_each_job_gets_its_own_list(catalog):
    spec = catalog.kernels["gemv"]
    a = prepared.validation_cases(spec, SEED)
    b = prepared.validation_cases(spec, SEED)
    assert a is not b and a == b
    with pytest.raises(ValueError):
        a[0].inputs["A"][0, 0] = 1.0
    with pytest.raises(ValueError):
        next(iter(a[0].reference[0].values()))[...] = 0.0


def test_compare_with_the_prepared_reference_gives_the_same_verdict_and_detail(catalog):
    """Right, subtly wrong (one element, the last ulp at scale), unwritten and clobbered outputs: the same
    CaseCheck with the prepared reference as with the one computed at comparison."""
    for kernel in ("axpy", "gemv", "spmv"):
        spec = catalog.kernels[kernel]
        cases = prepared.validation_cases(spec, SEED)
        for case in cases:
            plain = generate.validation_cases(spec, SEED)[cases.index(case)]
            expected = reference_and_scale(spec, plain.inputs)[0]
            right = {**{k: np.array(v) for k, v in plain.inputs.items() if isinstance(v, np.ndarray)},
                     **{k: np.array(v) for k, v in expected.items()}}
            variants = [right]
            out = next(iter(expected))
            wrong = {**right, out: right[out].copy()}
            wrong[out].flat[-1] += 1e-3 * (1 + abs(wrong[out].flat[-1]))
            variants.append(wrong)
            nan = {**right, out: np.full_like(right[out], np.nan)}
            variants.append(nan)
            clobbered_name = next((p.name for p in spec.params if p.is_array and p.intent == "in"), None)
            if clobbered_name:
                clobbered = {**right, clobbered_name: right[clobbered_name].copy()}
                clobbered[clobbered_name].flat[0] += 1
                variants.append(clobbered)
            for outputs in variants:
                assert compare(spec, case, outputs) == compare(spec, plain, outputs), (kernel, case.label)


def test_a_sandboxed_job_cannot_write_the_cache(catalog, tmp_path):
    """The cache folder (here under /tmp, and the default under the home folder) is out of a job's reach: a job
    that writes there writes into its own private mount or a read-only view (the sandbox binds back, read-only,
    the host paths a command names), and the harness's file stays as it was."""
    from hpceval.executors import Limits
    from hpceval.executors.base import ExecutorUnavailable
    from hpceval.executors.local import LocalExecutor

    try:
        executor = LocalExecutor()
    except ExecutorUnavailable:
        pytest.skip("no nsjail here")
    spec = catalog.kernels["axpy"]
    prepared.validation_cases(spec, SEED)
    path = prepared.cache_path(prepared.cases_key(spec, SEED))
    before = path.read_bytes()
    work = tmp_path / "work"
    work.mkdir()
    home_cache = Path("~/.cache/hpceval/cases").expanduser()
    script = (f"echo poison > {path} 2>/dev/null; echo poison > {path.parent}/new.npz 2>/dev/null; "
              f"mkdir -p {home_cache} 2>/dev/null && echo poison > {home_cache}/x.npz 2>/dev/null; "
              "true")
    existed = (home_cache / "x.npz").exists()
    result = executor.run(["/bin/sh", "-c", script], work, {}, Limits(wall_s=20))
    assert result.returncode == 0, result.stderr
    assert path.read_bytes() == before
    assert not (path.parent / "new.npz").exists()
    assert (home_cache / "x.npz").exists() == existed


def test_custom_checked_kernels_cache_their_cases_only(catalog):
    spec = catalog.kernels["cg"]
    assert spec.custom_check is not None
    cases = prepared.validation_cases(spec, SEED)
    assert all(c.reference is None for c in cases)
    case = cases[0]
    outputs = {k: np.array(v) for k, v in case.inputs.items() if isinstance(v, np.ndarray)}
    plain = generate.validation_cases(spec, SEED)[0]
    assert compare(spec, case, outputs) == compare(spec, plain, outputs)  # read-only inputs are fine for its check


def test_binding_is_not_part_of_the_key_beyond_the_graded_spec(catalog):
    """Two suggestions bound the same way share cases (the point of the cache); a different variant does not."""
    spec = catalog.kernels["axpy"]
    lang = catalog.languages["cpp"]
    b1 = canonical_binding(spec, lang)
    b2 = Binding(**{**b1.model_dump(), "function": "other_name"})
    assert prepared.cases_key(graded_spec(spec, b1), SEED) == prepared.cases_key(graded_spec(spec, b2), SEED)
