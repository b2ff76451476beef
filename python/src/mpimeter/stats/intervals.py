# SPDX-License-Identifier: BSD-3-Clause
"""Confidence intervals: the median by order statistics (Le Boudec), the mean by Student's t,
and the Shapiro–Wilk check that decides whether the t interval can be trusted.

Median (Le Boudec 2011, Theorem 2.1 and Appendix A, Table A.1; Hoefler & Belli 2015 §3.1.3):
for i.i.d. continuous data, [x_(j), x_(k)] covers the median with probability
B(k−1) − B(j−1), B the Binomial(n, 1/2) CDF. For n ≤ 70 the ranks are the exact ones of the
table, symmetric in rank: j = max{j ≥ 1 : B(j−1) ≤ α/2}, k = n + 1 − j. For n > 70 the
normal approximation j = ⌊(n − z·√n)/2⌋, k = ⌈1 + (n + z·√n)/2⌉, z the (1 − α/2) normal
quantile. No interval exists when even [x_(1), x_(n)] has coverage below γ (n ≤ 5 at 95 %).
Cost: O(n log n) for the sort, O(n) for the ranks.

Mean: x̄ ± t(n−1, 1 − α/2)·s/√n (Hoefler & Belli §3.1.2), valid under normality; Shapiro–Wilk
(scipy) for n ≥ 3 says whether to trust it. For a quantity that cannot be negative (run
times), the lower bound is clamped at 0: with 2–3 launches t is large (12.7 at n = 2, 95 %)
and x̄ − t·s/√n can fall below 0, which no run time can be. Clamping only removes impossible
values, so the coverage is unchanged.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats as _st

EXACT_MAX_N = 70


@dataclass(frozen=True)
class Interval:
    """An estimate with its interval; ``low``/``high`` are None when no interval exists."""

    estimate: float
    low: float | None
    high: float | None
    confidence: float
    method: str


@dataclass(frozen=True)
class Normality:
    statistic: float
    p_value: float
    normal: bool  # p_value > alpha


def _check_confidence(confidence: float) -> None:
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")


def median_ci_ranks(n: int, confidence: float = 0.95) -> tuple[int, int] | None:
    """1-based ranks (j, k) of the order statistics bounding the median's interval, or None
    when n is too small for the confidence level."""
    _check_confidence(confidence)
    if n < 1:
        return None
    alpha = 1.0 - confidence
    if n <= EXACT_MAX_N:
        # exact, symmetric in rank: B(j-1) <= alpha/2, k = n + 1 - j (coverage 1 - 2 B(j-1))
        cdf = _st.binom.cdf(np.arange(n), n, 0.5)  # cdf[i] = B(i)
        j = int(np.searchsorted(cdf, alpha / 2 * (1 + 1e-12), side="right"))
        if j < 1:
            return None
        return j, n + 1 - j
    z = float(_st.norm.ppf(1.0 - alpha / 2))
    j = math.floor((n - z * math.sqrt(n)) / 2)
    k = math.ceil(1 + (n + z * math.sqrt(n)) / 2)
    return max(j, 1), min(k, n)


def median_ci_coverage(n: int, j: int, k: int) -> float:
    """Exact coverage B(k−1) − B(j−1) of [x_(j), x_(k)] for the median of continuous data."""
    return float(_st.binom.cdf(k - 1, n, 0.5) - _st.binom.cdf(j - 1, n, 0.5))


def median_ci(x: np.ndarray, confidence: float = 0.95) -> Interval:
    """Median of ``x`` with Le Boudec's order-statistic interval."""
    x = np.sort(np.asarray(x, dtype=float))
    n = x.size
    if n == 0:
        return Interval(math.nan, None, None, confidence, "le-boudec")
    est = float(np.median(x))
    ranks = median_ci_ranks(n, confidence)
    if ranks is None:
        return Interval(est, None, None, confidence, "le-boudec")
    j, k = ranks
    return Interval(est, float(x[j - 1]), float(x[k - 1]), confidence, "le-boudec")


def t_interval(x: np.ndarray, confidence: float = 0.95, *, nonnegative: bool = False) -> Interval:
    """Mean of ``x`` with Student's t interval (None bounds for n < 2). ``nonnegative``: the
    quantity cannot be negative (run times), so the lower bound is clamped at 0."""
    _check_confidence(confidence)
    x = np.asarray(x, dtype=float)
    n = x.size
    if n == 0:
        return Interval(math.nan, None, None, confidence, "student-t")
    mean = float(x.mean())
    if n < 2:
        return Interval(mean, None, None, confidence, "student-t")
    half = float(_st.t.ppf(0.5 + confidence / 2, n - 1)) * float(x.std(ddof=1)) / math.sqrt(n)
    low = max(mean - half, 0.0) if nonnegative else mean - half
    return Interval(mean, low, mean + half, confidence, "student-t")


def shapiro_wilk(x: np.ndarray, alpha: float = 0.05) -> Normality | None:
    """Shapiro–Wilk test (scipy); None for n < 3 or when all values are equal."""
    x = np.asarray(x, dtype=float)
    if x.size < 3 or np.ptp(x) == 0:
        return None
    res = _st.shapiro(x)
    p = float(res.pvalue)
    return Normality(float(res.statistic), p, p > alpha)
