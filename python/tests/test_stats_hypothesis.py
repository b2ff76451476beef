# SPDX-License-Identifier: BSD-3-Clause
"""Rank-sum, Holm, stars, Kruskal–Wallis and the ratio intervals against references."""

import math

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

from mpimeter.stats import compare, hypothesis


def test_stars_thresholds_are_inclusive():
    assert [hypothesis.stars(p) for p in (0.001, 0.0011, 0.01, 0.05, 0.0501, math.nan)] == [
        "***", "**", "**", "*", "", ""]


def test_stars_only_where_significant_at_alpha():
    assert [hypothesis.stars(p, alpha=0.01) for p in (0.0005, 0.005, 0.01, 0.02, 0.05)] == [
        "***", "**", "**", "", ""]
    assert hypothesis.stars(0.0009, alpha=0.0005) == ""
    assert hypothesis.stars(0.08, alpha=0.1) == ""  # significant at 0.1, but stars start at .05


def test_holm_by_hand_and_nan_rows_are_not_counted():
    p = np.array([0.01, 0.04, 0.03, np.nan])
    # sorted 0.01, 0.03, 0.04 → ×3, ×2, ×1 → 0.03, 0.06, 0.06 (monotone)
    adj = hypothesis.holm(p)
    assert adj[:3] == pytest.approx([0.03, 0.06, 0.06])
    assert np.isnan(adj[3])
    assert adj[:3] == pytest.approx(multipletests(p[:3], method="holm")[1])


def test_rank_sum_is_scipys_exact_mann_whitney():
    a = np.array([1.1, 2.3, 0.7, 3.1, 2.2])
    b = np.array([3.5, 4.1, 2.9, 5.0, 4.4, 3.3])
    for alt in ("two-sided", "less", "greater"):
        res = hypothesis.rank_sum(a, b, alternative=alt)
        ref = stats.mannwhitneyu(a, b, alternative=alt, method="exact")
        assert res.p_value == pytest.approx(ref.pvalue) and res.statistic == ref.statistic
        assert res.method == "exact"
    assert hypothesis.rank_sum(a, b, alternative="less").p_value < 0.01
    with pytest.raises(ValueError):
        hypothesis.rank_sum(a, b, alternative="smaller")


@pytest.mark.parametrize("m,n", [(3, 3), (4, 6), (7, 5), (10, 10)])
def test_exact_u_distribution_matches_scipy(m, n):
    cdf = hypothesis._u_cdf(m, n)
    for u in range(0, m * n + 1, max(1, m * n // 7)):
        # a sample pair whose U statistic is exactly u: scipy's exact one-sided p is P(U ≤ u)
        a, b = _pair_with_u(m, n, u)
        ref = stats.mannwhitneyu(a, b, alternative="less", method="exact").pvalue
        assert cdf[u] == pytest.approx(ref, rel=1e-9)


def _pair_with_u(m, n, u):
    """a (m values) and b (n values) with U_a = u: a_i beats exactly c_i of the b's."""
    counts, left = [], u
    for _ in range(m):
        c = min(n, left)
        counts.append(c)
        left -= c
    a = np.array([c + 0.5 for c in counts])
    b = np.arange(1, n + 1, dtype=float)
    return a, b


def test_hodges_lehmann_critical_value_table():
    # two-sided 5 % critical values of U (largest C − 1 with P(U ≤ C − 1) ≤ 0.025), standard tables
    assert hypothesis._hl_rank(10, 10, 0.95) - 1 == 23
    assert hypothesis._hl_rank(8, 8, 0.95) - 1 == 13
    assert hypothesis._hl_rank(5, 5, 0.95) - 1 == 2
    assert hypothesis._hl_rank(3, 3, 0.95) == 0  # no interval possible


def test_hodges_lehmann_recovers_a_scale_shift():
    rng = np.random.default_rng(7)
    a = rng.lognormal(np.log(100), 0.05, 30)
    b = rng.lognormal(np.log(100), 0.05, 30) * 1.10
    ci = hypothesis.hodges_lehmann_ratio(a, b)
    assert 1.05 < ci.estimate < 1.15
    assert ci.low < 1.10 < ci.high and ci.low > 1.0


def test_hodges_lehmann_without_interval_for_3_and_3():
    ci = hypothesis.hodges_lehmann_ratio(np.array([1.0, 2, 3]), np.array([2.0, 3, 4]))
    assert ci.low is None and ci.estimate == pytest.approx(np.exp(np.median(
        np.log(np.array([2.0, 3, 4]))[None, :] - np.log(np.array([1.0, 2, 3]))[:, None])))


def test_bootstrap_ratio_is_seeded_and_covers_the_point():
    rng = np.random.default_rng(8)
    a = rng.normal(100, 3, 20)
    b = rng.normal(110, 3, 20)
    r1 = hypothesis.bootstrap_ratio(a, b, seed=1)
    r2 = hypothesis.bootstrap_ratio(a, b, seed=1)
    assert r1 == r2
    assert r1.low < r1.estimate < r1.high
    assert r1.estimate == pytest.approx(np.median(b) / np.median(a))


def test_kruskal_matches_scipy_and_handles_equal_values():
    g = [np.array([1.0, 2, 3]), np.array([4.0, 5, 6]), np.array([7.0, 8, 9])]
    res = hypothesis.kruskal(g)
    ref = stats.kruskal(*g)
    assert res.p_value == pytest.approx(ref.pvalue) and res.statistic == pytest.approx(ref.statistic)
    assert hypothesis.kruskal([np.ones(3), np.ones(4)]).p_value == 1.0
    assert math.isnan(hypothesis.kruskal([np.ones(3)]).p_value)


def test_min_p_value_of_small_samples():
    assert compare.min_p_value(3, 3) == pytest.approx(0.1)
    assert compare.min_p_value(3, 3, "less") == pytest.approx(0.05)
    assert compare.min_p_value(3, 4, "greater") == pytest.approx(1 / 35)
    assert compare.min_p_value(10, 10) == pytest.approx(2 / math.comb(20, 10))


@pytest.mark.parametrize("m,n", [(3, 3), (4, 7), (10, 10), (60, 200)])
@pytest.mark.parametrize("alternative", ["two-sided", "less", "greater"])
def test_min_p_value_is_what_the_test_gives_separated_samples(m, n, alternative):
    if alternative == "greater":  # a entirely above b
        a, b = np.arange(n, n + m, dtype=float), np.arange(n, dtype=float)
    else:
        a, b = np.arange(m, dtype=float), np.arange(m, m + n, dtype=float)
    assert compare.min_p_value(m, n, alternative) == pytest.approx(
        hypothesis.rank_sum(a, b, alternative=alternative).p_value, rel=1e-12)


def test_compare_two_and_slowdown_test():
    a = np.array([100.0, 101, 99, 100.5, 100.2, 99.8])
    b = a * 1.08
    pc = compare.compare_two(a, b, alternative="less")
    assert pc.ratio == pytest.approx(1.08)
    assert pc.p_value < 0.01
    # 8 % slower: significant against a 5 % threshold, not against a 10 % one
    assert compare.slowdown_test(a, b, 0.05).p_value < 0.01
    assert compare.slowdown_test(a, b, 0.10).p_value > 0.5
    same = compare.compare_two(np.full(4, 2.0), np.full(4, 2.0))
    assert same.p_value == 1.0 and same.ratio == 1.0 and same.statistic == 8.0
