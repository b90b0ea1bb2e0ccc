"""The timing run's input files, laid out once per shared set and language (TimingPlan.laid_out): every file
byte-equal to the one laid out for each suggestion before, a job's copy its own, the shared contents read-only.

Why: the sets are the same for every suggestion timed at a size in a process, but their files were laid out
(a 4096 x 4096 matrix transposed for Fortran, index arrays shifted to base 1) again for every suggestion; what a
driver reads must not change by a byte, and nothing one job does to its files may reach the next job's.
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from hpceval.cases import io as case_io
from hpceval.cases import timing
from hpceval.cases.io import array_dtype, array_shape

# (kernel, model): row-major C++, column-major Fortran (1-based indices), Python (class index files)
PAIRS = [("axpy", "cpp-openmp"), ("gemv", "fortran-openmp"), ("gemv", "cpp-openmp"), ("spmv", "fortran-openmp"),
         ("spmv", "cpp-openmp"), ("spmv", "python-numpy"), ("gemv", "python-numpy"), ("gemm", "fortran-openmp")]


def small_size(spec) -> dict[str, int]:
    return dict(spec.sizes.validation[-1])


def old_bytes(spec, lang, values, p) -> bytes:
    """What write_cases/write_plan wrote before the layouts were shared (the code as it was)."""
    arr = np.asarray(values[p.name], dtype=array_dtype(p, spec)).reshape(array_shape(p, values))
    if p.kind == "index":
        arr = arr + np.int32(lang.index_base)
    return arr.ravel(order=lang.array_order).tobytes()


def files(root: Path) -> dict[str, bytes]:
    return {str(f.relative_to(root)): f.read_bytes() for f in sorted(root.rglob("*")) if f.is_file()}


@pytest.mark.parametrize("kernel,model", PAIRS)
def test_plan_files_are_the_ones_laid_out_per_suggestion_before(catalog, kernel, model, tmp_path):
    spec = catalog.kernels[kernel]
    lang = catalog.languages[catalog.models[model].language]
    plan = timing.make_plan(spec, small_size(spec), 6, rng=random.Random(7))
    timing.write_plan(tmp_path, spec, lang, plan)
    for j, values in enumerate(plan.sets):
        folder = tmp_path / "c0" / (f"s{j}" if j else "")
        for p in spec.params:
            if not p.is_array or (j and p.intent == "out"):
                assert not (folder / f"{p.name}.bin").exists() or j == 0
                continue
            assert (folder / f"{p.name}.bin").read_bytes() == old_bytes(spec, lang, values, p), (j, p.name)


@pytest.mark.parametrize("kernel,model", PAIRS[:4])
def test_a_second_suggestion_gets_the_same_files_without_laying_them_out_again(catalog, kernel, model, tmp_path,
                                                                                monkeypatch):
    spec = catalog.kernels[kernel]
    lang = catalog.languages[catalog.models[model].language]
    plan = timing.make_plan(spec, small_size(spec), 6, rng=random.Random(3))
    first, second = tmp_path / "one", tmp_path / "two"
    first.mkdir()
    second.mkdir()
    timing.write_plan(first, spec, lang, plan)
    made = []
    real = timing.laid_out
    monkeypatch.setattr(timing, "laid_out", lambda *a: made.append(a[0].name) or real(*a))
    timing.write_plan(second, spec, lang, plan)
    assert made == []
    one, two = files(first), files(second)
    assert one.keys() == two.keys()
    for name in one:
        if not name.endswith("plan.txt"):
            assert one[name] == two[name], name


def test_a_job_that_rewrites_its_input_files_changes_no_other_jobs_files(catalog, tmp_path):
    spec = catalog.kernels["gemv"]
    lang = catalog.languages["fortran"]
    plan = timing.make_plan(spec, small_size(spec), 6, rng=random.Random(5))
    first, second = tmp_path / "one", tmp_path / "two"
    first.mkdir()
    second.mkdir()
    timing.write_plan(first, spec, lang, plan)
    for f in (first / "c0").rglob("*.bin"):
        f.write_bytes(b"\0" * f.stat().st_size)  # a hostile job, or its driver, overwrites its inputs
    timing.write_plan(second, spec, lang, plan)
    for j, values in enumerate(plan.sets):
        for p in plan.arrays_of_set(j):
            got = (second / "c0" / (f"s{j}" if j else "") / f"{p.name}.bin").read_bytes()
            assert got == old_bytes(spec, lang, values, p)


def test_shared_layouts_are_read_only_and_keyed_by_order_and_index_base(catalog):
    spec = catalog.kernels["spmv"]
    plan = timing.make_plan(spec, small_size(spec), 6, rng=random.Random(1))
    index = next(p for p in spec.params if p.kind == "index" and p.is_array)
    c, f = plan.laid_out(0, index, catalog.languages["cpp"]), plan.laid_out(0, index, catalog.languages["fortran"])
    assert not c.flags.writeable and not f.flags.writeable
    assert np.array_equal(f, c + 1)
    with pytest.raises(ValueError):
        c[0] = 99


def test_write_cases_default_layout_is_unchanged(catalog, tmp_path):
    """Validation cases (no shared layout) still write the same bytes, for every language order and base."""
    from hpceval.cases.generate import validation_cases

    for kernel, lang_id in (("spmv", "fortran"), ("gemv", "fortran"), ("gemv", "cpp"), ("spmv", "python")):
        spec = catalog.kernels[kernel]
        lang = catalog.languages[lang_id]
        cases = validation_cases(spec, 11)[:4]
        out = tmp_path / f"{kernel}-{lang_id}"
        out.mkdir()
        case_io.write_cases(out, spec, lang, cases)
        for i, case in enumerate(cases):
            for p in spec.params:
                if p.is_array:
                    assert (out / f"c{i}" / f"{p.name}.bin").read_bytes() == old_bytes(spec, lang, case.inputs, p)
