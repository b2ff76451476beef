# SPDX-License-Identifier: BSD-3-Clause
"""The start-spread double check (docs/FORMAT.md, "run time of a repetition"): a global run time
(max end − min start over ranks) is the run time of the operation only if the ranks started it
together. The process sync planned one start on the online global clock; the spread of the
ranks' ``gstart_ns`` on that clock says how far apart they really started. A repetition whose
spread exceeds the test's tolerance is dropped like an invalid one, and counted.

The tolerance is ``tests[].start_tolerance_ns`` (schema 2). Where the binary wrote none for a
scheme with a planned start (window, roundtime, harmonize) — a schema-1 launch, or ranks sharing
CPUs written before the binary kept its own check on there — the binary's automatic rule
is computed from the launch's facts: 10 × ``timer.overhead_ns``, at least 1000 ns. A descheduled
rank is exactly what the check exists for, so oversubscribed launches are checked too (the note
says with which tolerance). Schemes without a planned start (barrier, none, loop-barrier) are
not checked, nor the repetitions of a test from where it went on with barrier
(``tests[].procsync_switches``: the window's own policy on a busy machine).

The spread is taken on the clock the run time is: ``gstart_ns`` on the online clock, the starts
recomputed from sync.csv on the re-synced one (``global-resync``): validity is recomputed in
that clock, so a repetition whose corrected starts lie further apart than the tolerance is
dropped there even when its online starts agreed (an offset-only model whose ranks drifted
apart between syncs). Launches analyzed on the local clock are not checked; neither is
``--raw reduced`` (one row per repetition: no per-rank starts), which the clock note says once.

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


PLANNED_START = frozenset({"window", "roundtime", "harmonize"})


def tolerance_ns(meta: LaunchMeta, test: TestRecord) -> float | None:
    """The start tolerance of one test (None: not checked)."""
    if test.start_tolerance_ns is not None and meta.schema_version >= 2:
        return float(test.start_tolerance_ns)
    if not planned_start(meta, test):
        return None
    return automatic_tolerance_ns(meta)


def planned_start(meta: LaunchMeta, test: TestRecord) -> bool:
    """The scheme planned each repetition's start: the binary writes a window (or start slack)
    for such tests only; a hand-made meta.json may name the method instead."""
    return test.window_ns is not None or meta.proc_sync.method in PLANNED_START


def automatic_tolerance_ns(meta: LaunchMeta) -> float:
    """The binary's automatic rule (docs/FORMAT.md, tests[].start_tolerance_ns) from the launch's
    recorded timer overhead: a rank running at its start is one or two timer reads past it."""
    return max(TIMER_READS * (meta.timer.overhead_ns or 0.0), MIN_TOLERANCE_NS)


def _computed_here(meta: LaunchMeta, test: TestRecord) -> bool:
    """The tolerance is the analysis's (the binary wrote none) on a launch that has its own check."""
    return meta.schema_version >= 2 and test.start_tolerance_ns is None


def check_start_spread(campaign: Campaign, reps: RepetitionTimes, bounds: Sequence[tuple[int, int]],
                       clocks: Mapping[tuple[str, int], str]) -> SpreadCheck:
    """``bounds``: the (start, end) of each (alternative, launch, test) group of ``reps``;
    ``clocks``: the clock each launch is analyzed with."""
    late = np.zeros(len(reps), dtype=bool)
    infos = {(li.alternative, li.index): li for li in campaign.launches}
    unchecked: set[tuple[str, int]] = set()
    computed: dict[float, set[tuple[str, int]]] = {}  # tolerance → launches it was computed for
    resynced: set[tuple[str, int]] = set()
    worst: tuple[float, str, int, int, float, float] | None = None  # share, where, dropped, valid, spread, tolerance
    for lo, hi in bounds:
        key = (reps.alternatives[reps.alternative[lo]], int(reps.launch[lo]))
        li = infos.get(key)
        clock = clocks.get(key, "local")
        if li is None or not clock.startswith("global"):
            continue
        test = li.meta.tests[int(reps.test[lo])] if int(reps.test[lo]) < len(li.meta.tests) else None
        tolerance = None if test is None else tolerance_ns(li.meta, test)
        if tolerance is None:
            continue
        if _computed_here(li.meta, test):
            computed.setdefault(tolerance, set()).add(key)
        spread = (reps.rspread_ns if clock == "global-resync" else reps.spread_ns)[lo:hi]
        if clock == "global-resync":
            resynced.add(key)
        if np.isnan(spread).all():
            unchecked.add(key)  # --raw reduced: no per-rank starts
            continue
        valid = reps.valid[lo:hi]
        with np.errstate(invalid="ignore"):
            dropped = valid & (spread > tolerance)
        if test.unplanned_from is not None:  # the test went on with barrier: no planned start from there
            dropped &= reps.rep[lo:hi] < test.unplanned_from
        late[lo:hi] = dropped
        n, k = int(valid.sum()), int(dropped.sum())
        if k and (worst is None or k / n > worst[0]):
            worst = (k / n, f"{key[0]}/{key[1]:03d} {test.op} {test.size}", k, n, float(np.nanmax(spread[dropped])),
                     tolerance)
    return SpreadCheck(late, _warning(worst, int(late.sum())),
                       _note(int(late.sum()), len(unchecked), computed, len(resynced)))


def _warning(worst: tuple | None, total: int) -> AnalysisWarning | None:
    if worst is None or worst[0] <= WARN_SHARE:
        return None
    share, where, k, n, spread, tolerance = worst
    return warning("late-start-spread", dropped=total, test=where, late=k, valid=n, spread=format_ns(spread),
                   tolerance=format_ns(tolerance), where=where, badness=share)


def _note(dropped: int, unchecked: int, computed: Mapping[float, set] | None = None, resynced: int = 0) -> str:
    parts = []
    if dropped:
        parts.append(f"{dropped} repetition(s) dropped whose ranks' start spread exceeded the start tolerance")
    for tolerance, launches in sorted((computed or {}).items()):
        parts.append(f"the start spread of {len(launches)} launch(es) whose binary wrote no start tolerance (ranks "
                     f"sharing CPUs) is checked against {format_ns(tolerance)}: 10 timer overheads, at least "
                     f"{format_ns(MIN_TOLERANCE_NS)}")
    if resynced:
        parts.append(f"the start spread of {resynced} launch(es) is taken on the re-synced clock")
    if unchecked:
        parts.append(f"the start spread of {unchecked} launch(es) is not checked: --raw reduced keeps no per-rank "
                     "start times")
    return "; ".join(parts)
