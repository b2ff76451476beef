# SPDX-License-Identifier: BSD-3-Clause
"""Comparing two samples of per-launch medians (Hunold & Carpen-Amarie 2016 §5.2): the
Wilcoxon rank-sum test (exact whenever computable, ``hypothesis.rank_sum``), the ratio with an
interval, and the smallest p-value the sample sizes allow under the same choice of method (with
3 launches a side, a two-sided test can never reach p ≤ 0.05).

The gate's question — is b slower than a by more than a factor 1 + t? — is the one-sided test
of b against a·(1 + t) (``slowdown_test``): under a scale shift it is the test of
H0: ratio ≤ 1 + t against H1: ratio > 1 + t.

How many launches that test needs (``launches_needed``): Noether's (1987) sample size for the
rank-sum test, n per side = (z_{1−level} + z_{power})² / (6 (p′ − ½)²) with p′ = P(Y > X), for
log per-launch medians normal with spread σ and a shift δ: p′ = Φ(δ / (σ √2)); at least the
fewest launches whose smallest p reaches the level.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy.stats import norm

from mpimeter.stats import hypothesis
from mpimeter.stats.intervals import Interval


@dataclass(frozen=True, kw_only=True)
class PairComparison:
    median_a: float
    median_b: float
    ratio: float  # median_b / median_a
    ratio_ci: Interval  # of b / a
    statistic: float
    p_value: float
    p_method: str  # hypothesis.P_METHODS


@lru_cache(maxsize=1024)
def min_p_value(m: int, n: int, alternative: str = "two-sided") -> float:
    """Smallest p-value :func:`hypothesis.rank_sum` can give with sizes m and n: that of two
    completely separated samples (no ties), computed by the same rule — 1 / C(m+n, m) one-sided
    and twice that two-sided where the test is exact, the normal approximation's where not."""
    if m < 1 or n < 1:
        return math.nan
    if alternative == "greater":  # a above b
        a, b = np.arange(n, n + m, dtype=float), np.arange(n, dtype=float)
    else:  # a below b
        a, b = np.arange(m, dtype=float), np.arange(m, m + n, dtype=float)
    return float(hypothesis.rank_sum(a, b, alternative=alternative).p_value)


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
    res = hypothesis.rank_sum(a, b, alternative=alternative)
    return PairComparison(median_a=med_a, median_b=med_b, ratio=ratio, ratio_ci=ci, statistic=res.statistic,
                          p_value=res.p_value, p_method=res.method)


def slowdown_test(baseline: np.ndarray, candidate: np.ndarray, max_slowdown: float) -> hypothesis.TestResult:
    """The one-sided rank-sum test that ``candidate`` is larger than ``baseline`` scaled by
    1 + max_slowdown (U of the candidate, p and how p was computed)."""
    base = np.asarray(baseline, dtype=float) * (1.0 + max_slowdown)
    return hypothesis.rank_sum(np.asarray(candidate, dtype=float), base, alternative="greater")


def launches_needed(sigma: float, shift: float, level: float, *, power: float = 0.8, most: int = 10_000) -> int | None:
    """Launches per side the one-sided rank-sum test needs to find a shift of ``shift`` in log
    per-launch medians of spread ``sigma`` (standard deviation of the logs) at ``level`` with
    ``power`` (module docstring: Noether 1987), never fewer than make the smallest p reach
    ``level``; None without a spread or a shift to find, or above ``most``."""
    if not (math.isfinite(sigma) and math.isfinite(shift) and shift > 0 and 0 < level < 1 and 0 < power < 1):
        return None
    if sigma <= 0:
        n = 1
    else:
        gap = float(norm.cdf(shift / (sigma * math.sqrt(2)))) - 0.5
        z = float(norm.ppf(1 - level) + norm.ppf(power))
        n = math.ceil(z * z / (6 * gap * gap))
    n = max(n, 2)
    while n <= most and min_p_value(n, n, "greater") > level:
        n += 1
    return n if n <= most else None
