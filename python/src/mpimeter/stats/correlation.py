# SPDX-License-Identifier: BSD-3-Clause
"""Does a counter go with the run time? Pearson's r and Spearman's ρ of a counter's value and the
run time of each repetition (Roth 2021 §4.6, which correlates MPI and hardware counters with
iteration times), within launches, on prewhitened series.

What: both variables are centred on the median of their launch (``groups``), each is
prewhitened (below), and scipy's ``pearsonr`` and ``spearmanr`` are applied to the pooled
residuals. Why within launches: a launch is a factor of its own (Hunold & Carpen-Amarie 2016
§4.2) — one launch may be faster and also read a larger counter (another placement, another
transport) without any repetition being slow *because* of the counter; pooling raw values would
then show a correlation that no repetition explains. Centring removes what differs between
launches.

Why prewhitened: the repetitions of a launch are not independent — run times and counters
drift, and successive repetitions resemble each other. Two independent series that both wander
correlate by chance far more often than the independent-pairs p-value says (28.5 % Holm false
positives for independent AR(1) φ = 0.5 series, 66.5 % of campaigns with independent random
walks). The test made for this is the cross-correlation of prewhitened series (Box &
Jenkins, *Time Series Analysis*, §11.2; Haugh 1976, JASA 71:378): each series is replaced by
the innovations of its own AR(1) fit, e_t = x_t − φ̂·x_{t−1} within each launch, φ̂ the lag-1
autocorrelation pooled over the launches, corrected for its bias (Kendall 1954, Biometrika 41:403:
E φ̂ ≈ φ − (1 + 3φ)/n, so φ̃ = (n·φ̂ + 1)/(n − 3), n the repetitions per launch; without it a
random walk of 60 repetitions keeps a third of its wander) and clipped to [−0.99, 1].

Why φ̃ ≥ 0.9 is rounded to 1 (the series differenced): a unit root is present or cannot be told
apart. With 60 repetitions a random walk's φ̃ scatters around 0.97, and each shortfall leaves a
piece of the walk in the residuals, which two independent walks' residuals can share by chance.
The effect is small and was not shown beyond noise: on 6000 pairs of independent walks (4 launches
× 60) the p-value fell below the Holm level 0.05/12 in 0.53 % before and 0.43 % after (nominal
0.42 %), and the rate of campaigns with a Holm-significant row was 5.3 % of 1000 both ways (the
12-row family of bench/stats_dependence.py; i.i.d. 4.7 %) — Holm's rate is α itself when the rows
are nearly independent. Differencing
is the textbook remedy for two series with unit roots (Granger & Newbold 1974, J. Econometrics
2:111, spurious regressions; Box & Jenkins §4.1). It costs nothing when the root is only near 1:
the differences of an AR(1) φ ≥ 0.9 series have lag-1 autocorrelation −(1 − φ)/2 ≥ −0.05, which
moves the null variance of a cross-correlation by under 1 % (Bartlett 1935: 1 + 2·Σ ρ_x(k)ρ_y(k)).
Measured on 6000 pairs of independent series (4 launches × 60): random walks 5.2 % at α = 0.05 and
0.43 % at 0.05/12; AR(1) φ = 0.9 5.0 % and 0.38 %.
Under independence the residuals of the two series are (nearly) white and independent, so the
ordinary p-values hold (``n`` pairs: the residuals, one fewer per launch than repetitions). What
is left is whether a repetition that is slower than its predecessor predicts also reads more of
the counter — the association a repetition explains; a common drift (a warm-up) shows in the
categories, not here. ``prewhiten=False`` gives the plain within-launch correlation.

Every test here has its null check (python/tests/test_stats_correlation.py,
bench/stats_dependence.py section ``correlation``): on independent data — i.i.d., with launch
effects, AR(1) φ = 0.5 and random walks — the Holm-corrected warning fires in at most 5 % of
simulated campaigns; its power is shown beside.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats as _st

from mpimeter.stats.median import median_finite

MIN_REPETITIONS = 10  # fewer pairs: no test
PHI_BOUNDS = (-0.99, 1.0)
UNIT_ROOT_PHI = 0.9  # φ̃ at or above: differenced (module docstring)


@dataclass(frozen=True, kw_only=True)
class Correlation:
    """``n`` pairs (prewhitened: residuals) from ``groups`` launches; NaN statistics (and
    ``constant``) when a side does not vary within its launches, or with fewer than
    MIN_REPETITIONS pairs. ``phi_x``, ``phi_y``: the AR(1) coefficients removed (0 without
    prewhitening)."""

    n: int
    groups: int
    pearson_r: float
    pearson_p: float
    spearman_rho: float
    spearman_p: float
    constant: bool = False
    phi_x: float = 0.0
    phi_y: float = 0.0


def group_parts(groups: np.ndarray) -> list[np.ndarray]:
    """The positions of each group's values (groups in ascending order, positions in the order of
    the values: what ``values[groups == g]`` selects), found once for the several passes of a
    correlation (a mask per group and pass was a third of its time)."""
    keys, inverse, counts = np.unique(groups, return_inverse=True, return_counts=True)
    return np.split(np.argsort(inverse.ravel(), kind="stable"), np.cumsum(counts)[:-1]) if keys.size else []


def centred(values: np.ndarray, parts: list[np.ndarray]) -> np.ndarray:
    """``values`` minus the median of their group (``parts``: :func:`group_parts`)."""
    values = np.asarray(values, dtype=float)
    out = np.empty_like(values)
    for index in parts:
        v = values[index]
        # np.median's NaN check: a NaN median for a group that holds one
        out[index] = v - (median_finite(v) if np.isfinite(v).all() else np.median(v))
    return out


def pooled_lag1(values: np.ndarray, parts: list[np.ndarray]) -> float:
    """The lag-1 autocorrelation of ``values`` (in order within each group of ``parts``:
    :func:`group_parts`) pooled over the groups: Σ (x_t − x̄)(x_{t−1} − x̄) / Σ (x_t − x̄)², x̄ the group's mean; NaN when nothing
    varies."""
    num = den = 0.0
    for index in parts:
        v = values[index]
        v = v - v.mean()
        num += float(np.dot(v[1:], v[:-1]))
        den += float(np.dot(v, v))
    return num / den if den > 0 else math.nan


def prewhitened(values: np.ndarray, parts: list[np.ndarray]) -> tuple[np.ndarray, float]:
    """The AR(1) innovations x_t − φ̂·x_{t−1} within each group (its first value has none and is
    left out) and φ̂ (module docstring; 1 — the differences — when the corrected φ̃ ≥ 0.9)."""
    phi = pooled_lag1(values, parts)
    per_group = values.size / max(len(parts), 1)
    if math.isfinite(phi) and per_group > 3:  # Kendall's bias correction (module docstring)
        phi = (per_group * phi + 1.0) / (per_group - 3.0)
    phi = 0.0 if not math.isfinite(phi) else float(np.clip(phi, *PHI_BOUNDS))
    if phi >= UNIT_ROOT_PHI:
        phi = 1.0
    innovations = []
    for index in parts:
        v = values[index]
        innovations.append(v[1:] - phi * v[:-1])
    return (np.concatenate(innovations) if innovations else np.empty(0)), phi


def within_groups(x: np.ndarray, y: np.ndarray, groups: np.ndarray | None = None, *,
                  prewhiten: bool = True) -> Correlation:
    """Pearson and Spearman correlation of ``x`` (a counter) and ``y`` (run times) within
    ``groups`` (launches; None: one group), both in repetition order within each group;
    prewhitened unless ``prewhiten`` is False (module docstring). Pairs with a NaN are left
    out."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    g = np.zeros(x.size, dtype=np.int64) if groups is None else np.asarray(groups)
    ok = np.isfinite(x) & np.isfinite(y)
    x, y, g = x[ok], y[ok], g[ok]
    ngroups = int(np.unique(g).size)
    n = int(x.size) - (ngroups if prewhiten else 0)
    nan = Correlation(n=max(n, 0), groups=ngroups, pearson_r=math.nan, pearson_p=math.nan, spearman_rho=math.nan,
                      spearman_p=math.nan)
    if n < MIN_REPETITIONS:
        return nan
    parts = group_parts(g)
    xc, yc = centred(x, parts), centred(y, parts)
    if np.ptp(xc) == 0 or np.ptp(yc) == 0:
        return Correlation(n=n, groups=ngroups, pearson_r=math.nan, pearson_p=math.nan, spearman_rho=math.nan,
                           spearman_p=math.nan, constant=True)
    phi_x = phi_y = 0.0
    if prewhiten:
        (xc, phi_x), (yc, phi_y) = prewhitened(xc, parts), prewhitened(yc, parts)
        if np.ptp(xc) == 0 or np.ptp(yc) == 0:
            return Correlation(n=n, groups=ngroups, pearson_r=math.nan, pearson_p=math.nan, spearman_rho=math.nan,
                               spearman_p=math.nan, constant=True, phi_x=phi_x, phi_y=phi_y)
    pr = _st.pearsonr(xc, yc)
    sr = _st.spearmanr(xc, yc)
    return Correlation(n=n, groups=ngroups, pearson_r=float(pr.statistic), pearson_p=float(pr.pvalue),
                       spearman_rho=float(sr.statistic), spearman_p=float(sr.pvalue), phi_x=phi_x, phi_y=phi_y)
