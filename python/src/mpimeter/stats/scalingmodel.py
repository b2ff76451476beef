# SPDX-License-Identifier: BSD-3-Clause
"""Models of a collective's time in message size m and process count p (Hoefler &
Belli 2015 §5.1 ask for the scaling of a result): two-parameter families, each fitted to
per-launch medians at every (p, m), the family chosen by the data, and whether it fits.

Families (the latency term α per step, the bandwidth term β per byte):
  log        T = α·⌈log₂ p⌉ + β·m             (a tree of ⌈log₂ p⌉ rounds, m sent once per rank: e.g.
                                               a pipelined or scatter-allgather broadcast)
  log-tree   T = α·⌈log₂ p⌉ + β·m·⌈log₂ p⌉    (a binomial tree forwarding the whole message each round)
  linear     T = α·(p − 1) + β·m·(p − 1)/p    (a ring: p − 1 steps moving m/p each; Thakur, Rabenseifner
                                               & Gropp 2005's ring allgather/reduce-scatter terms)

The fit and its honesty follow the size models (stats.costmodel): every point divided by the
median time at its (p, m), so that every point weighs alike; a robust fit (statsmodels RLM,
Huber's T); intervals by the delete-one-launch jackknife with Student-t, launches − 1 df, and
none with fewer than costmodel.MIN_INTERVAL_LAUNCHES launches. The family chosen is the one of
least BIC with Huber's loss at one common noise scale σ₀ (the spread of the points of one (p, m)
among themselves): all families have k = 2 parameters, so BIC ranks them by that loss. A point
is missed when the chosen model's band and the measured median's interval do not overlap, or
its relative error exceeds the error threshold whatever the intervals; a point neither can
judge is not checked. The verdict says which: "fits", "misses", or "not checked".
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats as _st

from mpimeter.stats.costmodel import (ERROR_THRESHOLD, MIN_INTERVAL_LAUNCHES, group_median, huber_loss,
                                      pure_noise)
from mpimeter.stats.rlm import huber_rlm


def _log(p):
    return np.ceil(np.log2(np.maximum(np.asarray(p, dtype=float), 1.0)))


FAMILIES = {
    "log": ("α·⌈log₂p⌉ + β·m", lambda p, m: np.column_stack([_log(p), m])),
    "log-tree": ("α·⌈log₂p⌉ + β·m·⌈log₂p⌉", lambda p, m: np.column_stack([_log(p), m * _log(p)])),
    "linear": ("α·(p−1) + β·m·(p−1)/p", lambda p, m: np.column_stack([p - 1.0, m * (p - 1.0) / p])),
}


@dataclass(frozen=True, kw_only=True)
class PointError:
    nprocs: int
    size: int
    median_ns: float
    predicted_ns: float
    band_ns: tuple[float, float] | None
    rel_error: float
    missed: bool | None  # None: not checked


@dataclass(frozen=True, kw_only=True)
class FamilyFit:
    family: str
    formula: str
    alpha_ns: float
    beta_ns_per_byte: float
    cov: np.ndarray | None  # jackknife covariance of (α, β); None: no interval
    df: int
    loss: float  # Huber's loss of the relative residuals at σ₀ (BIC − k·ln n, the same k for all)
    bic: float

    def predict(self, p, m) -> np.ndarray:
        return FAMILIES[self.family][1](np.atleast_1d(np.asarray(p, float)), np.atleast_1d(np.asarray(m, float))) @ \
            np.array([self.alpha_ns, self.beta_ns_per_byte])

    def interval(self, i: int, confidence: float) -> tuple[float, float] | None:
        """The interval of α (i = 0) or β (i = 1); None without one."""
        if self.cov is None:
            return None
        t = float(_st.t.ppf(0.5 + confidence / 2, self.df))
        value, se = (self.alpha_ns, self.beta_ns_per_byte)[i], math.sqrt(max(float(self.cov[i, i]), 0.0))
        return (value - t * se, value + t * se)

    def band(self, p: int, m: int, confidence: float) -> tuple[float, float] | None:
        if self.cov is None:
            return None
        x = FAMILIES[self.family][1](np.array([float(p)]), np.array([float(m)]))[0]
        se = math.sqrt(max(float(x @ self.cov @ x), 0.0))
        t = float(_st.t.ppf(0.5 + confidence / 2, self.df))
        pred = float(self.predict(p, m)[0])
        return (pred - t * se, pred + t * se)


def _rlm(design: np.ndarray, y: np.ndarray, scale: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    # statsmodels' RLM with HuberT() to the last bit, without its objects (mpimeter.stats.rlm)
    with np.errstate(all="ignore"):  # exactly fitted data (scale 0): the fit stands
        params, _ = huber_rlm(y / scale, design / scale[:, None], with_cov=False)
    params = np.asarray(params, dtype=float)
    return params, y / scale - (design / scale[:, None]) @ params


def fit_families(nprocs, sizes, times, launches) -> list[FamilyFit]:
    """Every family fitted to the points (one per launch and (p, m)), least BIC first."""
    p, m, y = (np.asarray(v, dtype=float) for v in (nprocs, sizes, times))
    labels = np.asarray([str(x) for x in launches])
    keys = p * 1e12 + m  # one key per (p, m)
    scale = group_median(keys, y)
    sigma = pure_noise(keys, y / scale) or 0.01  # no repeated point: 1 % (every family alike)
    units = np.unique(labels)
    fits = []
    for name, (formula, make) in FAMILIES.items():
        design = make(p, m)
        params, resid = _rlm(design, y, scale)
        cov, df = None, len(units) - 1
        if len(units) >= MIN_INTERVAL_LAUNCHES:
            thetas = []
            for u in units:
                keep = labels != u
                if keep.sum() < 3 or np.linalg.matrix_rank(design[keep]) < 2:
                    thetas = []
                    break
                thetas.append(_rlm(design[keep], y[keep], scale[keep])[0])
            if thetas:
                th = np.array(thetas)
                d = th - th.mean(axis=0)
                cov = (len(units) - 1) / len(units) * (d.T @ d)
        loss = huber_loss(resid / sigma)
        fits.append(FamilyFit(family=name, formula=formula, alpha_ns=float(params[0]),
                              beta_ns_per_byte=float(params[1]), cov=cov, df=df, loss=loss,
                              bic=2 * loss + 2 * math.log(len(y))))
    return sorted(fits, key=lambda f: f.bic)


def point_errors(fit: FamilyFit, points, *, confidence: float,
                 error_threshold: float = ERROR_THRESHOLD) -> tuple[PointError, ...]:
    """Per (p, m, median, ci_low, ci_high): the prediction, its band and whether it is missed."""
    out = []
    for p, m, med, lo, hi in points:
        pred = float(fit.predict(p, m)[0])
        band = fit.band(p, m, confidence)
        rel = (pred - med) / med if med > 0 else math.nan
        apart = None if lo is None or hi is None or band is None else bool(band[1] < lo or band[0] > hi)
        missed = True if math.isfinite(rel) and abs(rel) > error_threshold else apart
        out.append(PointError(nprocs=int(p), size=int(m), median_ns=float(med), predicted_ns=pred, band_ns=band,
                              rel_error=rel, missed=missed))
    return tuple(out)


def verdict(errors) -> str:
    """"fits" (every point checked, none missed), "misses" (some missed), or "not checked"."""
    if any(e.missed for e in errors):
        return "misses"
    if any(e.missed is None for e in errors):
        return "not checked"
    return "fits"
