# SPDX-License-Identifier: BSD-3-Clause
"""mpimeter.stats.rlm gives statsmodels' RLM(M=HuberT(t)).fit(cov="H1") to the last bit: the
parameters and the covariance of random robust fits shaped as the cost models' (relative times
on 1/median and size/median columns, a few launches per size), with outliers, a per-point
Huber constant, a scalar one, three columns, and exactly fitted data (scale 0)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from mpimeter.stats.rlm import huber_rlm

sm = pytest.importorskip("statsmodels.api")


def _statsmodels(endog, exog, t):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = sm.RLM(endog, exog, M=sm.robust.norms.HuberT(t=t)).fit(cov="H1")
        return np.asarray(res.params, dtype=float), np.asarray(res.cov_params(), dtype=float)


def _problems():
    rng = np.random.default_rng(11)
    for case in range(60):
        sizes = np.repeat(8.0 * 4.0 ** np.arange(rng.integers(2, 9)), rng.integers(1, 6))
        times = (2000.0 + 0.5 * sizes) * np.exp(rng.normal(0, 0.03, sizes.size))
        times[rng.random(sizes.size) < 0.1] *= 2
        if case % 10 == 0:
            times = 2000.0 + 0.5 * sizes  # exactly a line: scale 0
        scale = np.array([np.median(times[sizes == s]) for s in sizes])
        exog = np.column_stack([1.0 / scale, sizes / scale] + ([np.sqrt(sizes) / scale] if case % 7 == 3 else []))
        t = 1.345 if case % 3 == 0 else 1.345 * rng.uniform(0.5, 3.0, sizes.size)
        if sizes.size >= exog.shape[1] + 1:
            yield times / scale, exog, t


def test_huber_rlm_is_statsmodels_to_the_last_bit():
    checked = 0
    for endog, exog, t in _problems():
        params, cov = _statsmodels(endog, exog, t)
        with np.errstate(all="ignore"):
            mine, mine_cov = huber_rlm(endog, exog, t)
        assert mine.tolist() == params.tolist()
        np.testing.assert_array_equal(mine_cov, cov)  # NaN where statsmodels has NaN
        checked += 1
    assert checked >= 50
