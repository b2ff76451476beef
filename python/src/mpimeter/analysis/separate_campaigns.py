# SPDX-License-Identifier: BSD-3-Clause
"""Rows of two campaigns run one after the other (``compare``'s unpaired design): the rank-sum
test with its variance widened by the launches' own serial dependence (stats.campaign_drift),
and what that dependence costs in launches.

A machine whose episodes last several launches makes a campaign's launches alike in runs; two
campaigns then differ by more than their launches' spread admits, and the plain rank-sum test
calls one build against itself different far more often than α (docs/ALGORITHMS.md, "Two
campaigns of one build"). The dependence is measured on the comparison's own data: the pooled
autocorrelation of the log per-launch medians, each campaign centred on its own mean, in launch
(time) order, over every row the two campaigns share at one p (every root and size): the same
launches carry every row, so the rows pool into one estimate for the pair. Rows compared state by state (van
Elteren's test over matched states) are widened by the drift left inside the states (each
state's launches centred on their own mean). Rows of one interleaved campaign keep their tests:
pairing by round cancels the drift.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

import numpy as np

from mpimeter.analysis import designs as _designs
from mpimeter.stats import campaign_drift as _drift
from mpimeter.stats import compare as _cmp


@dataclass(frozen=True, kw_only=True)
class CampaignDrift:
    """The serial dependence of two separate campaigns' launches at one p: ``lag1`` the
    pooled lag-1 autocorrelation (each campaign centred on its mean), ``rho`` the same freed of
    the centring's bias (stats.campaign_drift.serial_rho), ``inflation`` f (≥ 1: the factor on the rank-sum test's
    variance), ``launches`` the fewer launches of a row on either side and ``effective_launches``
    what they count as (launches / f); ``launches_needed`` per side to find ``shift`` (a ratio
    b/a of 1 + shift) at the family's first Holm level with power 0.8 on a row of the median
    spread, with this dependence (stats.compare.launches_needed × f at that count), None beyond
    10 000."""

    a: str
    b: str
    nprocs: int
    lag1: float
    rho: float
    inflation: float
    launches: int
    effective_launches: float
    rows: int
    shift: float
    launches_needed: int | None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def one_after_the_other(ga: Any, gb: Any) -> bool:
    """Whether two groups are separate campaigns in time: different analysis results, or
    alternatives of folders loaded together (`compare A B`: no campaign.json joins them) whose
    launches did not overlap — every launch of one started before any of the other (ISO start
    times order as text). Launches without a start time: not known to be separate."""
    if ga.result is not gb.result:
        return True
    if ga.result.campaign.campaign_record is not None:
        return False  # one campaign with its record of the rounds: designs pairs or says why not

    def starts(g):
        return [li.meta.wall_start for li in g.result.campaign.launches if li.alternative == g.alternative]

    sa, sb = starts(ga), starts(gb)
    if not sa or not sb or not all(sa) or not all(sb):
        return False
    return max(sa) < min(sb) or max(sb) < min(sa)


def series_of(g: Any, op: str, size: int, states: Mapping[int, str] | None = None) -> np.ndarray:
    """The log per-launch medians of a group's (op, size) row in launch (time) order; with
    ``states`` (launch → machine state), each state's launches centred on their own mean, so
    that what is left is the drift inside the states the stratified test compares within."""
    medians = _designs.launch_medians(g, op, size)
    keys = sorted(medians)
    x = np.log(np.array([medians[k] for k in keys], dtype=float))
    if states:
        names = np.array([states.get(k, "") for k in keys])
        for name in set(names):
            x[names == name] -= x[names == name].mean()
    return x


def campaign_drift(rows: Sequence[tuple[Any, Any, str, int]], *, a: str, b: str, nprocs: int, level: float,
                   shift: float = 0.05, states: tuple[Mapping[int, str], Mapping[int, str]] | None = None
                   ) -> CampaignDrift:
    """The dependence of two campaigns' launches over ``rows`` — (group a, group b, op, size),
    each row with the two groups at its own (p, root): every root of one p ran in the same
    launches — and the launches a row would need (CampaignDrift); ``states``: launch → state of
    each side when the rows are compared state by state (series_of)."""
    series, spreads, launches = [], [], []  # spreads: each row's sd of log medians inside its campaigns
    for ga, gb, op, size in rows:
        sa = series_of(ga, op, size, None if states is None else states[0])
        sb = series_of(gb, op, size, None if states is None else states[1])
        sa, sb = sa[np.isfinite(sa)], sb[np.isfinite(sb)]
        if len(sa) < 3 or len(sb) < 3:
            continue
        series += [sa, sb]
        launches.append(min(len(sa), len(sb)))
        spreads.append(float(np.sqrt(np.concatenate([sa - sa.mean(), sb - sb.mean()]).var(ddof=2))))
    if not series:
        return CampaignDrift(a=a, b=b, nprocs=nprocs, lag1=math.nan, rho=0.0, inflation=1.0, launches=0,
                             effective_launches=0.0, rows=0, shift=shift, launches_needed=None)
    f = _drift.inflation(series)
    rho = _drift.serial_rho(series)
    n = min(launches)
    need = _needed(float(np.median(spreads)), math.log1p(shift), level, rho)
    return CampaignDrift(a=a, b=b, nprocs=nprocs, lag1=round(_drift.lag1(series), 4), rho=round(rho, 4),
                         inflation=round(f, 4), launches=n, effective_launches=round(n / f, 2), rows=len(launches),
                         shift=shift, launches_needed=need)


def _needed(sigma: float, shift: float, level: float, rho: float, most: int = 10_000) -> int | None:
    """Launches per side for independent launches (stats.compare.launches_needed) times f at that
    many launches, until the count holds its own f."""
    need = _cmp.launches_needed(sigma, shift, level)
    n = need
    for _ in range(50):
        if n is None or n > most:
            return None
        nxt = int(math.ceil(need * _drift.ar1_inflation(rho, n, n)))
        if nxt == n:
            break
        n = nxt
    return n if n is not None and n <= most else None


def widened(row: Any, f: float, alternative: str) -> Any:
    """A separate-campaign row with its test's variance × f (stats.campaign_drift.widen: the
    rank-sum p, or van Elteren's over matched states); unchanged where f is 1."""
    if f <= 1 or not math.isfinite(row.p_value):
        return replace(row, drift_inflation=1.0)
    p = _drift.widen(row.p_value, f, alternative, row.launches_a + row.launches_b)
    return replace(row, p_value=p, p_method=f"{row.p_method}, widened", drift_inflation=f, p_unwidened=row.p_value)


def widened_confidence(confidence: float, row: Any) -> float:
    """The confidence of the plain interval as wide as the widened test's (its inversion)."""
    return _drift.widened_confidence(confidence, row.drift_inflation, row.launches_a + row.launches_b)
