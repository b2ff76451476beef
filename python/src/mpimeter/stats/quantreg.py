# SPDX-License-Identifier: BSD-3-Clause
"""Tails compared by quantile regression (Hoefler & Belli 2015 §3.2.3; Koenker 2005): the ratio
b / a of the q-quantiles of two alternatives' run times, with its interval and p.

The launch is the unit of replication (Hunold & Carpen-Amarie 2016 §4.2): the repetitions of
one launch share its state, so a regression on the repetitions pooled over launches would take
thousands of correlated values for independent ones and call a launch-wide shift significant.
So, in two steps:

1. per launch, the q-quantile of its log run times (``launch_log_quantiles``; log-normalization,
   §3.1.2: a ratio of times becomes a difference);
2. statsmodels' ``QuantReg`` of those per-launch values on an intercept and the alternative
   (0 for a, 1 for b) at the median over launches (τ = 0.5, robust to one odd launch as the
   median of medians is): the coefficient is the log ratio of the median per-launch q-quantiles;
   its interval and p are statsmodels' (the sandwich standard error with a kernel estimate of the
   density, t with n − 2 degrees of freedom).

Why not a launch-level bootstrap of a regression on all repetitions: one QuantReg fit on 10 000
repetitions takes 0.3–2 s here, and a bootstrap needs hundreds per row. The calibration of step 2
with few launches is measured in ``bench/quantile_compare.py`` (docs/ALGORITHMS.md quotes it).

Pure functions on arrays; cost: one QuantReg fit on n_a + n_b points per row.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Sequence

import numpy as np

MIN_LAUNCHES = 3  # per alternative, as compare's rank-sum test


@dataclass(frozen=True, kw_only=True)
class QuantileRatio:
    """``ratio`` b / a of the median per-launch q-quantiles, with its interval and two-sided p;
    NaN with fewer than :data:`MIN_LAUNCHES` launches on a side."""

    ratio: float
    low: float
    high: float
    p_value: float
    launches_a: int
    launches_b: int


def launch_log_quantiles(launches: Sequence[np.ndarray], q: float) -> np.ndarray:
    """The q-quantile of each launch's log run times (positive values only; a launch with none
    is left out). Quantiles of the empirical distribution (``inverted_cdf``): a value that was
    measured, as QuantReg's own solutions are."""
    out = []
    for x in launches:
        x = np.asarray(x, dtype=float)
        x = x[np.isfinite(x) & (x > 0)]
        if x.size:
            out.append(float(np.quantile(np.log(x), q, method="inverted_cdf")))
    return np.array(out, dtype=float)


def quantile_ratio(log_qa: np.ndarray, log_qb: np.ndarray, *, confidence: float = 0.95) -> QuantileRatio:
    """QuantReg at τ = 0.5 of the per-launch log quantiles on the alternative (module docstring)."""
    from statsmodels.regression.quantile_regression import QuantReg  # heavy: only when asked

    a, b = np.asarray(log_qa, dtype=float), np.asarray(log_qb, dtype=float)
    na, nb = int(a.size), int(b.size)
    if na < MIN_LAUNCHES or nb < MIN_LAUNCHES:
        return QuantileRatio(ratio=math.nan, low=math.nan, high=math.nan, p_value=math.nan, launches_a=na,
                             launches_b=nb)
    y = np.concatenate([a, b])
    if np.ptp(a) == 0 and np.ptp(b) == 0:  # no spread: the kernel density is undefined
        d = float(b[0] - a[0])
        return QuantileRatio(ratio=math.exp(d), low=math.exp(d), high=math.exp(d), p_value=1.0 if d == 0 else 0.0,
                             launches_a=na, launches_b=nb)
    x = np.column_stack([np.ones(y.size), np.r_[np.zeros(na), np.ones(nb)]])
    with warnings.catch_warnings():  # its iteration-limit and convergence notes: the estimate is still a minimizer
        warnings.simplefilter("ignore")
        fit = QuantReg(y, x).fit(q=0.5)
        low, high = fit.conf_int(alpha=1 - confidence)[1]
        p = float(fit.pvalues[1])
    coef = float(fit.params[1])
    return QuantileRatio(ratio=math.exp(coef), low=math.exp(float(low)), high=math.exp(float(high)),
                         p_value=p if math.isfinite(p) else 1.0, launches_a=na, launches_b=nb)
