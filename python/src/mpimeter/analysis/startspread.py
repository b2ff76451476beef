"""The start-spread double check (docs/FORMAT.md, "run time of a repetition"): a global run time
(max end − min start over ranks) is the run time of the operation only if the ranks started it
together. The process sync planned one start on the online global clock; the spread of the
ranks' ``gstart_ns`` on that clock says how far apart they really started. A repetition whose
spread exceeds the test's tolerance is dropped like an invalid one, and counted.

The tolerance is ``tests[].start_tolerance_ns`` (schema 2; null: the scheme plans no start, or
ranks share CPUs — no check). A schema-1 launch has none: the binary's automatic rule is computed
from its facts — 10 × ``timer.overhead_ns``, at least 1000 ns — for the schemes with a planned
start (window, roundtime, harmonize). Launches analyzed on the local clock are not checked;
neither is ``--raw reduced`` (one row per repetition: no per-rank starts), which the clock note
says once.

A warning (``late-start-spread``) when some launch test lost more than :data:`WARN_SHARE` of
its valid repetitions to the check, naming the worst.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from mpimeter.analysis.loading import Campaign
from mpimeter.io.errors import AnalysisWarning
from mpimeter.io.meta import LaunchMeta, TestRecord
from mpimeter.io.runtimes import RepetitionTimes
from mpimeter.units import format_ns
from mpimeter.warning_codes import warning

TIMER_READS = 10  # a rank that woke in time is one or two timer reads past the start; ten is late
MIN_TOLERANCE_NS = 1000.0
WARN_SHARE = 0.01  # warn when a launch test lost more than 1 % of its valid repetitions


@dataclass(frozen=True)
class SpreadCheck:
    late: np.ndarray  # per repetition of the RepetitionTimes: dropped by the check
    warning: AnalysisWarning | None
    note: str  # for the clock note: what was (not) checked; "" when nothing was


def tolerance_ns(meta: LaunchMeta, test: TestRecord) -> float | None:
    """The start tolerance of one test (None: not checked)."""
    if meta.schema_version >= 2:
        return None if test.start_tolerance_ns is None else float(test.start_tolerance_ns)
    if test.window_ns is None:
        return None  # version 1 writes a window (or start slack) for planned starts only
    return max(TIMER_READS * (meta.timer.overhead_ns or 0.0), MIN_TOLERANCE_NS)


def check_start_spread(campaign: Campaign, reps: RepetitionTimes, bounds: Sequence[tuple[int, int]],
                       clocks: Mapping[tuple[str, int], str]) -> SpreadCheck:
    """``bounds``: the (start, end) of each (alternative, launch, test) group of ``reps``;
    ``clocks``: the clock each launch is analyzed with."""
    late = np.zeros(len(reps), dtype=bool)
    infos = {(li.alternative, li.index): li for li in campaign.launches}
    unchecked: set[tuple[str, int]] = set()
    worst: tuple[float, str, int, int, float, float] | None = None  # share, where, dropped, valid, spread, tolerance
    for lo, hi in bounds:
        key = (reps.alternatives[reps.alternative[lo]], int(reps.launch[lo]))
        li = infos.get(key)
        if li is None or not clocks.get(key, "local").startswith("global"):
            continue
        test = li.meta.tests[int(reps.test[lo])] if int(reps.test[lo]) < len(li.meta.tests) else None
        tolerance = None if test is None else tolerance_ns(li.meta, test)
        if tolerance is None:
            continue
        spread = reps.spread_ns[lo:hi]
        if np.isnan(spread).all():
            unchecked.add(key)  # --raw reduced: no per-rank starts
            continue
        valid = reps.valid[lo:hi]
        with np.errstate(invalid="ignore"):
            dropped = valid & (spread > tolerance)
        late[lo:hi] = dropped
        n, k = int(valid.sum()), int(dropped.sum())
        if k and (worst is None or k / n > worst[0]):
            worst = (k / n, f"{key[0]}/{key[1]:03d} {test.op} {test.size}", k, n, float(np.nanmax(spread[dropped])),
                     tolerance)
    return SpreadCheck(late, _warning(worst, int(late.sum())), _note(int(late.sum()), len(unchecked)))


def _warning(worst: tuple | None, total: int) -> AnalysisWarning | None:
    if worst is None or worst[0] <= WARN_SHARE:
        return None
    share, where, k, n, spread, tolerance = worst
    return warning("late-start-spread", dropped=total, test=where, late=k, valid=n, spread=format_ns(spread),
                   tolerance=format_ns(tolerance), where=where, badness=share)


def _note(dropped: int, unchecked: int) -> str:
    parts = []
    if dropped:
        parts.append(f"{dropped} repetition(s) dropped whose ranks' start spread exceeded the start tolerance")
    if unchecked:
        parts.append(f"the start spread of {unchecked} launch(es) is not checked: --raw reduced keeps no per-rank "
                     "start times")
    return "; ".join(parts)
