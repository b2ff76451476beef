"""The process-count dimension (issue 27): which p (and root) a test ran with, the scaling view
— time against p per (alternative, op, size) with the across-launch intervals — and the root's
effect per (op, size, p).

p comes per test from meta.json ``tests[].nprocs`` (a sub-communicator inside one launch,
SKaMPI/NBCBench) and else from the launch's ``nprocs`` (campaigns with ``--np LIST``: one p per
launch). The root comes from ``tests[].root`` when the launch recorded one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats as _st

from mpimeter.analysis.loading import LaunchInfo


def test_ranks(li: LaunchInfo | None, test: int) -> tuple[int, int | None]:
    """(p, root) of test ``test`` of a launch: its own communicator size and root when meta.json
    records them, else the launch's nprocs and no root; (0, None) for a launch without meta."""
    if li is None:
        return 0, None
    tests = li.meta.tests
    rec = tests[test] if 0 <= test < len(tests) else None
    ranks = rec.nprocs if rec is not None and rec.nprocs is not None else li.meta.nprocs
    return ranks, rec.root if rec is not None else None


def varies(rows: Sequence, attr: str = "nprocs") -> bool:
    """Do the rows hold more than one value of ``attr`` (p or root)? A campaign of one p shows
    no p column (its tables stay as they were)."""
    return len({getattr(r, attr) for r in rows}) > 1


def key(row) -> tuple:
    """A row's key within one alternative: (op, size, p, root)."""
    return (row.op, row.size, row.nprocs, row.root)


@dataclass(frozen=True)
class ScalingPoint:
    nprocs: int
    launches: int
    median_ns: float
    low_ns: float | None
    high_ns: float | None


@dataclass(frozen=True)
class ScalingSeries:
    """Time against p of one (alternative, op, size[, root]) (Hoefler & Belli 2015 §5.1)."""

    alternative: str
    op: str
    size: int
    root: int | None
    points: tuple[ScalingPoint, ...]
    one_way: bool = False

    def to_dict(self) -> dict:
        return {"alternative": self.alternative, "op": self.op, "size": self.size, "root": self.root,
                "one_way": self.one_way,
                "points": [{"nprocs": p.nprocs, "launches": p.launches, "median_ns": p.median_ns,
                            "median_ci_low_ns": p.low_ns, "median_ci_high_ns": p.high_ns}
                           for p in self.points]}


def scaling_series(rows: Sequence) -> list[ScalingSeries]:
    """One series per (alternative, op, size, root) measured at two or more p, p ascending; the
    points are the rows' medians of per-launch medians with their intervals (None: too few
    launches for one)."""
    groups: dict[tuple, list] = {}
    for r in rows:
        groups.setdefault((r.alternative, r.op, r.size, r.root), []).append(r)
    series = []
    for (alt, op, size, root), rs in groups.items():
        if len({r.nprocs for r in rs}) < 2:
            continue
        rs = sorted(rs, key=lambda r: r.nprocs)
        series.append(ScalingSeries(alt, op, size, root, tuple(
            ScalingPoint(r.nprocs, r.launches, r.median_ns, r.median_ci_low_ns, r.median_ci_high_ns)
            for r in rs), one_way=any(r.one_way for r in rs)))
    return series


@dataclass(frozen=True)
class RootEffect:
    """How much the root changes one (alternative, op, size, p): the extremes of the rows'
    medians across roots and a Kruskal–Wallis test of the per-launch medians grouped by root
    (launches are the replicates: Hunold & Carpen-Amarie 2016 §4.2). ``p_value`` None: fewer
    than two launches at some root, so the test cannot be made."""

    alternative: str
    op: str
    size: int
    nprocs: int
    roots: tuple[int, ...]
    fastest_root: int
    slowest_root: int
    min_ns: float
    max_ns: float
    p_value: float | None
    test: str = "Kruskal–Wallis over per-launch medians, grouped by root"

    @property
    def ratio(self) -> float:
        return self.max_ns / self.min_ns if self.min_ns > 0 else float("nan")

    def to_dict(self) -> dict:
        return {"alternative": self.alternative, "op": self.op, "size": self.size, "nprocs": self.nprocs,
                "roots": list(self.roots), "fastest_root": self.fastest_root, "slowest_root": self.slowest_root,
                "min_ns": self.min_ns, "max_ns": self.max_ns, "max_over_min": self.ratio,
                "p_value": self.p_value, "test": self.test}


def root_effects(rows: Sequence) -> list[RootEffect]:
    """One record per (alternative, op, size, p) measured at two or more roots."""
    groups: dict[tuple, list] = {}
    for r in rows:
        if r.root is not None:
            groups.setdefault((r.alternative, r.op, r.size, r.nprocs), []).append(r)
    effects = []
    for (alt, op, size, ranks), rs in groups.items():
        rs = [r for r in rs if np.isfinite(r.median_ns)]
        if len(rs) < 2:
            continue
        rs.sort(key=lambda r: r.root)
        samples = [np.array([s.median_ns for s in r.per_launch if s.n > 0 and np.isfinite(s.median_ns)])
                   for r in rs]
        p_value = None
        if all(len(x) >= 2 for x in samples):
            pooled = np.concatenate(samples)
            # identical values everywhere: no difference to find (scipy refuses the ties-only case)
            p_value = 1.0 if np.all(pooled == pooled[0]) else float(_st.kruskal(*samples).pvalue)
        lo = min(rs, key=lambda r: r.median_ns)
        hi = max(rs, key=lambda r: r.median_ns)
        effects.append(RootEffect(alt, op, size, ranks, tuple(r.root for r in rs), lo.root, hi.root,
                                  lo.median_ns, hi.median_ns, p_value))
    return effects
