# SPDX-License-Identifier: BSD-3-Clause
"""The numbers behind two distribution plots of Hoefler & Belli 2015: the normal Q-Q plot of
log-normalized run times (§3.1.2: "check the test result with a Q-Q plot"; many run times are
log-normal, so their logs should lie on a line) and the violin plot's density (§5.2,
"Histograms and violin plots"). Pure functions on arrays; the report draws them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats as _st

KDE_BLOCK = 1 << 15  # values per block of the kernel sums


@dataclass(frozen=True)
class NormalQQ:
    """``theoretical`` standard-normal quantiles at the plotting positions (i − ½)/n (Hazen),
    ``sample`` the sorted values, both ascending; the reference line ``intercept + slope · z``
    through the quartiles of both (R's qqline): points off it are where normality fails."""

    theoretical: np.ndarray
    sample: np.ndarray
    slope: float
    intercept: float


def normal_qq(values: np.ndarray) -> NormalQQ:
    """Normal Q-Q of the finite ``values``; an empty result when there are none."""
    y = np.sort(np.asarray(values, dtype=float))
    y = y[np.isfinite(y)]
    n = y.size
    z = _st.norm.ppf((np.arange(1, n + 1) - 0.5) / n) if n else np.empty(0)
    if n < 2:
        return NormalQQ(z, y, 0.0, float(y[0]) if n else 0.0)
    q1, q3 = np.quantile(y, [0.25, 0.75])
    z1, z3 = _st.norm.ppf([0.25, 0.75])
    slope = float((q3 - q1) / (z3 - z1))
    return NormalQQ(z, y, slope, float(q1 - slope * z1))


def violin_density(values: np.ndarray, *, points: int = 48) -> tuple[np.ndarray, np.ndarray]:
    """A Gaussian kernel density (Scott's bandwidth) of ``values`` on ``points`` values from their
    minimum to maximum; the density scaled to a peak of 1 (the plot sets the width). Fewer than
    2 distinct values: the grid is the value and the density 1."""
    x = np.asarray(values, dtype=float)
    x = x[np.isfinite(x)]
    if x.size == 0:
        return np.empty(0), np.empty(0)
    if np.ptp(x) == 0:
        return np.array([x[0]]), np.array([1.0])
    grid = np.linspace(float(x.min()), float(x.max()), points)
    # scipy's gaussian_kde(x)(grid) in one dimension, written out: its set-up (covariance,
    # Cholesky, whitening) cost more than the sums, 72 violins were a fifth of a report; the
    # bandwidth is its Scott's factor n^(-1/5) times the sample standard deviation
    h = float(np.std(x, ddof=1)) * x.size ** -0.2
    density = np.zeros(points)
    for lo in range(0, x.size, KDE_BLOCK):  # blocks bound the (points × values) memory
        d = (grid[:, None] - x[None, lo:lo + KDE_BLOCK]) / h
        density += np.exp(-0.5 * d * d).sum(axis=1)
    return grid, density / float(density.max())
