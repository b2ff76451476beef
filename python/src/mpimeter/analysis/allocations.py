# SPDX-License-Identifier: BSD-3-Clause
"""The allocation as a factor: launches that ran in different Slurm allocations (jobs), and how
much of the launch-to-launch variance lies between the allocations.

Why: the same nodes, or other ones, change the numbers (Hunold & Carpen-Amarie 2016, §4.2 and
§7): a campaign resumed in a later job, or one whose launches were spread over several
allocations on purpose (docs/SLURM.md), holds launches of several allocations. Each launch's
allocation is what its ranks saw: rank 0's ``SLURM_JOB_ID`` and the step's node list in meta.json
``environment`` (``io.slurm.launch_facts``), so that a launch run by srun into another job
than the session's counts under the job it ran in.

Two uses:
- :data:`ALLOCATION` is a recorded property of a launch (``analysis.launch_effects``): when the
  launches fall into two groups and the allocation separates them, the launch-effect warning and
  the states (``analysis.strata``) name it.
- :func:`allocation_components`: per row whose launches ran in two or more allocations (one of
  them with two launches or more), the variance of the per-launch medians split into the
  between-allocation and the between-launch component (``stats.components.nested_components``),
  with the F test of "no allocation effect" and the interval of the allocation's share.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from mpimeter.analysis.loading import Campaign
from mpimeter.analysis.results import Row
from mpimeter.io import slurm
from mpimeter.io.errors import AnalysisWarning
from mpimeter.io.meta import LaunchMeta
from mpimeter.stats.components import nested_components
from mpimeter.stats.hypothesis import holm
from mpimeter.units import format_ns, format_size
from mpimeter.warning_codes import warning

ALPHA = 0.05  # the level of the F tests, Holm over an alternative's rows


def allocation_of(meta: LaunchMeta) -> str | None:
    """The launch's allocation as a person reads it, "JOB on NODELIST" (the job alone when the
    node list is not recorded); None outside Slurm."""
    facts = slurm.launch_facts(meta.environment)
    if facts is None:
        return None
    return f"{facts['job_id']} on {facts['nodelist']}" if "nodelist" in facts else facts["job_id"]


# (what, numeric, the value of a launch, how to show a value): analysis.launch_effects.PROPERTIES
ALLOCATION = ("the Slurm allocation (environment SLURM_JOB_ID, SLURM_STEP_NODELIST)", False, allocation_of, str)


@dataclass(frozen=True, kw_only=True)
class AllocationComponents:
    """Of one row: the variance of its per-launch medians between allocations and between the
    launches of one allocation (ns²), the allocation's share with its interval, and the F test
    of no allocation effect."""

    alternative: str
    op: str
    size: int
    nprocs: int
    root: int | None  # the row's root, for a rooted operation measured at several
    workpieces: int | None  # mw-workpieces: the row's pieces per call
    allocations: tuple[str, ...]  # as allocation_of shows them, in the order first seen
    launches: tuple[int, ...]  # launches per allocation, in that order
    between_allocations_ns2: float
    between_launches_ns2: float
    between_launches_low_ns2: float
    between_launches_high_ns2: float
    allocation_share: float | None  # None: no variance at all
    allocation_share_low: float
    allocation_share_high: float
    p_value: float  # of "the allocation adds no variance"
    confidence: float
    p_adjusted: float = float("nan")  # Holm over the rows of the alternative

    def to_dict(self) -> dict[str, Any]:
        out = {k: getattr(self, k) for k in self.__dataclass_fields__}
        out["allocations"], out["launches"] = list(self.allocations), list(self.launches)
        return out


def allocation_components(campaign: Campaign, rows: Sequence[Row], *,
                          confidence: float = 0.95) -> tuple[AllocationComponents, ...]:
    """Per row whose launches ran in several allocations, its variance components."""
    of = {(li.alternative, li.index): allocation_of(li.meta) for li in campaign.launches}
    out = []
    for r in rows:
        pairs = [(of.get((r.alternative, s.launch)), s.median_ns) for s in r.per_launch
                 if s.n > 0 and math.isfinite(s.median_ns)]
        pairs = [(a, m) for a, m in pairs if a is not None]
        names = tuple(dict.fromkeys(a for a, _ in pairs))
        if len(names) < 2 or len(pairs) <= len(names):
            continue
        c = nested_components([m for _, m in pairs], [a for a, _ in pairs], confidence=confidence)
        out.append(AllocationComponents(
            alternative=r.alternative, op=r.op, size=r.size, nprocs=r.nprocs, root=r.root,
            workpieces=r.workpieces, allocations=names,
            launches=tuple(sum(1 for a, _ in pairs if a == n) for n in names),
            between_allocations_ns2=c.between_groups, between_launches_ns2=c.within_groups,
            between_launches_low_ns2=c.within_low, between_launches_high_ns2=c.within_high,
            allocation_share=c.share, allocation_share_low=c.share_low,
            allocation_share_high=c.share_high, p_value=c.p_value, confidence=confidence))
    adjusted: dict[int, float] = {}
    for alt in dict.fromkeys(c.alternative for c in out):
        mine = [k for k, c in enumerate(out) if c.alternative == alt]
        adjusted.update(zip(mine, holm(np.array([out[k].p_value for k in mine]))))
    return tuple(replace(c, p_adjusted=float(adjusted[k])) for k, c in enumerate(out))


def allocation_warnings(components: Sequence[AllocationComponents], rows_of: dict[str, int]
                        ) -> list[AnalysisWarning]:
    """Per alternative whose rows show an allocation effect (Holm-adjusted p at most ALPHA): one
    warning naming the allocations and the row where they weigh most. ``rows_of``: the rows of
    each alternative."""
    out = []
    for alt in dict.fromkeys(c.alternative for c in components):
        hit = [c for c in components if c.alternative == alt and c.p_adjusted <= ALPHA]
        if not hit:
            continue
        top = max(hit, key=lambda c: c.allocation_share or 0.0)
        detail = (f"{top.op} {format_size(top.size)}: {100 * (top.allocation_share or 0):.0f} % of the variance "
                  f"between allocations [{100 * top.allocation_share_low:.0f}, "
                  f"{100 * top.allocation_share_high:.0f}] at {100 * top.confidence:g} %, standard deviations "
                  f"{format_ns(top.between_allocations_ns2 ** 0.5)} between allocations and "
                  f"{format_ns(top.between_launches_ns2 ** 0.5)} between launches")
        allocations = "; ".join(f"{a}: {n} launches" for a, n in zip(top.allocations, top.launches))
        out.append(warning("allocation-effect", where=alt, badness=top.allocation_share or 0.0,
                           alternative=alt, rows=len(hit), total=rows_of.get(alt, len(hit)),
                           allocations=allocations, detail=detail, alpha=ALPHA))
    return out
