# SPDX-License-Identifier: BSD-3-Clause
"""Hypothesis tests, effect sizes and multiple-testing correction for comparisons.

- Wilcoxon rank-sum / Mann–Whitney U on per-launch medians, two-sided / less / greater
  (Hunold & Carpen-Amarie 2016 §5.2, Fig. 10–11), with the exact null distribution whenever it
  is computable, because 10 launches a side is the usual campaign and there the normal
  approximation is off by an order of magnitude (completely separated 10 vs 10: exact p =
  2 / C(20, 10) = 1.08e-5, normal approximation 1.83e-4):
  * no ties, m·n ≤ ``EXACT_PAIRS_MAX``: the exact Mann–Whitney distribution (scipy,
    ``method="exact"``) — ``"exact"``;
  * ties, small enough: the exact permutation distribution of the midrank sum, all C(m+n, m)
    splits equally likely, counted by dynamic programming over the doubled midranks (scipy's
    exact ``PermutationMethod`` enumerates the splits: seconds at 10 vs 10; this takes
    microseconds and gives the same p) — ``"exact-permutation"``;
  * otherwise (large samples): the normal approximation with tie and continuity corrections
    (scipy, ``method="asymptotic"``) — ``"normal-approximation"``.
  Two-sided p = 2 · the smaller one-sided p, capped at 1 (as scipy). Stars * ≤ .05, ** ≤ .01,
  *** ≤ .001, shown only where p ≤ α.
- Holm's step-down correction across all rows tested together (checked against statsmodels).
- Kruskal–Wallis (scipy) for more than two groups (Hoefler & Belli 2015 §3.2); Friedman (scipy)
  or the exact sign test for treatments measured in the same blocks (ranks within launches).
- The ratio of two groups with an interval: Hodges–Lehmann on log values (the median of all
  m·n pairwise differences log b − log a, with the distribution-free interval from the exact
  null distribution of U for m, n ≤ 50 and its normal approximation above; Hollander & Wolfe
  §4.3), or a percentile bootstrap of the ratio of medians over launches.

Cost: rank-sum O((m+n) log(m+n)) plus, with ties, O((m+n)² · min(m, n)²) for the exact
permutation distribution (bounded by ``PERMUTATION_COST_MAX``); Hodges–Lehmann O(mn log mn)
plus O(m·n·mn) once for the exact null distribution; bootstrap O(B·(m+n)).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy import stats as _st

from mpimeter.stats.intervals import Interval  # a ratio b / a with its interval is one too
from mpimeter.stats.ranks import midranks

ALTERNATIVES = ("two-sided", "less", "greater")
P_METHODS = ("exact", "exact-permutation", "normal-approximation")
EXACT_U_MAX = 50
EXACT_PAIRS_MAX = 10_000  # m·n up to which the exact distribution without ties is used (100 vs 100)
PERMUTATION_COST_MAX = 30_000_000  # cells the tie-aware exact distribution may fill (40 vs 40)


@dataclass(frozen=True)
class TestResult:
    """``method`` says how ``p_value`` was computed (one of :data:`P_METHODS` for the rank-sum
    test; an array of them when the test ran along an axis)."""

    statistic: float
    p_value: float
    method: str = ""


def stars(p: float, *, alpha: float = 0.05) -> str:
    """'***' for p ≤ .001, '**' ≤ .01, '*' ≤ .05 — only when p ≤ ``alpha`` as well, so a row
    that is not significant at the chosen α never gets a star; '' otherwise (and for NaN)."""
    if p is None or not math.isfinite(p) or p > alpha:
        return ""
    if p <= 0.001:
        return "***"
    if p <= 0.01:
        return "**"
    if p <= 0.05:
        return "*"
    return ""


def rank_sum_method(m: int, n: int, *, ties: bool) -> str:
    """How :func:`rank_sum` computes p for sizes m and n, with or without ties in the data."""
    if not ties:
        return "exact" if m * n <= EXACT_PAIRS_MAX else "normal-approximation"
    k = min(m, n)
    return "exact-permutation" if (m + n) * (k + 1) * (2 * k * (m + n) + 1) <= PERMUTATION_COST_MAX \
        else "normal-approximation"


def rank_sum(a: np.ndarray, b: np.ndarray, *, alternative: str = "two-sided", axis: int = -1) -> TestResult:
    """Wilcoxon rank-sum (Mann–Whitney U) of ``a`` against ``b``: ``less`` means a tends to be
    smaller than b. Vectorized along ``axis`` like scipy; U is the statistic of ``a``. The
    p-value is exact whenever that is computable (see the module docstring; ``method`` says
    which); NaN where a slice holds NaN."""
    if alternative not in ALTERNATIVES:
        raise ValueError(f"alternative must be one of {ALTERNATIVES}, got {alternative!r}")
    a = np.moveaxis(np.asarray(a, dtype=float), axis, -1)
    b = np.moveaxis(np.asarray(b, dtype=float), axis, -1)
    m, n = a.shape[-1], b.shape[-1]
    lead = np.broadcast_shapes(a.shape[:-1], b.shape[:-1])
    if m == 0 or n == 0:
        return TestResult(math.nan, math.nan, "") if not lead else \
            TestResult(np.full(lead, np.nan), np.full(lead, np.nan), np.full(lead, "", dtype=object))
    a2 = np.broadcast_to(a, lead + (m,)).reshape(-1, m)
    b2 = np.broadcast_to(b, lead + (n,)).reshape(-1, n)
    xy = np.concatenate([a2, b2], axis=1)
    has_nan = np.isnan(xy).any(axis=1)
    ranks, srt = midranks(xy)  # a row with NaN: finite ranks, but its U is NaN below all the same
    ties = (np.diff(srt, axis=1) == 0).any(axis=1)
    u = ranks[:, :m].sum(axis=1) - m * (m + 1) / 2
    p = np.full(u.shape, np.nan)
    method = np.array([rank_sum_method(m, n, ties=bool(t)) for t in ties], dtype=object)
    const = ~has_nan & (srt[:, 0] == srt[:, -1])  # all values equal: every split is alike, p = 1
    p[const], method[const], method[has_nan] = 1.0, "exact-permutation", ""
    todo = ~has_nan & ~const
    rows = todo & (method == "exact")
    if rows.any():
        p[rows] = _exact_p_by_u(m, n, alternative)[u[rows].astype(np.int64)]
    for i in np.nonzero(todo & (method == "exact-permutation"))[0]:
        p[i] = _permutation_p(np.rint(2 * ranks[i]).astype(np.int64), m, alternative)
    rows = todo & (method == "normal-approximation")
    if rows.any():
        p[rows] = _st.mannwhitneyu(a2[rows], b2[rows], alternative=alternative, axis=1,
                                   method="asymptotic").pvalue
    u[np.isnan(p)] = np.nan
    if not lead:
        return TestResult(float(u[0]), float(p[0]), str(method[0]))
    return TestResult(u.reshape(lead), p.reshape(lead), method.reshape(lead))


@lru_cache(maxsize=64)
def _exact_p_by_u(m: int, n: int, alternative: str) -> np.ndarray:
    """scipy's exact Mann–Whitney p-value (``method="exact"``) of every U = 0 … m·n of samples
    of m and n values without ties, from one call on samples made to have each U: without ties
    it is a function of U, m, n and the alternative alone (scipy's sf of the U distribution), so
    a lookup gives its numbers, to the bit, without its per-call input checks, which cost more
    than the test itself on the few launches a campaign has. U of the k-th row: a's value i
    sits above the first c_i of b's 0 … n−1, Σ c_i = k."""
    k = np.arange(m * n + 1)
    above = np.clip(k[:, None] - n * np.arange(m)[None, :], 0, n)  # c_i, filled greedily
    a = above - 0.5 + np.arange(m)[None, :] * 1e-6  # between b's values c_i − 1 and c_i, no two alike
    b = np.broadcast_to(np.arange(n, dtype=float), (k.size, n))
    table = _st.mannwhitneyu(a, b, alternative=alternative, axis=1, method="exact").pvalue
    table.flags.writeable = False
    return table


def _permutation_p(ranks2: np.ndarray, m: int, alternative: str) -> float:
    """Exact permutation p-value of the sum of the first ``m`` of the doubled midranks
    ``ranks2`` (integers), every split into m and N − m values equally likely
    (:func:`subset_sum_distribution`), for the smaller side: sum_a = total − sum_b."""
    n_all = ranks2.size
    a_side = 2 * m <= n_all
    side = ranks2[:m] if a_side else ranks2[m:]
    dist = subset_sum_distribution(ranks2, side.size)
    obs = int(side.sum())
    low, high = float(dist[: obs + 1].sum()), float(dist[obs:].sum())  # P(S ≤ obs), P(S ≥ obs)
    le, ge = (low, high) if a_side else (high, low)  # of the sum of a's ranks, hence of U
    if alternative == "less":
        return min(le, 1.0)
    if alternative == "greater":
        return min(ge, 1.0)
    return min(2 * min(le, ge), 1.0)


def subset_sum_distribution(ranks2: np.ndarray, k: int) -> np.ndarray:
    """P(sum = s), s = 0 … the largest sum, of the sum of k of the integers ``ranks2`` (doubled
    midranks) drawn without replacement, every k-subset equally likely. ``counts[j, s]`` is the
    number of j-subsets of the values seen so far whose sum is s, built one value at a time (the
    subset-sum recursion)."""
    n_all = ranks2.size
    top = int(np.sort(ranks2)[n_all - k:].sum()) if k else 0
    counts = np.zeros((k + 1, top + 1))
    counts[0, 0] = 1.0
    for d in ranks2:  # numpy reads the right side before it writes: each value is used once
        counts[1:, d:] += counts[:-1, : top + 1 - d]
    return counts[k] / counts[k].sum()


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


def holm_levels(p_values: np.ndarray, alpha: float) -> np.ndarray:
    """The level Holm's step-down procedure tests each p-value at: α / (m − i) for the i-th
    smallest (0-based) of the m finite ones; NaN stays NaN. An interval made by inverting the
    same test at this level is the interval of the decision (it excludes the null value exactly
    when p ≤ the level, up to the discreteness of ties) — what compare and gate print beside
    the decision, so that the two cannot contradict each other except where Holm stopped at an
    earlier step (said where it happens)."""
    p = np.asarray(p_values, dtype=float)
    out = np.full(p.shape, np.nan)
    ok = np.flatnonzero(np.isfinite(p))
    order = ok[np.argsort(p[ok], kind="stable")]
    out[order] = alpha / np.arange(len(order), 0, -1)
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


def complete_blocks(x: np.ndarray) -> np.ndarray:
    """``x`` as blocks (rows) × treatments (columns) of floats, the blocks with a NaN dropped: what
    the blocked statistics (Friedman's test, Kendall's W) take. A ValueError for any other shape."""
    x = np.asarray(x, dtype=float)
    if x.ndim != 2:
        raise ValueError(f"x must be blocks × treatments, got shape {x.shape}")
    return x[~np.isnan(x).any(axis=1)]


@lru_cache(maxsize=1024)
def _sign_test_p(up: int, n: int) -> float:
    """The exact two-sided sign test's p of ``up`` positive signs out of ``n``: a pure function of
    two integers that recurs across an analysis's tests, and scipy's binomtest costs a millisecond."""
    return float(_st.binomtest(up, n).pvalue)


def friedman(x: np.ndarray) -> TestResult:
    """Whether the treatments (columns of ``x``) differ when each is measured once in every block
    (rows): Friedman's rank test (scipy, chi-square approximation) for ≥ 3 treatments; for 2 the
    exact two-sided sign test (scipy ``binomtest``; Friedman's test with two treatments is the
    sign test). Blocks with a NaN are dropped; NaN with fewer than 2 blocks or treatments; p = 1
    when every block is constant."""
    x = complete_blocks(x)
    blocks, k = x.shape
    if blocks < 2 or k < 2:
        return TestResult(math.nan, math.nan, "")
    if k == 2:
        d = x[:, 1] - x[:, 0]
        d = d[d != 0]
        up = int((d > 0).sum())
        return TestResult(float(up), _sign_test_p(up, int(d.size)) if d.size else 1.0, "exact")
    if np.all(x == x[:, :1]):
        return TestResult(0.0, 1.0, "chi-square-approximation")
    res = _st.friedmanchisquare(*x.T)
    return TestResult(float(res.statistic), float(res.pvalue), "chi-square-approximation")


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
) -> Interval:
    """Ratio b / a as exp of the Hodges–Lehmann shift of log values, with its distribution-free
    interval. Samples so large that m·n > ``max_pairs`` are subsampled (seeded)."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    if a.size == 0 or b.size == 0 or np.any(a <= 0) or np.any(b <= 0):
        return Interval(math.nan, None, None, confidence, "hodges-lehmann")
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
        return Interval(est, None, None, confidence, method)
    return Interval(est, float(np.exp(d[c - 1])), float(np.exp(d[d.size - c])), confidence, method)


def bootstrap_ratio(
    a: np.ndarray, b: np.ndarray, *, confidence: float = 0.95, resamples: int = 2000, seed: int = 0
) -> Interval:
    """Ratio of medians median(b) / median(a) with a percentile bootstrap interval (each side
    resampled with replacement, ``resamples`` times, seeded). Needs ≥ 2 values per side."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    if a.size == 0 or b.size == 0:
        return Interval(math.nan, None, None, confidence, "bootstrap")
    est = float(np.median(b) / np.median(a))
    if a.size < 2 or b.size < 2:
        return Interval(est, None, None, confidence, "bootstrap")
    rng = np.random.default_rng(seed)
    ma = np.median(a[rng.integers(0, a.size, (resamples, a.size))], axis=1)
    mb = np.median(b[rng.integers(0, b.size, (resamples, b.size))], axis=1)
    lo, hi = np.percentile(mb / ma, [50 * (1 - confidence), 50 * (1 + confidence)])
    return Interval(est, float(lo), float(hi), confidence, "bootstrap")
