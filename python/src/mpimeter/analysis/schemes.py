# SPDX-License-Identifier: BSD-3-Clause
"""The processing schemes of other benchmarks (``mpimeter.stats.schemes``; Hunold & Carpen-Amarie
2016, Table 4) on a campaign, launch by launch, beside mpimeter's own: how much the choice of
scheme moves the number users quote.

Each launch's values are computed from its own rows while the campaign is read
(``mpimeter.analysis.scheme_values``, ``load_campaign(..., schemes=True)``: one launch's raw rows
at a time, never the whole campaign's, and each launch read once), and each test gives what it can:

- per-rank rows (``--raw full``): every scheme (``mpiblib-global``, PS4, only with a global
  clock: it takes each rank's global end and rank 0's global start);
- one row per repetition holding the maximum over ranks of the local run times (``--raw
  reduced``, ReproMPI ``--runtime-type=local``): the schemes on that maximum (``skampi``,
  ``mpiblib``) and ours; not those that need each rank's times (nor rank 0's: ``mpptest``);
- one row per repetition holding a global run time (ReproMPI ``--runtime-type=global``): ours
  only (the peers' schemes are defined on local times);
- imported aggregates (IMB, OSU, ReproMPI ``--summary``): the schemes whose numbers the tool
  printed (IMB's t_min/t_max/t_avg are OSU's min/max/avg of the same per-rank means, and the
  reverse; ReproMPI's mean/min/max of the maxima are PS2's), nothing else.

Repetitions that are invalid on some rank (``valid`` = 0: a missed window, a late start) are
dropped first: they did not time the operation alone. Ping-pongs (``round_trip``) are halved
as everywhere (one-way latency); imported aggregates are already what the tool printed.

Across launches (the unit of replication, §4.2), a scheme's headline of each launch → their
median with Le Boudec's interval; the scheme's other numbers → their medians over launches.
``ours`` is the analysis itself (``mpimeter.analysis.analyze``: median of per-launch medians
after the outlier filter, on the launch's clock).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mpimeter.analysis.loading import Campaign
from mpimeter.analysis.results import AnalysisResult
from mpimeter.io.errors import AnalysisWarning
from mpimeter.analysis.scheme_table import NAMES, SCHEMES  # NAMES: part of this module's face (scheme_rows takes them)
from mpimeter.analysis.scheme_values import LaunchValue, launch_values
from mpimeter.io.launch import read_launch
from mpimeter.stats import intervals
from mpimeter.warning_codes import warning


@dataclass(frozen=True, kw_only=True)
class SchemeRow:
    """One scheme on one (alternative, op, size, p[, root][, work pieces]) across launches. Times in ns."""

    alternative: str
    op: str
    size: int
    scheme: str
    launches: int
    headline_ns: float | None  # median over launches of the per-launch headlines (None: not computable)
    ci_low_ns: float | None
    ci_high_ns: float | None
    stats_ns: dict[str, float] = field(default_factory=dict)  # medians over launches
    per_launch_ns: tuple[float, ...] = ()
    removed: int = 0  # values the scheme's own filter dropped, all launches
    why: str | None = None  # why it cannot be computed
    one_way: bool = False
    nprocs: int = 0  # the process count
    root: int | None = None  # a rooted operation's root
    workpieces: int | None = None  # mw-workpieces: the pieces per call (one row per number, as analyze's)

    def to_dict(self) -> dict[str, Any]:
        return {"alternative": self.alternative, "op": self.op, "size": self.size, "scheme": self.scheme,
                "launches": self.launches, "headline_ns": self.headline_ns, "ci_low_ns": self.ci_low_ns,
                "ci_high_ns": self.ci_high_ns, "stats_ns": self.stats_ns, "per_launch_ns": list(self.per_launch_ns),
                "removed": self.removed, "not_computable": self.why, "one_way": self.one_way,
                "nprocs": self.nprocs, "root": self.root, "workpieces": self.workpieces}


def scheme_rows(campaign: Campaign, schemes: tuple[str, ...], ours: AnalysisResult | None, *,
                confidence: float = 0.95, cache: bool = True) -> tuple[list[SchemeRow], list[AnalysisWarning]]:
    """Every scheme of ``schemes`` on every (alternative, op, size) of the campaign; ``ours`` (the
    campaign's analysis) is needed when ``schemes`` has ``ours``."""
    peers = tuple(s for s in schemes if s != "ours")
    per: dict[tuple[str, str, int, int, int | None, int | None], dict[str, list[LaunchValue]]] = {}
    whys: dict[tuple[str, str, int, int, int | None, int | None, str], str] = {}
    for li in campaign.launches:
        # computed while the campaign was read (load_campaign(..., schemes=True)); else one
        # launch's rows at a time now
        found = li.scheme_values if li.scheme_values is not None else \
            launch_values(read_launch(li.folder, cache=cache), peers)
        for (op, size, ranks, root, pieces), values in found.items():
            slot = per.setdefault((li.alternative, op, size, ranks, root, pieces), {s: [] for s in peers})
            for s in peers:
                v = values[s]
                if isinstance(v, str):
                    whys.setdefault((li.alternative, op, size, ranks, root, pieces, s), v)
                else:
                    slot[s].append(LaunchValue(li.index, v.value))
    rows: list[SchemeRow] = []
    one_way = {op for li in campaign.launches for op, info in li.meta.operations.items() if info.round_trip}
    ours_rows = {(r.alternative, r.op, r.size, r.nprocs, r.root, r.workpieces): r
                 for r in ours.rows} if ours is not None else {}
    keys = list(dict.fromkeys([*((r.alternative, r.op, r.size, r.nprocs, r.root, r.workpieces) for r in ours.rows)]
                              if ours is not None else [])) + [k for k in per if k not in ours_rows]
    for key in keys:
        alt, op, size, ranks, root, pieces = key
        where = {"nprocs": ranks, "root": root, "workpieces": pieces}
        for s in schemes:
            if s == "ours":
                rows.append(_ours_row(campaign, ours_rows.get(key), key, op in one_way))
                continue
            why = whys.get((*key, s))
            got = per.get(key, {}).get(s, [])
            if why is not None or not got:
                rows.append(SchemeRow(alternative=alt, op=op, size=size, scheme=s, launches=0, headline_ns=None,
                                      ci_low_ns=None, ci_high_ns=None, why=why or "no data", one_way=op in one_way,
                                      **where))
                continue
            heads = np.array([v.value.headline for v in got])
            ci = intervals.median_ci(heads, confidence)
            names = SCHEMES[s].stats
            stats = {n: float(np.median([v.value.stats[n] for v in got if n in v.value.stats]))
                     for n in names if any(n in v.value.stats for v in got)}
            rows.append(SchemeRow(alternative=alt, op=op, size=size, scheme=s, launches=len(got),
                                  headline_ns=ci.estimate, ci_low_ns=ci.low, ci_high_ns=ci.high, stats_ns=stats,
                                  per_launch_ns=tuple(float(h) for h in heads),
                                  removed=sum(v.value.removed for v in got), one_way=op in one_way, **where))
    warnings = [warning("scheme-not-computable", scheme=s, alternative=alt, op=op, size=size, why=why, where=alt)
                for (alt, op, size, _, _, _, s), why in whys.items()]
    return rows, warnings


def _ours_row(campaign: Campaign, row: Any, key: tuple[str, str, int, int, int | None, int | None],
              one_way: bool) -> SchemeRow:
    alt, op, size, ranks, root, pieces = key
    aggregates = [li for li in campaign.launches_of(alt) if li.meta.origin is not None and li.meta.origin.aggregates]
    if row is None or aggregates:
        why = ("imported aggregates have no per-repetition run times: no launch median can be computed"
               if aggregates else "no data")
        return SchemeRow(alternative=alt, op=op, size=size, scheme="ours", launches=0, headline_ns=None,
                         ci_low_ns=None, ci_high_ns=None, why=why, one_way=one_way, nprocs=ranks, root=root,
                         workpieces=pieces)
    return SchemeRow(alternative=alt, op=op, size=size, scheme="ours", launches=row.launches,
                     headline_ns=row.median_ns, ci_low_ns=row.median_ci_low_ns, ci_high_ns=row.median_ci_high_ns,
                     stats_ns={"median": row.median_ns},
                     per_launch_ns=tuple(s.median_ns for s in row.per_launch if s.n > 0),
                     removed=row.outliers_removed, one_way=one_way, nprocs=ranks, root=root,
                     workpieces=pieces)


def spread_across(rows: list[SchemeRow]) -> float | None:
    """max / min of the computable headlines of one (alternative, op, size): how far the schemes
    are apart on the same data."""
    heads = [r.headline_ns for r in rows if r.headline_ns is not None and r.headline_ns > 0]
    return max(heads) / min(heads) if len(heads) >= 2 else None
