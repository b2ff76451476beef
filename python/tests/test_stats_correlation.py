# SPDX-License-Identifier: BSD-3-Clause
"""stats.correlation: reference values (scipy on hand-centred data), the within-launch rule, and
the null check of the analysis's counter-correlation warning (it fires in < 5 % of campaigns of
independent counters, with or without launch effects) next to its power (a counter that goes
with the run time is found)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats as st

from mpimeter.analysis import counters as ac
from mpimeter.stats import correlation as corr


def test_one_group_is_scipy():
    rng = np.random.default_rng(1)
    x = rng.normal(size=50)
    y = 0.5 * x + rng.normal(size=50)
    c = corr.within_groups(x, y, prewhiten=False)
    assert math.isclose(c.pearson_r, st.pearsonr(x, y).statistic, rel_tol=1e-12)
    assert math.isclose(c.spearman_p, st.spearmanr(x, y).pvalue, rel_tol=1e-9)
    assert (c.n, c.groups, c.constant) == (50, 1, False)


def test_groups_are_centred_on_their_medians():
    x = np.array([1.0, 2, 3, 10, 11, 12])
    g = np.array([0, 0, 0, 1, 1, 1])
    assert corr.centred(x, corr.group_parts(g)).tolist() == [-1, 0, 1, -1, 0, 1]


def test_a_difference_between_launches_is_not_a_correlation():
    """Launch 1 is slower and reads a larger counter; within each launch they are independent."""
    rng = np.random.default_rng(2)
    g = np.repeat([0, 1], 200)
    x = rng.poisson(10, 400) + 50 * g
    y = rng.normal(1000, 20, 400) + 300 * g
    pooled = st.spearmanr(x, y)
    assert pooled.pvalue < 1e-20  # what pooling would claim
    within = corr.within_groups(x, y, g, prewhiten=False)
    assert within.spearman_p > 0.01 and abs(within.spearman_rho) < 0.2


def test_constant_and_short_series_are_not_tested():
    c = corr.within_groups(np.repeat([5.0, 9.0], 20), np.arange(40.0), np.repeat([0, 1], 20))
    assert c.constant and math.isnan(c.spearman_p)
    c = corr.within_groups(np.arange(5.0), np.arange(5.0), prewhiten=False)
    assert not c.constant and math.isnan(c.pearson_p) and c.n == 5
    c = corr.within_groups(np.array([1.0, np.nan] * 10), np.arange(20.0), prewhiten=False)
    assert c.n == 10


def _campaign(rng, *, follows: bool, launch_effect: bool, launches=4, nrep=60, tests=3, counters=4):
    """The analysis's points table of one simulated campaign: per launch and test, run times with
    outliers, and counters independent of them (or the first following them)."""
    cols = {k: [] for k in ("launch", "size", "rep", "metric", "value", "run_time_ns")}
    for li in range(launches):
        shift = rng.lognormal(0, 0.3) if launch_effect else 1.0
        for t in range(tests):
            run = rng.lognormal(np.log(2000 * shift), 0.1, nrep)
            run[rng.random(nrep) < 0.03] *= 3
            for k in range(counters):
                if follows and k == 0:
                    value = np.rint(run / 50 + rng.poisson(3, nrep))
                else:
                    value = rng.poisson(20 * shift, nrep).astype(float)
                for key, v in (("launch", np.full(nrep, li)), ("size", np.full(nrep, 8 << t)),
                               ("rep", np.arange(nrep)), ("metric", np.full(nrep, f"c{k}")),
                               ("value", value), ("run_time_ns", run)):
                    cols[key].append(v)
    df = pd.DataFrame({k: np.concatenate(v) for k, v in cols.items()})
    df["alternative"], df["op"], df["category"] = "a", "allreduce", "good"
    df["nprocs"], df["root"] = 2, -1  # the points table's key columns (analysis.counters)
    return df


def test_null_check_the_warning_fires_rarely_on_independent_counters():
    rng = np.random.default_rng(20261122)
    fired = 0
    trials = 100
    for i in range(trials):
        points = _campaign(rng, follows=False, launch_effect=bool(i % 2))
        rows = ac._correlate(points, {})
        fired += any(r.explains for r in rows)
    assert fired / trials < 0.05, fired


def test_power_a_counter_that_follows_the_run_time_is_found():
    rng = np.random.default_rng(7)
    points = _campaign(rng, follows=True, launch_effect=True)
    rows = ac._correlate(points, {})
    found = {r.metric for r in rows if r.explains}
    assert found == {"c0"}
    assert all(r.spearman_rho > 0.5 for r in rows if r.metric == "c0")


def test_prewhitening_is_scipy_on_the_ar1_innovations():
    """Reference: φ̂ the pooled lag-1 autocorrelation with Kendall's correction, innovations
    x_t − φ̂·x_{t−1} per launch, then scipy."""
    rng = np.random.default_rng(11)
    g = np.repeat([0, 1], 40)
    x, y = rng.normal(size=80).cumsum(), rng.normal(size=80)
    c = corr.within_groups(x, y, g)
    parts = corr.group_parts(g)
    xc, yc = corr.centred(x, parts), corr.centred(y, parts)

    def innovations(v):
        num = den = 0.0
        for k in (0, 1):
            w = v[g == k] - v[g == k].mean()
            num, den = num + np.dot(w[1:], w[:-1]), den + np.dot(w, w)
        phi = min(max((40 * num / den + 1) / 37, -0.99), 1.0)
        phi = 1.0 if phi >= 0.9 else phi  # a unit root: differenced
        return np.concatenate([v[g == k][1:] - phi * v[g == k][:-1] for k in (0, 1)]), phi

    (ex, px), (ey, py) = innovations(xc), innovations(yc)
    assert c.n == 78 and math.isclose(c.phi_x, px, rel_tol=1e-12) and math.isclose(c.phi_y, py, rel_tol=1e-12)
    assert math.isclose(c.spearman_p, st.spearmanr(ex, ey).pvalue, rel_tol=1e-9)
    assert math.isclose(c.pearson_r, st.pearsonr(ex, ey).statistic, rel_tol=1e-12)


def _series(rng, kind, launches, nrep):
    """``launches`` independent series of ``nrep`` (rows): i.i.d. normal, AR(1) φ = 0.5 or random
    walks (issue 25), vectorised over the launches."""
    if kind == "iid":
        return rng.normal(0, 0.1, (launches, nrep))
    if kind == "walk":
        return np.cumsum(rng.normal(0, 0.02, (launches, nrep)), axis=1)
    e = rng.normal(0, 0.1 * np.sqrt(0.75), (launches, nrep))
    out = np.empty((launches, nrep))
    out[:, 0] = rng.normal(0, 0.1, launches)
    for i in range(1, nrep):
        out[:, i] = 0.5 * out[:, i - 1] + e[:, i]
    return out


def test_a_random_walk_is_differenced_an_ar1_is_not():
    rng = np.random.default_rng(5)
    g = np.repeat(np.arange(4), 60)
    walk = _series(rng, "walk", 4, 60).ravel()
    ar = _series(rng, "ar1", 4, 60).ravel()
    parts = corr.group_parts(g)
    residuals, phi = corr.prewhitened(corr.centred(walk, parts), parts)
    assert phi == 1.0
    assert np.allclose(residuals, np.concatenate([np.diff(walk[g == k]) for k in range(4)]))
    assert 0.3 < corr.prewhitened(corr.centred(ar, parts), parts)[1] < 0.7


@pytest.mark.parametrize("kind", ["iid", "ar1", "walk"])
def test_null_check_under_dependence_holm_family_rate(kind):
    """Independent run times and counters — i.i.d., AR(1) φ = 0.5, random walks — in campaigns of
    4 launches × 60 repetitions and 3 sizes, one counter (a Holm family of 3): the rate of
    campaigns with a Holm-significant row is not above 5 % (issue 25 measured 28.5 % and 66.5 %
    with repetitions taken as independent). Holm keeps the family rate at most α when every
    p-value is valid, and independent rows put it at α itself (1 − (1 − 0.05/3)^3 = 4.9 %), so a
    sample's rate scatters around 5 %: the bound is the one-sided binomial test's at 1 % — 26 of
    320 is still consistent with 5 % (P(≥ 27) = 0.6 %); a 10 % rate passes in 15 % of seeds, the
    issue's 28.5 % never. Measured on 960 campaigns of 6 rows: i.i.d. 5.5 %, walks 5.4 %;
    bench/stats_dependence.py measures the 12-row family."""
    rng = np.random.default_rng({"iid": 70, "ar1": 71, "walk": 72}[kind])
    g = np.repeat(np.arange(4), 60)
    hits = 0
    for _ in range(320):
        p = [corr.within_groups(_series(rng, kind, 4, 60).ravel(), _series(rng, kind, 4, 60).ravel(), g).spearman_p
             for _size in range(3)]
        hits += bool(np.any(np.asarray(ac._holm(p)) <= 0.05))
    assert hits <= 26, hits


@pytest.mark.parametrize("kind", ["ar1", "walk"])
def test_power_under_dependence_a_shared_component_is_found(kind):
    """A counter whose innovations correlate 0.3 with the run time's (both AR(1) φ = 0.5, or both
    random walks): found Holm-significant among 6 rows in ≥ 90 % of 60 campaigns (expected about
    97 %: z ≈ 0.3·√236 against the Holm threshold 0.05/6)."""
    rng = np.random.default_rng({"ar1": 73, "walk": 74}[kind])
    g = np.repeat(np.arange(4), 60)
    found = 0
    for _ in range(60):
        run = _series(rng, kind, 4, 60)
        shared = 0.3 * run + 0.954 * _series(rng, kind, 4, 60)  # the same kind of series; ρ = 0.3
        p = [corr.within_groups(shared.ravel(), run.ravel(), g).spearman_p]
        p += [corr.within_groups(_series(rng, kind, 4, 60).ravel(), run.ravel(), g).spearman_p for _ in range(5)]
        found += bool(ac._holm(p)[0] <= 0.05)
    assert found >= 54, found
