"""Comparing like with like: when both sides of a ``compare`` or ``gate`` ran in the same
explained machine states (analysis.strata: the same recorded property splits each side's
launches into a faster and a slower state), their per-launch medians are compared state by
state — van Elteren's stratified rank-sum test and the stratified Hodges–Lehmann ratio
(stats.stratified) — so that a campaign whose per-state times equal the baseline's is not a
regression whatever its mix of states, and a slowdown inside every state is not hidden by a
favourable mix. When the sides differ in their mix the comparison says so, and names the rows
where the pooled medians differ but the states do not (a difference of mix only).

When only one side shows states, or the sides' states have different causes, the states cannot
be matched: the comparison stays pooled and says that a difference may be only the mix.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from mpimeter.analysis.groups import Group
from mpimeter.analysis.strata import States, property_name, states_for
from mpimeter.io.errors import AnalysisWarning
from mpimeter.warning_codes import warning

STRATIFIED_TEST = "van Elteren stratified rank-sum over matched states, exact permutation distribution"


@dataclass(frozen=True)
class StateMedians:
    """One state of one compared row: each side's launches in it and their median."""

    stratum: str
    launches_a: int
    launches_b: int
    median_a_ns: float
    median_b_ns: float
    ratio_of_medians: float

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Matching:
    """Two sides whose states match: ``a`` and ``b`` their states, the same property."""

    a: States
    b: States

    @property
    def cause(self) -> str:
        """The recorded property that explains both sides' states."""
        return self.a.property or ""

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(s.name for s in self.a.states)

    def mixes_differ(self) -> bool:
        return any(abs(sa.share - sb.share) > 1e-9 for sa, sb in zip(self.a.states, self.b.states))

    def strata(self, ga: Group, gb: Group, op: str, size: int) -> list[tuple[np.ndarray, np.ndarray]]:
        """Per state, (a's, b's) per-launch medians of the row."""
        return [(_state_values(ga, op, size, self.a, name), _state_values(gb, op, size, self.b, name))
                for name in self.names]

    def medians(self, ga: Group, gb: Group, op: str, size: int) -> tuple[StateMedians, ...]:
        out = []
        for name, (a, b) in zip(self.names, self.strata(ga, gb, op, size)):
            ma = float(np.median(a)) if a.size else math.nan
            mb = float(np.median(b)) if b.size else math.nan
            out.append(StateMedians(name, int(a.size), int(b.size), ma, mb,
                                    mb / ma if a.size and b.size and ma > 0 else math.nan))
        return tuple(out)


def _state_values(g: Group, op: str, size: int, states: States, name: str) -> np.ndarray:
    state = next(s for s in states.states if s.name == name)
    row = g.rows().get((op, size))
    if row is None:
        return np.array([])
    return np.array([s.median_ns for s in row.per_launch
                     if s.n > 0 and math.isfinite(s.median_ns) and s.launch in state.launches])


def group_states(g: Group) -> States | None:
    """The states of the group's launches at its process count (issue 27: states are found per p;
    a group of several p is matched one slice at a time, see Group.slices)."""
    counts = {g.at_slice[0]} if g.at_slice is not None else {s[0] for s in g.slices()}
    if len(counts) != 1:
        return None
    return states_for(g.result.states, g.alternative, counts.pop())


def match(ga: Group, gb: Group, *, per_repetition: bool) -> tuple[Matching | None, list[AnalysisWarning]]:
    """The matched states of two groups (None: compare pooled) and what to say about them. Only
    run times (metric ``time``) of per-launch medians are matched."""
    sa, sb = group_states(ga), group_states(gb)
    if sa is None and sb is None:
        return None, []
    pair = f"{ga.name} vs {gb.name}" + _at_p(ga, gb)
    if per_repetition or ga.metric != "time":
        return None, []
    if sa is not None and sb is not None and sa.explained and sb.explained and sa.property == sb.property:
        return Matching(sa, sb), []
    if (sa is None or not sa.explained) and (sb is None or not sb.explained):
        return None, []  # groups without a cause on either side: analyze warned of them already
    if sa is not None and sb is not None and sa.explained and sb.explained:
        which = (f"{ga.name}'s states are explained by {property_name(sa.property or '')}, {gb.name}'s by "
                 f"{property_name(sb.property or '')}")
    else:
        shown, other = (ga, gb) if sa is not None and sa.explained else (gb, ga)
        which = f"{shown.name} ran in two states, {other.name} shows no explained states"
    return None, [warning("states-unmatched", groups=pair, which=which, where=pair)]


def _at_p(ga: Group, gb: Group) -> str:
    """`` at p = 4`` when the groups are sliced at one p (the states matched are that p's)."""
    if ga.at_slice is None or gb.at_slice is None or ga.at_slice[0] != gb.at_slice[0]:
        return ""
    return f" at p = {ga.at_slice[0]}"


def mix_warning(ga: Group, gb: Group, m: Matching, only_mix: Sequence[str], *,
                at_p: int | None = None) -> list[AnalysisWarning]:
    """``state-mix`` when matched sides differ in their mix; ``only_mix`` the rows whose pooled
    test is significant while the stratified one is not; ``at_p`` the process count the states
    are of, named when the comparison holds several."""
    if not m.mixes_differ() and not only_mix:
        return []
    pair = f"{ga.name} vs {gb.name}" + ("" if at_p is None else f" at p = {at_p}")
    only = ""
    if only_mix:
        only = (f"; in {len(only_mix)} row(s) ({', '.join(only_mix[:4])}{' …' if len(only_mix) > 4 else ''}) the "
                "pooled medians differ significantly but the states do not: the sides differ only in their mix there")
    return [warning("state-mix", groups=pair, property=property_name(m.cause),
                    mixes=f"{ga.name} {m.a.mix()}, {gb.name} {m.b.mix()}", only=only, where=pair)]
