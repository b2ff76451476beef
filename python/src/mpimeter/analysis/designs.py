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

from mpimeter.io.errors import AnalysisWarning
from mpimeter.stats import paired as _paired
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

