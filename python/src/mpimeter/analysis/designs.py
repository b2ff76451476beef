# SPDX-License-Identifier: BSD-3-Clause
"""Which design a comparison ran with, and what follows for its test: the sides paired by
launch (a guideline's two operations run in every launch), paired by round (an interleaved
campaign runs launch r of every alternative in round r: campaign.plan), or independent (two
campaigns).

A paired design is tested on per-pair ratios (stats.paired: the launch's or the round's own
speed cancels in them). With machine states (analysis.strata: launch → state), a round whose two
launches ran in different states carries the states' ratio in its own, so a pairing by round
holds only when every round's launches share a state; otherwise the launches are compared state
by state (van Elteren, stats.stratified), unpaired within each state.

The pairing is chosen by the counts, never by the times: a sign-flip test on n pairs can give
no p below 2^−n (twice that two-sided), whatever the data, so a paired row is tested paired
only when that smallest p reaches the family's first Holm level α / rows; otherwise it is tested
unpaired (the rank-sum test's smallest p, 2 / C(2n, n) two-sided, is far lower: 0.00016 at 8
against 8). Each row says which design it ran with and why (``design``, ``design_reason``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np

from mpimeter.io.errors import AnalysisWarning
from mpimeter.stats import paired as _paired
from mpimeter.stats.hypothesis import TestResult
from mpimeter.warning_codes import warning

BY_ROUND = "paired by round"
BY_STATE = "stratified by state"
UNPAIRED = "unpaired"
SEPARATE = "separate campaigns"  # design_reason of rows of two campaigns: nothing pairs them
NO_RECORD = "no campaign.json: no record of the rounds"  # folders loaded together (`compare A B`)


def paired_low_power(pairs: Sequence[tuple[int, str]], family: int, alpha: float, per: str) -> list[AnalysisWarning]:
    """``low-power`` when the paired row with the fewest pairs cannot be significant: its
    smallest attainable p (2^−pairs) times the ``family`` size exceeds ``alpha``."""
    if not pairs:
        return []
    n, where = min(pairs)
    p_min = _paired.min_p_value(n)
    if p_min * family <= alpha:
        return []
    return [warning("low-power", n_a=n, n_b=n, row=where, p_min=p_min, rows=family, alpha=alpha, per=per,
                    where=where)]


def rounds(launches: Mapping[int, float], per_round: int = 1) -> dict[int, float]:
    """Round → value of an alternative's launches of one process count (launch index // the
    process counts per round: campaign.plan.interleave)."""
    return {i // per_round: v for i, v in launches.items()}


def round_pairs(a: Mapping[int, float], b: Mapping[int, float], state_a: Mapping[int, str] | None = None,
                state_b: Mapping[int, str] | None = None) -> tuple[str, list[int]]:
    """The design of two alternatives' launches keyed by round (and their launch → state, keyed
    the same): ``BY_ROUND`` with the rounds both ran when every such round's two launches share
    a state (or there are no states), ``BY_STATE`` when some do not."""
    both = sorted(set(a) & set(b))
    if not both:
        return UNPAIRED, []
    if state_a is not None and state_b is not None and any(state_a.get(r) != state_b.get(r) for r in both):
        return BY_STATE, both
    return BY_ROUND, both



def launches_per_round(result: Any, alternative: str) -> int | None:
    """Launches of ``alternative`` per round of an interleaved campaign (its process counts:
    campaign.plan.interleave), None without campaign.json (no record of the rounds)."""
    record = result.campaign.campaign_record
    if record is None:
        return None
    return max(1, len({e.np for e in record.launches if e.alternative == alternative}))


def launch_medians(g: Any, op: str, size: int) -> dict[int, float]:
    """Launch → median of a group's (op, size) row (launches with a finite median)."""
    row = g.rows().get((op, size))
    return {} if row is None else {s.launch: float(s.median_ns) for s in row.per_launch
                                   if s.n > 0 and math.isfinite(s.median_ns)}


def min_p(pairs: int, alternative: str) -> float:
    """Smallest p of the signed-rank test on ``pairs`` pairs: 2^−pairs one-sided, twice that
    two-sided."""
    p = _paired.min_p_value(pairs)
    return min(1.0, 2 * p) if alternative == "two-sided" else p


def paired_test(a: np.ndarray, b: np.ndarray, alternative: str) -> TestResult:
    """The signed-rank test of the per-pair ratios b / a against 1; ``alternative`` is about a
    relative to b (``less``: a faster, so b / a above 1)."""
    d = _paired.log_ratios(b, a)
    up, down = _paired.signed_rank_greater(d), _paired.signed_rank_greater(-d)
    if alternative == "less":
        return up
    if alternative == "greater":
        return down
    return TestResult(up.statistic, min(1.0, 2 * min(up.p_value, down.p_value)), up.method)


class RowDesign(NamedTuple):
    """How ``compare`` may pair a row: ``design`` (``BY_ROUND``, ``BY_STATE`` or ``UNPAIRED``),
    ``values`` the (a's, b's) per-round medians when by round, ``why`` not by round, and
    ``separate``: the sides are not one campaign with a record of its rounds (two analysis
    results, or folders loaded together without campaign.json), so nothing pairs them and the
    machine's drift between them is left to analysis.separate_campaigns."""

    design: str
    values: tuple[np.ndarray, np.ndarray] | None
    why: str
    separate: bool = False


def compare_rounds(ga: Any, gb: Any, op: str, size: int,
                   states: tuple[Mapping[int, str], Mapping[int, str]] | None) -> RowDesign:
    """How ``compare`` may pair a row of groups ``ga`` and ``gb`` (analysis.groups.Group at one
    slice): ``BY_ROUND`` with the per-round medians when both are alternatives of one
    interleaved campaign with as many launches per round and every round both ran shares a state
    (``states``: launch → state of each side, None without states); otherwise ``BY_STATE`` or
    ``UNPAIRED`` and why not by round. Whether enough rounds to pair is the caller's decision
    (``min_p`` against the family's first Holm level)."""
    if ga.result is not gb.result:
        return RowDesign(UNPAIRED, None, SEPARATE, separate=True)
    if ga.result.campaign.campaign_record is None:
        return RowDesign(UNPAIRED, None, NO_RECORD, separate=True)
    per = [launches_per_round(g.result, g.alternative) for g in (ga, gb)]
    if per[0] != per[1]:
        return RowDesign(UNPAIRED, None, "the alternatives ran different launches per round")
    a, b = rounds(launch_medians(ga, op, size), per[0]), rounds(launch_medians(gb, op, size), per[0])
    sa = sb = None
    if states is not None:
        sa, sb = rounds(states[0], per[0]), rounds(states[1], per[1])
    design, both = round_pairs(a, b, sa, sb)
    if design == BY_STATE:
        return RowDesign(BY_STATE, None, "some rounds' two launches ran in different machine states")
    if design == UNPAIRED:
        return RowDesign(UNPAIRED, None, "no round ran both")
    return RowDesign(BY_ROUND, (np.array([a[r] for r in both]), np.array([b[r] for r in both])), "")
