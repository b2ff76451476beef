# SPDX-License-Identifier: BSD-3-Clause
"""Variance components of a one-way nested layout: launches within groups (allocations).

The per-launch values y_ij of one test (group i = 1..a, launch j = 1..n_i, N launches in all)
are taken as y_ij = μ + G_i + e_ij with the group's effect G_i of variance σ²_G and the launch's
e_ij of variance σ²_L (which holds the noise of the launch's own summary too). The ANOVA
estimators for unbalanced data (Searle, Casella & McCulloch 1992, *Variance Components*, ch. 3,
the 1-way classification):

    MS_G = Σ n_i (ȳ_i − ȳ)² / (a − 1),   MS_L = Σ_i Σ_j (y_ij − ȳ_i)² / (N − a),
    n0 = (N − Σ n_i² / N) / (a − 1),
    σ²_L = MS_L,   σ²_G = max(0, (MS_G − MS_L) / n0)   (an estimate below 0 is taken as 0).

F = MS_G / MS_L with (a − 1, N − a) degrees of freedom tests σ²_G = 0 (exact under normality).
The share ρ = σ²_G / (σ²_G + σ²_L) gets the interval from F's quantiles (same chapter; exact
for equal n_i, with n0 in place of n otherwise):

    ρ_low = (F/F_hi − 1) / (F/F_hi + n0 − 1),   ρ_high = (F/F_lo − 1) / (F/F_lo + n0 − 1),

F_lo, F_hi the (1 ∓ confidence)/2 quantiles, clamped to [0, 1]; σ²_L gets the chi-square
interval of a variance with N − a degrees of freedom.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats as _sp


@dataclass(frozen=True, kw_only=True)
class NestedComponents:
    groups: int  # a
    values: int  # N
    between_groups: float  # σ²_G
    within_groups: float  # σ²_L
    within_low: float
    within_high: float
    share: float | None  # ρ; None when both components are 0
    share_low: float
    share_high: float
    f_statistic: float
    p_value: float  # of σ²_G = 0
    confidence: float


def nested_components(values: Sequence[float], groups: Sequence[object], *,
                      confidence: float = 0.95) -> NestedComponents:
    """The components of ``values`` (one per launch) grouped by ``groups`` (one label per value).
    ValueError unless there are at least two groups and more values than groups."""
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence}")
    y = np.asarray(values, dtype=float)
    if y.ndim != 1 or len(y) != len(groups) or not np.all(np.isfinite(y)):
        raise ValueError("one finite value per group label is needed")
    labels = list(dict.fromkeys(groups))
    a, n_total = len(labels), len(y)
    if a < 2 or n_total <= a:
        raise ValueError(f"{a} group(s) of {n_total} values: at least two groups and more values "
                         "than groups are needed")
    members = [y[[g == label for g in groups]] for label in labels]
    sizes = np.array([len(m) for m in members], dtype=float)
    means = np.array([m.mean() for m in members])
    grand = y.mean()
    ms_g = float(np.sum(sizes * (means - grand) ** 2) / (a - 1))
    df_l = n_total - a
    ms_l = float(sum(np.sum((m - m.mean()) ** 2) for m in members) / df_l)
    n0 = float((n_total - np.sum(sizes ** 2) / n_total) / (a - 1))
    between = max(0.0, (ms_g - ms_l) / n0)
    tail = (1 - confidence) / 2
    within_low = df_l * ms_l / float(_sp.chi2.ppf(1 - tail, df_l))
    within_high = df_l * ms_l / float(_sp.chi2.ppf(tail, df_l))
    common = {"groups": a, "values": n_total, "confidence": confidence}
    if ms_l == 0.0:  # every group constant within: all of the variance is between groups, if any
        if ms_g == 0.0:
            return NestedComponents(**common, between_groups=0.0, within_groups=0.0, within_low=0.0,
                                    within_high=0.0, share=None, share_low=0.0, share_high=1.0,
                                    f_statistic=float("nan"), p_value=1.0)
        return NestedComponents(**common, between_groups=between, within_groups=0.0, within_low=0.0,
                                within_high=0.0, share=1.0, share_low=1.0, share_high=1.0,
                                f_statistic=float("inf"), p_value=0.0)
    f = ms_g / ms_l
    f_lo, f_hi = float(_sp.f.ppf(tail, a - 1, df_l)), float(_sp.f.ppf(1 - tail, a - 1, df_l))

    def share_at(ratio: float) -> float:
        return float(min(1.0, max(0.0, (ratio - 1) / (ratio + n0 - 1))))

    return NestedComponents(**common, between_groups=between, within_groups=ms_l, within_low=within_low,
                            within_high=within_high, share=between / (between + ms_l),
                            share_low=share_at(f / f_hi), share_high=share_at(f / f_lo), f_statistic=f,
                            p_value=float(_sp.f.sf(f, a - 1, df_l)))
