# SPDX-License-Identifier: BSD-3-Clause
"""Two campaigns run one after the other on a machine that drifts: how much the launches' own
serial dependence widens the rank-sum test of per-launch medians.

A campaign's launches are a time series. When neighbouring launches are alike (the machine's
episodes last several launches), a campaign's mean moves more than var / n says, and so does the
difference between two campaigns: the rank-sum test, which assumes exchangeable launches, calls
such campaigns different far more often than α (docs/ALGORITHMS.md, "Two campaigns of one
build"). The correction models the launches of both campaigns, in time order, as one AR(1)
series with lag-1 autocorrelation ρ; the variance of the difference of the two campaigns' means
is then

    Var(ȳ_B − ȳ_A) = σ² (2 S_AA / n² − 2 S_AB / n²),  S_AA = Σ_{i,j in A} ρ^|i−j|,
    S_AB = Σ_{i in A, j in B} ρ^(j−i)

against 2 σ² / n for exchangeable launches: the ratio f multiplies the rank-sum statistic's
variance (the statistic is asymptotically a difference of means of scores), as the modified
trend tests do for dependent series (Hamed & Rao 1998, an effective sample size n / f): the
plain test's p (exact whenever computable) as a normal score, the score divided by √f and read
on Student's t with 2n / f − 2 degrees of freedom, since f itself is estimated from twenty
launches (on the normal the A/A share stayed at 0.07–0.09 for ρ 0.3–0.7 in
bench/compare_aa_sim.py; on t it is ≤ 0.05).

ρ comes from the comparison's own launches: the lag-1 autocorrelation of the log per-launch
medians, each campaign centred on its own mean (so a real difference between the campaigns does
not enter it), pooled over the campaigns and rows given, and freed of the downward bias that
centring a short series gives (Marriott & Pope 1954: E r₁ ≈ ρ − (1 + 3ρ) / n, so
ρ̂ = (n r₁ + 1) / (n − 3)), kept in [0, 0.95]. f is floored at 1 and the widened p never falls
below the plain test's: launches that look independent keep the exact test, and the correction
never makes a comparison more liberal. What no series inside a campaign can show — a shift
fixed once per campaign — it does not correct (bench/compare_aa_sim.py's step cell).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from scipy.stats import norm
from scipy.stats import t as student_t

from mpimeter.stats import hypothesis

RHO_MAX = 0.95  # beyond it a campaign of ten launches holds one episode: f would be a guess


def autocorrelations(series: Sequence[np.ndarray], lags: int) -> np.ndarray:
    """ρ_1 … ρ_lags pooled over ``series`` (each centred on its own mean; NaN dropped first):
    the sum of lagged cross products over the sum of squares, all series together."""
    num, den = np.zeros(lags), 0.0
    for s in series:
        x = np.asarray(s, dtype=float)
        x = x[np.isfinite(x)]
        if len(x) < 3:
            continue
        x = x - x.mean()
        den += float(x @ x)
        for h in range(1, min(lags, len(x) - 1) + 1):
            num[h - 1] += float(x[h:] @ x[:-h])
    return num / den if den > 0 else np.zeros(lags)


def serial_rho(series: Sequence[np.ndarray]) -> float:
    """ρ̂ of the module docstring: the pooled lag-1 autocorrelation with the centring bias
    removed (n: the shortest series), in [0, RHO_MAX]; 0 without a series of 5 launches."""
    lengths = [int(np.isfinite(np.asarray(s, dtype=float)).sum()) for s in series]
    usable = [s for s, k in zip(series, lengths) if k >= 3]
    if not usable or min(k for k in lengths if k >= 3) < 5:
        return 0.0
    n = min(k for k in lengths if k >= 3)
    r1 = float(autocorrelations(usable, 1)[0])
    return float(min(RHO_MAX, max(0.0, (n * r1 + 1) / (n - 3))))


def ar1_inflation(rho: float, n_a: int, n_b: int) -> float:
    """Var(ȳ_B − ȳ_A) of an AR(1) series with lag-1 autocorrelation ``rho``, B's n_b launches
    right after A's n_a, over that of exchangeable launches (σ²/n_a + σ²/n_b); ≥ 1."""
    if rho <= 0 or n_a < 1 or n_b < 1:
        return 1.0
    t = np.arange(n_a + n_b)
    cov = rho ** np.abs(t[:, None] - t[None, :])
    w = np.concatenate([np.full(n_a, -1 / n_a), np.full(n_b, 1 / n_b)])
    return max(1.0, float(w @ cov @ w) / (1 / n_a + 1 / n_b))


def inflation(series: Sequence[np.ndarray], n_a: int | None = None, n_b: int | None = None) -> float:
    """f of the module docstring for ``series`` (the campaigns' rows), with n_a and n_b launches
    (default: the shortest series)."""
    n = min((int(np.isfinite(np.asarray(s, dtype=float)).sum()) for s in series), default=0)
    if n < 3:
        return 1.0
    return ar1_inflation(serial_rho(series), n_a or n, n_b or n)


def lag1(series: Sequence[np.ndarray]) -> float:
    """The pooled lag-1 autocorrelation (each series centred on its own mean)."""
    return float(autocorrelations(series, 1)[0])


def widen(p: float, f: float, alternative: str, launches: int) -> float:
    """A test's p with the variance of its statistic × ``f``: p turned into its normal score,
    the score divided by √f and read on Student's t with (launches / f − 2) degrees of freedom
    (``launches``: both sides together; the effective sample, whose variance is itself
    estimated) — p itself at f = 1, larger for f > 1, so the widening only ever takes
    significance away."""
    if f <= 1 or not math.isfinite(p):
        return p
    tail = p / 2 if alternative == "two-sided" else p
    z = float(norm.isf(tail)) / math.sqrt(f)
    one = float(student_t.sf(z, max(1.0, launches / f - 2)))
    return max(p, min(1.0, 2 * one if alternative == "two-sided" else one))


def widened_p(a: np.ndarray, b: np.ndarray, f: float, alternative: str) -> tuple[float, str]:
    """(p, how) of the rank-sum test of a against b (hypothesis.rank_sum: exact whenever
    computable; ``alternative`` about a relative to b) widened by ``f`` (:func:`widen`)."""
    plain = hypothesis.rank_sum(a, b, alternative=alternative)
    p = float(plain.p_value)
    if f <= 1 or not math.isfinite(p):
        return p, str(plain.method)
    return widen(p, f, alternative, len(a) + len(b)), f"{plain.method}, widened"


def widened_confidence(confidence: float, f: float, launches: int) -> float:
    """The confidence at which the plain test's interval (two-sided, at 1 − level) is as wide as
    the widened test's (:func:`widen`): the plain p at which the widened p reaches the level,
    turned back into a confidence — the same inversion, so the interval still excludes 1 exactly
    where the widened test is significant."""
    if f <= 1:
        return confidence
    z = float(student_t.isf((1 - confidence) / 2, max(1.0, launches / f - 2))) * math.sqrt(f)
    return float(min(1 - 1e-12, 1 - 2 * norm.sf(z)))
