# SPDX-License-Identifier: BSD-3-Clause
"""Roth 2021 §4.5: categories of repetitions — first, warmup, outlier, good — where a warm-up
is declared only when it is a real trend.

- first: repetition 0.
- warmup: 0 < i < w, where w is the end of the warm-up, found in three steps:
  1. Is there a warm-up? One-sided Wilcoxon rank-sum test that repetitions 1 … w−1 are slower
     than repetitions w … n−1, at every w of a geometric grid min_w, ⌈1.5·min_w⌉, … ≤ n/2
     (normal approximation with tie and continuity corrections, one ranking for all w), and
     Bonferroni over the K grid points: p = min(1, K · min_w p_w). Rank tests know their
     false-positive rate on any i.i.d. (or shuffled) series, whatever the distribution — but not
     on autocorrelated ones: on AR(1) run times with φ = 0.9 the first repetitions wander far
     from the rest by chance. So a second test must agree (:func:`level_test`: the difference of
     mean log run times over its AR(1) standard error, φ and the variance from the steady second
     half); p is the larger of the two. Significant when p ≤ ``alpha`` (0.01).
  2. Where does it end? w fitted by least squares on the log run times (values above the
     outlier threshold clipped to it) over every 2 ≤ w ≤ n/2, for two shapes: a plateau that
     drops to the steady level (a step), or a ramp, linear in log time, that meets the steady
     level at w (a decay); the ramp unless the step fits clearly better (n · log(RSS_ramp /
     RSS_step) > 2, "positive evidence" on the BIC scale of Kass & Raftery 1995: with noisy short
     decays the step tends to win by a hair and ends too early).
  3. Is it one? Only when the test is significant, w ≥ ``min_w`` (Roth's w ≥ 10) and the
     warm-up is material: median(x_1 … x_{w−1}) ≥ (1 + ``cliff``) · median(x_w … x_{n−1}),
     Roth's 10 % of the median. Otherwise w = 0: no warm-up.
- outlier: run time ≥ 2 × median (of all repetitions given).
- good: the rest.
A repetition gets the first category that applies, in that order.

What changed from Roth's rule (the smallest w ≥ 10 where the cumulative minimum drops by at
least 0.1 · median, eq. 4.1 and 4.6): that rule reacts to a single fast repetition. On i.i.d.
lognormal noise (σ = 0.15) it found a warm-up in 31 % of 300-repetition series, shuffled series
kept theirs, and one repetition 15 % faster than the rest at 251 made a warm-up of 251. The
rank test above flags well under 5 % of i.i.d. normal, lognormal, bimodal or shuffled series,
and the fit finds decaying warm-ups of 20, 50 and 100 of 300 repetitions within ±20 %
(python/tests/test_stats_warmup.py).

Input: the run times of one launch and test in repetition order. Cost: O(n log n).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import special

FIRST, WARMUP, OUTLIER, GOOD = 0, 1, 2, 3
NAMES = ("first", "warmup", "outlier", "good")
STEP_EVIDENCE = 2.0  # n · log(RSS_ramp / RSS_step) above which the step shape is taken


@dataclass(frozen=True)
class Warmup:
    """``end``: w (0 when there is no warm-up); ``p_value`` of the trend test (NaN when the
    series is too short for any candidate, n < 2·min_w); ``significant``: p_value ≤ alpha;
    ``fitted_end``: where the fit puts the end when the test is significant (else 0), even when
    it is too short or too small to be a warm-up."""

    end: int
    p_value: float
    significant: bool
    fitted_end: int


@dataclass(frozen=True)
class Categories:
    codes: np.ndarray  # int8, one of FIRST/WARMUP/OUTLIER/GOOD per repetition
    warmup_end: int  # w (0 when no warm-up was found)
    warmup_p: float = math.nan  # p-value of the warm-up test
    warmup_significant: bool = False

    @property
    def warmup_length(self) -> int:
        return max(self.warmup_end - 1, 0)

    def counts(self) -> dict[str, int]:
        c = np.bincount(self.codes, minlength=4)
        return {NAMES[i]: int(c[i]) for i in range(4)}


def candidate_ends(n: int, *, min_w: int = 10, ratio: float = 1.5) -> np.ndarray:
    """The grid of w tested: min_w, then × ``ratio`` (rounded up), up to n // 2."""
    out: list[int] = []
    w = float(min_w)
    while math.ceil(w) <= n // 2:
        if not out or math.ceil(w) > out[-1]:
            out.append(math.ceil(w))
        w *= ratio
    return np.array(out, dtype=int)


def trend_test(x: np.ndarray, *, min_w: int = 10, ratio: float = 1.5) -> float:
    """p-value that the repetitions after the first get faster: the one-sided rank-sum test of
    x_1 … x_{w−1} > x_w … x_{n−1} at each w of :func:`candidate_ends`, Bonferroni over them.
    NaN when there is no candidate."""
    x = np.asarray(x, dtype=float)
    ends = candidate_ends(x.size, min_w=min_w, ratio=ratio)
    y = x[1:]
    n = y.size
    if ends.size == 0 or np.ptp(y) == 0:
        return math.nan if ends.size == 0 else 1.0
    r, t = _midranks(y)
    tie = float((t**3 - t).sum()) / (n * (n - 1))
    k = (ends - 1).astype(float)  # repetitions 1 … w−1
    u = np.cumsum(r)[ends - 2] - k * (k + 1) / 2
    sd = np.sqrt(k * (n - k) / 12.0 * (n + 1 - tie))
    z = (u - k * (n - k) / 2 - 0.5) / sd
    return float(min(1.0, ends.size * special.ndtr(-z).min()))


def ar1_variance_factor(y: np.ndarray) -> float:
    """How much AR(1) dependence widens a mean of consecutive values: (1 + φ) / (1 − φ), φ the
    lag-1 autocorrelation with Kendall's (1954) small-sample bias correction (φ̂ + (1 + 3φ̂)/m)
    plus one standard error √((1 − φ̂²)/m) — from 50 values φ̂ is rough, and an underestimate
    makes false warm-ups — kept in [0, 0.98]: never below the i.i.d. variance."""
    z = np.asarray(y, dtype=float)
    m = z.size
    if m < 8:
        return 1.0
    z = z - z.mean()
    var = float(z @ z)
    if var <= 0:
        return 1.0
    phi = float(z[1:] @ z[:-1]) / var
    phi = phi + (1 + 3 * phi) / m
    phi = min(max(phi + math.sqrt(max(1 - phi * phi, 0.0) / m), 0.0), 0.98)
    return (1 + phi) / (1 - phi)


def level_test(x: np.ndarray, *, min_w: int = 10, ratio: float = 1.5, outlier_factor: float = 2.0) -> float:
    """p-value that repetitions 1 … w−1 sit above the rest by more than the series' own slow
    wandering explains: at each w of :func:`candidate_ends`, the difference of the mean log run
    times (values clipped at the outlier threshold) over its standard error under AR(1)
    dependence, the variance and φ taken from the second half of the series (which a warm-up of
    at most n/2 leaves steady); one-sided normal, Bonferroni over the candidates. On AR(1) run
    times with φ = 0.9 the first repetitions drift far from the rest by chance: the rank test,
    exact for i.i.d. series, calls that a warm-up in half of them. NaN without a candidate."""
    x = np.asarray(x, dtype=float)
    ends = candidate_ends(x.size, min_w=min_w, ratio=ratio)
    if ends.size == 0:
        return math.nan
    med = float(np.median(x))
    y = np.minimum(x[1:], outlier_factor * med) if med > 0 else x[1:]
    if np.any(y <= 0):
        return 1.0
    y = np.log(y)
    n = y.size
    steady = y[n // 2:]
    var = float(np.var(steady, ddof=1)) if steady.size > 1 else 0.0
    if var <= 0:
        return 1.0
    factor = ar1_variance_factor(steady)
    # a dependent series' sample variance misses the part its own mean wanders: E s² ≈ σ²(1 − f/m)
    var /= max(1.0 - factor / steady.size, 0.5)
    k = (ends - 1).astype(float)
    c = np.cumsum(y)
    diff = c[ends - 2] / k - (c[-1] - c[ends - 2]) / (n - k)
    z = diff / np.sqrt(var * factor * (1 / k + 1 / (n - k)))
    return float(min(1.0, ends.size * special.ndtr(-z).min()))


def _midranks(y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Midranks of ``y`` (scipy's ``rankdata(method="average")``) and the sizes of its tie groups,
    from one sort: scipy's per-call overhead is most of the cost at a few hundred values."""
    order = np.argsort(y, kind="stable")
    ys = y[order]
    starts = np.flatnonzero(np.r_[True, ys[1:] != ys[:-1]])
    sizes = np.diff(np.r_[starts, ys.size])
    ranks = np.empty(y.size)
    ranks[order] = np.repeat(starts + (sizes + 1) / 2.0, sizes)
    return ranks, sizes


def fit_end(x: np.ndarray, *, outlier_factor: float = 2.0) -> int:
    """w by least squares on log run times (clipped at the outlier threshold): the better of a
    plateau x_1 … x_{w−1} then a constant, and a ramp linear in log time that meets the constant
    at w, over 2 ≤ w ≤ n/2, the ramp unless the step is clearly better. 0 when n < 5."""
    x = np.asarray(x, dtype=float)
    if x.size < 5:
        return 0
    med = float(np.median(x))
    y = np.minimum(x[1:], outlier_factor * med) if med > 0 else x[1:]
    y = np.log(y) if np.all(y > 0) else y
    n = y.size
    i = np.arange(n, dtype=float)
    cy, ciy, cyy = np.cumsum(y), np.cumsum(i * y), np.cumsum(y * y)
    ty, tyy = cy[-1], cyy[-1]
    k = np.arange(1, n // 2 + 1, dtype=float)  # warm-up repetitions
    sy, siy = cy[k.astype(int) - 1], ciy[k.astype(int) - 1]
    rss_step = tyy - sy**2 / k - (ty - sy) ** 2 / (n - k)
    # ramp: y = a + b·f with f_i = max(k − i, 0); residuals of the regression on f
    sf, sff = k * (k + 1) / 2, k * (k + 1) * (2 * k + 1) / 6
    sfy = k * sy - siy
    sxx, sxy = sff - sf**2 / n, sfy - sf * ty / n
    rss_ramp = (tyy - ty**2 / n) - sxy**2 / sxx
    step_wins = n * math.log(max(rss_ramp.min(), 1e-300) / max(rss_step.min(), 1e-300)) > STEP_EVIDENCE
    return int(k[int(np.argmin(rss_step if step_wins else rss_ramp))]) + 1


def detect_warmup(
    x: np.ndarray, *, min_w: int = 10, alpha: float = 0.01, cliff: float = 0.1, outlier_factor: float = 2.0
) -> Warmup:
    """The warm-up of one series (see the module docstring)."""
    x = np.asarray(x, dtype=float)
    p = trend_test(x, min_w=min_w)
    if p <= alpha:  # both must hold: the rank test's level on any i.i.d. series, this one's under AR(1)
        p = max(p, level_test(x, min_w=min_w, outlier_factor=outlier_factor))
    if not p <= alpha:
        return Warmup(0, p, False, 0)
    w = fit_end(x, outlier_factor=outlier_factor)
    real = w >= min_w and float(np.median(x[1:w])) >= (1 + cliff) * float(np.median(x[w:]))
    return Warmup(w if real else 0, p, True, w)


def warmup_end(x: np.ndarray, *, min_w: int = 10, alpha: float = 0.01, cliff: float = 0.1) -> int:
    """w of :func:`detect_warmup`, 0 when there is no warm-up."""
    return detect_warmup(x, min_w=min_w, alpha=alpha, cliff=cliff).end


def categorize(
    x: np.ndarray, *, min_w: int = 10, alpha: float = 0.01, cliff: float = 0.1, outlier_factor: float = 2.0
) -> Categories:
    x = np.asarray(x, dtype=float)
    n = x.size
    codes = np.full(n, GOOD, dtype=np.int8)
    if n == 0:
        return Categories(codes, 0)
    wu = detect_warmup(x, min_w=min_w, alpha=alpha, cliff=cliff, outlier_factor=outlier_factor)
    codes[x >= outlier_factor * float(np.median(x))] = OUTLIER
    if wu.end > 1:
        codes[1:wu.end] = WARMUP
    codes[0] = FIRST
    return Categories(codes, wu.end, wu.p_value, wu.significant)
