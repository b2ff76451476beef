"""Hypothesis tests, effect sizes and multiple-testing correction for comparisons.

- Wilcoxon rank-sum / Mann–Whitney U (scipy) on per-launch medians, two-sided / less / greater
  (Hunold & Carpen-Amarie 2016 §5.2, Fig. 10–11); stars * ≤ .05, ** ≤ .01, *** ≤ .001.
- Holm's step-down correction across all rows tested together (checked against statsmodels).
- Kruskal–Wallis (scipy) for more than two groups (Hoefler & Belli 2015 §3.2).
- The ratio of two groups with an interval: Hodges–Lehmann on log values (the median of all
  m·n pairwise differences log b − log a, with the distribution-free interval from the exact
  null distribution of U for m, n ≤ 50 and its normal approximation above; Hollander & Wolfe
  §4.3), or a percentile bootstrap of the ratio of medians over launches.

Cost: rank-sum O((m+n) log(m+n)); Hodges–Lehmann O(mn log mn) plus O(m·n·mn) once for the exact
null distribution; bootstrap O(B·(m+n)).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy import stats as _st

ALTERNATIVES = ("two-sided", "less", "greater")
EXACT_U_MAX = 50


@dataclass(frozen=True)
class TestResult:
    statistic: float
    p_value: float


@dataclass(frozen=True)
class RatioInterval:
    """b / a: ``estimate`` and its interval (None bounds when none exists at this level)."""

    estimate: float
    low: float | None
    high: float | None
    confidence: float
    method: str


def stars(p: float) -> str:
    """'***' for p ≤ .001, '**' ≤ .01, '*' ≤ .05, '' otherwise (and for NaN)."""
    if p is None or not math.isfinite(p):
        return ""
    if p <= 0.001:
        return "***"
    if p <= 0.01:
        return "**"
    if p <= 0.05:
        return "*"
    return ""


def rank_sum(a: np.ndarray, b: np.ndarray, *, alternative: str = "two-sided", axis: int = -1) -> TestResult:
    """Wilcoxon rank-sum (Mann–Whitney U) of ``a`` against ``b``: ``less`` means a tends to be
    smaller than b. Vectorized along ``axis`` like scipy; U is the statistic of ``a``."""
    if alternative not in ALTERNATIVES:
        raise ValueError(f"alternative must be one of {ALTERNATIVES}, got {alternative!r}")
    res = _st.mannwhitneyu(a, b, alternative=alternative, axis=axis, method="auto")
    return TestResult(res.statistic, res.pvalue)


def holm(p_values: np.ndarray) -> np.ndarray:
    """Holm-adjusted p-values (Holm 1979): sorted p_(i) · (m − i + 1), made monotone, capped at
    1. NaN entries stay NaN and do not count as tests. Same values as statsmodels'
    ``multipletests(method="holm")`` (the tests check it), computed here because that one
    runs ``gc.collect()`` on every call — tens of ms with a large heap."""
    p = np.asarray(p_values, dtype=float)
    out = np.full(p.shape, np.nan)
    ok = np.isfinite(p)
    m = int(ok.sum())
    if m:
        vals = p[ok]
        order = np.argsort(vals, kind="stable")
        adj = np.minimum(np.maximum.accumulate(vals[order] * np.arange(m, 0, -1)), 1.0)
        res = np.empty(m)
        res[order] = adj
        out[ok] = res
    return out


def kruskal(groups: list[np.ndarray]) -> TestResult:
    """Kruskal–Wallis H test over the groups; p = 1 when all values are equal, NaN with fewer
    than two non-empty groups."""
    groups = [np.asarray(g, dtype=float) for g in groups if len(g) > 0]
    if len(groups) < 2:
        return TestResult(math.nan, math.nan)
    allv = np.concatenate(groups)
    if np.ptp(allv) == 0:
        return TestResult(0.0, 1.0)
    res = _st.kruskal(*groups)
    return TestResult(float(res.statistic), float(res.pvalue))


@lru_cache(maxsize=256)
def _u_cdf(m: int, n: int) -> np.ndarray:
    """P(U ≤ u), u = 0 … m·n, for the Mann–Whitney U of samples of sizes m and n under H0
    (no ties), by the recursion p(i, j) = i/(i+j)·p(i−1, j) shifted by j + j/(i+j)·p(i, j−1)."""
    # row[j] = distribution for (i, j); start with i = 0: U ≡ 0
    row = [np.ones(1) for _ in range(n + 1)]
    for i in range(1, m + 1):
        new = [np.ones(1)]  # (i, 0): U ≡ 0
        for j in range(1, n + 1):
            dist = np.zeros(i * j + 1)
            prev_i = row[j]  # (i−1, j): the i-th a is the largest → adds j
            dist[j : j + prev_i.size] += (i / (i + j)) * prev_i
            prev_j = new[j - 1]  # (i, j−1): the j-th b is the largest → adds 0
            dist[: prev_j.size] += (j / (i + j)) * prev_j
            new.append(dist)
        row = new
    return np.cumsum(row[n])


def _hl_rank(m: int, n: int, confidence: float) -> int:
    """C: the interval is [d_(C), d_(mn+1−C)] (1-based) of the sorted pairwise differences;
    0 when no interval exists at this confidence."""
    alpha = 1.0 - confidence
    if m <= EXACT_U_MAX and n <= EXACT_U_MAX:
        cdf = _u_cdf(m, n)
        # largest C with P(U ≤ C−1) ≤ alpha/2
        return int(np.searchsorted(cdf, alpha / 2 * (1 + 1e-12), side="right"))
    z = float(_st.norm.ppf(1 - alpha / 2))
    c = math.floor(m * n / 2 - z * math.sqrt(m * n * (m + n + 1) / 12.0) + 0.5)
    return max(c, 0)


def hodges_lehmann_ratio(
    a: np.ndarray, b: np.ndarray, *, confidence: float = 0.95, max_pairs: int = 4_000_000, seed: int = 0
) -> RatioInterval:
    """Ratio b / a as exp of the Hodges–Lehmann shift of log values, with its distribution-free
    interval. Samples so large that m·n > ``max_pairs`` are subsampled (seeded)."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    if a.size == 0 or b.size == 0 or np.any(a <= 0) or np.any(b <= 0):
        return RatioInterval(math.nan, None, None, confidence, "hodges-lehmann")
    method = "hodges-lehmann"
    if a.size * b.size > max_pairs:
        rng = np.random.default_rng(seed)
        side = int(math.sqrt(max_pairs))
        a = rng.choice(a, min(a.size, side), replace=False)
        b = rng.choice(b, min(b.size, side), replace=False)
        method = "hodges-lehmann (subsampled)"
    d = np.sort((np.log(b)[None, :] - np.log(a)[:, None]).ravel())
    est = float(np.exp(np.median(d)))
    c = _hl_rank(a.size, b.size, confidence)
    if c < 1:
        return RatioInterval(est, None, None, confidence, method)
    return RatioInterval(est, float(np.exp(d[c - 1])), float(np.exp(d[d.size - c])), confidence, method)


def bootstrap_ratio(
    a: np.ndarray, b: np.ndarray, *, confidence: float = 0.95, resamples: int = 2000, seed: int = 0
) -> RatioInterval:
    """Ratio of medians median(b) / median(a) with a percentile bootstrap interval (each side
    resampled with replacement, ``resamples`` times, seeded). Needs ≥ 2 values per side."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    if a.size == 0 or b.size == 0:
        return RatioInterval(math.nan, None, None, confidence, "bootstrap")
    est = float(np.median(b) / np.median(a))
    if a.size < 2 or b.size < 2:
        return RatioInterval(est, None, None, confidence, "bootstrap")
    rng = np.random.default_rng(seed)
    ma = np.median(a[rng.integers(0, a.size, (resamples, a.size))], axis=1)
    mb = np.median(b[rng.integers(0, b.size, (resamples, b.size))], axis=1)
    lo, hi = np.percentile(mb / ma, [50 * (1 - confidence), 50 * (1 + confidence)])
    return RatioInterval(est, float(lo), float(hi), confidence, "bootstrap")
