# SPDX-License-Identifier: BSD-3-Clause
"""How long one clock sync holds: the errors of a synced clock measured at growing times after
the sync (``mpimeter sync-check --check-at``), against a tolerance.

Hoefler, Schneider & Lumsdaine 2010 §2.2 (Fig. 5) took one ping-pong offset per second between
node pairs for hours and found the clock difference "relatively linear at a coarse scale";
Hunold & Carpen-Amarie 2016 §3.2.1 and §4.3 (Fig. 4): offset-only global clocks (SKaMPI,
NBCBench) go wrong over a long series of repetitions, and even a linear model (Jones & Koenig)
drifts apart eventually. Here, per series of checks:

- :func:`hold_time`: the last check time before the error went beyond the tolerance for good
  (for ``confirm`` checks in a row, or through the last check; the crossing lies between it and
  the first check beyond). A check beyond it that the next one does not confirm is a spike of the
  check itself, not of the model: a model's error grows steadily (|a + b·t|), while one
  ping-pong preempted on a busy machine, or a rank preempted between its clock and truth reads,
  is off by the time it waited (measured here: one check in 17 off by 11 ms on a shared clock);
- :func:`drift_fit`: the error's growth rate (Theil–Sen slope of the signed error against time,
  with scipy's interval; 1000 ns/s is 1 ppm) and the time at which that line reaches the
  tolerance: an extrapolation, for series that held through their last check;
- :func:`resync_interval`: the interval to re-sync at over several series (configurations).

Input: check times in seconds after the sync (non-decreasing), errors in ns. Pure: no files.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from collections.abc import Sequence

import numpy as np
from scipy import stats as _scipy_stats

NS_PER_S_IN_PPM = 1000.0  # an error growing by 1000 ns per second is a drift of 1 ppm
CONFIRM_CHECKS = 2  # checks beyond the tolerance in a row that end a hold (hold_time: why)


@dataclass(frozen=True)
class Hold:
    """``held_s``: the last check time before the error went beyond ``tolerance_ns`` for good (None:
    it was beyond from the first check); ``first_beyond_s``: the check where it did (None: it
    never did, so the sync held at least ``held_s``); ``spikes_s``: the checks before that which
    were beyond it once and within it again at the next."""

    tolerance_ns: float
    held_s: float | None
    first_beyond_s: float | None
    spikes_s: tuple[float, ...] = ()

    @property
    def held_throughout(self) -> bool:
        return self.first_beyond_s is None


@dataclass(frozen=True)
class DriftFit:
    """The signed error ≈ ``intercept_ns`` + ``rate_ns_per_s`` · t (Theil–Sen); ``rate_low`` /
    ``rate_high`` its 95 % interval; ``projected_hold_s``: when that line reaches the tolerance
    (0 when it starts beyond it, inf when it does not grow)."""

    rate_ns_per_s: float
    rate_low_ns_per_s: float
    rate_high_ns_per_s: float
    intercept_ns: float
    projected_hold_s: float

    @property
    def rate_ppm(self) -> float:
        return self.rate_ns_per_s / NS_PER_S_IN_PPM


@dataclass(frozen=True)
class ResyncAdvice:
    """``interval_s``: re-sync at least this often; ``kind``: "observed" (the series with the
    shortest hold went beyond the tolerance after it), "at least" (it held through its last
    check: a lower bound), or "below first check" (some series was beyond it at its first check:
    ``interval_s`` is that check's time, an upper bound)."""

    interval_s: float
    kind: str


def _series(times_s: Sequence[float], errors_ns: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    t = np.asarray(times_s, dtype=float)
    e = np.asarray(errors_ns, dtype=float)
    if t.ndim != 1 or t.shape != e.shape or t.size == 0:
        raise ValueError(f"times and errors must be two series of one length ≥ 1 (got {t.size} and {e.size})")
    if not (np.all(np.isfinite(t)) and np.all(np.isfinite(e))):
        raise ValueError("times and errors must be finite numbers")
    if np.any(t < 0) or np.any(np.diff(t) < 0):
        raise ValueError("check times must be ≥ 0 and must not decrease")
    return t, e


def _check_tolerance(tolerance_ns: float) -> None:
    if not (math.isfinite(tolerance_ns) and tolerance_ns > 0):
        raise ValueError(f"tolerance {tolerance_ns!r}: must be a positive number of ns")


def hold_time(times_s: Sequence[float], abs_errors_ns: Sequence[float], *, tolerance_ns: float,
              confirm: int = CONFIRM_CHECKS) -> Hold:
    """How long the series stayed within ``tolerance_ns`` (an error equal to it is within): up to
    the first check beyond it that the next ``confirm`` − 1 checks confirm (the last checks of the
    series confirm themselves); ``confirm`` = 1 ends the hold at the first check beyond it."""
    _check_tolerance(tolerance_ns)
    if confirm < 1:
        raise ValueError(f"confirm {confirm!r}: must be at least 1")
    t, e = _series(times_s, abs_errors_ns)
    beyond = np.abs(e) > tolerance_ns
    first = next((i for i in range(t.size) if beyond[i: i + confirm].all()), None)
    spikes = tuple(float(t[i]) for i in range(t.size if first is None else first) if beyond[i])
    if first is None:
        return Hold(tolerance_ns=tolerance_ns, held_s=float(t[-1]), first_beyond_s=None, spikes_s=spikes)
    return Hold(tolerance_ns=tolerance_ns, held_s=float(t[first - 1]) if first > 0 else None,
                first_beyond_s=float(t[first]), spikes_s=spikes)


def drift_fit(times_s: Sequence[float], errors_ns: Sequence[float], *, tolerance_ns: float) -> DriftFit:
    """The growth of one rank's signed error (Theil–Sen, robust to the odd asymmetric ping-pong
    that a residual check can hit); needs two distinct check times."""
    _check_tolerance(tolerance_ns)
    t, e = _series(times_s, errors_ns)
    if np.unique(t).size < 2:
        raise ValueError("a drift fit needs checks at two different times at least")
    slope, intercept, low, high = _scipy_stats.theilslopes(e, t, alpha=0.95)
    if abs(intercept) >= tolerance_ns:
        projected = 0.0
    elif slope == 0:
        projected = math.inf
    else:
        # the line a + b·t meets +tol (b > 0) or −tol (b < 0); positive since |a| < tol
        projected = (math.copysign(tolerance_ns, slope) - intercept) / slope
    return DriftFit(rate_ns_per_s=float(slope), rate_low_ns_per_s=float(low), rate_high_ns_per_s=float(high),
                    intercept_ns=float(intercept), projected_hold_s=float(projected))


def resync_interval(holds: Sequence[Hold], first_check_s: float) -> ResyncAdvice:
    """The re-sync interval every series supports: the shortest hold over the series."""
    if not holds:
        raise ValueError("no series to advise on")
    if any(h.held_s is None for h in holds):
        return ResyncAdvice(interval_s=first_check_s, kind="below first check")
    shortest = min(holds, key=lambda h: (h.held_s, h.held_throughout))
    return ResyncAdvice(interval_s=float(shortest.held_s),
                        kind="at least" if shortest.held_throughout else "observed")
