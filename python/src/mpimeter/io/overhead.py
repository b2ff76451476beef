# SPDX-License-Identifier: BSD-3-Clause
"""``mpimeter-bench --subtract-overhead`` (SKaMPI, Reussner et al. 1998, §3.1: the systematic
error of a measurement "can be corrected by subtracting the time for an empty measurement"):
each test's empty-region time, meta.json ``tests[].overhead_ns`` (per raw.csv row), taken off
the run times of that test's repetitions. raw.csv keeps the times as measured; launches without
the option are left as they are.

Not below the timer's resolution (Hoefler & Belli 2015 §4.2.1: a timed interval must span many
timer steps): a test whose median run time (valid repetitions) less its overhead would be below
:data:`MIN_TIMER_STEPS` steps of the launch's timer (meta.json ``timer.resolution_ns``) keeps its
times as measured — a difference the timer cannot resolve is no measurement — and the analysis
names it (:func:`subtract_overhead` returns which)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from mpimeter.io.meta_tests import TestRecord
from mpimeter.io.runtimes import RepetitionTimes

# the timed interval should span at least this many timer steps (Hoefler & Belli 2015 §4.2.1)
MIN_TIMER_STEPS = 10

SUBTRACTED_NOTE = ("run times have each test's empty-region time subtracted (mpimeter-bench --subtract-overhead, "
                   "SKaMPI §3.1: meta.json tests[].overhead_ns; raw.csv keeps them as measured)")


def subtracts(tests: Sequence[TestRecord]) -> bool:
    """Did the launch measure its tests' overhead to be subtracted?"""
    return any(t.overhead_ns is not None for t in tests)


def subtract_overhead(reps: RepetitionTimes, alternative: str, launch: int, tests: Sequence[TestRecord],
                      resolution_ns: float | None = None) -> tuple[RepetitionTimes, frozenset[int]]:
    """The run times (every clock) of launch ``launch`` of ``alternative`` less each test's
    ``overhead_ns``, the other launches' repetitions unchanged; and the tests kept as measured
    because the result would fall below :data:`MIN_TIMER_STEPS` × ``resolution_ns``."""
    overhead = {t.test: t.overhead_ns for t in tests if t.overhead_ns is not None}
    if not overhead or len(reps) == 0:
        return reps, frozenset()
    names = np.asarray(reps.alternatives, dtype=object)
    mine = (reps.launch == launch) & (names[reps.alternative] == alternative)
    kept = set()
    if resolution_ns is not None and resolution_ns > 0:
        for test, off in overhead.items():
            rows = mine & (reps.test == test) & (reps.valid == 1)
            # the clock the launch has: global (online, re-synced), else the local one
            times = next((x for x in (reps.online_ns[rows], reps.resync_ns[rows], reps.local_ns[rows])
                          if np.isfinite(x).any()), np.empty(0))
            times = times[np.isfinite(times)]
            if times.size and float(np.median(times)) - off < MIN_TIMER_STEPS * resolution_ns:
                kept.add(test)
    per_test = np.zeros(max(max(overhead), int(reps.test.max())) + 1)
    per_test[[t for t in overhead if t not in kept]] = [off for t, off in overhead.items() if t not in kept]
    off = np.where(mine, per_test[reps.test], 0.0)
    return (replace(reps, online_ns=reps.online_ns - off, resync_ns=reps.resync_ns - off, local_ns=reps.local_ns - off),
            frozenset(kept))
