# SPDX-License-Identifier: BSD-3-Clause
"""Cost models (stats.costmodel): Hockney's α + β·m recovered within its intervals, intervals that
cover the truth about as often as they claim, the breakpoint of a protocol change found where it
is, no breakpoint on data of one line (the null check: < 5 %), and the misses flagged. Under
dependence (issue 25): with a launch effect shared by all sizes of a launch the intervals that
resample launches cover ≥ 93 % where the points-as-independent ones do not; one launch gives no
interval and "not checked", never "not missed"; a jump the model does not follow is reported."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from mpimeter.stats import costmodel as cm

SIZES = np.array([8 * 2 ** k for k in range(18)])  # 8 B … 1 MiB


def two_protocols(m):
    """Eager below 16 KiB (2 µs + 0.5 ns/B), rendezvous from 16 KiB (8 µs + 0.3 ns/B)."""
    m = np.asarray(m, dtype=float)
    return np.where(m < 16384, 2000.0 + 0.5 * m, 8000.0 + 0.3 * m)


def draw(truth, sizes, launches, rng, sigma=0.02):
    m = np.repeat(sizes, launches)
    return m, truth(m) * np.exp(rng.normal(0.0, sigma, len(m)))


def test_line_recovers_alpha_and_beta_within_intervals():
    m, y = draw(lambda m: 1500.0 + 0.25 * m, SIZES[:12], 8, np.random.default_rng(3))
    fit = cm.fit_line(m, y)
    assert fit.alpha_ci_ns[0] <= 1500.0 <= fit.alpha_ci_ns[1]
    assert fit.beta_ci[0] <= 0.25 <= fit.beta_ci[1]
    assert fit.alpha_ci_ns[1] - fit.alpha_ci_ns[0] < 0.05 * 1500  # the interval says something
    assert (fit.from_bytes, fit.to_bytes, fit.points, fit.sizes) == (8, 16384, 96, 12)


def test_exact_data_give_the_line_itself():
    m = np.repeat(SIZES[:6], 3).astype(float)
    fit = cm.fit_line(m, 700.0 + 2.0 * m)
    assert fit.alpha_ns == pytest.approx(700.0, rel=1e-6) and fit.beta_ns_per_byte == pytest.approx(2.0, rel=1e-6)
    assert fit.predict(1000) == pytest.approx(2700.0, rel=1e-6)


def test_intervals_cover_about_as_often_as_they_claim():
    covered_a = covered_b = 0
    n = 200
    for seed in range(n):
        m, y = draw(lambda m: 2000.0 + 0.5 * m, SIZES[:11], 6, np.random.default_rng(100 + seed))
        fit = cm.fit_line(m, y)
        covered_a += fit.alpha_ci_ns[0] <= 2000.0 <= fit.alpha_ci_ns[1]
        covered_b += fit.beta_ci[0] <= 0.5 <= fit.beta_ci[1]
    assert 0.88 <= covered_a / n <= 0.99 and 0.88 <= covered_b / n <= 0.99


def test_an_outlying_launch_does_not_pull_the_line():
    rng = np.random.default_rng(5)
    m, y = draw(lambda m: 1000.0 + 0.5 * m, SIZES[:10], 8, rng)
    y[::8] *= 3.0  # one launch of eight three times slower at every size
    fit = cm.fit_line(m, y)
    assert fit.alpha_ci_ns[0] <= 1000.0 * 1.06 and fit.beta_ci[0] <= 0.5 * 1.06 <= fit.beta_ci[1] + 0.05


@pytest.mark.parametrize("seed", [8, 9])
def test_piecewise_finds_the_protocol_change_and_both_lines(seed):
    # fixed seeds: the breakpoint is found for every seed tried, and both lines within a few
    # per cent (2 % noise, 6 launches). Whether the intervals cover is the coverage tests'
    # business: each of the four 95 % intervals misses the truth in 1 draw of 20, so a fixed
    # seed's interval check tests the seed (seed 9's rendezvous β interval starts 0.07 % above
    # 0.3 since the per-size Huber constant)
    m, y = draw(two_protocols, SIZES, 6, np.random.default_rng(seed))
    fit = cm.fit_piecewise(m, y)
    assert fit.breakpoints == (16384,)
    eager, rendezvous = fit.segments
    assert (eager.from_bytes, eager.to_bytes, rendezvous.from_bytes) == (8, 8192, 16384)
    assert eager.alpha_ns == pytest.approx(2000.0, rel=0.01)
    assert eager.beta_ns_per_byte == pytest.approx(0.5, rel=0.02)
    assert rendezvous.alpha_ns == pytest.approx(8000.0, rel=0.03)
    assert rendezvous.beta_ns_per_byte == pytest.approx(0.3, rel=0.02)
    for line in (eager, rendezvous):
        assert line.alpha_ci_ns[0] < line.alpha_ns < line.alpha_ci_ns[1]
        assert line.beta_ci[0] < line.beta_ns_per_byte < line.beta_ci[1]
    assert fit.predict(4096) == pytest.approx(2000 + 0.5 * 4096, rel=0.02)
    assert fit.candidates > 50  # every partition into ≤ 3 segments of ≥ 3 sizes was weighed


def test_no_breakpoint_on_one_line_null_check():
    # the detector's false alarm rate on data from a single line, noise and outliers included
    sizes = np.array([8 * 4 ** k for k in range(10)])
    found = 0
    n = 100
    for seed in range(n):
        rng = np.random.default_rng(1000 + seed)
        m, y = draw(lambda m: 2000.0 + 0.5 * m, sizes, 4, rng, sigma=0.03)
        y[rng.random(len(y)) < 0.03] *= 2
        found += bool(cm.fit_piecewise(m, y).breakpoints)
    assert found / n < 0.05


def test_one_launch_gives_no_breakpoint():
    m, y = draw(two_protocols, SIZES, 1, np.random.default_rng(1))
    assert cm.fit_piecewise(m, y).breakpoints == ()  # no noise estimate: nothing to judge a breakpoint by


def test_size_errors_flag_what_the_model_misses():
    m, y = draw(lambda m: 1000.0 + 1.0 * m, SIZES[:6], 8, np.random.default_rng(2))
    fit = cm.fit_line(m, y)
    sizes = [8, 64, 256]
    medians = [1008.0, 1064.0 * 1.5, 1256.0]
    errors = cm.size_errors(fit, sizes, medians, [1000.0, 1500.0, None], [1016.0, 1700.0, None])
    assert [e.missed for e in errors] == [False, True, None]
    assert errors[1].rel_error == pytest.approx((fit.predict(64) - medians[1]) / medians[1])
    assert errors[0].band_ns[0] < errors[0].predicted_ns < errors[0].band_ns[1]


@pytest.mark.parametrize("sizes, times, message", [
    ([8, 8, 8], [1.0, 2.0, 3.0], "at least 2 sizes"),
    ([8, 16], [1.0, 2.0], "3 points"),
    ([8, 16, 32], [1.0, -2.0, 3.0], "positive"),
])
def test_bad_input(sizes, times, message):
    with pytest.raises(ValueError, match=message):
        cm.fit_line(sizes, times)
    with pytest.raises(ValueError):
        cm.fit_piecewise(sizes, times)


def shared_launch_effect(rng, launches=10, sizes=SIZES, effect=0.03, noise=0.01, additive=False):
    """Per-launch medians of α + β·m (2 µs, 0.5 ns/B) with a launch effect shared by every size of a
    launch: a factor exp(N(0, effect)) — or, ``additive``, an offset of N(0, effect)·α — and
    independent noise per point; the launch of each point."""
    labels = np.repeat(np.arange(launches), len(sizes))
    m = np.tile(sizes, launches).astype(float)
    e = rng.normal(0.0, effect, launches)[labels]
    truth = 2000.0 + 0.5 * m
    y = (truth + e * 2000.0 if additive else truth * np.exp(e)) * np.exp(rng.normal(0.0, noise, len(m)))
    return m, y, labels


@pytest.mark.parametrize("additive", [False, True])
def test_intervals_resampling_launches_cover_under_a_shared_launch_effect(additive):
    """Coverage check under dependence: 150 seeded campaigns of 10 launches; the launch-resampling
    intervals cover α and β ≥ 90 %, the points-as-independent intervals visibly less (the issue
    measured 71 % and 76 %). α's error is almost all the mean of the 10 launch offsets, so on 150
    draws the luck of the draws shows: the exact Student-t interval of that mean (the offsets
    known) covers only 138 of these 150. With an additive offset α is held to that reference: at
    most 3 campaigns fewer. The fit with one Huber constant for all sizes fell 4 below it on the
    first 123 seeds alone (110 against 114: the weights dropped the launches that carry α,
    docs/ALGORITHMS.md); the per-size constant covers 136."""
    n = 150
    cov = {"a": 0, "b": 0, "a_points": 0, "b_points": 0, "a_exact": 0}
    t = float(stats.t.ppf(0.975, 9))
    for seed in range(n):
        offsets = np.random.default_rng(7000 + seed).normal(0.0, 0.03, 10)  # the generator's first draw
        cov["a_exact"] += abs(offsets.mean()) <= t * offsets.std(ddof=1) / np.sqrt(10)
        m, y, labels = shared_launch_effect(np.random.default_rng(7000 + seed), additive=additive)
        fit = cm.fit_line(m, y, launches=labels)
        naive = cm.fit_line(m, y)
        assert fit.interval == "launches" and fit.df == 9
        cov["a"] += fit.alpha_ci_ns[0] <= 2000.0 <= fit.alpha_ci_ns[1]
        cov["b"] += fit.beta_ci[0] <= 0.5 <= fit.beta_ci[1]
        cov["a_points"] += naive.alpha_ci_ns[0] <= 2000.0 <= naive.alpha_ci_ns[1]
        cov["b_points"] += naive.beta_ci[0] <= 0.5 <= naive.beta_ci[1]
    assert cov["a_exact"] == 138  # the reference the comment quotes
    assert cov["a"] / n >= 0.90 and cov["b"] / n >= 0.90, cov
    if additive:
        assert cov["a"] >= cov["a_exact"] - 3, cov
    assert cov["a_points"] / n < 0.85, cov


def test_huber_constant_follows_the_spread_of_each_size():
    """The cause of the additive case's shortfall, fixed in the estimator: with a shared additive
    offset the small sizes (which carry α) are ~3× as noisy, relative to their time, as the large
    ones; each size's Huber constant follows its own spread, so the launches that carry α are not
    down-weighted. An outlying launch of six does not widen its own size's constant much (the MAD
    holds), and with four launches a size's spread is not estimated at all (too scattered)."""
    m, y, labels = shared_launch_effect(np.random.default_rng(21), additive=True)
    factor = cm.size_tuning(m, y / cm.group_median(m, y))
    assert np.all(factor[m <= 64] > 1.8) and np.all(factor[m >= 65536] == 1.0), factor[::10]
    m6 = np.repeat(SIZES, 6).astype(float)
    rel = np.exp(np.random.default_rng(22).normal(0.0, 0.02, len(m6)))
    rel[m6 == 1024] *= np.array([1.0, 1.0, 1.0, 1.0, 1.0, 2.0])  # one launch twice as slow at 1 KiB
    factor6 = cm.size_tuning(m6, rel)
    assert factor6[m6 == 1024].max() < 2.5 and np.all(factor6 >= 1.0)
    m4 = np.repeat(SIZES, 4).astype(float)
    assert np.all(cm.size_tuning(m4, np.exp(np.random.default_rng(23).normal(0.0, 0.02, len(m4)))) == 1.0)


def test_intervals_resampling_launches_are_not_wide_without_a_launch_effect():
    """Power side: independent noise only, the launch intervals still say something (α within 2 %)."""
    m, y, labels = shared_launch_effect(np.random.default_rng(3), effect=0.0, noise=0.02)
    fit = cm.fit_line(m, y, launches=labels)
    assert fit.alpha_ci_ns[0] <= 2000.0 <= fit.alpha_ci_ns[1] and fit.alpha_ci_ns[1] - fit.alpha_ci_ns[0] < 0.04 * 2000


def test_one_launch_has_no_interval_and_nothing_is_called_not_missed():
    m, y, labels = shared_launch_effect(np.random.default_rng(4), launches=1)
    fit = cm.fit_line(m, y, launches=labels)
    assert fit.alpha_ci_ns is None and fit.beta_ci is None and fit.interval == "none" and fit.band(64) is None
    med = list(y)
    errors = cm.size_errors(fit, list(SIZES), med, [None] * len(med), [None] * len(med))
    assert all(e.missed is None for e in errors)  # not checked, not "not missed"


def test_a_jump_on_one_launch_is_reported():
    """One launch, 32 sizes, a 3.4× jump at 8 KiB (issue 25: 63 % error and "missed sizes: none")."""
    rng = np.random.default_rng(5)
    sizes = np.unique(np.geomspace(8, 1 << 20, 32).astype(int))
    truth = np.where(sizes < 8192, 2000.0 + 0.5 * sizes, 3.4 * (2000.0 + 0.5 * sizes))
    y = truth * np.exp(rng.normal(0.0, 0.01, len(sizes)))
    labels = np.zeros(len(sizes), dtype=int)
    fit = cm.fit_piecewise(sizes, y, launches=labels)
    errors = cm.size_errors(fit, list(sizes), list(y), [None] * len(y), [None] * len(y))
    worst = max(errors, key=lambda e: abs(e.rel_error))
    assert abs(worst.rel_error) > cm.ERROR_THRESHOLD and worst.missed is True
    assert all(e.missed is True for e in errors if abs(e.rel_error) > cm.ERROR_THRESHOLD)
    assert all(e.missed is None for e in errors if abs(e.rel_error) <= cm.ERROR_THRESHOLD)


def test_size_medians_and_spreads_are_numpys_median_and_statsmodels_mad_per_size():
    # one sort per pass stands for a median per size and statsmodels' mad per size
    from statsmodels.robust.scale import mad

    rng = np.random.default_rng(24)
    m = np.repeat([8.0, 64.0, 512.0, 4096.0, 32768.0], [1, 4, 6, 7, 9])  # odd and even counts
    rel = np.round(rng.lognormal(0.0, 0.05, m.size), 3)  # ties
    assert np.array_equal(cm.group_median(m, rel), [np.median(rel[m == s]) for s in m])
    spreads = {s: mad(rel[m == s]) for s in (512.0, 4096.0, 32768.0)}  # those with 6 points or more
    typical = np.median(list(spreads.values()))
    expected = [max(1.0, spreads[s] / typical) if s in spreads else 1.0 for s in m]
    assert np.array_equal(cm.size_tuning(m, rel), expected)
