# SPDX-License-Identifier: BSD-3-Clause
"""What :func:`mpimeter.analysis.analyze` returns: frozen records per launch and test, per row
across launches and per rank test, and the result that holds them with its JSON form
(``mpimeter analyze --format json``, docs/FORMAT.md)."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from mpimeter import SCHEMA_VERSION
from mpimeter.analysis import back_to_back as _back_to_back
from mpimeter.analysis import scaling as _scaling
from mpimeter.analysis.loading import Campaign, LaunchInfo
from mpimeter.io import runtimes as _runtimes
from mpimeter.io.errors import AnalysisWarning
from mpimeter.units import format_ns


@dataclass(frozen=True, kw_only=True)
class AnalysisSettings:
    outlier: str = "tukey"
    tukey_k: float = 1.5
    mpibench_a: float = 2.0
    drop_warmup: bool = False
    warmup_rule: str = "rank"
    clock: str = "auto"
    confidence: float = 0.95


@dataclass(frozen=True, kw_only=True)
class LaunchSummary:
    """One test (op, size) in one launch, after invalid repetitions, optional warm-up dropping
    and the outlier filter (Algorithm 3, lines 4–6). Times in ns. Keyword-only: some 30 fields,
    many of one type, are too many to build by position."""

    alternative: str
    launch: int
    test: int
    op: str
    size: int
    clock: str
    n_total: int  # repetitions in raw.csv
    n_invalid: int  # valid = 0
    n_warmup_dropped: int  # only with drop_warmup
    removed: int  # by the outlier filter
    n: int  # used for the statistics below
    median_ns: float
    mean_ns: float
    min_ns: float
    max_ns: float
    q1_ns: float
    q3_ns: float
    p90_ns: float
    p95_ns: float
    p99_ns: float
    std_ns: float
    cov: float
    warmup_length: int  # Roth §4.5: repetitions 1 … w−1
    n_first: int
    n_warmup: int
    n_outlier: int
    n_good: int
    bandwidth_Bps: float | None  # point-to-point only: harmonic mean of size/run time
    n_start_spread: int = 0  # valid, but dropped: the ranks' start spread exceeded the start tolerance
    warmup_p_value: float = math.nan  # of the warm-up trend test (NaN: too few repetitions to test)
    nprocs: int = 0  # the communicator size the test ran on (meta.json tests[].nprocs, else the launch's)
    root: int | None = None  # rooted operations: the test's root when meta.json records it
    workpieces: int | None = None  # mw-workpieces: the pieces its master handed out (tests[].workpieces)


@dataclass(frozen=True, kw_only=True)
class Row:
    """One (alternative, op, size) across launches (Hunold & Carpen-Amarie §4.2). Times in ns.

    ``median_ns`` is the median of the per-launch medians, with Le Boudec's interval (None when
    there are too few launches for the confidence level); ``mean_ns`` the mean of per-launch
    means with a t interval, trusted only when ``normal`` (Shapiro–Wilk p > 0.05);
    ``spread`` = max / min of per-launch medians; ``bandwidth_Bps`` the harmonic mean of the
    per-launch rates (Hoefler & Belli rule 3) for point-to-point operations."""

    alternative: str
    op: str
    size: int
    launches: int
    median_ns: float
    median_ci_low_ns: float | None
    median_ci_high_ns: float | None
    confidence: float
    mean_ns: float
    mean_ci_low_ns: float | None
    mean_ci_high_ns: float | None
    normality_p: float | None
    normal: bool | None
    spread: float
    outliers_removed: int
    invalid: int
    repetitions: int
    warmup_max: int
    clock: str
    bandwidth_Bps: float | None
    per_launch: tuple[LaunchSummary, ...] = field(repr=False)
    start_spread_dropped: int = 0  # repetitions dropped by the start-spread check, all launches
    one_way: bool = False  # times are one-way latencies: half the timed round trip (ping-pongs)
    # analysis.strata.StateRow per explained state of the alternative's launches (empty: none)
    per_state: tuple = ()
    # the process count of the row (results keyed by (op, size, p)); 0: not known
    nprocs: int = 0
    root: int | None = None  # the root of a rooted operation's row, when the tests recorded one
    # mw-workpieces: the pieces per call of the row (--workpieces LIST: one row per value); None: other ops
    workpieces: int | None = None

    def to_dict(self) -> dict[str, Any]:
        d = {k: v for k, v in asdict(self).items() if k not in ("per_launch", "per_state")}
        d["per_launch_medians_ns"] = [s.median_ns for s in self.per_launch]
        d["stratum"] = None  # this row pools all launches; its per-state rows name their state
        d["per_state"] = [s.to_dict() for s in self.per_state]
        return d


@dataclass(frozen=True)
class MeasurementOverhead:
    """The systematic overhead of one measurement (SKaMPI, Reussner et al. 1998, §3.1): the
    median of an empty timed region, max over ranks, per launch (meta.json
    probes.empty_region_ns); summarized over the ``launches`` of an alternative that recorded it.
    Shown next to the results, never subtracted from them."""

    alternative: str
    launches: int
    median_ns: float
    min_ns: float
    max_ns: float

    def text(self, *, name_alternative: bool) -> str:
        """``20 ns (3 launches: 18 ns – 25 ns)``, the alternative first when there are several."""
        spread = (f"{self.launches} launches: {format_ns(self.min_ns)} – {format_ns(self.max_ns)}"
                  if self.launches > 1 and self.max_ns > self.min_ns else
                  f"{self.launches} launch{'es' if self.launches != 1 else ''}")
        return f"{self.alternative + ' ' if name_alternative else ''}{format_ns(self.median_ns)} ({spread})"


OVERHEAD_LABEL = "systematic overhead of one measurement"
OVERHEAD_NOTE = ("the median of an empty timed region, max over ranks, per launch (SKaMPI §3.1); "
                 "shown, never subtracted")
def time_quantity(one_way: bool) -> str:
    """What a time of a row is, in axis labels and titles."""
    return "one-way latency" if one_way else "run time"


# The mean across launches is shown without an interval: launch states the campaign did not see
# (a slow state in 20 % of launches is missed by 0.8^10 = 11 % of 10-launch campaigns) lie outside
# any interval computed from its launches (docs/ALGORITHMS.md, the mean's t interval).
MEAN_NOTE = ("mean of the per-launch means, a point value (no interval: a launch state the campaign did not see "
             "would lie outside any interval computed from its launches)")

ONE_WAY_NOTE = ("one-way latency = half the timed round trip (ping-pongs: meta.json operations[op].round_trip); "
                "their bandwidth = size / one-way latency, harmonic mean")


def measurement_overhead(campaign: Campaign) -> tuple[MeasurementOverhead, ...]:
    values: dict[str, list[float]] = {}
    for li in campaign.launches:
        if li.meta.empty_region_ns is not None:
            values.setdefault(li.alternative, []).append(float(li.meta.empty_region_ns))
    return tuple(MeasurementOverhead(alt, len(v), float(np.median(v)), min(v), max(v))
                 for alt in campaign.alternatives if (v := values.get(alt)))


@dataclass(frozen=True, kw_only=True)
class RankTest:
    """Friedman's test over ranks for one (alternative, op, size): each rank's per-launch median
    local duration, launches as blocks (Hoefler & Belli §4.2.1; see analysis.pipeline._rank_tests).
    ``slowest_ranks`` lists up to three ranks, slowest first, with
    their median local durations in ``slowest_medians_ns``; ``kendall_w`` how consistently the
    ranks are ordered across launches (Hoefler & Belli 2015 §3.2.2: an effect size beside p)."""

    alternative: str
    op: str
    size: int
    ranks: int
    statistic: float
    p_value: float
    p_adjusted: float
    differ: bool
    slowest_ranks: tuple[int, ...]
    slowest_medians_ns: tuple[float, ...]
    median_of_rank_medians_ns: float
    nprocs: int = 0  # the process count of the launches tested; 0: not known
    kendall_w: float = math.nan  # effect size beside p: 0 ranks alike … 1 one order in every launch (stats.effectsize)


@dataclass(frozen=True, kw_only=True)
class AnalysisResult:
    """Everything ``analyze`` found. ``repetitions`` has one row per repetition: alternative,
    launch, test, op, size, rep, run_time_ns, valid, category (first|warmup|outlier|good),
    kept (used in the statistics). ``clock_note`` says in words which clock was used."""

    campaign: Campaign = field(repr=False)
    settings: AnalysisSettings
    rows: tuple[Row, ...]
    repetitions: pd.DataFrame = field(repr=False)
    rank_tests: tuple[RankTest, ...]
    warnings: tuple[AnalysisWarning, ...]
    clock_note: str
    # what the clock note says after the launches' clocks (imported launches, the start-spread
    # check): a note of some launches (a fingerprint's) is clocks_note(theirs) + this
    clock_note_tail: str = ""
    launch_effects: tuple = ()  # analysis.launch_effects.LaunchEffect: clusters of launch medians
    nbc_rows: tuple = ()  # analysis.nbc.NbcRow: overhead and overlap of nonblocking collectives
    # analysis.nbc.per_repetition: one row per valid repetition of the nonblocking tests
    nbc_repetitions: pd.DataFrame | None = field(default=None, repr=False)
    counters: Any = field(default=None, repr=False)  # analysis.counters.CounterAnalysis; None: no counters read
    states: tuple = ()  # analysis.strata.States per alternative and p whose launches form groups
    # analysis.scaling.ScalingSeries per (alternative, op, size, root) measured at several p, with
    # each p's bound (analysis.bounds); computed by analyze
    scaling: tuple = ()
    # analysis.allocations.AllocationComponents per row whose launches ran in several Slurm
    # allocations: the variance between allocations beside the one between launches
    allocations: tuple = ()

    @property
    def provenance(self) -> tuple[LaunchInfo, ...]:
        return self.campaign.launches

    @property
    def alternatives(self) -> tuple[str, ...]:
        return self.campaign.alternatives

    @property
    def launch_summaries(self) -> tuple[LaunchSummary, ...]:
        return tuple(s for r in self.rows for s in r.per_launch)

    @property
    def measurement_overhead(self) -> tuple[MeasurementOverhead, ...]:
        """Per alternative, the systematic overhead of one measurement its launches recorded
        (meta.json probes.empty_region_ns; launches without it are left out)."""
        return measurement_overhead(self.campaign)

    @property
    def back_to_back(self) -> tuple:
        """analysis.back_to_back.BackToBackRow per row whose launches recorded a back-to-back
        companion (meta.json tests[].back_to_back): the row's median beside OSU's and IMB's figure."""
        return _back_to_back.back_to_back_rows(self.rows, self.campaign)

    def size_unit(self, op: str) -> str:
        """``bytes`` or ``ns``: the unit of ``op``'s sizes, as the launches recorded it."""
        return self.campaign.size_unit(op)

    def row(self, op: str, size: int, alternative: str | None = None, nprocs: int | None = None,
            workpieces: int | None = None) -> Row:
        """The row of (op, size[, alternative][, p][, workpieces]); the first p (and work pieces)
        when ``nprocs`` (``workpieces``) is not given."""
        for r in self.rows:
            if (r.op == op and r.size == size and alternative in (None, r.alternative) and nprocs in (None, r.nprocs)
                    and workpieces in (None, r.workpieces)):
                return r
        raise KeyError((op, size, alternative, nprocs, workpieces))

    def rank_durations(
        self, *, alternative: str | None = None, op: str | None = None, size: int | None = None
    ) -> pd.DataFrame:
        """Local duration (end − start) per rank and repetition: alternative, launch, op, size,
        rank, rep, duration_ns, valid. Computed on demand from the raw rows, read again launch by
        launch (only those of ``alternative``)."""
        return _runtimes.rank_durations(self.campaign.raw_of(alternative=alternative, op=op, size=size))

    def to_dict(self) -> dict[str, Any]:
        """The JSON of ``mpimeter analyze --format json`` (docs/FORMAT.md)."""
        return {
            "schema_version": SCHEMA_VERSION,
            "command": "analyze",
            "campaign": str(self.campaign.path),
            "alternatives": list(self.alternatives),
            "settings": asdict(self.settings),
            "clock": self.clock_note,
            "rows": [r.to_dict() for r in self.rows],
            "measurement_overhead": [asdict(o) for o in self.measurement_overhead],
            "back_to_back": [b.to_dict() for b in self.back_to_back],
            "launch_summaries": [asdict(s) for s in self.launch_summaries],
            "rank_tests": [asdict(t) for t in self.rank_tests],
            "launch_effects": [e.to_dict() for e in self.launch_effects],
            "states": [s.to_dict() for s in self.states],
            "allocations": [a.to_dict() for a in self.allocations],
            "nonblocking": [r.to_dict() for r in self.nbc_rows],
            # time against p per (alternative, op, size[, root]), and the root's effect
            "scaling": [s.to_dict() for s in self.scaling],
            "scaling_lines": {"ideal": _scaling.IDEAL, "lower_bound": _scaling.LOWER_BOUND},
            "root_effects": [e.to_dict() for e in _scaling.root_effects(self.rows)],
            "counters": self.counters.to_dict() if self.counters is not None else None,
            "warnings": [w.to_dict() for w in self.warnings],
            "provenance": [_provenance(li) for li in self.provenance],
        }


def _provenance(li: LaunchInfo) -> dict[str, Any]:
    m = li.meta
    tool = m.tool
    return {
        "alternative": li.alternative,
        "launch": li.index,
        "folder": str(li.folder),
        "status": li.status,
        "clock": li.clock,
        "clock_reason": li.clock_reason,
        "nprocs": m.nprocs,
        "mpi_library_version": m.mpi.library_version_line,
        "tool": None if tool == type(tool)() else {"name": tool.name, "version": tool.version,
                                                   "git_revision": tool.git_revision},
        "argv": list(m.argv) if m.argv else None,
        "wall_start": m.wall_start,
    }
