"""Comparing two samples of per-launch medians (Hunold & Carpen-Amarie 2016 §5.2): the
Wilcoxon rank-sum test, the ratio of medians with an interval, and the smallest p-value the
sample sizes allow (with 3 launches a side, a two-sided test can never reach p ≤ 0.05).

The gate's question — is b slower than a by more than a factor 1 + t? — is the one-sided test
of b against a·(1 + t) (``slowdown_test``): under a scale shift it is the test of
H0: ratio ≤ 1 + t against H1: ratio > 1 + t.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from mpimeter.stats import hypothesis


@dataclass(frozen=True)
class PairComparison:
    median_a: float
    median_b: float
    ratio: float  # median_b / median_a
    ratio_ci: hypothesis.RatioInterval
    statistic: float
    p_value: float


def min_p_value(m: int, n: int, alternative: str = "two-sided") -> float:
    """Smallest p-value of the exact rank-sum test with sizes m and n (no ties)."""
    if m < 1 or n < 1:
        return math.nan
    one = 1.0 / math.comb(m + n, m)
    return min(1.0, 2 * one) if alternative == "two-sided" else one


def compare_two(
    a: np.ndarray,
    b: np.ndarray,
    *,
    alternative: str = "two-sided",
    confidence: float = 0.95,
    ratio_ci: str = "hodges-lehmann",
    seed: int = 0,
) -> PairComparison:
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    med_a = float(np.median(a)) if a.size else math.nan
    med_b = float(np.median(b)) if b.size else math.nan
    ratio = med_b / med_a if a.size and b.size and med_a > 0 else math.nan
    if ratio_ci == "hodges-lehmann":
        ci = hypothesis.hodges_lehmann_ratio(a, b, confidence=confidence, seed=seed)
    elif ratio_ci == "bootstrap":
        ci = hypothesis.bootstrap_ratio(a, b, confidence=confidence, seed=seed)
    else:
        raise ValueError(f"ratio_ci must be hodges-lehmann or bootstrap, got {ratio_ci!r}")
    if a.size == 0 or b.size == 0:
        return PairComparison(med_a, med_b, ratio, ci, math.nan, math.nan)
    if np.ptp(np.concatenate([a, b])) == 0:
        return PairComparison(med_a, med_b, ratio, ci, float(a.size * b.size / 2), 1.0)
    res = hypothesis.rank_sum(a, b, alternative=alternative)
    return PairComparison(med_a, med_b, ratio, ci, float(res.statistic), float(res.p_value))


def slowdown_test(baseline: np.ndarray, candidate: np.ndarray, max_slowdown: float) -> tuple[float, float]:
    """(U, p) of the one-sided rank-sum test that ``candidate`` is larger than ``baseline``
    scaled by 1 + max_slowdown."""
    base = np.asarray(baseline, dtype=float) * (1.0 + max_slowdown)
    cand = np.asarray(candidate, dtype=float)
    if base.size == 0 or cand.size == 0:
        return math.nan, math.nan
    if np.ptp(np.concatenate([base, cand])) == 0:
        return float(base.size * cand.size / 2), 1.0
    res = hypothesis.rank_sum(cand, base, alternative="greater")
    return float(res.statistic), float(res.p_value)
