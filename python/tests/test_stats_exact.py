# SPDX-License-Identifier: BSD-3-Clause
"""Exact p-values of the rank-sum test: the exact Mann–Whitney distribution
without ties, the exact permutation distribution with ties, the normal approximation only for
large samples — against scipy, published critical values and hand-counted cases."""

import math

import numpy as np
import pytest
from scipy import stats

from mpimeter.stats import hypothesis

C20 = math.comb(20, 10)  # 184756 splits of 10 vs 10


def test_separated_10_vs_10_gets_the_exact_p_and_three_stars():
    a, b = np.arange(10.0), np.arange(10.0) + 100
    res = hypothesis.rank_sum(a, b)
    assert res.method == "exact" and res.statistic == 0
    assert res.p_value == pytest.approx(2 / C20, rel=1e-12)  # 1.08e-5; the normal approximation says 1.83e-4
    assert hypothesis.rank_sum(a, b, alternative="less").p_value == pytest.approx(1 / C20, rel=1e-12)
    assert hypothesis.stars(res.p_value * 19) == "***"  # even after Holm over 19 rows (2.1e-4)


def test_nineteen_separated_rows_are_significant_at_alpha_0_001():
    rng = np.random.default_rng(1)
    a = rng.normal(1000, 10, (19, 10))
    b = a + 200  # every row completely separated
    res = hypothesis.rank_sum(a, b, axis=-1)
    adj = hypothesis.holm(res.p_value)
    assert (adj <= 0.001).all() and set(res.method.tolist()) == {"exact"}


@pytest.mark.parametrize("m,n", [(4, 6), (7, 5), (10, 10), (12, 30), (50, 40)])
def test_without_ties_it_is_scipys_exact_test(m, n):
    rng = np.random.default_rng(m * 100 + n)
    a, b = rng.normal(0, 1, (25, m)), rng.normal(0.5, 1, (25, n))
    for alt in ("two-sided", "less", "greater"):
        res = hypothesis.rank_sum(a, b, alternative=alt, axis=-1)
        ref = stats.mannwhitneyu(a, b, alternative=alt, method="exact", axis=-1)
        assert res.p_value == pytest.approx(ref.pvalue, rel=1e-12)
        assert res.statistic == pytest.approx(ref.statistic)


@pytest.mark.parametrize("m,n", [(1, 7), (5, 5), (8, 2), (13, 11), (100, 100)])
def test_without_ties_the_p_looked_up_by_u_is_scipys_to_the_bit(m, n):
    # rank_sum looks the exact p up in a table by U (one per m, n and alternative, made by scipy):
    # the same number as scipy gives the samples themselves, one by one or along an axis
    rng = np.random.default_rng(m * 1000 + n)
    a, b = rng.normal(0, 1, (400, m)), rng.normal(rng.uniform(-1.5, 1.5, (400, 1)), 1, (400, n))
    for alt in ("two-sided", "less", "greater"):
        ref = stats.mannwhitneyu(a, b, alternative=alt, method="exact", axis=-1).pvalue
        assert (hypothesis.rank_sum(a, b, alternative=alt, axis=-1).p_value == ref).all()
        assert [hypothesis.rank_sum(a[i], b[i], alternative=alt).p_value for i in range(5)] == ref[:5].tolist()


@pytest.mark.parametrize("alpha,two_sided,critical", [
    (0.05, True, 23), (0.01, True, 16), (0.05, False, 27), (0.01, False, 19)])
def test_published_critical_values_for_10_and_10(alpha, two_sided, critical):
    # Mann–Whitney tables (e.g. Siegel & Castellan 1988, Table J): n1 = n2 = 10. U ≤ critical is
    # significant at alpha, critical + 1 is not.
    alt = "two-sided" if two_sided else "less"

    def p_of_u(u):  # a_i = c_i + 0.5 (+ a little, no ties) beats c_i of b = 1 … 10: U_a = Σ c_i = u
        counts = np.minimum(10, np.maximum(0, u - 10 * np.arange(10)))
        a = counts + 0.5 + 0.01 * np.arange(10)
        return hypothesis.rank_sum(a, np.arange(1.0, 11.0), alternative=alt).p_value

    assert p_of_u(critical) <= alpha < p_of_u(critical + 1)


def test_ties_hand_counted():
    # a = (1, 2), b = (2, 3): midranks 1, 2.5 | 2.5, 4; the 6 splits give a's rank sum
    # 3.5, 3.5, 5, 5, 6.5, 6.5 → P(S ≤ 3.5) = 2/6, P(S ≥ 3.5) = 1
    res = hypothesis.rank_sum(np.array([1.0, 2.0]), np.array([2.0, 3.0]), alternative="less")
    assert res.method == "exact-permutation" and res.p_value == pytest.approx(1 / 3)
    assert hypothesis.rank_sum(np.array([1.0, 2.0]), np.array([2.0, 3.0])).p_value == pytest.approx(2 / 3)
    assert hypothesis.rank_sum(np.array([1.0, 2.0]), np.array([2.0, 3.0]), alternative="greater").p_value == 1.0
    # a = (1, 1, 1), b = (1, 1, 2): five 1s share midrank 3, the 2 has 6; 10 of the 20 splits
    # take the 6 (sum 12), 10 do not (sum 9 = a's) → P(S ≤ 9) = 1/2
    res = hypothesis.rank_sum(np.array([1.0, 1, 1]), np.array([1.0, 1, 2]), alternative="less")
    assert res.p_value == pytest.approx(0.5) and res.statistic == 3.0


@pytest.mark.parametrize("m,n", [(6, 7), (8, 4), (3, 9)])
def test_ties_match_scipys_exact_permutation_test(m, n):
    rng = np.random.default_rng(m + 10 * n)
    a = rng.integers(0, 6, m).astype(float)
    b = rng.integers(2, 8, n).astype(float)
    exact = stats.PermutationMethod(n_resamples=np.inf)
    for alt in ("two-sided", "less", "greater"):
        res = hypothesis.rank_sum(a, b, alternative=alt)
        ref = stats.mannwhitneyu(a, b, alternative=alt, method=exact)
        assert res.method == "exact-permutation"
        assert res.p_value == pytest.approx(ref.pvalue, rel=1e-9)


def test_large_samples_use_the_normal_approximation():
    rng = np.random.default_rng(3)
    a, b = rng.normal(0, 1, 400), rng.normal(0.2, 1, 300)
    res = hypothesis.rank_sum(a, b)
    assert res.method == "normal-approximation"
    assert res.p_value == pytest.approx(stats.mannwhitneyu(a, b, method="asymptotic").pvalue)
    ties = np.round(a), np.round(b)
    res = hypothesis.rank_sum(*ties)
    assert res.method == "normal-approximation"
    assert res.p_value == pytest.approx(stats.mannwhitneyu(*ties, method="asymptotic").pvalue)
    assert hypothesis.rank_sum_method(10, 10, ties=True) == "exact-permutation"
    assert hypothesis.rank_sum_method(40, 40, ties=True) == "exact-permutation"
    assert hypothesis.rank_sum_method(100, 100, ties=False) == "exact"


def test_vectorized_rows_with_and_without_ties_match_one_by_one():
    rng = np.random.default_rng(4)
    a = rng.integers(0, 30, (6, 9)).astype(float)
    b = rng.normal(18, 8, (6, 11))
    a[0] = np.arange(9.0) + 0.25  # a row without ties
    b[3] = 7.0  # a row with many
    res = hypothesis.rank_sum(a, b, axis=1)
    for i in range(6):
        one = hypothesis.rank_sum(a[i], b[i])
        assert res.p_value[i] == pytest.approx(one.p_value) and res.method[i] == one.method


def test_degenerate_inputs():
    same = hypothesis.rank_sum(np.full(5, 3.0), np.full(400, 3.0))
    assert same.p_value == 1.0 and same.statistic == 1000.0
    assert math.isnan(hypothesis.rank_sum(np.array([1.0, np.nan]), np.array([2.0, 3.0])).p_value)
    assert math.isnan(hypothesis.rank_sum(np.array([]), np.array([2.0, 3.0])).p_value)


def test_friedman_two_treatments_is_the_exact_sign_test_and_more_is_scipys():
    x = np.column_stack([np.arange(6.0), np.arange(6.0) + 1])
    res = hypothesis.friedman(x)
    assert res.p_value == pytest.approx(2 / 64) and res.method == "exact"
    rng = np.random.default_rng(5)
    y = rng.normal(0, 1, (10, 4)) + np.array([0, 0, 0.5, 1.0])
    ref = stats.friedmanchisquare(*y.T)
    res = hypothesis.friedman(y)
    assert res.p_value == pytest.approx(ref.pvalue) and res.statistic == pytest.approx(ref.statistic)
    y[2, 1] = np.nan  # a block with a missing treatment is dropped
    assert hypothesis.friedman(y).p_value == pytest.approx(stats.friedmanchisquare(*np.delete(y, 2, 0).T).pvalue)
    assert hypothesis.friedman(np.ones((5, 3))).p_value == 1.0
    assert math.isnan(hypothesis.friedman(np.ones((1, 3))).p_value)


def test_friedman_null_rate_with_launch_and_placement_effects():
    # ranks identically distributed; launch shifts shared by all ranks; placement effects per launch
    rng = np.random.default_rng(6)
    trials = 2000
    launch = rng.lognormal(0, 0.1, (trials, 10, 1))
    x = launch * rng.lognormal(0, 0.05, (trials, 10, 4))
    rate = np.mean([hypothesis.friedman(t).p_value <= 0.05 for t in x])
    print(f"Friedman false-positive rate at 0.05, 10 launches × 4 ranks: {rate:.3f}")
    assert rate < 0.06
