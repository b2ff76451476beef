# SPDX-License-Identifier: BSD-3-Clause
"""How much a series of repetitions hangs together, and the interval of its median that allows
for it: the Python twin of the `--nrep auto` decision in c/src/bench/adaptive.c (its unit test's
golden stopping points are written from here by c/tests/unit/golden/adaptive_golden.py).

Repetitions are not independent: a slow phase of the machine lasts many of them. With AR(1) run
times (φ = 0.5) the i.i.d. interval of the median at `--nrep auto`'s stop covered 81.7 %.

- :func:`sign_phi`: the lag-1 autocorrelation r of the signs of x_i − median (robust to
  outliers, and what the median's variance depends on), turned into the AR(1) coefficient of a
  Gaussian series with that sign correlation, φ = sin(π r / 2) (the arcsine law: the signs of a
  Gaussian pair with correlation ρ correlate (2/π) asin ρ), plus one standard error
  √((1 − φ²)/n), clipped to [0, PHI_MAX].
- :func:`median_variance_factor`: f = 1 + 2 Σ_h (2/π) asin(φ^h), the long-run variance of the
  signs over their variance: the median of n such values varies as that of n / f independent
  ones.
- :func:`dependent_median_ranks`: the ranks of the interval of n / f values (Le Boudec's, as
  ``intervals.median_ci_ranks``) at the same quantile positions, mapped outwards onto n.

Cost: O(n) for φ, O(log(1e-12) / log φ) for f.
"""

from __future__ import annotations

import math

import numpy as np

from mpimeter.stats.intervals import median_ci_ranks

PHI_MAX = 0.99
LAGS_MAX = 100_000


def sign_phi(in_order: np.ndarray) -> float:
    """φ of the series (in repetition order) from the lag-1 correlation of its signs, one
    standard error up."""
    x = np.asarray(in_order, dtype=float)
    if x.size == 0:
        return 0.0
    s = np.sign(x - float(np.median(x)))
    total = float(s @ s)
    if not total > 0:
        return 0.0
    phi = math.sin(math.pi / 2 * float(s[1:] @ s[:-1]) / total)
    # one standard error up: a rule that stops when the interval is narrow stops where φ came out
    # low by chance (without it the interval at the stop covered 92 % on AR(1) φ = 0.5, with it 95 %)
    phi += math.sqrt(max(1.0 - phi * phi, 0.0) / x.size)
    return min(max(phi, 0.0), PHI_MAX)


def median_variance_factor(phi: float) -> float:
    """f: how many times more the median of a series with this φ varies than an i.i.d. one's."""
    if not phi > 0:
        return 1.0
    f, power, h = 1.0, phi, 1
    while h <= LAGS_MAX and power > 1e-12:
        f += 2.0 * (2.0 / math.pi) * math.asin(power)
        power *= phi
        h += 1
    return f


def dependent_median_ranks(n: int, confidence: float, factor: float) -> tuple[int, int] | None:
    """1-based ranks (j, k) of the median's interval for n values worth n / factor independent
    ones; None when n / factor values are too few for an interval."""
    if not factor > 1.0:
        return median_ci_ranks(n, confidence)
    ne = int(math.floor(n / factor))
    r = median_ci_ranks(ne, confidence) if ne >= 1 else None
    if r is None:
        return None
    je, ke = r
    j = max(1, int(math.floor(je * (n + 1) / (ne + 1))))
    k = min(n, int(math.ceil(ke * (n + 1) / (ne + 1))))
    return j, k


def precision_ci(in_order: np.ndarray, confidence: float) -> float:
    """What `--nrep auto:ci` decides on: the larger distance of the dependent interval's bounds
    from the median, over the median (NaN: no interval, or a median that is not positive)."""
    x = np.asarray(in_order, dtype=float)
    ranks = dependent_median_ranks(x.size, confidence, median_variance_factor(sign_phi(x)))
    s = np.sort(x)
    med = float(np.median(s)) if s.size else math.nan
    if ranks is None or not med > 0:
        return math.nan
    j, k = ranks
    return max(med - s[j - 1], s[k - 1] - med) / med


def mean_variance_factor(phi: float) -> float:
    """(1 + φ) / (1 − φ): how many times more a mean of AR(1) values varies than an i.i.d. one."""
    return (1 + phi) / (1 - phi)
