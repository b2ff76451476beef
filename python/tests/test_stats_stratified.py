# SPDX-License-Identifier: BSD-3-Clause
"""Van Elteren's stratified rank-sum test and the stratified Hodges–Lehmann ratio
(mpimeter.stats.stratified): with one stratum they are the rank-sum test and the Hodges–Lehmann
ratio of mpimeter.stats.hypothesis, p for p and bound for bound; on two states in different mixes
the test keeps its level (ties on a timer grid, heavy tails, 2 launches in a state) where the
pooled test does not, and finds a 10 % slowdown inside both states."""

from __future__ import annotations

import numpy as np
import pytest

from mpimeter.stats import hypothesis as hyp
from mpimeter.stats import stratified as strat


@pytest.mark.parametrize("m,n", [(3, 4), (2, 8), (10, 10), (7, 12)])
def test_one_stratum_is_the_rank_sum_test(m, n):
    rng = np.random.default_rng(m * 100 + n)
    for tie in (False, True):
        a, b = rng.lognormal(0, 0.1, m), rng.lognormal(0.05, 0.1, n)
        if tie:
            a, b = np.round(a, 1), np.round(b, 1)  # a coarse timer grid: ties
        for alt in hyp.ALTERNATIVES:
            ref, got = hyp.rank_sum(a, b, alternative=alt), strat.van_elteren([(a, b)], alternative=alt)
            assert got.p_value == pytest.approx(ref.p_value, rel=1e-9)
            assert got.statistic * (m + n + 1) == pytest.approx(ref.statistic)
        if not tie:
            ref, got = hyp.hodges_lehmann_ratio(a, b), strat.stratified_ratio([(a, b)])
            assert got.estimate == pytest.approx(ref.estimate)
            assert (got.low, got.high) == pytest.approx((ref.low, ref.high))


def test_exact_distribution_of_two_small_strata_by_enumeration():
    # 2 vs 2 and 1 vs 3: all C(4,2)·C(4,1) = 24 relabellings equally likely; T = U1/5 + U2/5
    s1 = (np.array([1.0, 4.0]), np.array([2.0, 3.0]))
    s2 = (np.array([10.0]), np.array([11.0, 12.0, 13.0]))
    import itertools
    obs = strat.van_elteren([s1, s2], alternative="less")

    def u(a, b):
        return sum((x > y) + 0.5 * (x == y) for x in a for y in b)

    stats = []
    for la in itertools.combinations(range(4), 2):
        v1 = np.r_[s1[0], s1[1]]
        a1 = v1[list(la)]
        b1 = np.delete(v1, list(la))
        for lb in range(4):
            v2 = np.r_[s2[0], s2[1]]
            stats.append(u(a1, b1) / 5 + u([v2[lb]], np.delete(v2, lb)) / 5)
    t_obs = u(*s1) / 5 + u(*s2) / 5
    assert obs.statistic == pytest.approx(t_obs)
    assert obs.p_value == pytest.approx(np.mean(np.array(stats) <= t_obs + 1e-12))
    assert obs.method == "exact-permutation"


def _states(rng, fast, slow, shape, slowdown=1.0, grid=None):
    """Per-launch medians of a campaign in two states 2.5× apart, launch noise ~2 %."""
    noise = (lambda k: 0.02 * rng.standard_t(3, k)) if shape == "t3" else (lambda k: rng.normal(0, 0.02, k))
    f = 400.0 * slowdown * np.exp(noise(fast))
    s = 1000.0 * slowdown * np.exp(noise(slow))
    if grid:
        f, s = np.round(f / grid) * grid, np.round(s / grid) * grid
    return f, s


@pytest.mark.parametrize("shape,grid", [("normal", None), ("t3", None), ("normal", 10.0)])
def test_level_with_different_mixes(shape, grid):
    # baseline 2 fast / 8 slow, candidate 8 fast / 2 slow, identical per-state times: the
    # stratified one-sided test rejects in at most α (+ Monte Carlo error); the pooled one nearly always
    rng = np.random.default_rng({"normal": 1, "t3": 2}[shape] + int(grid or 0))
    trials, rejected, pooled = 300, 0, 0
    for _ in range(trials):
        af, as_ = _states(rng, 2, 8, shape, grid=grid)
        bf, bs = _states(rng, 8, 2, shape, grid=grid)
        rejected += strat.van_elteren([(af, bf), (as_, bs)], alternative="greater").p_value <= 0.05
        pooled += hyp.rank_sum(np.r_[af, as_], np.r_[bf, bs], alternative="greater").p_value <= 0.05
    assert rejected / trials <= 0.05 + 2.5 * np.sqrt(0.05 * 0.95 / trials), rejected
    assert pooled / trials >= 0.9, pooled  # the mix alone: a = mostly slow, b mostly fast


def test_level_with_few_launches_per_state():
    # 3 launches a side in a state (2+1 / 1+2): the exact distribution keeps the level however coarse
    rng = np.random.default_rng(7)
    trials = 400
    rejected = 0
    for _ in range(trials):
        af, as_ = _states(rng, 2, 1, "normal")
        bf, bs = _states(rng, 1, 2, "normal")
        rejected += strat.van_elteren([(af, bf), (as_, bs)], alternative="less").p_value <= 0.05
    assert rejected / trials <= 0.05 + 2.5 * np.sqrt(0.05 * 0.95 / trials), rejected


def test_power_for_a_ten_percent_slowdown_in_both_states():
    rng = np.random.default_rng(11)
    trials, found, pooled_found = 200, 0, 0
    for _ in range(trials):
        af, as_ = _states(rng, 8, 2, "normal")  # the baseline mostly fast …
        bf, bs = _states(rng, 2, 8, "normal", slowdown=1.1)  # … the candidate mostly slow, and 10 % slower
        found += strat.stratified_slowdown_test([(af, bf), (as_, bs)], 0.03).p_value <= 0.05
        # and the reverse mix: a favourable mix hides the slowdown from the pooled test
        cf, cs = _states(rng, 2, 8, "normal")
        df, ds = _states(rng, 8, 2, "normal", slowdown=1.1)
        pooled_found += hyp.rank_sum(np.r_[df, ds], 1.03 * np.r_[cf, cs], alternative="greater").p_value <= 0.05
    assert found / trials >= 0.9, found
    assert pooled_found / trials <= 0.05, pooled_found


def test_ratio_interval_covers_the_per_state_ratio():
    rng = np.random.default_rng(5)
    covered, trials = 0, 300
    for _ in range(trials):
        af, as_ = _states(rng, 3, 7, "normal")
        bf, bs = _states(rng, 7, 3, "normal", slowdown=1.1)
        ci = strat.stratified_ratio([(af, bf), (as_, bs)], confidence=0.95)
        assert ci.low <= ci.estimate <= ci.high
        covered += ci.low <= 1.1 <= ci.high
    assert covered / trials >= 0.93, covered


def test_large_strata_use_the_normal_approximation(monkeypatch):
    rng = np.random.default_rng(9)
    s = [(rng.lognormal(0, 0.1, 20), rng.lognormal(0.05, 0.1, 20)), (rng.lognormal(1, 0.1, 15), rng.lognormal(1.05, 0.1, 9))]
    exact, ci_exact = strat.van_elteren(s), strat.stratified_ratio(s)
    monkeypatch.setattr(strat, "EXACT_SUPPORT_MAX", 10)
    approx, ci_approx = strat.van_elteren(s), strat.stratified_ratio(s)
    assert exact.method == "exact-permutation" and approx.method == "normal-approximation"
    assert approx.p_value == pytest.approx(exact.p_value, rel=0.15, abs=0.005)
    assert ci_approx.low == pytest.approx(ci_exact.low, rel=0.02) and ci_approx.high == pytest.approx(ci_exact.high, rel=0.02)


def test_no_shared_stratum_gives_no_p():
    res = strat.van_elteren([(np.array([1.0, 2.0]), np.array([])), (np.array([]), np.array([3.0]))])
    assert np.isnan(res.p_value) and res.method == ""
