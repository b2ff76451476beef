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
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from mpimeter.io.errors import AnalysisWarning
from mpimeter.stats import paired as _paired
from mpimeter.stats.hypothesis import TestResult
from mpimeter.warning_codes import warning

BY_ROUND = "paired by round"
BY_STATE = "stratified by state"
UNPAIRED = "unpaired"


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


def _launch_medians(g, op: str, size: int) -> dict[int, float]:
    row = g.rows().get((op, size))
    return {} if row is None else {s.launch: float(s.median_ns) for s in row.per_launch if s.n > 0}


def min_p_value(pairs: int, alternative: str) -> float:
    """Smallest p of the signed-rank test with ``pairs`` pairs (twice the one-sided for two-sided)."""
    p = _paired.min_p_value(pairs)
    return min(1.0, 2 * p) if alternative == "two-sided" else p


def compare_pairs(ga, gb, op: str, size: int, *, family: int, alternative: str,
                  alpha: float) -> tuple[np.ndarray, np.ndarray] | None:
    """For ``compare``: (a's, b's) per-round medians of the row when the two alternatives ran in
    the rounds of one interleaved campaign (its campaign.json, the same launches per round) and
    enough rounds for the signed-rank test to reach α / ``family``; None otherwise (unpaired).
    Rows over matched states are left to the stratified test."""
    record = ga.result.campaign.campaign_record
    if ga.result is not gb.result or record is None or ga.metric != "time":
        return None
    per = [len({e.np for e in record.launches if e.alternative == g.alternative}) for g in (ga, gb)]
    if per[0] != per[1] or per[0] < 1:
        return None
    a, b = rounds(_launch_medians(ga, op, size), per[0]), rounds(_launch_medians(gb, op, size), per[0])
    design, both = round_pairs(a, b)
    if design != BY_ROUND or min_p_value(len(both), alternative) > alpha / max(family, 1):
        return None
    return np.array([a[r] for r in both]), np.array([b[r] for r in both])


def paired_test(a: np.ndarray, b: np.ndarray, alternative: str) -> TestResult:
    """The signed-rank test of b / a per pair against 1 (``less``: a faster, i.e. b above a)."""
    d = _paired.log_ratios(b, a)
    up, down = _paired.signed_rank_greater(d), _paired.signed_rank_greater(-d)
    if alternative == "less":
        return up
    if alternative == "greater":
        return down
    return TestResult(up.statistic, min(1.0, 2 * min(up.p_value, down.p_value)), up.method)
