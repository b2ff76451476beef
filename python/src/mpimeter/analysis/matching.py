# SPDX-License-Identifier: BSD-3-Clause
"""Comparing like with like: when both sides of a ``compare`` or ``gate`` ran in the same
explained machine states (analysis.strata: the same recorded property splits each side's
launches into a faster and a slower state), their per-launch medians are compared state by
state — van Elteren's stratified rank-sum test and the stratified Hodges–Lehmann ratio
(stats.stratified) — so that a campaign whose per-state times equal the baseline's is not a
regression whatever its mix of states, and a slowdown inside every state is not hidden by a
favourable mix. When the sides differ in their mix the comparison says so, and names the rows
where the pooled medians differ but the states do not (a difference of mix only).

First of all, the machine's own state recorded in every launch: when the cache-line probe's
values over the launches of both sides form two clusters (``strata.machine_states``: one cut for
both sides, so a state too small on one side alone still stands when the other side ran in it
too), the sides are compared within those states, whatever the run times showed. Launches that
are in no state used by the test (the probe not recorded, or a state the other side never ran
in) are named (``launches-set-aside``), never silently left out.

When only one side shows states, the other side's launches are put in them by the value of the
property that explains them (``assign``): a number on the side of the midpoint between the two
states' ranges (none when a value lies further beyond every value the states were seen with
than the gap between their ranges), any other value when it is one of a state's values. So a campaign that ran wholly
in the fast state is compared with the fast launches of one that ran in both. When that is not
possible (the property is the start time, or the other side did not record it), or the sides'
states have different causes, the comparison stays pooled and says that a difference may be
only the mix.

When neither side shows states but a property of the machine's own state (the cache-line probe,
the CPU frequency: ``launch_effects.MACHINE_STATE``) puts every launch of one side apart from
every launch of the other, by at least ``STATE_GAP`` ×, the sides ran in different machine states
(a trial of 10 launches that all fell in the slow state): a difference between them may
be the machine's, and the comparison says so (``states-differ``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from mpimeter.analysis import launch_effects as _effects
from mpimeter.analysis.groups import Group
from mpimeter.analysis.scaling import launch_counts
from mpimeter.analysis import strata as _strata
from mpimeter.analysis.strata import State, States, property_name, states_for
from mpimeter.analysis.warning_groups import group_warnings
from mpimeter.stats import separation as _separation
from mpimeter.io.errors import AnalysisWarning
from mpimeter.warning_codes import warning

STRATIFIED_TEST = "van Elteren stratified rank-sum over matched states, exact permutation distribution"
STATE_GAP = _strata.STATE_GAP  # sides apart by less (in a machine-state property) are not called different states
STATE_MIN_LAUNCHES = 3  # launches per side that must have recorded the property
STATE_CHANCE = 0.05  # the separation must be this unlikely for launches of one state


@dataclass(frozen=True, kw_only=True)
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
            out.append(StateMedians(stratum=name, launches_a=int(a.size), launches_b=int(b.size), median_a_ns=ma,
                                    median_b_ns=mb,
                                    ratio_of_medians=mb / ma if a.size and b.size and ma > 0 else math.nan))
        return tuple(out)


def _state_values(g: Group, op: str, size: int, states: States, name: str) -> np.ndarray:
    state = next(s for s in states.states if s.name == name)
    row = g.rows().get((op, size))
    if row is None:
        return np.array([])
    return np.array([s.median_ns for s in row.per_launch
                     if s.n > 0 and math.isfinite(s.median_ns) and s.launch in state.launches])


def _count(g: Group) -> int | None:
    """The group's one process count (None: it holds several)."""
    counts = {g.at_slice[0]} if g.at_slice is not None else {s[0] for s in g.slices()}
    return counts.pop() if len(counts) == 1 else None


def group_states(g: Group) -> States | None:
    """The states of the group's launches at its process count (states are found per p;
    a group of several p is matched one slice at a time, see Group.slices)."""
    p = _count(g)
    return None if p is None else states_for(g.result.states, g.alternative, p)


def _values(g: Group, value) -> dict[int, object]:
    """Per launch of the group at its process count, the property's value (launches that did
    not record it left out)."""
    p = _count(g)
    return {li.index: v for li in g.result.campaign.launches_of(g.alternative)
            if p in launch_counts(li) and (v := value(li.meta)) is not None}


def assign(shown: States, g_shown: Group, g_other: Group) -> States | None:
    """``g_other``'s launches put in ``shown``'s states by the value of the property that explains
    them (module docstring); None when the property cannot place them (the start time, a value
    the other side did not record, a launch between categorical values of neither state)."""
    prop = _effects.property_named(shown.property or "")
    if prop is None or prop is _effects.START_TIME:
        return None
    _, numeric, value, show = prop
    mine, theirs = _values(g_shown, value), _values(g_other, value)
    faster, slower = ([mine[i] for i in s.launches if i in mine] for s in shown.states)
    if not theirs or not faster or not slower:
        return None
    if numeric:
        low_is_faster = max(faster) < min(slower)
        low, high = (faster, slower) if low_is_faster else (slower, faster)
        cut, gap = (max(low) + min(high)) / 2, min(high) - max(low)
        # the states are told apart as far as the gap between them: a value further outside every
        # value they were seen with says nothing of which it is
        if min(theirs.values()) < min(low) - gap or max(theirs.values()) > max(high) + gap:
            return None

        def is_faster(v) -> bool | None:
            return (v < cut) == low_is_faster
    else:
        def is_faster(v) -> bool | None:
            return True if v in faster else False if v in slower else None
    where = {i: is_faster(v) for i, v in theirs.items()}
    if any(w is None for w in where.values()):
        return None
    states = []
    for name, flag in zip((s.name for s in shown.states), (True, False)):
        launches = tuple(sorted(i for i, w in where.items() if w is flag))
        vals = tuple(dict.fromkeys(theirs[i] for i in launches))
        states.append(State(name, launches, len(launches) / len(where), _effects.shown_values(vals, numeric, show)))
    return States(alternative=g_other.alternative, property=shown.property, states=tuple(states), chance=None,
                  nprocs=shown.nprocs, several_p=shown.several_p)


def states_differ(ga: Group, gb: Group) -> AnalysisWarning | None:
    """``states-differ`` when a property of the machine's own state puts the two sides' launches
    wholly apart (module docstring); None otherwise."""
    pair = f"{ga.name} vs {gb.name}" + _at_p(ga, gb)
    for what, _, value, show in _effects.MACHINE_STATE:
        a, b = list(_values(ga, value).values()), list(_values(gb, value).values())
        if len(a) < STATE_MIN_LAUNCHES or len(b) < STATE_MIN_LAUNCHES:
            continue
        low, high = (a, b) if max(a) < min(b) else (b, a) if max(b) < min(a) else (None, None)
        if low is None or min(high) < STATE_GAP * max(low):
            continue
        if _separation.separation_chance(low + high, len(low), numeric=True) > STATE_CHANCE:
            continue
        return warning("states-differ", groups=pair, property=property_name(what),
                       a=f"{ga.name} {_effects.shown_values(tuple(a), True, show)[0]}",
                       b=f"{gb.name} {_effects.shown_values(tuple(b), True, show)[0]}",
                       where=pair)
    return None


def _tested_launches(g: Group) -> set[int]:
    """The launches the group's rows hold a per-launch median of."""
    return {s.launch for r in g.rows().values() for s in r.per_launch if s.n > 0 and math.isfinite(s.median_ns)}


def _joint_states(ga: Group, gb: Group) -> tuple[States, States] | None:
    """Both sides put in states by one cut of the probe over all their launches (module
    docstring); None when the probe shows no states there."""
    split = _strata.machine_states([(ga.result.campaign, ga.alternative, _count(ga)),
                                    (gb.result.campaign, gb.alternative, _count(gb))])
    if split is None or not split.found:
        return None
    out = []
    for side, g in enumerate((ga, gb)):
        mine = {name: tuple(sorted(k[1] for k in keys if k[0] == side))
                for name, keys in zip(_strata.STATE_NAMES, (split.faster, split.slower))}
        total = sum(len(v) for v in mine.values()) or 1
        values = {name: _effects.shown_values(tuple(v for li in g.result.campaign.launches_of(g.alternative)
                                                    if li.index in mine[name] and (v := _strata.PROBE[2](li.meta))),
                                              True, _strata.PROBE[3]) for name in mine}
        out.append(States(alternative=g.alternative, property=_strata.PROBE[0],
                          states=tuple(State(name, mine[name], len(mine[name]) / total, values[name])
                                       for name in mine),
                          chance=split.p_value, nprocs=_count(g) or 0, test=_strata.PROBE_TEST,
                          unplaced=tuple(sorted(k[1] for k in split.unplaced if k[0] == side))))
    return out[0], out[1]


def set_aside(ga: Group, gb: Group, m: "Matching") -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Per side, the launches a state-by-state test leaves out: in no state, or in a state the
    other side has no launch in."""
    both = [name for name, sa, sb in zip(m.names, m.a.states, m.b.states) if sa.launches and sb.launches]
    out = []
    for g, states in ((ga, m.a), (gb, m.b)):
        used = {i for st in states.states if st.name in both for i in st.launches}
        out.append(tuple(sorted(_tested_launches(g) - used)))
    return out[0], out[1]


def _set_aside_warning(ga: Group, gb: Group, m: "Matching", pair: str) -> list[AnalysisWarning]:
    aside = set_aside(ga, gb, m)
    if not any(aside):
        return []
    named = "; ".join(f"{g.name}'s " + _strata.launch_list(a) for g, a in zip((ga, gb), aside) if a)
    count = sum(len(a) for a in aside)
    return [warning("launches-set-aside", groups=pair, launches=named, were="was" if count == 1 else "were",
                    why=f"in no state of {property_name(m.cause)} that both sides ran in", where=pair)]


def match(ga: Group, gb: Group, *, per_repetition: bool) -> tuple[Matching | None, list[AnalysisWarning]]:
    """The matched states of two groups (None: compare pooled) and what to say about them. Only
    run times (metric ``time``) of per-launch medians are matched; launches a matched test leaves
    out are named."""
    if per_repetition or ga.metric != "time":
        return None, []
    matched, said = _match(ga, gb)
    if matched is None:
        return None, said
    return matched, said + _set_aside_warning(ga, gb, matched, f"{ga.name} vs {gb.name}" + _at_p(ga, gb))


def _match(ga: Group, gb: Group) -> tuple[Matching | None, list[AnalysisWarning]]:
    pair = f"{ga.name} vs {gb.name}" + _at_p(ga, gb)
    joint = _joint_states(ga, gb)
    if joint is not None and any(sa.launches and sb.launches for sa, sb in zip(joint[0].states, joint[1].states)):
        return Matching(*joint), []
    sa, sb = group_states(ga), group_states(gb)
    if sa is not None and sb is not None and sa.explained and sb.explained and sa.property == sb.property:
        return Matching(sa, sb), []
    if (sa is None or not sa.explained) and (sb is None or not sb.explained):
        # groups without a cause on either side: analyze warned of them already; but the sides
        # may each have run wholly in another state
        differ = states_differ(ga, gb)
        return None, [] if differ is None else [differ]
    if sa is not None and sb is not None and sa.explained and sb.explained:
        which = (f"{ga.name}'s states are explained by {property_name(sa.property or '')}, {gb.name}'s by "
                 f"{property_name(sb.property or '')}")
        return None, [warning("states-unmatched", groups=pair, which=which, where=pair)]
    a_shows = sa is not None and sa.explained
    (shown, g_shown), g_other = ((sa, ga), gb) if a_shows else ((sb, gb), ga)
    placed = assign(shown, g_shown, g_other)
    if placed is None:
        which = f"{g_shown.name} ran in two states, {g_other.name} shows no explained states"
        return None, [warning("states-unmatched", groups=pair, which=which, where=pair)]
    said = warning("states-assigned", groups=pair, shown=g_shown.name, other=g_other.name,
                   property=property_name(shown.property or ""), mix=placed.mix(), where=pair)
    return (Matching(shown, placed) if a_shows else Matching(placed, shown)), [said]


def _at_p(ga: Group, gb: Group) -> str:
    """`` at p = 4`` when the groups are sliced at one p (the states matched are that p's)."""
    if ga.at_slice is None or gb.at_slice is None or ga.at_slice[0] != gb.at_slice[0]:
        return ""
    return f" at p = {ga.at_slice[0]}"


def without_too_few(result: Any, sides: Sequence[States]) -> list[AnalysisWarning]:
    """``result``'s warnings with its ``state-too-few`` said only of the alternatives (at a p) that
    a comparison did not match states on (``sides``: the states it matched, of this result's
    alternatives): for those it did, the comparison puts the launches in states (one cut of the
    probe over both sides, or the other side's states) and shows them per state, so "no states
    are reported and they stay in the pooled result" would be false beside it."""
    matched = {(s.alternative, s.nprocs) for s in sides}
    left = [s for s in result.states if not s.explained and s.apart and (s.alternative, s.nprocs) not in matched]
    said = [w for w in _strata.strata_warnings(left, result.rows) if w.code == "state-too-few"]
    return list(group_warnings([w for w in result.warnings if w.code != "state-too-few"] + said))


def states_said_as(warnings: Sequence[AnalysisWarning], result: Any, shown: str) -> list[AnalysisWarning]:
    """``warnings`` (of ``result``, an analysis a command repeats) with the ``states`` notes saying
    what that command does with the states (``shown``) instead of analyze's "each row is also
    reported per state", which a command that prints no row per state would contradict."""
    if not any(w.code == "states" for w in warnings):
        return list(warnings)
    said = [w for w in _strata.strata_warnings(result.states, result.rows, shown=shown) if w.code == "states"]
    return list(group_warnings([w for w in warnings if w.code != "states"] + said))


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
