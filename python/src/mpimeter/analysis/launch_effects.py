# SPDX-License-Identifier: BSD-3-Clause
"""Launch effects: when the per-launch medians of a test fall into two groups, say so, and name
the recorded property of the launches that separates the groups — or say that none does.

The launch (one mpirun) is a factor (Hunold & Carpen-Amarie 2016 §4.2): on the test machine one
launch in ten ran small messages twice as fast, launch-wide and stable within the launch. meta.json
records what may differ between launches (the ranks' CPU binding and the CPUs they ran on, the
cache-line round trip between the first two ranks, the library's control variables, frequency,
load, hosts, ...).

Per alternative and process count p (launches of a ``--np LIST`` campaign ran at
different p, and a test's time depends on p, so each p is its own family; sub-communicators of
one launch share its launches), the launches are tested for two groups (``stats.clusters.split_two``, a weighted min-p
test over split sizes whose null holds with ties, heavy tails and lognormal launch factors) in
two ways: every row with enough launches on its own, and once on the launch scores over all those
rows (``stats.clusters.launch_scores``: a launch-wide effect adds up over the rows while their
noise averages out, so a 5-vs-5 split at 1.15× under 3 % per-row noise is seen). The p-values
are adjusted over that family (the scores' test and every row's) by a joint resampling of the
launches across the rows (``stats.clusters.split_family``: Westfall–Young min-p), so that
campaigns without groups get the warning in at most ALPHA of cases however many rows they have;
a test counts only when its adjusted p-value is at most ALPHA and its groups differ by at least
``MIN_RATIO`` beyond the timer's recorded resolution (:func:`timer_grid_ns`).

The split found is tested against every recorded property (``stats.separation.separates``), on the
launches that recorded it (a probe that gave up in 2 of 8 launches still speaks for the other 6;
the count of those without it is said); the chance printed is the probability that the
property's values, assigned to those launches at random, separate the split as well. A property
*explains* the split only when that chance, Holm-corrected over the properties examined (one that
does not separate counts with chance 1), is at most ``ALPHA``: with eight properties examined, one
that separates with chance 0.33 is what chance alone gives (a CPU share of 70 % in one launch
against 71–78 % in the others), not a cause.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from mpimeter.analysis.allocations import ALLOCATION
from mpimeter.analysis.launch_warnings import other_load_share
from mpimeter.analysis.loading import Campaign, LaunchInfo
from mpimeter.analysis.scaling import launch_counts
from mpimeter.analysis.results import Row
from mpimeter.io.errors import AnalysisWarning
from mpimeter.io.meta import LaunchMeta
from mpimeter.stats import clusters as _clusters
from mpimeter.stats import separation as _separation
from mpimeter.stats.hypothesis import holm
from mpimeter.units import format_ns, format_size
from mpimeter.warning_codes import warning

ALPHA = 0.05
MIN_RATIO = 1.1  # groups closer than 10 % are real on a quiet machine but not worth a name
MIN_LAUNCHES = 6


def _probe_rtt(m: LaunchMeta) -> float | None:
    return m.cacheline_probes[0].rtt_ns if m.cacheline_probes else None


def _mean_khz(m: LaunchMeta) -> float | None:
    khz = [k for r in m.ranks if r.cpu_khz for k in r.cpu_khz]
    return float(np.mean(khz)) if khz and len(m.ranks) and all(r.cpu_khz for r in m.ranks) else None


def _other_load(m: LaunchMeta) -> float | None:
    return other_load_share(m)  # as the machine-load warning says it


def _residual(m: LaunchMeta) -> float | None:
    r = m.clock_sync.residual_start
    return None if r is None or m.clock_sync.method == "none" else float(r.max_abs_ns)


def _text(values: tuple) -> str:
    return ";".join(",".join(str(c) for c in v) if isinstance(v, tuple) else str(v) for v in values)


Property = tuple[str, bool, Callable[[LaunchMeta], Any], Callable[[Any], str]]
CACHELINE: Property = ("the cache-line round trip between the first two ranks (probes.cacheline_rtt_ns)", True,
                       _probe_rtt, lambda v: format_ns(v))
FREQUENCY: Property = ("the CPU frequency (ranks[].cpu_khz)", True, _mean_khz, lambda v: f"{v / 1000:.0f} MHz")
START_TIME: Property = ("the start time (wall_start)", True, lambda m: m.wall_start, str)  # ISO times order as text

# (what, numeric, the value of a launch, how to show a value); None: not recorded
PROPERTIES: tuple[Property, ...] = (
    CACHELINE,
    ("the CPUs the ranks were bound to (ranks[].cpus)", False,
     lambda m: _text(tuple(r.cpus for r in m.ranks)) if m.ranks else None, str),
    ("the CPUs the ranks ran on (ranks[].cpus_seen)", False,
     lambda m: _text(tuple(r.cpus_seen for r in m.ranks)) if m.ranks and m.schema_version >= 2 else None,
     str),
    ("the CPU migrations of the ranks (ranks[].cpu_changes)", True,
     lambda m: float(sum(r.cpu_changes for r in m.ranks)) if m.schema_version >= 2 else None, lambda v: f"{v:g}"),
    FREQUENCY,
    ("the hosts (ranks[].host)", False, lambda m: ",".join(m.hosts) or None, str),
    ALLOCATION,
    ("the library's control variables (mpi.mpi_t.digest)", False,
     lambda m: m.mpi.mpi_t.digest if m.mpi.mpi_t else None, str),
    ("the MPI library (mpi.library_version)", False, lambda m: m.mpi.library_version, str),
    ("the machine's CPU share of other processes (load.other_cpu_s / (wall_s × ncpus))", True, _other_load,
     lambda v: f"{100 * v:.0f} %"),
    ("the clock-sync residual at the start (clock_sync.residual_start)", True, _residual,
     lambda v: format_ns(v)),
    START_TIME,
)
# The machine's own state, which nobody running a campaign chooses: two campaigns whose launches
# these put wholly apart ran on a machine in different states (analysis.matching).
MACHINE_STATE: tuple[Property, ...] = (CACHELINE, FREQUENCY)


def property_named(what: str) -> Property | None:
    """The recorded property a States or a warning names (its ``what``)."""
    return next((p for p in PROPERTIES if p[0] == what), None)


@dataclass(frozen=True, kw_only=True)
class SeparatingProperty:
    what: str
    low_values: tuple[str, ...]
    high_values: tuple[str, ...]
    chance: float  # probability that its values, assigned to the launches at random, separate the split
    missing: int = 0  # launches that did not record it (examined on the others)
    adjusted_chance: float = 1.0  # Holm over the properties examined

    @property
    def explains(self) -> bool:
        """The separation is unlikely by chance after the correction (module docstring)."""
        return self.adjusted_chance <= ALPHA


@dataclass(frozen=True, kw_only=True)
class LaunchEffect:
    """One alternative whose per-launch medians form two groups in ``rows`` (op, size) at
    ``nprocs`` ranks (the launches are those that ran tests at that p)."""

    alternative: str
    rows: tuple[tuple[str, int], ...]
    low_launches: tuple[int, ...]  # the split most of the rows share: the faster launches
    high_launches: tuple[int, ...]
    sharing_rows: int  # how many of the rows have exactly this split
    ratio: float  # median over the rows of median(high) / median(low)
    separating: tuple[SeparatingProperty, ...]
    examined: tuple[str, ...]  # the properties looked at (recorded in both groups)
    lacking: tuple[tuple[str, int], ...] = ()  # examined properties some launches did not record, and how many
    any_chance: float | None = None  # that at least one examined property separates at random
    nprocs: int = 0  # the process count of the rows and launches; 0: not known
    several_p: bool = False  # the alternative ran at several p: messages name this one

    @property
    def label(self) -> str:
        """The alternative, with its p when it ran at several: ``openmpi at p = 4``."""
        return f"{self.alternative} at p = {self.nprocs}" if self.several_p else self.alternative

    def to_dict(self) -> dict[str, Any]:
        return {"alternative": self.alternative, "nprocs": self.nprocs, "rows": [list(r) for r in self.rows],
                "low_launches": list(self.low_launches), "high_launches": list(self.high_launches),
                "sharing_rows": self.sharing_rows, "ratio": self.ratio,
                "separating": [{"property": s.what, "low_values": list(s.low_values),
                                "high_values": list(s.high_values), "chance": s.chance,
                                "adjusted_chance": s.adjusted_chance, "explains": s.explains,
                                "launches_without": s.missing} for s in self.separating],
                "examined": list(self.examined),
                "launches_without": {what: n for what, n in self.lacking}, "any_chance": self.any_chance}


def _row_medians(r: Row) -> dict[int, float]:
    return {s.launch: s.median_ns for s in r.per_launch if s.n > 0 and math.isfinite(s.median_ns) and s.median_ns > 0}


def launch_effects(campaign: Campaign, rows: Sequence[Row]) -> list[LaunchEffect]:
    """Per alternative and p, the launch effect of its rows at that p, if any."""
    out = []
    for alt in campaign.alternatives:
        counts = sorted({r.nprocs for r in rows if r.alternative == alt})
        for p in counts:
            infos = {li.index: li for li in campaign.launches_of(alt) if p in launch_counts(li)}
            mine = [r for r in rows if r.alternative == alt and r.nprocs == p]
            effect = _effect(alt, p, infos, mine)
            if effect is not None:
                out.append(replace(effect, several_p=len(counts) > 1))
    return out


def timer_grid_ns(infos) -> float | None:
    """The coarsest timer resolution the launches recorded (meta.json ``timer.resolution_ns``):
    the grid their medians lie on; None when none recorded one."""
    return coarsest_resolution_ns(li.meta.timer.resolution_ns for li in infos)


def coarsest_resolution_ns(resolutions: Iterable[float | None]) -> float | None:
    """The grid of launches that recorded these timer resolutions: the coarsest; None when none
    was recorded (None, or 0 from a timer that never moved, or not finite). The one rule for
    launch folders (:func:`timer_grid_ns`) and the results store (site.history)."""
    recorded = [r for r in resolutions if r is not None and math.isfinite(r) and r > 0]
    return max(recorded) if recorded else None


def _effect(alt: str, nprocs: int, infos: dict[int, LaunchInfo], mine: Sequence[Row]) -> LaunchEffect | None:
    family = _clusters.split_family([_row_medians(r) for r in mine], min_launches=MIN_LAUNCHES,
                                    grid_ns=timer_grid_ns(infos.values()))
    flagged = [t for t in family if t.flagged(ALPHA, MIN_RATIO)]
    if not flagged:
        return None
    whole = next((t for t in flagged if t.row is None), None)
    flagged_rows = [t for t in flagged if t.row is not None]
    if whole is not None:
        low = whole.low_launches
        # the rows that show this split: flagged on their own, or split the same way
        shown = [t for t in family if t.row is not None and (t in flagged_rows or t.low_launches == low)] or [
            t for t in family if t.row is not None]
        ratio = whole.split.ratio
    else:
        low = Counter(t.low_launches for t in flagged_rows).most_common(1)[0][0]
        shown = flagged_rows
        ratio = float(np.median([t.split.ratio for t in flagged_rows]))
    sharing = sum(1 for t in shown if t.low_launches == low)
    high = frozenset(infos) - low
    shown_rows = tuple(dict.fromkeys((mine[t.row].op, mine[t.row].size) for t in shown))
    separating, examined, lacking, any_chance = _separating(infos, low, high)
    return LaunchEffect(alternative=alt, rows=shown_rows, low_launches=tuple(sorted(low)),
                        high_launches=tuple(sorted(high)), sharing_rows=sharing, ratio=ratio, separating=separating,
                        examined=examined, lacking=lacking, any_chance=any_chance, nprocs=nprocs)


def _separating(infos: dict[int, LaunchInfo], low: frozenset[int], high: frozenset[int]
                ) -> tuple[tuple[SeparatingProperty, ...], tuple[str, ...], tuple[tuple[str, int], ...], float | None]:
    found, examined, lacking, chances = [], [], [], []
    none_separates = 1.0  # the chance that no examined property separates at random (taken as independent)
    for what, numeric, value, show in PROPERTIES:
        lo = [v for i in sorted(low) if (v := value(infos[i].meta)) is not None]
        hi = [v for i in sorted(high) if (v := value(infos[i].meta)) is not None]
        missing = len(low) + len(high) - len(lo) - len(hi)
        if not lo or not hi or len(lo) + len(hi) < 3:
            continue  # recorded in too few launches (an older binary, no cpufreq): not examined
        examined.append(what)
        if missing:
            lacking.append((what, missing))
        sep = _separation.separates(lo, hi, numeric=numeric)
        none_separates *= 1.0 - float(sep.chance or 0.0)
        chances.append(float(sep.chance) if sep.separates and sep.chance is not None else 1.0)
        if sep.separates:
            found.append((len(chances) - 1, SeparatingProperty(
                what=what, low_values=shown_values(sep.low_values, numeric, show),
                high_values=shown_values(sep.high_values, numeric, show), chance=float(sep.chance), missing=missing)))
    adjusted = holm(np.array(chances)) if chances else np.array([])
    corrected = tuple(replace(sp, adjusted_chance=float(adjusted[k])) for k, sp in found)
    return corrected, tuple(examined), tuple(lacking), (1.0 - none_separates) if examined else None


def shown_values(values: tuple, numeric: bool, show: Callable[[Any], str]) -> tuple[str, ...]:
    """Numbers as their range ("180 ns – 225 ns"), other values one by one."""
    if numeric and len(values) > 1:  # numbers, or ISO times (which sort as strings)
        return (f"{show(min(values))} – {show(max(values))}",)
    return tuple(show(v) for v in values)


def _launches(indices: Sequence[int]) -> str:
    shown = ", ".join(f"{i:03d}" for i in indices[:6])
    return shown + (" …" if len(indices) > 6 else "")


def _values(values: Sequence[str]) -> str:
    return ", ".join(values[:3]) + (" …" if len(values) > 3 else "")


def launch_effect_warnings(effects: Sequence[LaunchEffect], campaign: Campaign, states: Sequence = ()
                           ) -> list[AnalysisWarning]:
    """``launch-clusters`` per effect; ``states`` (analysis.strata.States) says where the probe's own
    clusters made the states, which the verdict on a property then names."""
    out = []
    for e in effects:
        by_probe = any(s.alternative == e.alternative and s.nprocs == e.nprocs and s.from_probe for s in states)
        rows = ", ".join(f"{op} {format_size(size, campaign.size_unit(op))}" for op, size in e.rows[:4]) + (" …" if len(e.rows) > 4 else "")
        # Name the smaller group: "launch 000 ran them 2.3× slower than the other 11" reads at once.
        if len(e.low_launches) <= len(e.high_launches):
            named, others, how = e.low_launches, e.high_launches, "faster"
        else:
            named, others, how = e.high_launches, e.low_launches, "slower"
        if e.separating:
            # where the probe's own clusters made the states, the verdict is about the probe even
            # when another property separates the launches as well (the same chance at a tie)
            probe = [s for s in e.separating if by_probe and s.what == CACHELINE[0]]
            best = probe[0] if probe else min(e.separating, key=lambda s: s.chance)
            verdict = ("it explains them" if best.explains else
                       "the probe's own two clusters make the states (see `states`)"
                       if by_probe and best.what == CACHELINE[0] else "too likely by chance to explain them")
            tail = (f"; {best.what} separates them ({_values(best.low_values)} in the faster launches, "
                    f"{_values(best.high_values)} in the slower ones; a chance alignment has probability "
                    f"{best.chance:.2g}, {best.adjusted_chance:.2g} after Holm's correction over the "
                    f"{len(e.examined)} examined properties, against {ALPHA:g}: {verdict}"
                    + (f"; {best.missing} launch(es) did not record it" if best.missing else "") + ")")
            if len(e.separating) > 1:
                tail += "; also " + "; ".join(s.what for s in e.separating if s is not best)
        else:
            tail = (f"; none of the recorded properties separates them ({len(e.examined)} examined: "
                    + ", ".join(w.split(" (")[0] for w in e.examined) + ")")
            if e.lacking:
                tail += "; examined on the launches that recorded them: " + ", ".join(
                    f"{w.split(' (')[0]} missing in {n}" for w, n in e.lacking)
        out.append(warning(
            "launch-clusters", alternative=e.label, rows=len(e.rows), which=rows,
            launches=f"launch{'es' if len(named) > 1 else ''} {_launches(named)}", ratio=e.ratio, how=how,
            others=len(others), sharing=e.sharing_rows, separation=tail, where=e.label))
    return out
