# SPDX-License-Identifier: BSD-3-Clause
"""Huber M-estimation by iteratively reweighted least squares: statsmodels' ``RLM(endog, exog,
M=HuberT(t)).fit(cov="H1")`` with its defaults (MAD scale about 0 updated every iteration,
convergence of the deviance to 1e-8 in at most 50 iterations), computed by the same numpy
operations in the same order, so the same numbers to the last bit
(python/tests/test_stats_rlm.py compares them on random fits, outliers, per-point t and exact
fits included), without the model, data and results objects statsmodels builds on every fit and
every iteration: those were nearly all of a cost model's time (a launch-resampled line is eleven
fits, a piecewise model tens of segments). Huber (1981) §7.8; statsmodels 0.15
``robust/robust_linear_model.py``."""

from __future__ import annotations

import numpy as np

GAUSSIAN_3_4 = 0.6744897501960817  # statsmodels.robust.scale.Gaussian.ppf(3/4): the MAD's constant
MAXITER = 50
TOL = 1e-8


def _rho(z: np.ndarray, t, half_t2) -> np.ndarray:
    """HuberT's rho; ``half_t2``: 0.5 * t**2, the same on every iteration of a fit."""
    absz = np.abs(z)
    test = np.less_equal(absz, t)
    return test * 0.5 * z**2 + (1 - test) * (absz * t - half_t2)


def _weights(z: np.ndarray, t) -> np.ndarray:
    """HuberT's weights, 1 where |z| ≤ t, else t / |z|: t / max(|z|, t) is both, as statsmodels
    computes them (its ``test + (1 − test) · t / |z|`` adds an exact 0 or 1), for every t > 0 (a
    Huber constant); a quarter of an iteration's small operations fewer."""
    return t / np.maximum(np.abs(z), t)


def _mad(resid: np.ndarray) -> float:
    """statsmodels' ``mad(resid, center=0)``: np.median of |resid| / Φ⁻¹(3/4), its middle value or
    the mean of its middle two ((a + b) / 2, as np.mean of two takes it) from one partition,
    without np.median's general machinery (called on every iteration). statsmodels' centring
    ``resid − 0.0`` changes no value, so it is not made; the new array is partitioned in place
    (np.partition would copy it first)."""
    part = np.abs(resid)
    part /= GAUSSIAN_3_4
    n = part.size
    half = n // 2
    if n % 2:
        part.partition(half)
        middle = part[half]
    else:
        part.partition((half - 1, half))
        middle = (part[half - 1] + part[half]) / 2.0
    return np.float64(np.nan) if np.isnan(part).any() else middle


def _pinv_extended(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """statsmodels.tools.tools.pinv_extended (rcond 1e-15): the first fit's pseudo-inverse."""
    u, s, vt = np.linalg.svd(x, False)
    s_orig = np.copy(s)
    cutoff = 1e-15 * np.maximum.reduce(s)
    for i in range(min(vt.shape[1], u.shape[0])):
        s[i] = 1.0 / s[i] if s[i] > cutoff else 0.0
    return np.dot(np.transpose(vt), np.multiply(s[:, np.newaxis], np.transpose(u))), s_orig


def _pinv(x: np.ndarray) -> np.ndarray:
    """``np.linalg.pinv(x)`` of a real matrix (rcond 1e-15), its operations on the same arrays, without
    its checks and conversions, which cost more than the SVD of the iterations' n × 2 matrices."""
    u, s, vt = np.linalg.svd(x, full_matrices=False)
    large = s > 1e-15 * s.max()
    s = np.divide(1, s, where=large, out=s)
    s[~large] = 0
    return np.matmul(vt.T, np.multiply(s[:, np.newaxis], u.T))


def huber_rlm(endog: np.ndarray, exog: np.ndarray, t=1.345, *, with_cov: bool = True
              ) -> tuple[np.ndarray, np.ndarray | None]:
    """The parameters and (``with_cov``) the H1 covariance of the Huber fit of ``endog`` on the
    columns of ``exog``; ``t`` Huber's constant, a number or one per point. Exactly fitted data
    (scale 0) end the iteration there, as statsmodels does after its warning."""
    nobs, columns = exog.shape
    # the first fit: ordinary least squares as statsmodels' WLS with unit weights
    pinv_wexog, singular = _pinv_extended(exog)
    rank = np.linalg.matrix_rank(np.diag(singular))
    params = np.dot(pinv_wexog, endog)
    fitted = np.dot(exog, params)
    wresid = endog - np.dot(exog, params)
    dev_scale = np.dot(wresid, wresid) / (float(nobs) - rank)
    resid = endog - fitted
    scale = _mad(resid)
    half_t2 = 0.5 * t**2
    previous = _rho(resid / dev_scale, t, half_t2).sum()
    iteration = 1
    while True:
        if scale == 0.0:
            break
        weights = _weights(resid / scale, t)
        w_half = np.sqrt(weights)
        if not np.isfinite(w_half).all():
            raise ValueError("NaN, inf or invalid value detected in weights, estimation infeasible.")
        wendog = w_half * endog
        wexog = w_half[:, None] * exog
        params = _pinv(wexog).dot(wendog)
        fitted = exog.dot(params)
        resid = endog - fitted
        wresid = wendog - wexog.dot(params)
        dev_scale = np.dot(wresid, wresid) / (nobs - columns)
        scale = _mad(resid)
        deviance = _rho(resid / dev_scale, t, half_t2).sum()
        iteration += 1
        # the deviance is a number: a comparison, not np.any's reduction
        if not (abs(deviance - previous) > TOL and iteration < MAXITER):
            break
        previous = deviance
    if not with_cov:
        return params, None
    return params, _h1_cov(endog, exog, params, scale, t)


def _h1_cov(endog: np.ndarray, exog: np.ndarray, params: np.ndarray, scale: float, t) -> np.ndarray:
    """statsmodels' RLMResults.bcov_scaled with cov="H1" (Huber 1981 §7.6, correction factor k)."""
    pinv = _pinv(exog)
    normalized = np.dot(pinv, np.transpose(pinv))
    rank = np.linalg.matrix_rank(exog)
    nobs, df_resid, df_model = float(exog.shape[0]), float(exog.shape[0] - rank), float(rank - 1)
    resid = endog - np.dot(exog, params)
    sresid = np.zeros_like(resid) if scale == 0.0 else resid / scale
    psi_deriv = np.less_equal(np.abs(sresid), t).astype(float)
    test = np.less_equal(np.abs(sresid), t)
    psi = test * sresid + (1 - test) * t * np.sign(sresid)
    m = np.mean(psi_deriv)
    var_psiprime = np.var(psi_deriv)
    k = 1 + (df_model + 1) / nobs * var_psiprime / m**2
    ss_psi = np.sum(psi**2)
    s_psi_deriv = np.sum(psi_deriv)
    return k**2 * (1 / df_resid * ss_psi * scale**2) / ((1 / nobs * s_psi_deriv) ** 2) * normalized
