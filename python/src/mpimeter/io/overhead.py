# SPDX-License-Identifier: BSD-3-Clause
"""``mpimeter-bench --subtract-overhead`` (SKaMPI, Reussner et al. 1998, §3.1: the systematic
error of a measurement "can be corrected by subtracting the time for an empty measurement"):
each test's empty-region time, meta.json ``tests[].overhead_ns`` (per raw.csv row), taken off
the run times of that test's repetitions. raw.csv keeps the times as measured; launches without
the option are left as they are."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from mpimeter.io.meta_tests import TestRecord
from mpimeter.io.runtimes import RepetitionTimes

SUBTRACTED_NOTE = ("run times have each test's empty-region time subtracted (mpimeter-bench --subtract-overhead, "
                   "SKaMPI §3.1: meta.json tests[].overhead_ns; raw.csv keeps them as measured)")


def subtracts(tests: Sequence[TestRecord]) -> bool:
    """Did the launch measure its tests' overhead to be subtracted?"""
    return any(t.overhead_ns is not None for t in tests)


def subtract_overhead(reps: RepetitionTimes, alternative: str, launch: int,
                      tests: Sequence[TestRecord]) -> RepetitionTimes:
    """The run times (every clock) of launch ``launch`` of ``alternative`` less each test's
    ``overhead_ns``; the other launches' repetitions unchanged."""
    overhead = {t.test: t.overhead_ns for t in tests if t.overhead_ns is not None}
    if not overhead or len(reps) == 0:
        return reps
    per_test = np.zeros(max(max(overhead), int(reps.test.max())) + 1)
    per_test[list(overhead)] = list(overhead.values())
    names = np.asarray(reps.alternatives, dtype=object)
    mine = (reps.launch == launch) & (names[reps.alternative] == alternative)
    off = np.where(mine, per_test[reps.test], 0.0)
    return replace(reps, online_ns=reps.online_ns - off, resync_ns=reps.resync_ns - off, local_ns=reps.local_ns - off)
