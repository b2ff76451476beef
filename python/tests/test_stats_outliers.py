# SPDX-License-Identifier: BSD-3-Clause
"""Outlier filters and summaries, against hand-computed values."""

import numpy as np
import pytest

from mpimeter.stats import outliers, summary


def test_tukey_fences_by_hand():
    x = np.array([1.0, 2, 3, 4, 5, 6, 7, 8, 100])
    # numpy quartiles (linear): Q1 = 3, Q3 = 7, IQR = 4 → fences −3 and 13
    keep = outliers.keep_mask(x, "tukey")
    assert keep.tolist() == [True] * 8 + [False]
    # k = 30 keeps everything: fence 7 + 120 = 127
    assert outliers.keep_mask(x, "tukey", k=30).all()


def test_tukey_removes_low_outliers_too():
    x = np.array([-50.0, 10, 11, 12, 13, 14, 15])
    assert not outliers.keep_mask(x, "tukey")[0]


def test_mpibench_drops_above_a_times_p99():
    x = np.concatenate([np.full(99, 10.0), [1000.0]])
    p99 = np.percentile(x, 99)  # 19.9 (interpolated)
    keep = outliers.keep_mask(x, "mpibench", a=2.0)
    assert keep[:99].all() and not keep[99]
    assert not (x[keep] > 2 * p99).any()


def test_trim25_keeps_the_central_half_even_with_ties():
    x = np.arange(1.0, 13.0)  # 12 values → drop 3 lowest and 3 highest
    keep = outliers.keep_mask(x, "trim25")
    assert x[keep].tolist() == [4.0, 5, 6, 7, 8, 9]
    ties = np.full(10, 5.0)
    assert outliers.keep_mask(ties, "trim25").sum() == 10 - 2 * 2


def test_none_and_empty_and_unknown():
    assert outliers.keep_mask(np.array([1.0, 1e9]), "none").all()
    assert outliers.keep_mask(np.array([]), "tukey").size == 0
    with pytest.raises(ValueError, match="unknown outlier filter"):
        outliers.keep_mask(np.array([1.0]), "grubbs")


def test_summary_matches_numpy():
    rng = np.random.default_rng(1)
    x = rng.lognormal(0, 1, 1001)
    s = summary.summarize(x)
    assert s.n == 1001
    assert s.median == pytest.approx(np.median(x))
    assert s.q1 == pytest.approx(np.percentile(x, 25)) and s.p99 == pytest.approx(np.percentile(x, 99))
    assert s.std == pytest.approx(np.std(x, ddof=1))
    assert s.cov == pytest.approx(np.std(x, ddof=1) / np.mean(x))
    one = summary.summarize(np.array([3.0]))
    assert one.median == 3.0 and np.isnan(one.std)
    assert np.isnan(summary.summarize(np.array([])).median)


def test_harmonic_mean_of_rates_hoefler_belli_hpl_example():
    # 100 Gflop in 10, 100 and 40 s: rates 10, 1 and 2.5 Gflop/s; the right average is 2 Gflop/s
    rates = 100.0 / np.array([10.0, 100.0, 40.0])
    assert summary.harmonic_mean(rates) == pytest.approx(2.0)
    assert np.mean(rates) == pytest.approx(4.5)  # what rule 3 forbids
    assert np.isnan(summary.harmonic_mean(np.array([1.0, 0.0])))


def test_spread_is_max_over_min():
    assert summary.spread(np.array([2.0, 3.0, 2.5])) == pytest.approx(1.5)


def test_a_huge_tukey_k_keeps_every_value_without_an_overflow_warning():
    import warnings
    x = np.array([1.0, 2.0, 3.0, 4.0, 1e9])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an overflow in k * iqr was a RuntimeWarning on stderr
        assert outliers.keep_mask(x, "tukey", k=1e308).all()
