# SPDX-License-Identifier: BSD-3-Clause
"""How many launches are enough: the stopping rule of ``mpimeter run --launches auto`` and the
interval it stops on.

Rule (Hoefler & Belli 2015 §4.2.2, applied to launches, the unit of replication of Hunold &
Carpen-Amarie 2016 §4.2, who found 10 launches the minimum and 30 enough): after every launch,
recompute the interval of the median of the per-launch medians of each (op, size); a pair is
done once the interval lies within ±e of its median (``precision``), or once it has
``max_launches`` launches (``max``); before ``min_launches`` it is never done.

Honest intervals under adaptive stopping. Stopping when an interval happens to be narrow biases
it: the interval at the stop covers the true median less often than a fixed-n interval would.
And Le Boudec's exact order-statistic interval (what ``analyze`` reports) is conservative at
small n: at n = 10 it is [x_(2), x_(9)], which covers with 97.85 % for every continuous
distribution. A seeded simulation (python/tests/test_stats_stopping.py; lognormal and t3 launch
effects of every spread, min 10, max 30, e = 2 %, 10 000 campaigns each) gives, for the nominal
95 % level:
- the exact interval, stopping on itself: 93.8–98.2 % (above 97 % whenever most pairs stop at
  the minimum);
- the Hettmansperger–Sheather interpolated interval at 95 %: 92–95 % (the stopping bias);
- the interpolated interval at the level 1 − 0.8 α (96 % for 95 %): 94.2–96.3 %.
So the rule uses the last one, :func:`stopping_interval`, as its correction: it both decides and
is the interval recorded at the stop (campaign.json), and its coverage of the true median of
per-launch medians stays within 93–97 % under the rule. ``analyze`` keeps its exact interval,
which contains the interpolated one at the same level; at the rule's stop it covers 95.5–98.2 %
(conservative, never below nominal).

Clusters the interval cannot see. When the launches fall into two groups (a launch effect,
Hunold & Carpen-Amarie 2016 §4.2) the median of the per-launch medians lies between them, and an
interval narrow enough to stop on is one that sits inside one group: with half the launches 1.1×
slower, 39 % of the precision stops covered. So a precision stop is accepted only when the pair's
medians show no such groups (:func:`clusters_outside`: ``stats.clusters.split_two`` significant
at CLUSTER_ALPHA with a group's median outside the interval, on the timer's recorded grid as the
analysis tests them: medians of 30, 35 and 40 ns on a 10 ns timer are no two groups); otherwise the pair goes on, to
``max`` if need be, and the verdict says that clusters held it.

States the analysis explains. When a recorded property explains the groups (``analyze``'s
states, analysis.strata: the cache-line probe told a fast and a slow state apart in every launch
of a campaign on a machine with two speed states), the pooled median is decided by the mix of
states and each state is reported on its own; so the rule asks the same of each state: the pair is done once every state's own stopping
interval lies within ±precision of its median (``states``) — the one rule above, applied per
state. A state whose launches, even at the upper 95 % bound of its share so far, cannot reach
the launches its interval needs by ``max`` (:func:`state_is_rare`) is *rare*: it does not hold the stop, and the verdict names it
with its share; at ``max`` every state short of its precision is named so.

Interpolation (Hettmansperger & Sheather 1986): with d the largest rank whose interval
[x_(d), x_(n+1−d)] has coverage γ_d = 1 − 2 B(d − 1) ≥ γ (B the Binomial(n, ½) CDF), and
γ_{d+1} < γ the next one in, the bounds are (1 − λ) x_(d) + λ x_(d+1) and
(1 − λ) x_(n+1−d) + λ x_(n−d), λ = (n − d) I / (d + (n − 2d) I), I = (γ_d − γ)/(γ_d − γ_{d+1}):
nearly exactly γ for any continuous distribution, where the exact ranks jump between levels.
Cost: a sort, O(n log n).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy import stats as _st

from mpimeter.stats import clusters as _clusters
from mpimeter.stats.intervals import Interval

STATUSES = ("more", "precision", "max")  # "precision" with states: every state precise, or rare
# a split this significant, with a group outside the interval, holds a stop: a held stop costs a
# launch, a wrong one the coverage (balanced clusters 1.1× apart, 2 % within: 93.3 % at 0.05,
# 94 % at 0.2; i.i.d. launches at 0.5 % stop after 10.7 launches instead of 10.1)
CLUSTER_ALPHA = 0.2
# the correction: the interpolated interval at 1 − CORRECTION × α (see the module's docstring)
CORRECTION = 0.8


def corrected_level(confidence: float) -> float:
    """The level the stopping interval is computed at for a nominal ``confidence``."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    return 1.0 - CORRECTION * (1.0 - confidence)


@lru_cache(maxsize=4096)
def interpolation_weights(n: int, level: float) -> tuple[int, float] | None:
    """(d, λ) of the Hettmansperger–Sheather interval for n values at ``level``; None when even
    [x_(1), x_(n)] covers less than ``level``."""
    if n < 2:
        return None
    cdf = _st.binom.cdf(np.arange(n), n, 0.5)  # cdf[i] = B(i)
    d = int(np.searchsorted(cdf, (1.0 - level) / 2 * (1 + 1e-12), side="right"))
    if d < 1:
        return None
    gamma_d = 1.0 - 2.0 * cdf[d - 1]
    if d + 1 > n - d:  # no interval inside: the exact one
        return d, 0.0
    gamma_next = 1.0 - 2.0 * cdf[d]
    i = (gamma_d - level) / (gamma_d - gamma_next)
    return d, (n - d) * i / (d + (n - 2 * d) * i)


def interpolated_median_ci(x: np.ndarray, level: float) -> Interval:
    """Median of ``x`` with the Hettmansperger–Sheather interpolated interval at ``level``."""
    x = np.sort(np.asarray(x, dtype=float))
    n = x.size
    est = float(np.median(x)) if n else math.nan
    w = interpolation_weights(n, level) if n else None
    if w is None:
        return Interval(est, None, None, level, "hettmansperger-sheather")
    d, lam = w
    low = (1 - lam) * x[d - 1] + lam * x[d] if lam else x[d - 1]
    high = (1 - lam) * x[n - d] + lam * x[n - d - 1] if lam else x[n - d]
    return Interval(est, float(low), float(high), level, "hettmansperger-sheather")


def stopping_interval(medians: np.ndarray, confidence: float = 0.95) -> Interval:
    """The interval the rule decides on and records: interpolated, at the corrected level."""
    return interpolated_median_ci(medians, corrected_level(confidence))


def relative_half_width(ci: Interval) -> float | None:
    """The larger distance of the bounds from the estimate, relative to it (None: no interval,
    or an estimate that is not positive)."""
    if ci.low is None or ci.high is None or not ci.estimate > 0:
        return None
    return max(ci.estimate - ci.low, ci.high - ci.estimate) / ci.estimate


def clusters_outside(medians: np.ndarray, ci: Interval, *, grid_ns: float | None = None) -> _clusters.TwoClusters | None:
    """The split of ``medians`` into two groups when it is significant (p ≤ CLUSTER_ALPHA) and a
    group's median lies outside the interval: launches the interval does not describe. None
    otherwise. ``grid_ns``: the timer's recorded resolution, the grid the medians lie on
    (``stats.clusters.dithered``; None: not recorded, then the medians' own grid)."""
    split = _clusters.split_two(medians, grid_ns=grid_ns)
    if split is None or split.p_value > CLUSTER_ALPHA or ci.low is None or ci.high is None:
        return None
    v = np.asarray(medians, dtype=float)
    low, high = float(np.median(v[list(split.low)])), float(np.median(v[list(split.high)]))
    return split if low < ci.low or high > ci.high else None


@lru_cache(maxsize=256)
def launches_for_interval(confidence: float) -> int:
    """The fewest launches whose stopping interval exists at ``confidence`` (6 at 95 %)."""
    level = corrected_level(confidence)
    return next(n for n in range(2, 10_000) if interpolation_weights(n, level) is not None)


RARE_SHARE_LEVEL = 0.95  # a state is rare only when even this upper bound of its share is too small


def state_is_rare(in_state: int, launches: int, max_launches: int, confidence: float) -> bool:
    """A state is rare when, even at the upper RARE_SHARE_LEVEL bound of its share (one-sided
    Clopper–Pearson: a share guessed from few launches is not trusted to be small), the launches
    left to ``max`` would not bring it to the launches its interval needs."""
    if launches <= 0 or in_state >= launches:
        return False
    share = float(_st.beta.ppf(RARE_SHARE_LEVEL, in_state + 1, launches - in_state))
    expected = in_state + share * max(max_launches - launches, 0)
    return expected < launches_for_interval(confidence)


@dataclass(frozen=True, kw_only=True)
class StateVerdict:
    """One state of a pair's launches: its launches, share, interval and the precision reached."""

    stratum: str
    launches: int
    share: float
    precision: float | None
    interval: Interval
    rare: bool

    def to_dict(self) -> dict:
        return {"stratum": self.stratum, "launches": self.launches, "share": self.share,
                "precision": self.precision, "median_ns": None if math.isnan(self.interval.estimate)
                else self.interval.estimate, "low_ns": self.interval.low, "high_ns": self.interval.high,
                "rare": self.rare}


@dataclass(frozen=True, kw_only=True)
class LaunchVerdict:
    status: str  # more | precision | max
    launches: int
    precision: float | None  # reached: relative_half_width of the interval
    interval: Interval
    held: _clusters.TwoClusters | None = None  # the precision was reached, but launches formed these groups
    states: tuple[StateVerdict, ...] = ()  # the explained states, judged each on its own

    @property
    def reason(self) -> str:
        """Why the pair stopped (or goes on), in words for campaign.json."""
        if self.states:
            return self._state_reason()
        reached = f"the interval within ±{self.precision:.3g} of the median" if self.precision is not None else ""
        if self.held is not None:
            groups = (f"{len(self.held.low)} and {len(self.held.high)} launches {self.held.ratio:.3g}× apart "
                      f"(p = {self.held.p_value:.2g})")
            return (f"{reached}, but the launches form two groups the interval does not describe ({groups})"
                    + (f": stopped at the maximum, {self.launches} launches" if self.status == "max" else ": more launches"))
        if self.status == "precision":
            return f"{reached} at {self.launches} launches, and no launch clusters outside it"
        if self.status == "max":
            return f"the maximum, {self.launches} launches, before the precision"
        return "more launches"

    def _state_reason(self) -> str:
        def one(st: StateVerdict) -> str:
            where = f"{st.launches} launch{'es' if st.launches != 1 else ''}, {100 * st.share:.0f} %"
            if st.rare:
                return f"the {st.stratum} state is rare ({where}): too few launches for its interval by the maximum"
            if st.precision is None:
                return f"the {st.stratum} state ({where}) has no interval yet"
            return f"the {st.stratum} state ({where}) within ±{st.precision:.3g} of its median"

        said = "; ".join(one(st) for st in self.states)
        if self.status == "precision":
            return f"per state: {said}, at {self.launches} launches"
        if self.status == "max":
            return f"the maximum, {self.launches} launches; per state: {said}"
        return f"more launches; per state: {said}"


def _state_verdicts(values: np.ndarray, states: Sequence[str | None], *, max_launches: int, precision: float,
                    confidence: float) -> tuple[StateVerdict, ...]:
    labels = list(states)
    n = values.size
    out = []
    for name in sorted({x for x in labels if x is not None}):
        mine = values[[i for i, x in enumerate(labels) if x == name]]
        ci = stopping_interval(mine, confidence)
        reached = relative_half_width(ci)
        done = reached is not None and reached <= precision
        out.append(StateVerdict(stratum=name, launches=int(mine.size), share=mine.size / n, precision=reached,
                                interval=ci,
                                rare=not done and state_is_rare(int(mine.size), n, max_launches, confidence)))
    return tuple(out)


def launch_verdict(medians, *, min_launches: int = 10, max_launches: int = 30, precision: float = 0.02,
                   confidence: float = 0.95, states: Sequence[str | None] | None = None,
                   grid_ns: float | None = None) -> LaunchVerdict:
    """Whether a pair with these per-launch medians needs another launch. ``states``: the state of
    each launch when the analysis explains the launches' groups (analysis.strata; None: a
    launch of no state): then each state is judged on its own (module docstring). ``grid_ns``:
    the timer's recorded resolution (:func:`clusters_outside`)."""
    values = np.asarray(medians, dtype=float)
    ci = stopping_interval(values, confidence)
    reached = relative_half_width(ci)
    n = int(values.size)
    if states is not None and len(states) == n and len({x for x in states if x is not None}) > 1:
        per_state = _state_verdicts(values, states, max_launches=max_launches, precision=precision,
                                    confidence=confidence)
        precise = [st.precision is not None and st.precision <= precision for st in per_state]
        rare_or_precise = all(p or st.rare for p, st in zip(precise, per_state))
        # at the maximum a rare state is what the maximum left short: "max", and the reason names it
        if n >= min_launches and all(precise):
            status = "precision"
        elif n >= max_launches:
            status = "max"
        elif n >= min_launches and rare_or_precise:
            status = "precision"
        else:
            status = "more"
        return LaunchVerdict(status=status, launches=n, precision=reached, interval=ci, held=None, states=per_state)
    held = None
    if n >= min_launches and reached is not None and reached <= precision:
        held = clusters_outside(values, ci, grid_ns=grid_ns)
    if n >= min_launches and reached is not None and reached <= precision and held is None:
        status = "precision"
    elif n >= max_launches:
        status = "max"
    else:
        status = "more"
    return LaunchVerdict(status=status, launches=n, precision=reached, interval=ci, held=held)
