# SPDX-License-Identifier: BSD-3-Clause
"""Results per machine state: when an alternative's launches fall into two groups that a recorded
property explains (analysis.launch_effects: the cache-line probe, CPU placement, hosts, the
library's settings, ...), each group is a *state* of the machine, and every row gets the
across-launch median and interval of each state beside the pooled one, with the share of
launches in each state.

Why: on a machine that flips between two speed states from launch to launch (every
tool measured 0.18 µs in a fast launch and 0.5 µs in a slow one; mpimeter's cache-line probe
told them apart in all 88 launches), the pooled median of the per-launch medians is decided by
how many launches fell in each state — two trials of 5 launches differed 2.8× — while the
medians within a state agree. Hunold & Carpen-Amarie 2016 §4.2: the launch is a factor; here a
factor with a recorded cause, so it can be stratified on.

The states are found per alternative and process count p (a ``--np LIST`` campaign runs each p
in launches of its own), from the probe's own clusters or from the launch-effect split of that
p when a recorded property explains it (below): without a cause the groups may be the noise of
a few launches, so the pooled result stays the headline and the analysis says no property
explains them. Per state and row, the median of the per-launch medians with Le Boudec's
interval (``stats.intervals.median_ci``, as the pooled row): a state of few launches has no
interval at 95 % (fewer than 6), which is shown as such.

A state is a finding, not a label (``campaign_states``, the one place that decides them):
- The machine's own state, recorded in every launch, is looked at first: when the cache-line
  probe's values form two clusters by its own gap (``probe_split``: ``stats.clusters.split_two``
  on the probe values, level ``ALPHA``, a gap of at least ``STATE_GAP`` × between them), those are
  the states, whether or not the run times show the split (mild states hide in the noise of the
  times; the probe separates them in every launch). ``machine_states`` does the same over the
  launches of several campaigns or alternatives at once (compare, gate, tune, guidelines: both
  sides of a comparison put in states by one cut).
- Else the time-split path (``launch_effects``) names a property only when the chance that it
  separates the split, Holm-corrected over the properties examined, is at most ``ALPHA``.
- Each state holds at least ``MIN_STATE_LAUNCHES`` launches: the fewest whose median one wild
  launch cannot carry (of three, the median lies between the other two). Groups below that stay
  in the pooled result and are named (``state-too-few``); a launch that did not record the
  property is in no state and is named beside the states.
- A state is called rare only when it holds less than ``RARE_SHARE`` of the launches; a larger
  one with too few launches for its interval is said to have few launches.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

import numpy as np

from mpimeter.analysis import launch_effects as _effects
from mpimeter.analysis.launch_effects import LaunchEffect
from mpimeter.analysis.results import Row
from mpimeter.analysis.scaling import launch_counts
from mpimeter.io.errors import AnalysisWarning
from mpimeter.stats import clusters as _clusters
from mpimeter.stats import intervals
from mpimeter.units import format_ns
from mpimeter.warning_codes import warning

STATE_NAMES = ("faster", "slower")
ALPHA = _effects.ALPHA
MIN_STATE_LAUNCHES = 3  # module docstring: the fewest launches whose median one launch cannot carry
RARE_SHARE = 0.25  # a state below this share of the launches is rare
# the probe's clusters must be this far apart (the slower's least value / the faster's largest): one
# state's probe spreads widely (49–111 ns on the test machine), and such a spread alone splits into
# "two clusters" whose medians are 1.5× apart; two states leave a gap between them (111 → 344 ns)
STATE_GAP = 1.5
PROBE = _effects.CACHELINE
PROBE_TEST = (f"two clusters of the cache-line probe's values (Ashman's D, weighted min-p over split sizes) at "
              f"level {ALPHA:g}, a gap of at least {STATE_GAP:g}× between them, at least {MIN_STATE_LAUNCHES} "
              "launches each")
CHANCE_TEST = (f"the chance that the property separates the split at random, Holm-corrected over the properties "
               f"examined, at most {ALPHA:g}; at least {MIN_STATE_LAUNCHES} launches each")


@dataclass(frozen=True)
class State:
    """One state of an alternative's launches: ``name`` faster or slower, the ``launches`` in it,
    their ``share`` of the alternative's launches, and the ``values`` the explaining property
    had in them (as shown)."""

    name: str
    launches: tuple[int, ...]
    share: float
    values: tuple[str, ...]


@dataclass(frozen=True, kw_only=True)
class States:
    """The states of one alternative and the recorded property that explains them (``None``:
    the launches form groups that no recorded property separates — not states)."""

    alternative: str
    property: str | None
    states: tuple[State, ...]
    chance: float | None = None  # that the property separates such groups at random
    nprocs: int = 0  # the process count whose launches these are (0: not known)
    several_p: bool = False  # the alternative ran at several p: messages name this one
    test: str = ""  # how the states were decided (PROBE_TEST or CHANCE_TEST)
    unplaced: tuple[int, ...] = ()  # launches in no state (the property not recorded): named, not dropped
    apart: tuple[int, ...] = ()  # no states: launches a property put apart, too few for a state of their own
    apart_by: str | None = None  # the property that put them apart
    apart_state: str | None = None  # the state they would be: faster or slower than the others

    @property
    def label(self) -> str:
        """The alternative, with its p when it ran at several: ``openmpi at p = 4``."""
        return f"{self.alternative} at p = {self.nprocs}" if self.several_p else self.alternative

    @property
    def explained(self) -> bool:
        return self.property is not None

    @property
    def from_probe(self) -> bool:
        """Decided by the probe's own clusters (not by a split of the run times)."""
        return self.explained and self.test == PROBE_TEST

    def state_of(self, launch: int) -> str | None:
        return next((s.name for s in self.states if launch in s.launches), None)

    def group_of(self, launch: int) -> str | None:
        """The launch's state, or — launches a property put apart, too few for a state yet — the
        state it would be in: what ``run --launches auto`` needs to launch until a small group
        becomes a state with its interval or is shown rare (None: no groups)."""
        if self.explained:
            return self.state_of(launch)
        if not self.apart or self.apart_state is None:
            return None
        other = STATE_NAMES[1] if self.apart_state == STATE_NAMES[0] else STATE_NAMES[0]
        return self.apart_state if launch in self.apart else other

    def mix(self) -> str:
        """``2 faster / 8 slower``."""
        return " / ".join(f"{len(s.launches)} {s.name}" for s in self.states)

    def to_dict(self) -> dict[str, Any]:
        return {"alternative": self.alternative, "nprocs": self.nprocs, "property": self.property, "explained": self.explained,
                "chance": self.chance, "test": self.test, "unplaced_launches": list(self.unplaced),
                "apart_launches": list(self.apart), "apart_by": self.apart_by,
                "states": [{"stratum": s.name, "launches": list(s.launches), "share": s.share,
                            "values": list(s.values)} for s in self.states]}


@dataclass(frozen=True, kw_only=True)
class StateRow:
    """One row (alternative, op, size) within one state: the median of the per-launch medians of
    the state's launches with its interval; ``share`` the state's share of the row's launches."""

    stratum: str
    launches: int
    share: float
    median_ns: float
    median_ci_low_ns: float | None
    median_ci_high_ns: float | None
    spread: float  # max / min of the state's per-launch medians

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, kw_only=True)
class ProbeSplit:
    """The probe's values of some launches (keys: any launch identifier) split in two clusters by
    their own gap: ``faster`` the launches whose cache line moved faster. ``found``: the clusters
    are states (significant, far enough apart, each of MIN_STATE_LAUNCHES); ``apart`` alone:
    two clusters, one too small for a state."""

    faster: tuple
    slower: tuple
    unplaced: tuple  # launches that did not record the probe: in no state
    p_value: float
    gap: float  # the slower cluster's smallest value / the faster cluster's largest
    faster_values: tuple[str, ...]
    slower_values: tuple[str, ...]

    @property
    def apart(self) -> bool:
        return self.p_value <= ALPHA and self.gap >= STATE_GAP

    @property
    def found(self) -> bool:
        return self.apart and min(len(self.faster), len(self.slower)) >= MIN_STATE_LAUNCHES

    @property
    def smaller(self) -> tuple:
        return self.faster if len(self.faster) <= len(self.slower) else self.slower

    def state_of(self, key) -> str | None:
        """``faster``/``slower`` for a launch in a state, None for one in none (or no states)."""
        if not self.found:
            return None
        return STATE_NAMES[0] if key in self.faster else STATE_NAMES[1] if key in self.slower else None


def probe_split(values: dict) -> ProbeSplit | None:
    """The two clusters of the probe values ``values`` (launch → round trip in ns, None: not
    recorded), or None when there are too few values to test (fewer than five)."""
    have = {k: float(v) for k, v in values.items() if v is not None and math.isfinite(v) and v > 0}
    keys = sorted(have, key=lambda k: have[k])
    split = _clusters.split_two([have[k] for k in keys])
    if split is None:
        return None
    # the test says whether there are two clusters; the probe's own widest gap says where they part
    # (the test's best split size can land a launch beside it when many sizes reach its floor p)
    cut = int(np.argmax(np.diff(np.log([have[k] for k in keys])))) + 1
    low = tuple(sorted(keys[:cut]))
    high = tuple(sorted(keys[cut:]))
    show = PROBE[3]
    gap = have[keys[cut]] / have[keys[cut - 1]]
    return ProbeSplit(faster=low, slower=high, unplaced=tuple(sorted(k for k in values if k not in have)),
                      p_value=split.p_value, gap=gap,
                      faster_values=_effects.shown_values(tuple(have[k] for k in low), True, show),
                      slower_values=_effects.shown_values(tuple(have[k] for k in high), True, show))


def launch_probes(campaign, alternative: str, nprocs: int | None = None) -> dict[int, float | None]:
    """Per launch of ``alternative`` (at ``nprocs`` ranks; None: every p), the cache-line probe's
    round trip (None: not recorded)."""
    return {li.index: PROBE[2](li.meta) for li in campaign.launches_of(alternative)
            if nprocs is None or nprocs in launch_counts(li)}


def machine_states(sides: Sequence[tuple[Any, str, int | None]]) -> ProbeSplit | None:
    """The machine states of the launches of several sides at once — each side (campaign,
    alternative, p; p None: every p) — put in states by one cut of the cache-line probe's values
    over all of them. Keys are (side index, launch index): ``state_of((0, 3))`` is the state of
    the first side's launch 3. None: too few probe values to test; ``found`` False: no states."""
    values = {(i, launch): v for i, (campaign, alt, p) in enumerate(sides)
              for launch, v in launch_probes(campaign, alt, p).items()}
    return probe_split(values)


def _probe_states(alt: str, nprocs: int, several_p: bool, split: ProbeSplit) -> States:
    total = len(split.faster) + len(split.slower)
    return States(alternative=alt, property=PROBE[0], states=(
        State(STATE_NAMES[0], tuple(split.faster), len(split.faster) / total, split.faster_values),
        State(STATE_NAMES[1], tuple(split.slower), len(split.slower) / total, split.slower_values)),
        chance=split.p_value, nprocs=nprocs, several_p=several_p, test=PROBE_TEST, unplaced=tuple(split.unplaced))


def campaign_states(campaign, rows: Sequence[Row], effects: Sequence[LaunchEffect]) -> tuple[States, ...]:
    """The states of every alternative and p: from the probe's own clusters first (module
    docstring), else from a launch effect a recorded property explains (``states_of``)."""
    by_time = {(s.alternative, s.nprocs): s for s in states_of(effects)}
    out = []
    for alt in campaign.alternatives:
        counts = sorted({r.nprocs for r in rows if r.alternative == alt})
        for p in counts:
            split = probe_split(launch_probes(campaign, alt, p))
            if split is not None and split.found:
                out.append(_probe_states(alt, p, len(counts) > 1, split))
                continue
            timed = by_time.get((alt, p))
            if split is not None and split.apart and (timed is None or not timed.explained):
                base = timed or States(alternative=alt, property=None, states=(), nprocs=p, several_p=len(counts) > 1)
                timed = replace(base, apart=tuple(split.smaller), apart_by=PROBE[0],
                                apart_state=STATE_NAMES[0] if split.smaller == split.faster else STATE_NAMES[1])
            if timed is not None:
                out.append(timed)
    return tuple(out)


def states_of(effects: Sequence[LaunchEffect]) -> tuple[States, ...]:
    """Per alternative and p with a launch effect: its states when a recorded property explains
    the groups (``SeparatingProperty.explains``: Holm over the properties examined; the least
    likely by chance, those recorded by every launch first) and each group holds
    MIN_STATE_LAUNCHES, else an unexplained entry (with the launches put apart when a property
    explains a group too small for a state)."""
    out = []
    for e in effects:
        total = len(e.low_launches) + len(e.high_launches)
        explaining = [s for s in e.separating if s.explains]
        if not explaining:
            out.append(States(alternative=e.alternative, property=None, states=(), nprocs=e.nprocs,
                              several_p=e.several_p))
            continue
        best = min(explaining, key=lambda s: (s.missing > 0, s.chance))
        if min(len(e.low_launches), len(e.high_launches)) < MIN_STATE_LAUNCHES:
            smaller = e.low_launches if len(e.low_launches) <= len(e.high_launches) else e.high_launches
            out.append(States(alternative=e.alternative, property=None, states=(), nprocs=e.nprocs,
                              several_p=e.several_p, apart=tuple(smaller), apart_by=best.what,
                              apart_state=STATE_NAMES[0] if smaller == e.low_launches else STATE_NAMES[1]))
            continue
        out.append(States(alternative=e.alternative, property=best.what, states=(
            State(STATE_NAMES[0], e.low_launches, len(e.low_launches) / total, best.low_values),
            State(STATE_NAMES[1], e.high_launches, len(e.high_launches) / total, best.high_values)), chance=best.chance,
            nprocs=e.nprocs, several_p=e.several_p, test=CHANCE_TEST))
    return tuple(out)


def state_rows(row: Row, states: States | None) -> tuple[StateRow, ...]:
    """The row's per-state results; () when the alternative has no explained states."""
    if states is None or not states.explained:
        return ()
    used = [s for s in row.per_launch if s.n > 0 and math.isfinite(s.median_ns)]
    out = []
    for state in states.states:
        medians = np.array([s.median_ns for s in used if s.launch in state.launches])
        if medians.size == 0:
            out.append(StateRow(stratum=state.name, launches=0, share=0.0, median_ns=math.nan,
                                median_ci_low_ns=None, median_ci_high_ns=None, spread=math.nan))
            continue
        ci = intervals.median_ci(medians, row.confidence)
        spread = float(medians.max() / medians.min()) if medians.min() > 0 else math.nan
        out.append(StateRow(stratum=state.name, launches=int(medians.size), share=medians.size / len(used),
                            median_ns=ci.estimate, median_ci_low_ns=ci.low, median_ci_high_ns=ci.high,
                            spread=spread))
    return tuple(out)


def launch_list(indices: Sequence[int]) -> str:
    shown = ", ".join(f"{i:03d}" for i in indices[:6]) + (" …" if len(indices) > 6 else "")
    return f"launch{'es' if len(indices) != 1 else ''} {shown}"


# what `analyze` (and the report) do with explained states; a command that repeats the `states`
# note says instead what it does with them (analysis.matching.states_said_as)
STATES_SHOWN = ("each row is also reported per state (median and interval of the state's launches), beside the "
                "pooled result")


def strata_warnings(states: Sequence[States], rows: Sequence[Row], *, shown: str = STATES_SHOWN
                    ) -> list[AnalysisWarning]:
    """``states`` per alternative with explained states (the results per state are shown, with the
    test that decided them), ``state-unplaced`` for launches in no state, and ``state-rare`` for a
    state too small for its interval in some row (rare only below RARE_SHARE); ``state-too-few``
    where a property put launches apart that are too few for a state; ``states-unexplained`` where
    groups have no recorded cause (the pooled result stays)."""
    out = []
    for s in states:
        if not s.explained:
            if s.apart:
                total = len({sl.launch for r in rows if r.alternative == s.alternative and r.nprocs == s.nprocs
                             for sl in r.per_launch})
                out.append(warning("state-too-few", alternative=s.label, property=property_name(s.apart_by or ""),
                                   launches=launch_list(s.apart), others=max(total - len(s.apart), 0),
                                   minimum=MIN_STATE_LAUNCHES, where=s.label))
            else:
                out.append(warning("states-unexplained", alternative=s.label, where=s.label))
            continue
        out.append(warning("states", alternative=s.label, mix=s.mix(), property=s.property, test=s.test or CHANCE_TEST,
                           shown=shown, where=s.label))
        if s.unplaced:
            out.append(warning("state-unplaced", alternative=s.label, launches=launch_list(s.unplaced),
                               property=property_name(s.property or ""), where=s.label))
        mine = [r for r in rows if r.alternative == s.alternative and r.nprocs == s.nprocs and r.per_state]
        for state in s.states:
            rare = [(r, sr) for r in mine for sr in r.per_state if sr.stratum == state.name and sr.launches
                    and sr.median_ci_low_ns is None]
            if rare:
                r, sr = min(rare, key=lambda x: x[1].launches)
                out.append(warning("state-rare", alternative=s.label, state=state.name,
                                   how="is rare" if sr.share < RARE_SHARE else "has few launches",
                                   launches=sr.launches, total=r.launches, share=sr.share, confidence=r.confidence,
                                   where=s.label))
    return out


def states_for(states: Sequence[States], alternative: str, nprocs: int) -> States | None:
    """The states of ``alternative``'s launches at ``nprocs`` ranks (None: no launch effect there)."""
    return next((s for s in states if s.alternative == alternative and s.nprocs == nprocs), None)


def state_lines(states: States) -> list[str]:
    """``faster: 2 launches (20 %), 53 ns – 98 ns`` per state, for reports."""
    return [f"{s.name}: {len(s.launches)} launch{'es' if len(s.launches) != 1 else ''} ({100 * s.share:.0f} %), "
            + ", ".join(s.values[:3]) for s in states.states]


def row_state_text(row: Row) -> tuple[str, ...]:
    """``faster 2/10: 823 ns (too few launches)`` per state of a row, for the fingerprint."""
    out = []
    for sr in row.per_state:
        ci = (f"[{format_ns(sr.median_ci_low_ns)}, {format_ns(sr.median_ci_high_ns)}]"
              if sr.median_ci_low_ns is not None and sr.median_ci_high_ns is not None else "(too few launches)")
        out.append(f"{sr.stratum} {sr.launches}/{row.launches}: {format_ns(sr.median_ns)} {ci}")
    return tuple(out)


def property_name(what: str) -> str:
    """The property without its meta.json field: ``the cache-line round trip between the first two ranks``."""
    return what.split(" (")[0]
