# SPDX-License-Identifier: BSD-3-Clause
"""The default's number beside a back-to-back one: per row, the row's median (each call timed
alone: from a synchronized start, or a round trip right after the previous one) and the median over its launches of the test's back-to-back companion
(meta.json ``tests[].back_to_back``, ``--back-to-back``: calls back to back timed as one
interval, what OSU and IMB report), in the row's quantity (a ping-pong's halved into one-way
latency, as its repetitions are). Their ratio is the cost of a call after a wait outside MPI
against a call in a steady loop (docs/ALGORITHMS.md, "Single call and back-to-back")."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from mpimeter.analysis.loading import Campaign
from mpimeter.analysis.rowkey import RowKey
from mpimeter.units import format_ns

BACK_TO_BACK_NOTE = ("each call timed alone = the row's median; back-to-back = calls with no "
                     "synchronization between them timed as one interval, / calls (OSU's and IMB's figure; "
                     "--back-to-back), median over the launches")


@dataclass(frozen=True, kw_only=True)
class BackToBackRow(RowKey):
    """One row's two numbers, in ns: ``single_ns`` (the row's median) and ``back_to_back_ns``
    (the median over ``launches`` launches of the companion's time per call), both one-way
    latencies when ``one_way``; the row's key first (its fields in that order in ``to_dict``)."""

    launches: int
    calls: int  # the fewest calls of an interval over those launches
    single_ns: float
    back_to_back_ns: float
    one_way: bool

    @property
    def ratio(self) -> float:
        """M / B: how many times a call timed alone costs a pipelined one."""
        return self.single_ns / self.back_to_back_ns

    def text(self) -> str:
        """``each call timed alone: 1.2 µs; back-to-back (OSU/IMB-style): 1.00 µs (M/B = 1.2)``."""
        return (f"each call timed alone: {format_ns(self.single_ns)}; back-to-back "
                f"(OSU/IMB-style): {format_ns(self.back_to_back_ns)} (M/B = {self.ratio:.3g})")

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "ratio": self.ratio}


def back_to_back_rows(rows: Sequence, campaign: Campaign) -> tuple[BackToBackRow, ...]:
    """The rows (analysis.results.Row) some of whose launches recorded a back-to-back companion
    for the row's test, in the rows' order; the companion of a launch pairs with the test the row
    summarized there (LaunchSummary.test)."""
    tests = {(li.alternative, li.index): li.meta.tests for li in campaign.launches}
    out = []
    for r in rows:
        found = []
        for s in r.per_launch:
            launch_tests = tests.get((s.alternative, s.launch), ())
            record = launch_tests[s.test].back_to_back if 0 <= s.test < len(launch_tests) else None
            if record is not None:
                found.append(record)
        if not found or not r.median_ns > 0:
            continue
        # the companion times what the op's call times: a ping-pong's is a round trip
        per_call = [b.mean_ns / (2 if r.one_way else 1) for b in found]
        out.append(BackToBackRow(alternative=r.alternative, op=r.op, size=r.size, nprocs=r.nprocs, root=r.root,
                                 workpieces=r.workpieces, launches=len(found), calls=min(b.calls for b in found),
                                 single_ns=float(r.median_ns), back_to_back_ns=float(np.median(per_call)),
                                 one_way=r.one_way))
    return tuple(out)
