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
    assert corr.centred(x, g).tolist() == [-1, 0, 1, -1, 0, 1]


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
    xc, yc = corr.centred(x, g), corr.centred(y, g)

    def innovations(v):
        num = den = 0.0
        for k in (0, 1):
            w = v[g == k] - v[g == k].mean()
            num, den = num + np.dot(w[1:], w[:-1]), den + np.dot(w, w)
        phi = min(max((40 * num / den + 1) / 37, -0.99), 1.0)
        return np.concatenate([v[g == k][1:] - phi * v[g == k][:-1] for k in (0, 1)]), phi

    (ex, px), (ey, py) = innovations(xc), innovations(yc)
    assert c.n == 78 and math.isclose(c.phi_x, px, rel_tol=1e-12) and math.isclose(c.phi_y, py, rel_tol=1e-12)
    assert math.isclose(c.spearman_p, st.spearmanr(ex, ey).pvalue, rel_tol=1e-9)
    assert math.isclose(c.pearson_r, st.pearsonr(ex, ey).statistic, rel_tol=1e-12)


def _dependent_campaign(rng, kind, launches=4, nrep=60, tests=3, counters=4):
    """Run times and counters as independent AR(1) φ = 0.5 series or random walks (issue 25)."""
    def series():
        if kind == "walk":
            return np.cumsum(rng.normal(0, 0.02, nrep))
        e = rng.normal(0, 0.1 * np.sqrt(0.75), nrep)
        out = np.empty(nrep)
        out[0] = rng.normal(0, 0.1)
        for i in range(1, nrep):
            out[i] = 0.5 * out[i - 1] + e[i]
        return out

    parts = []
    for li in range(launches):
        for t in range(tests):
            run = 2000 * np.exp(series())
            for k in range(counters):
                parts.append(pd.DataFrame({"launch": li, "size": 8 << t, "rep": np.arange(nrep), "metric": f"c{k}",
                                           "value": 40 * np.exp(series()), "run_time_ns": run}))
    df = pd.concat(parts, ignore_index=True)
    df["alternative"], df["op"], df["category"] = "a", "allreduce", "good"
    return df


@pytest.mark.parametrize("kind", ["ar1", "walk"])
def test_null_check_under_dependence_holm_rarely_significant(kind):
    """Independent AR(1) φ = 0.5 series and random walks: few campaigns have any Holm-significant
    row (issue 25 measured 28.5 % and 66.5 % with repetitions taken as independent; the bench
    measures ≤ 5 % on 300 campaigns, this checks ≤ 10 % on 60)."""
    rng = np.random.default_rng({"ar1": 71, "walk": 72}[kind])
    hits = sum(any(r.spearman_p_adjusted <= 0.05 for r in ac._correlate(_dependent_campaign(rng, kind), {}))
               for _ in range(60))
    assert hits / 60 <= 0.10, hits
