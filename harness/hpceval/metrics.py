"""Scores: pass@k, speedup@k, the proficiency rubric, roofline efficiency, bootstrap CIs, paired comparisons.

Conventions (docs/leaderboard-schema.md repeats them for readers of the CSVs):

* The unit of a score is the *prompt* (one kernel x programming model x style x hint); its samples are the
  suggestions returned for it, ranked s1..sN. ``infra_error`` and ``unbindable`` suggestions are never the LLM's
  fault (a missing toolchain or harness fault; a complete function the harness could not map): they are removed
  before scoring (N counts only the scored ones) and counted separately. ``incomplete`` (no complete kernel) is
  the LLM's: it counts like any other failure.
* pass@k is the unbiased estimator of Chen et al. (2021): 1 - C(N-c, k) / C(N, k). It is undefined (NaN) when
  N < k; such prompts do not enter the mean at that k.
* speedup@k is the expected best speedup among k samples drawn without replacement from the N samples:
  the samples' *speedups* are sorted (never their run times: an incorrect sample's speedup is 0 by convention,
  whatever it took to run) and sum_{i>=k} C(i-1, k-1) / C(N, k) * s_(i) over the ascending order.
  A correct sample without a timing, or a prompt without a baseline, has no speedup: NaN, never 0.
* Efficiency against the roofline: achieved GFLOP/s and GB/s against measured ceilings; NaN without ceilings.
* Confidence intervals: percentile bootstrap over prompts (resampled with replacement), 95 % by default.
"""

from __future__ import annotations

import ast
import itertools
import math
import tomllib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from hpceval.analysis.pyparse import parse_python
from hpceval.contracts import UNSCORED, Verdict

NAN = float("nan")
VERDICTS = [v.value for v in Verdict]
SCORED_VERDICTS = [v for v in VERDICTS if v not in UNSCORED]
DEFAULT_RUBRIC = Path(__file__).resolve().parent / "rubric.toml"


# ---------------------------------------------------------------------------------------------- pass@k / speedup@k
def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k for one prompt with n samples of which c are correct (NaN when n < k)."""
    if k < 1 or n < 0 or not 0 <= c <= n:
        raise ValueError(f"pass@k needs k >= 1 and 0 <= c <= n (got n={n}, c={c}, k={k})")
    if n < k:
        return NAN
    if n - c < k:
        return 1.0
    # 1 - prod_{i=n-c+1}^{n} (1 - k/i): the numerically stable form of 1 - C(n-c,k)/C(n,k)
    return float(1.0 - np.prod(1.0 - k / np.arange(n - c + 1, n + 1)))


def expected_max_of_k(values: Sequence[float], k: int) -> float:
    """E[max of k values drawn without replacement from `values`] (NaN when len < k or any value is NaN)."""
    if k < 1:
        raise ValueError(f"k must be >= 1 (got {k})")
    v = np.asarray(values, dtype=float)
    n = v.size
    if n < k or np.isnan(v).any():
        return NAN
    v = np.sort(v)
    total = math.comb(n, k)
    # the i-th smallest (1-based) is the maximum of exactly C(i-1, k-1) of the C(n, k) subsets
    weights = np.array([math.comb(i - 1, k - 1) / total for i in range(k, n + 1)])
    return float(np.dot(weights, v[k - 1:]))


def speedup_at_k(speedups: Sequence[float], correct: Sequence[bool], k: int) -> float:
    """speedup@k of one prompt: incorrect samples count as speedup 0; a correct one without a speedup -> NaN."""
    s = np.asarray(speedups, dtype=float)
    ok = np.asarray(correct, dtype=bool)
    if s.shape != ok.shape:
        raise ValueError("speedups and correct must have the same length")
    return expected_max_of_k(np.where(ok, s, 0.0), k)


# ---------------------------------------------------------------------------------------------- proficiency rubric
class RubricError(ValueError):
    """The rubric file is malformed or does not grade every possible prompt."""


_ALLOWED_NODES = (ast.Expression, ast.BoolOp, ast.And, ast.Or, ast.UnaryOp, ast.Not, ast.USub, ast.UAdd,
                  ast.Compare, ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.BinOp, ast.Add, ast.Sub,
                  ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Name, ast.Load, ast.Constant)


def _compile_condition(text: str, names: set[str]):
    try:
        tree = parse_python(text, mode="eval")
    except SyntaxError as exc:
        raise RubricError(f"rubric condition {text!r} is not an expression: {exc.msg}") from None
    for node in ast.walk(tree):
        if not isinstance(node, _ALLOWED_NODES):
            raise RubricError(f"rubric condition {text!r}: {type(node).__name__} is not allowed "
                              "(use numbers, c, N, s1, verdict counts, comparisons, and/or/not, + - * /)")
        if isinstance(node, ast.Name) and node.id not in names:
            raise RubricError(f"rubric condition {text!r}: unknown name {node.id!r}; known: {', '.join(sorted(names))}")
        if isinstance(node, ast.Constant) and not isinstance(node.value, (int, float, bool)):
            raise RubricError(f"rubric condition {text!r}: only numbers and true/false constants are allowed")
    return compile(tree, "<rubric>", "eval")


@dataclass(frozen=True)
class Level:
    score: float
    name: str
    when: str
    code: Any = field(repr=False, compare=False, default=None)


@dataclass(frozen=True)
class Grade:
    """The proficiency of one prompt and the counts it was computed from."""

    score: float
    level: str
    n: int          # scored suggestions (N)
    c: int          # correct among them
    s1: bool        # top-ranked scored suggestion correct
    infra: int      # infra_error suggestions left out
    unbindable: int = 0  # unbindable suggestions left out (the harness's shortfall)


class Rubric:
    """A proficiency rubric: levels tried top to bottom, the first whose condition holds grades the prompt.

    Conditions are small expressions over N (scored suggestions), c (correct ones), s1 (top-ranked one
    correct), and one count per verdict name (``wrong_model``, ``build_error``, ...).
    """

    VARIABLES = {"c", "N", "s1", *SCORED_VERDICTS}

    def __init__(self, levels: list[Level], name: str = "custom", version: int | str = 1, description: str = "",
                 k: int | None = None, source: str = "", vendor_library_counts: bool = True):
        if not levels:
            raise RubricError("a rubric needs at least one level")
        self.levels = levels
        self.name, self.version, self.description, self.k, self.source = name, version, description, k, source
        # a CUDA suggestion that calls cuBLAS/cuSPARSE instead of writing a kernel: correct ("vendor library"), or
        # wrong_model when false (read by the Evaluator: hpceval.evaluate)
        self.vendor_library_counts = vendor_library_counts
        self.numba_requires_parallel = False  # set by from_dict; see apply_policies
        self._check_coverage()

    @classmethod
    def load(cls, path: str | Path | None = None) -> Rubric:
        """Read a rubric TOML file (default: the packaged rubric.toml, the DESIGN.md rubric)."""
        path = Path(path) if path else DEFAULT_RUBRIC
        try:
            data = tomllib.loads(path.read_text())
        except FileNotFoundError:
            raise FileNotFoundError(f"rubric file {path} not found") from None
        except tomllib.TOMLDecodeError as exc:
            raise RubricError(f"rubric {path}: {exc}") from None
        return cls.from_dict(data, source=str(path))

    @classmethod
    def from_dict(cls, data: dict[str, Any], source: str = "") -> Rubric:
        raw = data.get("levels")
        if not isinstance(raw, list) or not raw:
            raise RubricError(f"rubric {source or ''}: needs a [[levels]] array with score, name, when")
        levels = []
        for i, item in enumerate(raw):
            try:
                score, name, when = float(item["score"]), str(item["name"]), str(item["when"])
            except (KeyError, TypeError, ValueError):
                raise RubricError(f"rubric {source}: level {i + 1} needs score (number), name and when") from None
            levels.append(Level(score, name, when, _compile_condition(when, cls.VARIABLES)))
        k = data.get("k")
        if k is not None and (not isinstance(k, int) or k < 1):
            raise RubricError(f"rubric {source}: k must be a positive integer")
        vendor = data.get("vendor_library_counts", True)
        if not isinstance(vendor, bool):
            raise RubricError(f"rubric {source}: vendor_library_counts must be true or false")
        rubric = cls(levels, name=str(data.get("name", "custom")), version=data.get("version", 1),
                     description=str(data.get("description", "")), k=k, source=source, vendor_library_counts=vendor)
        strict = data.get("numba_requires_parallel", False)
        if not isinstance(strict, bool):
            raise RubricError(f"rubric {source}: numba_requires_parallel must be true or false")
        rubric.numba_requires_parallel = strict
        return rubric

    def _match(self, env: dict[str, Any]) -> Level | None:
        for level in self.levels:
            if eval(level.code, {"__builtins__": {}}, env):  # noqa: S307 - AST checked in _compile_condition
                return level
        return None

    def _check_coverage(self, max_n: int = 12) -> None:
        """Every possible (N, c, s1) up to max_n must get a level, else the rubric is rejected."""
        for n in range(1, max_n + 1):
            for c in range(n + 1):
                for s1 in _s1_values(n, c):
                    env = {v: 0 for v in SCORED_VERDICTS} | {"c": c, "N": n, "s1": s1, "correct": c}
                    env["wrong_result"] = n - c
                    if self._match(env) is None:
                        raise RubricError(f"rubric {self.name}: no level for N={n}, c={c}, s1={s1}")

    def grade(self, verdicts: Iterable[str | Verdict]) -> Grade:
        """Grade one prompt from its suggestions' verdicts in rank order (s1 first); NaN when none is scored."""
        all_v = [str(v) for v in verdicts]
        unknown = set(all_v) - set(VERDICTS)
        if unknown:
            raise ValueError(f"unknown verdicts {sorted(unknown)}")
        scored = [v for v in all_v if v not in UNSCORED]
        infra = sum(v == Verdict.infra_error.value for v in all_v)
        unbindable = sum(v == Verdict.unbindable.value for v in all_v)
        if infra and all(v == Verdict.no_code.value for v in scored):
            # nothing with code was executed (a toolchain or GPU missing): the empty suggestions alone would
            # grade the prompt 0, only because they are the ones that need no toolchain; not executed instead
            scored = []
        if self.k is not None:
            scored = scored[: self.k]
        n = len(scored)
        c = sum(v == Verdict.correct.value for v in scored)
        s1 = bool(scored) and scored[0] == Verdict.correct.value
        if n == 0:
            return Grade(NAN, "", 0, 0, False, infra, unbindable)
        env: dict[str, Any] = {v: 0 for v in SCORED_VERDICTS}
        for v in scored:
            env[v] += 1
        env.update(c=c, N=n, s1=s1)
        level = self._match(env)
        if level is None:  # only reachable for N beyond the coverage check with an odd rubric
            raise RubricError(f"rubric {self.name}: no level for N={n}, c={c}, s1={s1}")
        return Grade(level.score, level.name, n, c, s1, infra, unbindable)

    def apply_policies(self, frame):
        """The evaluations as this rubric counts them (a copy): with `numba_requires_parallel`, a `correct` Numba
        row whose evidence says "parallel: no" (the thread check saw one thread) becomes `wrong_model`. The verdict
        stored at evaluation time is the study's reading (any Numba JIT is Numba); this is the stricter one."""
        frame = frame.copy()
        if self.numba_requires_parallel and not frame.empty and {"model", "verdict", "evidence"} <= set(frame.columns):
            serial = ((frame["model"] == "python-numba") & (frame["verdict"] == Verdict.correct.value)
                      & frame["evidence"].fillna("").str.contains("parallel: no", regex=False))
            frame.loc[serial, "verdict"] = Verdict.wrong_model.value
        return frame

    def score(self, verdicts: Iterable[str | Verdict]) -> float:
        return self.grade(verdicts).score

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "version": self.version, "source": _portable(self.source), "k": self.k,
                "vendor_library_counts": self.vendor_library_counts,
                "numba_requires_parallel": self.numba_requires_parallel,
                "levels": [{"score": lv.score, "name": lv.name, "when": lv.when} for lv in self.levels]}


def _s1_values(n: int, c: int) -> list[bool]:
    """The possible values of s1 for N=n, c correct: True needs c >= 1, False needs c < n."""
    return [s for s in (True, False) if (c >= 1 if s else c < n)]


# ---------------------------------------------------------------------------------------------- roofline
def roofline_efficiency(gflops: float | None, gbytes_per_s: float | None, peak_gflops: float | None,
                        peak_gbytes_per_s: float | None) -> dict[str, float]:
    """Achieved performance against the ceilings.

    compute = GFLOP/s / peak GFLOP/s; bandwidth = GB/s / peak GB/s; roofline = achieved GFLOP/s over the
    attainable min(peak GFLOP/s, AI * peak GB/s) at the kernel's arithmetic intensity AI = GFLOP/s / GB/s,
    which equals max(compute, bandwidth). Any missing input makes the dependent value NaN.
    """
    def ratio(a, b):
        a, b = _f(a), _f(b)
        return a / b if (math.isfinite(a) and math.isfinite(b) and b > 0) else NAN

    compute = ratio(gflops, peak_gflops)
    bandwidth = ratio(gbytes_per_s, peak_gbytes_per_s)
    roofline = max(compute, bandwidth) if math.isfinite(compute) and math.isfinite(bandwidth) else NAN
    return {"compute_efficiency": compute, "bandwidth_efficiency": bandwidth, "roofline_efficiency": roofline}


def _f(x: Any) -> float:
    try:
        return NAN if x is None else float(x)
    except (TypeError, ValueError):
        return NAN


# ---------------------------------------------------------------------------------------------- bootstrap
@dataclass(frozen=True)
class Estimate:
    value: float
    lo: float
    hi: float
    n: int          # values (prompts) the estimate rests on


def bootstrap_ci(values: Iterable[float], n_boot: int = 2000, level: float = 0.95, seed: int = 0) -> Estimate:
    """Mean of `values` (NaN dropped) with a percentile-bootstrap confidence interval over them."""
    v = np.asarray([x for x in values if x is not None], dtype=float)
    v = v[~np.isnan(v)]
    if v.size == 0:
        return Estimate(NAN, NAN, NAN, 0)
    mean = float(v.mean())
    if v.size == 1 or np.all(v == v[0]):
        return Estimate(mean, mean, mean, int(v.size))
    rng = np.random.default_rng(seed)
    means = v[rng.integers(0, v.size, size=(n_boot, v.size))].mean(axis=1)
    alpha = (1.0 - level) / 2
    lo, hi = np.quantile(means, [alpha, 1 - alpha])
    return Estimate(mean, float(lo), float(hi), int(v.size))


# ---------------------------------------------------------------------------------------------- paired comparison
@dataclass(frozen=True)
class PairedComparison:
    """Two LLMs on the same prompts: mean difference (a - b) with a paired bootstrap CI and a sign-flip test."""

    prompts: int
    mean_a: float
    mean_b: float
    diff: float
    lo: float
    hi: float
    p_value: float
    wins_a: int
    ties: int
    wins_b: int


def paired_comparison(a: Sequence[float], b: Sequence[float], n_boot: int = 2000, level: float = 0.95,
                      seed: int = 0, n_perm: int = 20000) -> PairedComparison:
    """Compare per-prompt scores a[i], b[i] of the same prompts (pairs with a NaN are dropped).

    The CI resamples prompts (pairs) with replacement; the two-sided p-value is the sign-flip permutation
    test of the mean difference (exact up to 16 non-zero differences, Monte Carlo beyond).
    """
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if x.shape != y.shape:
        raise ValueError("paired comparison needs two sequences over the same prompts")
    keep = ~(np.isnan(x) | np.isnan(y))
    x, y = x[keep], y[keep]
    if x.size == 0:
        return PairedComparison(0, NAN, NAN, NAN, NAN, NAN, NAN, 0, 0, 0)
    d = x - y
    est = bootstrap_ci(d, n_boot=n_boot, level=level, seed=seed)
    nz = d[d != 0]
    obs = abs(d.mean())
    if nz.size == 0:
        p = 1.0
    elif nz.size <= 16:
        signs = np.array(list(itertools.product((1.0, -1.0), repeat=nz.size)))
        stats = np.abs((signs * nz).sum(axis=1) / d.size)
        p = float(np.mean(stats >= obs - 1e-12))
    else:
        rng = np.random.default_rng(seed)
        signs = rng.choice((1.0, -1.0), size=(n_perm, nz.size))
        stats = np.abs((signs * nz).sum(axis=1) / d.size)
        p = float((np.sum(stats >= obs - 1e-12) + 1) / (n_perm + 1))
    return PairedComparison(int(d.size), float(x.mean()), float(y.mean()), est.value, est.lo, est.hi, p,
                            int((d > 0).sum()), int((d == 0).sum()), int((d < 0).sum()))


def _portable(source: str) -> str:
    """A rubric's path as published in manifests: relative to the package for the built-in rubric, else relative
    to the working directory where it lies below it, so no path of the machine that ran the report is published."""
    if not source:
        return source
    path = Path(source).resolve()
    for root, prefix in ((Path(__file__).resolve().parent, "hpceval"), (Path.cwd(), "")):
        if path.is_relative_to(root):
            rel = path.relative_to(root).as_posix()
            return f"{prefix}/{rel}" if prefix else rel
    return source

