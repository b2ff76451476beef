# SPDX-License-Identifier: BSD-3-Clause
"""Effect sizes beside the tests across ranks, roots and alternatives (Hoefler & Belli 2015
§3.2.2): ε² of Kruskal–Wallis and Kendall's W of Friedman, against hand-computed values and
scipy."""

import math

import numpy as np
import pytest
from scipy import stats

from mpimeter.stats.effectsize import epsilon_squared, kendall_w


def test_epsilon_squared_of_three_separated_groups_by_hand():
    # ranks 1-5, 6-10, 11-15: H = 12/(15·16) · (15² + 40² + 65²)/5 − 3·16 = 12.5; ε² = 12.5 / 14
    groups = [np.arange(1, 6), np.arange(6, 11), np.arange(11, 16)]
    h = stats.kruskal(*groups).statistic
    assert h == pytest.approx(12.5)
    assert epsilon_squared(h, 15) == pytest.approx(12.5 / 14)


def test_epsilon_squared_edges():
    assert epsilon_squared(0.0, 10) == 0.0
    assert math.isnan(epsilon_squared(3.0, 1)) and math.isnan(epsilon_squared(math.nan, 10))
    assert epsilon_squared(20.0, 10) == 1.0  # a tie-corrected H above n − 1 is clipped


def test_kendall_w_is_1_when_every_block_orders_the_treatments_alike():
    x = np.array([[1.0, 2.0, 3.0], [10.0, 20.0, 30.0], [5.0, 6.0, 7.0]])
    assert kendall_w(x) == pytest.approx(1.0)
    assert kendall_w(np.array([[1.0, 2.0]] * 6)) == pytest.approx(1.0)  # two treatments: the sign-test case


def test_kendall_w_is_friedmans_chi_square_scaled_with_ties():
    rng = np.random.default_rng(3)
    x = np.round(rng.normal(size=(9, 4)) + np.array([0, 0, 1, 0]))  # rounding makes ties within blocks
    chi2 = stats.friedmanchisquare(*x.T).statistic
    assert kendall_w(x) == pytest.approx(chi2 / (9 * 3))


def test_kendall_w_edges():
    assert kendall_w(np.ones((5, 3))) == 0.0
    assert math.isnan(kendall_w(np.ones((1, 3)))) and math.isnan(kendall_w(np.ones((5, 1))))
    x = np.array([[1.0, 2.0], [np.nan, 1.0], [1.0, 2.0]])
    assert kendall_w(x) == pytest.approx(1.0)  # the block with a NaN is left out
    with pytest.raises(ValueError, match="blocks × treatments"):
        kendall_w(np.ones(4))
