"""Metrics against brute force: pass@k and speedup@k over all k-subsets, the rubric on hand-written verdicts."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import numpy as np
import pytest

from hpceval.metrics import (
    Rubric,
    RubricError,
    bootstrap_ci,
    expected_max_of_k,
    paired_comparison,
    pass_at_k,
    roofline_efficiency,
    speedup_at_k,
)


def brute_pass_at_k(correct: list[bool], k: int) -> float:
    subsets = list(itertools.combinations(range(len(correct)), k))
    return sum(any(correct[i] for i in s) for s in subsets) / len(subsets)


def brute_speedup_at_k(speedups: list[float], correct: list[bool], k: int) -> float:
    subsets = list(itertools.combinations(range(len(correct)), k))
    return sum(max(speedups[i] if correct[i] else 0.0 for i in s) for s in subsets) / len(subsets)


def test_pass_at_k_matches_enumeration_on_random_cases():
    rng = np.random.default_rng(7)
    for _ in range(300):
        n = int(rng.integers(1, 13))
        k = int(rng.integers(1, n + 1))
        correct = list(rng.random(n) < rng.random())
        assert pass_at_k(n, sum(correct), k) == pytest.approx(brute_pass_at_k(correct, k), abs=1e-12)


def test_pass_at_k_edges():
    assert pass_at_k(10, 0, 1) == 0.0
    assert pass_at_k(10, 10, 10) == 1.0
    assert pass_at_k(10, 1, 10) == 1.0
    assert pass_at_k(5, 2, 1) == pytest.approx(0.4)
    assert math.isnan(pass_at_k(3, 3, 5))          # undefined with fewer samples than k
    with pytest.raises(ValueError):
        pass_at_k(3, 4, 1)
    with pytest.raises(ValueError):
        pass_at_k(3, 1, 0)


def test_speedup_at_k_matches_enumeration_on_random_cases():
    rng = np.random.default_rng(11)
    for _ in range(300):
        n = int(rng.integers(1, 11))
        k = int(rng.integers(1, n + 1))
        correct = list(rng.random(n) < 0.6)
        # ties on purpose: repeated speedups must not change the expectation
        speedups = list(np.round(rng.lognormal(0.0, 1.0, n), 1))
        got = speedup_at_k(speedups, correct, k)
        assert got == pytest.approx(brute_speedup_at_k(speedups, correct, k), rel=1e-12, abs=1e-12)


def test_speedup_at_k_sorts_speedups_not_run_times():
    # an incorrect sample that ran fastest must not count: its speedup is 0 by convention
    speedups = [10.0, 2.0, 1.0]
    correct = [False, True, True]
    assert speedup_at_k(speedups, correct, 1) == pytest.approx(1.0)          # (0 + 2 + 1) / 3
    assert speedup_at_k(speedups, correct, 2) == pytest.approx((2 + 1 + 2) / 3)
    assert speedup_at_k(speedups, correct, 3) == pytest.approx(2.0)


def test_speedup_nan_rules():
    assert math.isnan(speedup_at_k([float("nan"), 1.0], [True, True], 1))    # correct but not timed
    assert speedup_at_k([float("nan"), 1.0], [False, True], 1) == pytest.approx(0.5)  # incorrect: 0
    assert math.isnan(speedup_at_k([1.0], [True], 2))
    assert expected_max_of_k([3.0, 1.0, 2.0], 3) == 3.0


def test_pass_at_k_is_expected_max_of_indicators():
    rng = np.random.default_rng(3)
    for _ in range(50):
        n = int(rng.integers(1, 15))
        k = int(rng.integers(1, n + 1))
        correct = rng.random(n) < 0.4
        assert expected_max_of_k(correct.astype(float), k) == pytest.approx(pass_at_k(n, int(correct.sum()), k))


# ---------------------------------------------------------------------------------------------- rubric
C, W, B, X, M = "correct", "wrong_result", "build_error", "infra_error", "wrong_model"

HAND_GRADED = [
    # verdicts in rank order (s1 first)         score  level
    ([B, W, "no_code", "timeout"],               0.0,  "non-knowledge"),
    ([M],                                        0.0,  "non-knowledge"),
    ([W, W, W, C],                               0.25, "novice"),        # c=1 < N/2
    ([C, W, W, W, W],                            0.25, "novice"),        # s1 correct, but c < N/2
    ([W, C, W, C],                               0.5,  "learner"),       # c = N/2, s1 wrong
    ([W, C, C],                                  0.5,  "learner"),       # c >= N/2, s1 wrong
    ([C, W, C, W],                               0.75, "proficient"),    # c = N/2 and s1 correct
    ([C, C, C, "runtime_error"],                 0.75, "proficient"),
    ([C],                                        1.0,  "expert"),
    ([C, C, C, C, C, C, C, C, C, C],             1.0,  "expert"),
    # infra_error is left out before grading: N counts only scored suggestions, s1 is the first scored one
    ([X, C, C],                                  1.0,  "expert"),
    ([X, W, C],                                  0.5,  "learner"),
    ([C, X, X, W, W],                            0.25, "novice"),
]


@pytest.mark.parametrize(("verdicts", "score", "level"), HAND_GRADED)
def test_default_rubric_on_hand_written_verdicts(verdicts, score, level):
    grade = Rubric.load().grade(verdicts)
    assert (grade.score, grade.level) == (score, level)
    assert grade.infra == verdicts.count(X)


def test_rubric_every_level_reached_and_all_infra_is_ungraded():
    rubric = Rubric.load()
    assert {g for _, _, g in HAND_GRADED} == {lv.name for lv in rubric.levels}
    grade = rubric.grade([X, X])
    assert math.isnan(grade.score) and grade.n == 0 and grade.infra == 2


def test_rubric_is_swappable(tmp_path: Path):
    path = tmp_path / "lenient.toml"
    path.write_text('name = "lenient"\nk = 2\n'
                    '[[levels]]\nscore = 1\nname = "works"\nwhen = "c >= 1"\n'
                    '[[levels]]\nscore = 0.5\nname = "almost"\nwhen = "wrong_model >= 1"\n'
                    '[[levels]]\nscore = 0\nname = "no"\nwhen = "c == 0"\n')
    rubric = Rubric.load(path)
    assert rubric.grade([W, C]).score == 1.0
    assert rubric.grade([W, M]).score == 0.5
    assert rubric.grade([W, W, C]).score == 0.0        # k = 2: only the two top-ranked are graded


@pytest.mark.parametrize("body", [
    '[[levels]]\nscore = 1\nname = "x"\nwhen = "c > 0"\n',                            # c == 0 not covered
    '[[levels]]\nscore = 1\nname = "x"\nwhen = "__import__(\'os\')"\n',              # calls are refused
    '[[levels]]\nscore = 1\nname = "x"\nwhen = "bogus == 1"\n',                       # unknown name
    '[[levels]]\nscore = 1\nname = "x"\n',                                            # no condition
    'name = "empty"\n',
])
def test_rubric_rejects_bad_files(tmp_path: Path, body: str):
    path = tmp_path / "bad.toml"
    path.write_text(body)
    with pytest.raises(RubricError):
        Rubric.load(path)


# ---------------------------------------------------------------------------------------------- the rest
def test_bootstrap_ci_brackets_the_mean_and_is_reproducible():
    rng = np.random.default_rng(0)
    values = rng.random(40)
    est = bootstrap_ci(values, seed=1)
    assert est.lo <= est.value <= est.hi and est.n == 40
    assert est == bootstrap_ci(values, seed=1)
    # the percentile interval of the mean is about mean +- 1.96 * sd / sqrt(n)
    half = 1.96 * values.std(ddof=1) / math.sqrt(values.size)
    assert (est.hi - est.lo) / 2 == pytest.approx(half, rel=0.2)
    assert bootstrap_ci([float("nan"), 0.5]).value == 0.5
    assert math.isnan(bootstrap_ci([]).value)


def test_paired_comparison_exact_sign_flip():
    a = [1.0, 1.0, 1.0, 1.0, 0.5]
    b = [0.0, 0.0, 0.0, 0.0, 0.5]
    cmp = paired_comparison(a, b)
    assert (cmp.prompts, cmp.wins_a, cmp.ties, cmp.wins_b) == (5, 4, 1, 0)
    assert cmp.diff == pytest.approx(0.8)
    assert cmp.p_value == pytest.approx(2 / 16)    # all four signs positive or all negative
    same = paired_comparison(a, a)
    assert same.diff == 0 and same.p_value == 1.0
    assert paired_comparison([1.0, float("nan")], [0.0, 1.0]).prompts == 1


def test_roofline_efficiency():
    eff = roofline_efficiency(gflops=2.0, gbytes_per_s=12.0, peak_gflops=100.0, peak_gbytes_per_s=20.0)
    assert eff["bandwidth_efficiency"] == pytest.approx(0.6)
    assert eff["compute_efficiency"] == pytest.approx(0.02)
    # attainable at AI = 2/12 flop/byte is min(100, AI * 20) = 3.33 GFLOP/s -> 2 / 3.33 = 0.6
    assert eff["roofline_efficiency"] == pytest.approx(0.6)
    missing = roofline_efficiency(2.0, 12.0, None, 20.0)
    assert math.isnan(missing["compute_efficiency"]) and math.isnan(missing["roofline_efficiency"])


def test_a_prompt_whose_code_was_never_executed_is_not_scored_by_its_empty_suggestions():
    """A GPU prompt on a machine without a GPU: every suggestion with code is infra_error; the comment-only ones
    (no_code) need no toolchain. Graded on those alone the prompt would be 0 for a reason that has nothing to do
    with the code: it is not executed (NaN), and its no_code rows are not counted as scored."""
    rubric = Rubric.load(None)
    grade = rubric.grade(["infra_error", "no_code", "infra_error", "no_code"])
    assert grade.n == 0 and math.isnan(grade.score) and grade.infra == 2
    # one executed suggestion is enough for the prompt to be scored, its empty suggestions with it
    grade = rubric.grade(["infra_error", "no_code", "wrong_result"])
    assert grade.n == 2 and grade.score == 0.0
    # without any infra_error a prompt of empty suggestions is the LLM's failure
    assert rubric.grade(["no_code", "no_code"]).n == 2
