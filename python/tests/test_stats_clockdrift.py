# SPDX-License-Identifier: BSD-3-Clause
"""mpimeter.stats.clockdrift: how long a sync holds, the error's growth and the re-sync interval,
on series of a virtual clock (known offset and skew: exact expectations) and by hand."""

from __future__ import annotations

import math

import pytest

from mpimeter.stats.clockdrift import Hold, drift_fit, hold_time, resync_interval

# log-spaced check times, four per decade, as bench/drift.py takes them
CHECKS_S = [0.01, 0.018, 0.032, 0.056, 0.1, 0.18, 0.32, 0.56, 1, 1.8, 3.2, 5.6, 10, 18, 32, 56, 100]


def _virtual_error(t_s: float, *, offset_error_ns: float, skew_ppm: float) -> float:
    """The error of a synced clock t seconds after its sync when the model missed the offset by
    ``offset_error_ns`` and the clock's rate by ``skew_ppm`` (1 ppm = 1000 ns per second)."""
    return offset_error_ns + skew_ppm * 1000.0 * t_s


def test_an_offset_only_model_under_10_ppm_goes_beyond_1_us_between_56_and_100_ms():
    # 30 ns + 10 ppm: 590 ns at 56 ms, 1030 ns at 100 ms
    errors = [abs(_virtual_error(t, offset_error_ns=30, skew_ppm=10)) for t in CHECKS_S]
    hold = hold_time(CHECKS_S, errors, tolerance_ns=1000)
    assert (hold.held_s, hold.first_beyond_s, hold.held_throughout) == (0.056, 0.1, False)


def test_a_linear_model_missing_the_skew_by_20_ppb_holds_for_minutes():
    # -40 ns + 0.02 ppm (20 ns/s): 600 ns at 32 s, 1080 ns at 56 s
    errors = [abs(_virtual_error(t, offset_error_ns=-40, skew_ppm=0.02)) for t in CHECKS_S]
    hold = hold_time(CHECKS_S, errors, tolerance_ns=1000)
    assert (hold.held_s, hold.first_beyond_s) == (32, 56)
    fit = drift_fit(CHECKS_S, [_virtual_error(t, offset_error_ns=-40, skew_ppm=0.02) for t in CHECKS_S],
                    tolerance_ns=1000)
    assert fit.rate_ppm == pytest.approx(0.02)
    assert fit.intercept_ns == pytest.approx(-40)
    assert fit.projected_hold_s == pytest.approx(52.0)  # (1000 + 40) / 20 ns/s
    assert fit.rate_low_ns_per_s <= fit.rate_ns_per_s <= fit.rate_high_ns_per_s


def test_a_falling_error_reaches_minus_the_tolerance():
    fit = drift_fit([0, 1, 2, 3], [50, 30, 10, -10], tolerance_ns=1000)
    assert fit.rate_ns_per_s == pytest.approx(-20)
    assert fit.projected_hold_s == pytest.approx((1000 + 50) / 20)


def test_a_flat_error_never_reaches_it_and_a_large_one_starts_beyond():
    assert math.isinf(drift_fit([0, 1, 2], [100, 100, 100], tolerance_ns=1000).projected_hold_s)
    assert drift_fit([0, 1, 2], [1200, 1200, 1200], tolerance_ns=1000).projected_hold_s == 0


def test_the_fit_is_not_moved_by_one_asymmetric_check():
    # one check hit an asymmetric ping-pong (+5 us): least squares would tilt the line, Theil-Sen not
    errors = [_virtual_error(t, offset_error_ns=0, skew_ppm=0.01) for t in CHECKS_S]
    errors[3] += 5000
    assert drift_fit(CHECKS_S, errors, tolerance_ns=1000).rate_ppm == pytest.approx(0.01, rel=1e-6)


def test_hold_edges():
    # an error equal to the tolerance is within it
    assert hold_time([1, 2], [1000, 1000], tolerance_ns=1000).held_throughout
    # beyond at the first check: no hold
    hold = hold_time([0.1, 1], [2000, 1500], tolerance_ns=1000)
    assert (hold.held_s, hold.first_beyond_s) == (None, 0.1)
    # one check beyond between two within is a spike: the hold goes on, the spike is named;
    # with confirm=1 the first check beyond ends it
    hold = hold_time([1, 2, 3], [10, 2000, 10], tolerance_ns=1000)
    assert (hold.held_s, hold.first_beyond_s, hold.spikes_s) == (3, None, (2,))
    assert hold_time([1, 2, 3], [10, 2000, 10], tolerance_ns=1000, confirm=1).held_s == 1
    # two in a row end it even when a later check is within again; the last check confirms itself
    assert hold_time([1, 2, 3, 4], [10, 2000, 2000, 10], tolerance_ns=1000).held_s == 1
    hold = hold_time([1, 2, 3, 4], [10, 2000, 10, 2000], tolerance_ns=1000)
    assert (hold.held_s, hold.first_beyond_s, hold.spikes_s) == (3, 4, (2,))
    # signs do not matter
    assert hold_time([1, 2], [-10, -2000], tolerance_ns=1000).first_beyond_s == 2


@pytest.mark.parametrize("call, message", [
    (lambda: hold_time([], [], tolerance_ns=1), "one length"),
    (lambda: hold_time([1, 2], [1], tolerance_ns=1), "one length"),
    (lambda: hold_time([2, 1], [1, 1], tolerance_ns=1), "must not decrease"),
    (lambda: hold_time([1], [math.nan], tolerance_ns=1), "finite"),
    (lambda: hold_time([1], [1], tolerance_ns=0), "positive"),
    (lambda: hold_time([1], [1], tolerance_ns=1, confirm=0), "at least 1"),
    (lambda: drift_fit([1, 1], [1, 2], tolerance_ns=1), "two different times"),
    (lambda: resync_interval([], 0.1), "no series"),
])
def test_bad_input_is_refused(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_resync_interval_is_the_shortest_hold_and_says_what_kind_of_bound_it_is():
    throughout = Hold(tolerance_ns=1000, held_s=100, first_beyond_s=None)
    broke = Hold(tolerance_ns=1000, held_s=10, first_beyond_s=18)
    never = Hold(tolerance_ns=1000, held_s=None, first_beyond_s=0.01)
    assert resync_interval([throughout], 0.01) == resync_interval([throughout, throughout], 0.01)
    assert (resync_interval([throughout], 0.01).interval_s, resync_interval([throughout], 0.01).kind) == (100, "at least")
    advice = resync_interval([throughout, broke], 0.01)
    assert (advice.interval_s, advice.kind) == (10, "observed")
    advice = resync_interval([throughout, broke, never], 0.01)
    assert (advice.interval_s, advice.kind) == (0.01, "below first check")
    # a series that held throughout but was checked only to 5 s bounds the interval from below
    short = Hold(tolerance_ns=1000, held_s=5, first_beyond_s=None)
    advice = resync_interval([short, broke], 0.01)
    assert (advice.interval_s, advice.kind) == (5, "at least")
