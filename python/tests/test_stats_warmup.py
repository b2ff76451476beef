# SPDX-License-Identifier: BSD-3-Clause
"""Roth 2021 §4.5 categories: first, warm-up (cumulative-minimum cliff), outlier, good."""

import numpy as np
import pytest

from mpimeter.stats import warmup
from mpimeter.stats.repetitions import INVALID, reduce_launch_test


def series(warm: int, n: int = 200) -> np.ndarray:
    x = np.full(n, 10.0) + np.linspace(0, 0.5, n) % 0.3
    x[:warm] = 14.0 - np.arange(warm) * 0.01  # elevated, slowly falling: no cliff inside
    x[0] = 30.0
    return x


def test_cliff_after_warmup_is_found():
    x = series(40)
    cats = warmup.categorize(x)
    assert cats.warmup_end == 40
    assert cats.warmup_length == 39
    names = [warmup.NAMES[c] for c in cats.codes]
    assert names[0] == "first"
    assert set(names[1:40]) == {"warmup"}
    assert set(names[40:]) == {"good"}


def test_outliers_are_at_least_twice_the_median():
    x = series(0)
    x[[50, 120]] = [25.0, 19.0]  # median ≈ 10.2: 25 is an outlier, 19 is not
    cats = warmup.categorize(x)
    assert cats.codes[50] == warmup.OUTLIER
    assert cats.codes[120] == warmup.GOOD
    assert cats.warmup_end == 0  # no cliff: no warm-up


def test_a_cliff_before_repetition_10_is_not_a_warmup():
    x = series(5)
    assert warmup.warmup_end(x) == 0


def test_small_drops_are_not_a_cliff():
    x = np.full(100, 10.0)
    x[:30] = 10.5  # a 5 % step is below the 10 % threshold
    assert warmup.warmup_end(x) == 0


def test_reduce_drops_invalid_and_optionally_warmup():
    x = series(40, 200)
    valid = np.ones(200, dtype=bool)
    valid[[100, 101]] = False
    keep_all = reduce_launch_test(x, valid, outlier="none")
    assert keep_all.n_invalid == 2 and keep_all.summary.n == 198
    assert keep_all.codes[100] == INVALID
    assert keep_all.warmup_length == 39
    dropped = reduce_launch_test(x, valid, outlier="none", drop_warmup=True)
    assert dropped.n_warmup_dropped == 40 and dropped.summary.n == 158
    assert dropped.summary.max < 11
    assert not dropped.kept[:40].any() and dropped.kept[40:100].all()


def test_reduce_counts_outliers_removed_and_bandwidth_is_harmonic():
    x = np.concatenate([np.full(99, 1000.0), [50_000.0]])  # ns
    st = reduce_launch_test(x, np.ones(100, bool), outlier="tukey", rate_bytes=1000)
    assert st.removed == 1
    assert st.bandwidth_Bps == pytest.approx(1e9)  # 1000 B / 1 µs


# --- the warm-up must be a real trend: null checks and recovery --------------

N_SERIES = 300


def bimodal(rng, n):
    first = rng.random(n) < 0.7
    return np.where(first, rng.lognormal(np.log(10), 0.3, n), rng.lognormal(np.log(16), 0.15, n))


def planted(rng, w0, n=300, sigma=0.15):
    """The first w0 repetitions decay exponentially from 2× to 1× the baseline: 2^(1 − i/w0)."""
    x = 1000.0 * rng.lognormal(0.0, sigma, n)
    x[:w0] *= 2.0 ** (1 - np.arange(w0) / w0)
    return x


NULLS = {
    "normal": lambda rng: rng.normal(1000, 50, 300),
    "lognormal": lambda rng: 1000 * rng.lognormal(0, 0.15, 300),
    "bimodal": lambda rng: bimodal(rng, 300),
    "shuffled": lambda rng: rng.permutation(planted(rng, 50)),
    "integer ties": lambda rng: np.round(20 * rng.lognormal(0, 0.15, 300)),
}


@pytest.mark.parametrize("name", sorted(NULLS))
def test_iid_and_shuffled_series_rarely_get_a_warmup(name):
    rng = np.random.default_rng(2026)
    found = [warmup.detect_warmup(NULLS[name](rng)) for _ in range(N_SERIES)]
    rate = np.mean([f.end > 0 for f in found])
    significant = np.mean([f.significant for f in found])
    print(f"{name}: warm-up in {rate:.3f} of series (test significant in {significant:.3f})")
    assert rate < 0.05 and significant < 0.05


@pytest.mark.parametrize("w0", [20, 50, 100])
def test_a_decaying_warmup_is_found_within_20_percent(w0):
    rng = np.random.default_rng(w0)
    found = [warmup.detect_warmup(planted(rng, w0)) for _ in range(100)]
    ends = np.array([f.end for f in found])
    within = np.mean(np.abs(ends - w0) <= 0.2 * w0)
    print(f"w0 = {w0}: median w {np.median(ends):g}, within ±20 %: {within:.2f}")
    # the level test's p is a bootstrap share: 1 / (BOOT_FIRST + BOOT_MORE + 1) is its smallest
    smallest = 1 / (warmup.BOOT_FIRST + warmup.BOOT_MORE + 1)
    assert all(f.significant and f.p_value <= smallest * 1.000001 for f in found)
    assert abs(np.median(ends) - w0) <= 0.1 * w0 and within >= 0.85


def test_one_fast_repetition_is_not_a_warmup():
    # the demo: a flat series and one repetition 15 % faster at 251 made Roth's rule say 251
    rng = np.random.default_rng(3)
    x = 1000 * rng.lognormal(0, 0.01, 300)
    x[251] = 850.0
    wu = warmup.detect_warmup(x)
    assert wu.end == 0 and not wu.significant
    assert warmup.categorize(x).counts()["warmup"] == 0


def test_result_records_significance_and_p_value():
    x = series(40)
    wu = warmup.detect_warmup(x)
    # the steady part is a sawtooth (φ near 1): the level test's null, simulated from that φ,
    # wanders as far, so its p is moderate, but the warm-up is significant and ends at 40
    assert wu.significant and wu.p_value <= 0.01 and wu.end == wu.fitted_end == 40
    cats = warmup.categorize(x)
    assert cats.warmup_significant and cats.warmup_p == wu.p_value
    short = warmup.detect_warmup(np.full(15, 10.0))  # too short for any candidate (w ≤ n/2 < 10)
    assert short.end == 0 and np.isnan(short.p_value) and not short.significant


def test_candidate_grid_is_geometric_and_bounded_by_half_the_series():
    assert warmup.candidate_ends(300).tolist() == [10, 15, 23, 34, 51, 76, 114]
    assert warmup.candidate_ends(19).tolist() == []


def test_trend_test_p_value_against_scipy_at_one_candidate():
    # with a single candidate w = 10 the Bonferroni factor is 1: p is scipy's one-sided
    # asymptotic rank-sum p of x_1..x_9 against x_10..
    from scipy import stats as st
    rng = np.random.default_rng(9)
    x = rng.normal(10, 1, 22)
    x[1:10] += 0.8
    ref = st.mannwhitneyu(x[1:10], x[10:], alternative="greater", method="asymptotic").pvalue
    assert warmup.trend_test(x) == pytest.approx(ref, rel=1e-9)


def test_reduce_keeps_warmup_length_zero_when_not_significant():
    rng = np.random.default_rng(4)
    x = 1000 * rng.lognormal(0, 0.15, 300)
    st = reduce_launch_test(x, np.ones(300, bool), outlier="none")
    assert st.warmup_length == 0 and not st.warmup_significant and 0 <= st.warmup_p <= 1


def _level_z_written_out(y: np.ndarray, w: int) -> float:
    """The level statistic at end w of one series of log run times, from its residuals around
    the two means written out: the definition the prefix sums must give."""
    n, k = y.size, w - 1
    before, after = y[:k].mean(), y[k:].mean()
    resid = y - np.where(np.arange(n) < k, before, after)
    var = np.var(resid, ddof=2)
    phi = np.dot(resid[1:], resid[:-1]) / np.dot(resid, resid)
    phi = min(max(phi + (1 + 3 * phi) / n, 0.0), 0.98)  # Kendall's bias correction, kept in [0, 0.98]
    factor = (1 + phi) / (1 - phi)
    var /= max(1 - 2 * factor / n, 0.5)
    return (before - after) / np.sqrt(var * factor * (1 / k + 1 / (n - k)))


def test_the_level_statistic_from_prefix_sums_is_that_of_the_residuals_written_out():
    rng = np.random.default_rng(12)
    wander = np.cumsum(rng.normal(0, 0.05, 299)) + 7.0  # far from centred, with a slow wander
    step = np.log(planted(rng, 50)[1:])
    short = rng.normal(3.0, 0.1, 40)
    for y in (wander, step, short):
        ends = warmup.candidate_ends(y.size + 1)
        got = warmup._level_z_per_end(np.column_stack([y, y[::-1]]), ends)
        for j, w in enumerate(ends):
            assert got[j, 0] == pytest.approx(_level_z_written_out(y, w), rel=1e-9)
            assert got[j, 1] == pytest.approx(_level_z_written_out(y[::-1].copy(), w), rel=1e-9)
    # a step without noise: the residuals at its end do not vary, and nothing scales the step there
    flat = np.r_[np.full(22, np.log(14.0)), np.full(77, np.log(10.0))]  # repetitions 1 … 22: w = 23
    ends = warmup.candidate_ends(100)
    got = warmup._level_z_per_end(flat[:, None], ends)[:, 0]
    assert got[list(ends).index(23)] == -np.inf and np.all(np.isfinite(np.delete(got, list(ends).index(23))))


def test_the_bootstrap_gives_the_numbers_of_np_cumsum_and_rng_choice(monkeypatch):
    # _prefix_sums adds row by row from WIDE columns on and by np.cumsum below: the same additions
    # in the same order, so the same numbers; and _draws's blocks of draws are rng.choice's
    rng = np.random.default_rng(13)
    ends = warmup.candidate_ends(120)
    y = np.cumsum(rng.normal(0, 0.05, (119, warmup.WIDE + 3)), axis=0) + 7.0
    wide = warmup._level_z_per_end(y, ends)
    monkeypatch.setattr(warmup, "WIDE", y.shape[1] + 1)
    assert np.array_equal(wide, warmup._level_z_per_end(y, ends))
    monkeypatch.undo()
    z = rng.normal(0, 0.1, 119)
    draws = warmup.DRAW_BLOCK + 7
    got = warmup._sieve_null(z, 0.4, 119, ends, *warmup._draws(np.random.default_rng(5), 118, 119, draws))
    ref = np.random.default_rng(5)
    resid = z[1:] - 0.4 * z[:-1]
    e = ref.choice(resid - resid.mean(), size=(draws, 119 + warmup.BURN_IN))
    phis = np.clip(0.4 + warmup.PHI_UP * np.sqrt((1 - 0.16) / 119) * np.abs(ref.standard_normal(draws)),
                   0.0, warmup.PHI_MAX)
    for i in range(1, e.shape[1]):
        e[:, i] += phis * e[:, i - 1]
    expected = warmup._level_z_per_end(np.ascontiguousarray(e[:, warmup.BURN_IN:].T), ends).max(axis=0)
    assert np.array_equal(got, expected)
    # and in blocks: innovations taken 3 rows at a time, prefix sums added row by row, ends 16 series at a time
    monkeypatch.setattr(warmup, "TAKE_BLOCK", 3 * draws)
    monkeypatch.setattr(warmup, "WIDE", 1)
    monkeypatch.setattr(warmup, "END_BLOCK", 16)
    blocks = warmup._sieve_null(z, 0.4, 119, ends, *warmup._draws(np.random.default_rng(5), 118, 119, draws))
    assert np.array_equal(blocks, expected)
