# SPDX-License-Identifier: BSD-3-Clause
"""Seeded simulations of the statistics' promises (CONTRIBUTING.md, principle 7):

- the 95 % median interval covers the true median of a skewed, bimodal distribution between
  93 % and 97 % of the time;
- A/A: two campaigns from the same distribution give no significant row after Holm correction
  in ≥ 95 % of trials;
- A/B: a 3 % shift is detected at 30 launches per side.

Vectorized over trials; the per-launch medians are medians of skewed repetitions with a
launch-to-launch factor (the launch is a factor, Hunold & Carpen-Amarie 2016 §4.2).
"""

import numpy as np
import pytest
from scipy import optimize, stats

from mpimeter.stats import hypothesis, intervals


def bimodal(rng, shape):
    """70 % lognormal around 10, 30 % lognormal around 16: skewed and bimodal."""
    first = rng.random(shape) < 0.7
    return np.where(first, rng.lognormal(np.log(10), 0.3, shape), rng.lognormal(np.log(16), 0.15, shape))


def bimodal_median():
    def cdf(m):
        return 0.7 * stats.lognorm.cdf(m, 0.3, scale=10) + 0.3 * stats.lognorm.cdf(m, 0.15, scale=16) - 0.5

    return optimize.brentq(cdf, 1, 100, xtol=1e-12)


@pytest.mark.parametrize("n", [30, 100])
def test_median_interval_coverage_is_between_93_and_97_percent(n):
    rng = np.random.default_rng(2024 + n)
    trials = 4000
    x = np.sort(bimodal(rng, (trials, n)), axis=1)
    j, k = intervals.median_ci_ranks(n, 0.95)
    truth = bimodal_median()
    coverage = float(np.mean((x[:, j - 1] <= truth) & (x[:, k - 1] >= truth)))
    print(f"median interval coverage n={n}: {coverage:.4f}")
    assert 0.93 <= coverage <= 0.97, coverage


def test_median_ci_function_agrees_with_the_vectorized_ranks():
    rng = np.random.default_rng(5)
    truth = bimodal_median()
    hits = [(ci.low <= truth <= ci.high) for ci in (intervals.median_ci(bimodal(rng, 30)) for _ in range(400))]
    assert 0.92 <= np.mean(hits) <= 0.99


def per_launch_medians(rng, trials, rows, launches, nrep=60, sigma_launch=0.02, shift=1.0):
    base = np.linspace(2000, 9000, rows)[None, :, None, None]
    factor = rng.lognormal(0.0, sigma_launch, (trials, rows, launches, 1))
    reps = base * factor * shift * (1 + rng.lognormal(-3.0, 0.6, (trials, rows, launches, nrep)))
    return np.median(reps, axis=-1)


def significant_rows(a, b, alternative="two-sided"):
    p = hypothesis.rank_sum(a, b, alternative=alternative, axis=-1).p_value  # (trials, rows)
    return np.array([hypothesis.holm(row) <= 0.05 for row in p])


def test_aa_no_significant_row_in_at_least_95_percent_of_trials():
    rng = np.random.default_rng(11)
    trials, rows, launches = 2000, 8, 10
    a = per_launch_medians(rng, trials, rows, launches)
    b = per_launch_medians(rng, trials, rows, launches)
    clean = float(np.mean(~significant_rows(a, b).any(axis=1)))
    print(f"A/A trials without a significant row: {clean:.4f}")
    assert clean >= 0.95, clean


def test_ab_three_percent_shift_is_detected_at_30_launches():
    rng = np.random.default_rng(12)
    trials, rows, launches = 500, 8, 30
    a = per_launch_medians(rng, trials, rows, launches)
    b = per_launch_medians(rng, trials, rows, launches, shift=1.03)
    detected = significant_rows(a, b, "less")  # a is faster
    power = float(detected.mean())
    print(f"A/B 3 % shift at 30 launches: rows detected {power:.4f}")
    assert power >= 0.95, power
    # and the shift is not "detected" in the wrong direction
    assert not significant_rows(a, b, "greater").any()
