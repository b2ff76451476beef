# SPDX-License-Identifier: BSD-3-Clause
"""Median (Le Boudec) and mean (t) intervals, Shapiro–Wilk."""

import math

import numpy as np
import pytest
from scipy import stats

from mpimeter.stats import across, intervals

# Symmetric 95 % order-statistic intervals for the median as tabulated (Le Boudec 2011,
# Table A.1; the same ranks and exact confidence levels appear in the usual textbook tables of
# median intervals): n → (j, k, confidence in %).
PUBLISHED_95 = {
    6: (1, 6, 96.9), 7: (1, 7, 98.4), 8: (1, 8, 99.2), 9: (2, 8, 96.1), 10: (2, 9, 97.9),
    11: (2, 10, 98.8), 12: (3, 10, 96.1), 13: (3, 11, 97.8), 14: (3, 12, 98.7), 15: (4, 12, 96.5),
    16: (4, 13, 97.9), 17: (5, 13, 95.1), 18: (5, 14, 96.9), 19: (5, 15, 98.1), 20: (6, 15, 95.9),
}


@pytest.mark.parametrize("n", sorted(PUBLISHED_95))
def test_median_ranks_match_the_published_table(n):
    j, k, conf = PUBLISHED_95[n]
    assert intervals.median_ci_ranks(n, 0.95) == (j, k)
    assert intervals.median_ci_coverage(n, j, k) * 100 == pytest.approx(conf, abs=0.05)


def test_too_few_values_have_no_95_percent_interval():
    for n in range(0, 6):
        assert intervals.median_ci_ranks(n, 0.95) is None
    assert intervals.median_ci(np.array([1.0, 2, 3, 4, 5]), 0.95).low is None
    # but a 90 % interval exists for n = 5: [x(1), x(5)] covers with 1 - 2/32 = 0.9375
    assert intervals.median_ci_ranks(5, 0.90) == (1, 5)


@pytest.mark.parametrize("n", [71, 100, 500, 1000])
def test_large_n_uses_the_normal_approximation_of_hoefler_and_belli(n):
    z = 1.959963984540054
    j = math.floor((n - z * math.sqrt(n)) / 2)
    k = math.ceil(1 + (n + z * math.sqrt(n)) / 2)
    assert intervals.median_ci_ranks(n, 0.95) == (j, k)
    assert intervals.median_ci_ranks(100, 0.95) == (40, 61)  # Le Boudec: ⌊50 − 9.8⌋, ⌈51 + 9.8⌉


def test_median_ci_picks_the_order_statistics():
    x = np.array([9.0, 1, 8, 2, 7, 3, 6, 4, 5, 10])  # n = 10 → ranks 2 and 9
    ci = intervals.median_ci(x, 0.95)
    assert (ci.estimate, ci.low, ci.high) == (5.5, 2.0, 9.0)
    assert ci.method == "le-boudec"


def test_median_ci_of_equal_values_is_a_point():
    ci = intervals.median_ci(np.full(12, 3.0))
    assert (ci.estimate, ci.low, ci.high) == (3.0, 3.0, 3.0)


def test_t_interval_matches_scipy():
    rng = np.random.default_rng(3)
    x = rng.normal(10, 2, 25)
    ci = intervals.t_interval(x, 0.95)
    lo, hi = stats.t.interval(0.95, 24, loc=x.mean(), scale=stats.sem(x))
    assert ci.low == pytest.approx(lo) and ci.high == pytest.approx(hi)
    assert intervals.t_interval(np.array([4.0]), 0.95).low is None


def test_shapiro_wilk_flags_a_skewed_sample_and_passes_a_normal_one():
    rng = np.random.default_rng(4)
    assert intervals.shapiro_wilk(rng.normal(0, 1, 200)).normal
    assert not intervals.shapiro_wilk(rng.exponential(1, 200)).normal
    assert intervals.shapiro_wilk(np.array([1.0, 2.0])) is None
    assert intervals.shapiro_wilk(np.full(10, 2.0)) is None


def test_confidence_must_be_a_probability():
    with pytest.raises(ValueError):
        intervals.median_ci_ranks(10, 1.5)


def test_t_interval_of_a_nonnegative_quantity_is_clamped_at_zero():
    # two launches 10 × apart: t(1, 0.975) = 12.7 makes mean − t·s/√n far below 0
    x = np.array([1.0, 10.0])
    plain = intervals.t_interval(x, 0.95)
    clamped = intervals.t_interval(x, 0.95, nonnegative=True)
    assert plain.low < 0
    assert clamped.low == 0.0
    assert (clamped.estimate, clamped.high) == (plain.estimate, plain.high)
    # an interval that stays above 0 is not touched
    y = np.array([10.0, 10.5, 11.0])
    assert intervals.t_interval(y, 0.95, nonnegative=True) == intervals.t_interval(y, 0.95)


def test_across_launches_clamps_the_mean_interval_of_run_times_at_zero():
    means = np.array([1000.0, 9000.0, 200.0])  # 3 launches, very different
    acr = across.across_launches(means, means)
    plain = intervals.t_interval(means)
    assert plain.low < 0 and acr.mean.low == 0.0 and acr.mean.high == pytest.approx(plain.high)
