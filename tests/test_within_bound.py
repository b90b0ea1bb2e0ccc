"""The output comparison a block at a time (cases/compare.within_bound) against the whole-array rule it replaces.

Outputs of the timing size have 10^7 elements, so the comparison runs over blocks of them; these tests hold it to
the rule on whole arrays: the same verdict, the same worst relative error, and for a failure the same evidence
(how many elements, which one) wherever in the array the bad element lies, including past the first block and in
the last, partial one; and the same for expected outputs given as a weighted combination of per-class references.
"""

from __future__ import annotations

import numpy as np
import pytest

from hpceval.cases import compare
from hpceval.cases.compare import Weighted, within_bound
from hpceval.spec import catalog as load_catalog

N = 3 * compare._BLOCK + 123  # three full blocks and a partial one


@pytest.fixture(scope="module")
def spec():
    return load_catalog().kernels["gemv"]


def _whole_rule(spec, got, ref, sc, reduction):
    """The rule on whole arrays, written out: |got - ref| <= factor * eps * max(K, 1) * scale + floor."""
    eps = float(np.finfo(spec.np_dtype).eps)
    bound = spec.tolerance.factor * eps * max(reduction, 1.0) * sc + spec.tolerance.floor
    err = np.abs(got - ref)
    return bool((err <= bound).all()), float((err / np.maximum(sc, np.finfo(np.float64).tiny)).max()), bound


def _case(seed=1):
    rng = np.random.default_rng(seed)
    ref = rng.standard_normal(N)
    sc = np.abs(ref) + rng.random(N)
    return ref, sc


def test_a_right_output_passes_with_the_whole_arrays_worst_error(spec):
    ref, sc = _case()
    got = ref + 1e-16 * sc * np.random.default_rng(2).standard_normal(N)
    result = within_bound(spec, {"y": got}, {"y": ref}, {"y": sc}, 64.0)
    ok, worst, _ = _whole_rule(spec, got, ref, sc, 64.0)
    assert ok and result.ok
    assert result.max_rel_error == pytest.approx(worst, rel=0, abs=0)


@pytest.mark.parametrize("where", [0, compare._BLOCK - 1, compare._BLOCK, 2 * compare._BLOCK + 7, N - 1])
def test_one_bad_element_anywhere_is_found_and_named(spec, where):
    ref, sc = _case()
    got = ref.copy()
    _, _, bound = _whole_rule(spec, got, ref, sc, 64.0)
    got[where] += 3 * bound[where]
    result = within_bound(spec, {"y": got}, {"y": ref}, {"y": sc}, 64.0)
    assert not result.ok
    assert result.detail.startswith(f"y: 1 of {N} elements wrong; at ({where},)")


def test_an_element_just_inside_the_bound_passes(spec):
    ref, sc = _case()
    got = ref.copy()
    _, _, bound = _whole_rule(spec, got, ref, sc, 64.0)
    got[N - 5] = ref[N - 5] + 0.5 * bound[N - 5]
    assert within_bound(spec, {"y": got}, {"y": ref}, {"y": sc}, 64.0).ok


def test_nan_anywhere_is_reported_as_invalid(spec):
    ref, sc = _case()
    got = ref.copy()
    got[[5, N - 2]] = np.nan
    result = within_bound(spec, {"y": got}, {"y": ref}, {"y": sc}, 64.0)
    assert not result.ok and result.detail == f"y: 2 of {N} elements NaN/Inf (unwritten or invalid)"


def test_a_weighted_combination_is_compared_as_its_sum(spec):
    """The timing run's expected output: sum_c 2^e_c * reference of class c (and the scale likewise)."""
    parts = [_case(seed) for seed in (3, 4)]
    factors = np.array([4.0, 0.125])
    ref = factors[0] * parts[0][0] + factors[1] * parts[1][0]
    sc = factors[0] * parts[0][1] + factors[1] * parts[1][1]
    exp_w, sc_w = Weighted(factors, [p[0] for p in parts]), Weighted(factors, [p[1] for p in parts])
    assert np.array_equal(exp_w.block(0, N), ref) and np.array_equal(sc_w.block(10, 20), sc[10:20])
    got = ref.copy()
    assert within_bound(spec, {"y": got}, {"y": exp_w}, {"y": sc_w}, 64.0).ok
    # an output right for one class's factor only (a cache that rescaled an earlier call) fails
    wrong = factors[0] * (parts[0][0] + parts[1][0])
    result = within_bound(spec, {"y": wrong}, {"y": exp_w}, {"y": sc_w}, 64.0)
    assert not result.ok and "elements wrong" in result.detail


def test_the_reference_is_not_written_to(spec):
    ref, sc = _case()
    kept = ref.copy()
    within_bound(spec, {"y": ref + 1.0}, {"y": ref}, {"y": sc}, 64.0)
    within_bound(spec, {"y": ref.copy()}, {"y": ref}, {"y": sc}, 64.0)
    assert np.array_equal(ref, kept)


def test_outputs_of_another_size_than_the_reference_are_an_error(spec):
    ref, sc = _case()
    with pytest.raises(ValueError):
        within_bound(spec, {"y": ref[:-1]}, {"y": ref}, {"y": sc}, 64.0)
