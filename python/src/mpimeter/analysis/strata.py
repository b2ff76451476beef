# SPDX-License-Identifier: BSD-3-Clause
"""Results per machine state: when an alternative's launches fall into two groups that a recorded
property explains (analysis.launch_effects: the cache-line probe, CPU placement, hosts, the
library's settings, ...), each group is a *state* of the machine, and every row gets the
across-launch median and interval of each state beside the pooled one, with the share of
launches in each state.

Why: on a machine that flips between two speed states from launch to launch (issue 31: every
tool measured 0.18 µs in a fast launch and 0.5 µs in a slow one; mpimeter's cache-line probe
told them apart in all 88 launches), the pooled median of the per-launch medians is decided by
how many launches fell in each state — two trials of 5 launches differed 2.8× — while the
medians within a state agree. Hunold & Carpen-Amarie 2016 §4.2: the launch is a factor; here a
factor with a recorded cause, so it can be stratified on.

The states are the launch-effect split of the alternative at one process count p (its faster
and its slower launches at that p: issue 27, a ``--np LIST`` campaign runs each p in launches of
its own, and a state found at one p says nothing of launches at another), kept only when a recorded property separates them: without a cause the groups may be
the noise of a few launches, so the pooled result stays the headline and the analysis says no
property explains them. Per state and row, the median of the per-launch medians with Le Boudec's
interval (``stats.intervals.median_ci``, as the pooled row): a state of few launches has no
interval at 95 % (fewer than 6), which is shown as such.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from mpimeter.analysis.launch_effects import LaunchEffect
from mpimeter.analysis.results import Row
from mpimeter.io.errors import AnalysisWarning
from mpimeter.stats import intervals
from mpimeter.units import format_ns
from mpimeter.warning_codes import warning

STATE_NAMES = ("faster", "slower")


@dataclass(frozen=True)
class State:
    """One state of an alternative's launches: ``name`` faster or slower, the ``launches`` in it,
    their ``share`` of the alternative's launches, and the ``values`` the explaining property
    had in them (as shown)."""

    name: str
    launches: tuple[int, ...]
    share: float
    values: tuple[str, ...]


@dataclass(frozen=True)
class States:
    """The states of one alternative and the recorded property that explains them (``None``:
    the launches form groups that no recorded property separates — not states)."""

    alternative: str
    property: str | None
    states: tuple[State, ...]
    chance: float | None = None  # that the property separates such groups at random
    nprocs: int = 0  # the process count whose launches these are (0: not known)
    several_p: bool = False  # the alternative ran at several p: messages name this one

    @property
    def label(self) -> str:
        """The alternative, with its p when it ran at several: ``openmpi at p = 4``."""
        return f"{self.alternative} at p = {self.nprocs}" if self.several_p else self.alternative

    @property
    def explained(self) -> bool:
        return self.property is not None

    def state_of(self, launch: int) -> str | None:
        return next((s.name for s in self.states if launch in s.launches), None)

    def mix(self) -> str:
        """``2 faster / 8 slower``."""
        return " / ".join(f"{len(s.launches)} {s.name}" for s in self.states)

    def to_dict(self) -> dict[str, Any]:
        return {"alternative": self.alternative, "nprocs": self.nprocs, "property": self.property, "explained": self.explained,
                "chance": self.chance,
                "states": [{"stratum": s.name, "launches": list(s.launches), "share": s.share,
                            "values": list(s.values)} for s in self.states]}


@dataclass(frozen=True)
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


def states_of(effects: Sequence[LaunchEffect]) -> tuple[States, ...]:
    """Per alternative and p with a launch effect: its states when a recorded property separates the
    groups (the least likely by chance, those recorded by every launch first), else an
    unexplained entry."""
    out = []
    for e in effects:
        total = len(e.low_launches) + len(e.high_launches)
        if not e.separating:
            out.append(States(e.alternative, None, (), nprocs=e.nprocs, several_p=e.several_p))
            continue
        best = min(e.separating, key=lambda s: (s.missing > 0, s.chance))
        out.append(States(e.alternative, best.what, (
            State(STATE_NAMES[0], e.low_launches, len(e.low_launches) / total, best.low_values),
            State(STATE_NAMES[1], e.high_launches, len(e.high_launches) / total, best.high_values)), best.chance,
            e.nprocs, e.several_p))
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
            out.append(StateRow(state.name, 0, 0.0, math.nan, None, None, math.nan))
            continue
        ci = intervals.median_ci(medians, row.confidence)
        spread = float(medians.max() / medians.min()) if medians.min() > 0 else math.nan
        out.append(StateRow(state.name, int(medians.size), medians.size / len(used), ci.estimate, ci.low, ci.high,
                            spread))
    return tuple(out)


def strata_warnings(states: Sequence[States], rows: Sequence[Row]) -> list[AnalysisWarning]:
    """``states`` per alternative with explained states (the results per state are shown), and
    ``state-rare`` for a state too small for its interval in some row; ``states-unexplained``
    where groups have no recorded cause (the pooled result stays)."""
    out = []
    for s in states:
        if not s.explained:
            out.append(warning("states-unexplained", alternative=s.label, where=s.label))
            continue
        out.append(warning("states", alternative=s.label, mix=s.mix(), property=s.property, where=s.label))
        mine = [r for r in rows if r.alternative == s.alternative and r.nprocs == s.nprocs and r.per_state]
        for state in s.states:
            rare = [(r, sr) for r in mine for sr in r.per_state if sr.stratum == state.name and sr.launches
                    and sr.median_ci_low_ns is None]
            if rare:
                r, sr = min(rare, key=lambda x: x[1].launches)
                out.append(warning("state-rare", alternative=s.label, state=state.name, launches=sr.launches,
                                   total=r.launches, share=sr.share, confidence=r.confidence, where=s.label))
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
