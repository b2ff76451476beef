# SPDX-License-Identifier: BSD-3-Clause
"""The history of a series (machine × library × ranks) across campaigns, the way
airspeed-velocity shows a benchmark over commits: each campaign's median with its interval in
time order, and the campaigns where ``mpimeter gate`` against the campaign before would have
failed marked — the same test (``analysis.gating.gate_rows``: one-sided rank-sum of per-launch
medians against the earlier ones × (1 + max slowdown), Holm over every (op, size) the two have
in common, mw-workpieces' numbers of work pieces each their own, a slowdown counted only beyond
the timer grid both campaigns' launches recorded), with the same minimum of 3 launches a side.
When the two campaigns measured differently (process or clock sync, raw mode, repetitions), the
step says so, as `gate`'s ``different-settings`` warning does.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mpimeter.analysis.gating import GateRow, gate_rows
from mpimeter.analysis.launch_effects import coarsest_resolution_ns
from mpimeter.analysis.settings import differing_settings
from mpimeter.resultstore.queries import json_column
from mpimeter.site.data import Series, SiteData, samples

MIN_LAUNCHES = 3  # as `mpimeter gate` (analysis.groups.check_launches)
SETTINGS = ("procsync", "clocksync", "raw", "nrep", "warmup", "timer")  # bench_config keys that change a method


@dataclass(frozen=True, kw_only=True)
class Step:
    """One campaign of a series against the one before it (``previous`` None for the first)."""

    campaign_id: str
    alternative: str
    previous: str | None
    rows: dict[tuple[str, int, int | None], GateRow] = field(default_factory=dict)  # (op, size, workpieces)
    problem: str | None = None  # why the gate could not be run
    differs: str = ""  # settings that differ from the campaign before ("procsync (before: window, this: barrier)")

    @property
    def failed(self) -> bool:
        return any(r.regression for r in self.rows.values())

    def row(self, op: str, size: int, workpieces: int | None = None) -> GateRow | None:
        """The gate's row of (op, size) — at ``workpieces`` work pieces for mw-workpieces."""
        return self.rows.get((op, size, workpieces))

    def regression(self, op: str, size: int, workpieces: int | None = None) -> bool:
        row = self.row(op, size, workpieces)
        return bool(row and row.regression)


def series_steps(data: SiteData, series: Series, *, max_slowdown: float, alpha: float) -> list[Step]:
    """The campaigns of ``series`` oldest first, each gated against the one before."""
    alts = data.alternatives[data.alternatives["series"] == series]
    order = {cid: i for i, cid in enumerate(data.campaigns["campaign_id"])}
    members = sorted(zip(alts["campaign_id"], alts["alternative"]), key=lambda ca: (order.get(ca[0], 1 << 30), ca[1]))
    configs = {(c, a): json_column(b) for c, a, b in zip(alts["campaign_id"], alts["alternative"], alts["bench_config"])}

    def settings(key) -> dict[str, str]:
        config = configs.get(key)
        return {k: str(config[k]) for k in SETTINGS if isinstance(config, dict) and config.get(k) is not None}

    steps: list[Step] = []
    before = None
    for cid, alt in members:
        differs = "" if before is None else "; ".join(
            differing_settings([("before", settings(before)), ("this", settings((cid, alt)))], SETTINGS))
        if before is None:
            steps.append(Step(campaign_id=cid, alternative=alt, previous=None))
        else:
            base, cand = samples(data, *before, series.nprocs), samples(data, cid, alt, series.nprocs)
            fewest = min(max((len(v) for v in base.values()), default=0),
                         max((len(v) for v in cand.values()), default=0))
            if fewest < MIN_LAUNCHES:
                steps.append(Step(campaign_id=cid, alternative=alt, previous=before[0],
                                  problem=f"not gated: {fewest} launch(es) on one side, the gate needs {MIN_LAUNCHES}",
                                  differs=differs))
            else:
                r = data.results
                one_way = set(zip(*(r.loc[(r["campaign_id"] == cid) & (r["alternative"] == alt) & r["one_way"]
                                          .fillna(False).astype(bool), c] for c in ("op", "size"))))
                # keys are (op, size), or (op, size, slice) for mw-workpieces (site.data.samples)
                # the gate's timer grid: the coarsest resolution both campaigns' launches recorded
                grid = coarsest_resolution_ns([*data.timer_resolutions.get(before, ()),
                                               *data.timer_resolutions.get((cid, alt), ())])
                rows = gate_rows(base, cand, max_slowdown=max_slowdown, alpha=alpha,
                                 one_way=lambda op, size, *where: (op, size) in one_way, grid_ns=grid)
                steps.append(Step(campaign_id=cid, alternative=alt, previous=before[0],
                                  rows={(r.op, r.size, r.workpieces): r for r in rows},
                                  problem=None if rows else "not gated: no (op, size) in common", differs=differs))
        before = (cid, alt)
    return steps
