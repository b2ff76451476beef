# SPDX-License-Identifier: BSD-3-Clause
"""Paired samples: the one-sided Wilcoxon signed-rank test of a slowdown on per-pair ratios and
the paired Hodges–Lehmann ratio with its interval.

Why: when both sides of a comparison ran in the same launch (a guideline's two operations) or in
the same round of an interleaved campaign (tune's alternatives, one launch each per round), the
launch's (or the round's) own speed — a machine state, a slow drift — multiplies both sides
alike and cancels in their ratio. A two-sample rank-sum test on the per-launch medians counts
that shared factor as noise; the signed-rank test of the per-pair log ratios does not.

- Test (Wilcoxon 1945; Hollander & Wolfe §3.1): d_i = log x_i − log y_i − log(1 + margin);
  zeros dropped (Wilcoxon's convention), T⁺ the sum of the midranks of |d_i| over d_i > 0. Under
  the null every sign is + or − with probability ½ independently, so the distribution of T⁺ is
  the product of (1 + z^{2 r_i}) / 2 over the doubled midranks r_i — computed exactly (ties as
  they are) up to ``EXACT_PAIRS_MAX`` pairs, the tie-corrected normal approximation beyond.
- Ratio: exp of the median of the Walsh averages (d_i + d_j) / 2, i ≤ j (without the margin),
  and its distribution-free interval from the order statistics of the Walsh averages at the
  ranks the exact null distribution of T⁺ (no ties) gives (Hollander & Wolfe §3.3).

Cost: O(n² log n) for the Walsh averages, O(n · n²) for the exact distribution.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats as _st

from mpimeter.stats.hypothesis import TestResult
from mpimeter.stats.intervals import Interval

EXACT_PAIRS_MAX = 400  # pairs whose signed-rank distribution is computed exactly
METHOD_EXACT = "exact-sign-flip"
METHOD_NORMAL = "normal-approximation"


def _midranks2(values: np.ndarray) -> np.ndarray:
    """Doubled midranks (integers) of ``values``."""
    return np.rint(2 * _st.rankdata(values)).astype(np.int64)


def _sign_flip_distribution(ranks2: np.ndarray) -> np.ndarray:
    """P(T2 = k) for k = 0 … Σ ranks2, T2 the sum of the doubled ranks whose sign is +."""
    dist = np.zeros(int(ranks2.sum()) + 1)
    dist[0] = 1.0
    top = 0
    for r in ranks2:
        r = int(r)
        dist[r:top + r + 1] += dist[:top + 1].copy()
        dist[:top + r + 1] *= 0.5
        top += r
    return dist


def log_ratios(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """log x_i − log y_i of the pairs whose both values are finite and positive."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    ok = np.isfinite(x) & np.isfinite(y) & (x > 0) & (y > 0)
    return np.log(x[ok]) - np.log(y[ok])


def signed_rank_greater(d: np.ndarray) -> TestResult:
    """One-sided signed-rank test that the ``d`` lie above 0 (statistic T⁺ of the doubled
    midranks / 2, p, how p was computed); p = 1 with no nonzero difference."""
    d = np.asarray(d, dtype=float)
    d = d[d != 0]
    n = d.size
    if n == 0:
        return TestResult(0.0, 1.0, METHOD_EXACT)
    ranks2 = _midranks2(np.abs(d))
    t2 = int(ranks2[d > 0].sum())
    if n <= EXACT_PAIRS_MAX:
        dist = _sign_flip_distribution(ranks2)
        return TestResult(t2 / 2, float(min(1.0, dist[t2:].sum())), METHOD_EXACT)
    r = ranks2 / 2
    mean, var = r.sum() / 2, (r ** 2).sum() / 4
    z = (t2 / 2 - mean - 0.5) / math.sqrt(var)  # continuity-corrected
    return TestResult(t2 / 2, float(_st.norm.sf(z)), METHOD_NORMAL)


def paired_slowdown_test(baseline: np.ndarray, candidate: np.ndarray, max_slowdown: float) -> TestResult:
    """The one-sided signed-rank test that ``candidate`` is slower than ``baseline`` × (1 +
    max_slowdown), pair by pair (``baseline[i]`` and ``candidate[i]`` ran in one launch or round)."""
    return signed_rank_greater(log_ratios(candidate, baseline) - math.log1p(max_slowdown))


def min_p_value(pairs: int) -> float:
    """Smallest p the one-sided signed-rank test gives with ``pairs`` pairs: 2^−pairs (all signs
    the same, no ties)."""
    return math.nan if pairs < 1 else 0.5 ** pairs


def paired_ratio(baseline: np.ndarray, candidate: np.ndarray, *, confidence: float = 0.95) -> Interval:
    """The paired Hodges–Lehmann estimate of candidate / baseline (module docstring) with its
    interval at ``confidence`` (None ends when there are too few pairs for it)."""
    d = log_ratios(candidate, baseline)
    n = d.size
    if n == 0:
        return Interval(math.nan, None, None, confidence, "paired-hodges-lehmann")
    i, j = np.triu_indices(n)
    walsh = np.sort((d[i] + d[j]) / 2)
    estimate = float(math.exp(np.median(walsh)))
    m = walsh.size  # n (n + 1) / 2
    low = high = None
    if n <= EXACT_PAIRS_MAX:
        cdf = np.cumsum(_sign_flip_distribution(np.arange(2, 2 * n + 1, 2)))[::2]  # P(T⁺ ≤ k), k = 0 … m
        # the largest k with P(T⁺ ≤ k − 1) ≤ (1 − confidence) / 2: [W_(k), W_(m − k + 1)]
        k = int(np.searchsorted(cdf, (1 - confidence) / 2 + 1e-12, side="right"))
        if k >= 1:
            low, high = float(math.exp(walsh[k - 1])), float(math.exp(walsh[m - k]))
    else:
        z = _st.norm.ppf(1 - (1 - confidence) / 2)
        k = int(math.floor(m / 2 - z * math.sqrt(n * (n + 1) * (2 * n + 1) / 24)))
        if k >= 1:
            low, high = float(math.exp(walsh[k - 1])), float(math.exp(walsh[m - k]))
    return Interval(estimate, low, high, confidence, "paired-hodges-lehmann")


def paired_bootstrap_ratio(baseline: np.ndarray, candidate: np.ndarray, *, confidence: float = 0.95, seed: int = 0,
                           resamples: int = 2000) -> Interval:
    """exp of the median per-pair log ratio candidate / baseline with the percentile interval of
    ``resamples`` resamplings of the pairs (Efron & Tibshirani 1993 §13), seeded."""
    d = log_ratios(candidate, baseline)
    if d.size == 0:
        return Interval(math.nan, None, None, confidence, "paired-bootstrap")
    rng = np.random.default_rng(seed)
    meds = np.median(d[rng.integers(0, d.size, (resamples, d.size))], axis=1)
    tail = (1 - confidence) / 2
    return Interval(float(math.exp(np.median(d))), float(math.exp(np.quantile(meds, tail))),
                    float(math.exp(np.quantile(meds, 1 - tail))), confidence, "paired-bootstrap")
