# SPDX-License-Identifier: BSD-3-Clause
"""The process-count dimension: which p (and root) a test ran with, the scaling view
— time against p per (alternative, op, size) with the across-launch intervals — and the root's
effect per (op, size, p).

p comes per test from meta.json ``tests[].nprocs`` (a sub-communicator inside one launch,
SKaMPI/NBCBench) and else from the launch's ``nprocs`` (campaigns with ``--np LIST``: one p per
launch). The root comes from ``tests[].root`` when the launch recorded one, and the work pieces of
master–worker tests (SKaMPI's Waitsome varied over the number of workpieces) from
``tests[].workpieces``: both are further dimensions of the key where present, none otherwise.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from mpimeter.analysis.loading import LaunchInfo
from mpimeter.stats import effectsize as _effect
from mpimeter.stats import hypothesis as _hyp


def test_ranks(li: LaunchInfo | None, test: int) -> tuple[int, int | None]:
    """(p, root) of test ``test`` of a launch: its own communicator size and root when meta.json
    records them, else the launch's nprocs and no root; (0, None) for a launch without meta."""
    if li is None:
        return 0, None
    tests = li.meta.tests
    rec = tests[test] if 0 <= test < len(tests) else None
    ranks = rec.nprocs if rec is not None and rec.nprocs is not None else li.meta.nprocs
    return ranks, rec.root if rec is not None else None


def test_workpieces(li: LaunchInfo | None, test: int) -> int | None:
    """The work pieces test ``test`` of a launch handed out (``tests[].workpieces``, mw-workpieces
    under ``--workpieces N|LIST``); None for other operations and launches that did not record it."""
    if li is None:
        return None
    tests = li.meta.tests
    return tests[test].workpieces if 0 <= test < len(tests) else None


def launch_counts(li: LaunchInfo) -> frozenset[int]:
    """The process counts a launch's tests ran at: one for a launch of a ``--np LIST`` campaign,
    several for sub-communicators (``--nprocs``); the launch's own for one without tests."""
    counts = frozenset(test_ranks(li, t)[0] for t in range(len(li.meta.tests)))
    return counts or frozenset({li.meta.nprocs})


def varies(rows: Sequence, attr: str = "nprocs") -> bool:
    """Do the rows hold more than one value of ``attr`` (p or root)? A campaign of one p shows
    no p column (its tables stay as they were)."""
    return len({getattr(r, attr) for r in rows}) > 1


def key(row) -> tuple:
    """A row's key within one alternative: (op, size, p, root, workpieces)."""
    return (row.op, row.size, row.nprocs, row.root, row.workpieces)


def first_workpieces(rows) -> dict[str, int | None]:
    """Per op, the fewest work pieces its rows handed out (None: an op without them): a model in
    m and p is of one number of work pieces, as it is of one root."""
    out: dict[str, int | None] = {}
    for r in rows:
        if r.workpieces is not None:
            out[r.op] = min(out.get(r.op) or r.workpieces, r.workpieces)
        else:
            out.setdefault(r.op, None)
    return out



IDEAL = ("ideal: the time at the smallest p, unchanged at every p (Hoefler & Belli 2015 §5.1, ideal scaling, for "
         "an operation whose per-process size stays m: more processes cost nothing); a reference, not a bound — "
         "a collective's parallel overhead grows with p (Ω(log p) rounds for a reduction, §5.1), so the distance "
         "above it is that overhead")
LOWER_BOUND = ("lower bound: the bound model at each p (analysis.bounds: latency floor + least data volume at p / "
               "copy bandwidth), which no run can beat on this machine")


@dataclass(frozen=True, kw_only=True)
class ScalingPoint:
    nprocs: int
    launches: int
    median_ns: float
    low_ns: float | None
    high_ns: float | None
    # the bound model at this p (analysis.bounds, Hoefler & Belli rule 11); None: no bound (see the series)
    bound_ns: float | None = None
    cache_bound_ns: float | None = None

    @property
    def bound_fraction(self) -> float | None:
        """bound / median: 1 at the bound."""
        return self.bound_ns / self.median_ns if self.bound_ns is not None and self.median_ns > 0 else None


@dataclass(frozen=True, kw_only=True)
class ScalingSeries:
    """Time against p of one (alternative, op, size[, root][, workpieces]) (Hoefler & Belli 2015 §5.1)."""

    alternative: str
    op: str
    size: int
    root: int | None
    points: tuple[ScalingPoint, ...]
    one_way: bool = False
    no_bound: str | None = None  # why some p has no lower bound (None: every p has one)
    workpieces: int | None = None  # mw-workpieces: the pieces per call of this series

    @property
    def ideal_ns(self) -> float:
        """Hoefler & Belli's ideal line (:data:`IDEAL`): the median at the smallest p."""
        return self.points[0].median_ns

    def beyond(self) -> tuple[int, ...]:
        """The p whose interval lies wholly below the ideal line: faster with more processes
        (H&B §5.1: super-linear scaling points at poor resource use at the smallest p)."""
        return tuple(p.nprocs for p in self.points[1:] if p.high_ns is not None and p.high_ns < self.ideal_ns)

    def beats(self) -> tuple[int, ...]:
        """The p whose median is below its lower bound (data in cache, or the premise failed)."""
        return tuple(p.nprocs for p in self.points if p.bound_ns is not None and p.median_ns < p.bound_ns)

    def to_dict(self) -> dict:
        return {"alternative": self.alternative, "op": self.op, "size": self.size, "root": self.root,
                "workpieces": self.workpieces,
                "one_way": self.one_way, "ideal_ns": self.ideal_ns, "no_bound": self.no_bound,
                "below_ideal": list(self.beyond()), "below_bound": list(self.beats()),
                "points": [{"nprocs": p.nprocs, "launches": p.launches, "median_ns": p.median_ns,
                            "median_ci_low_ns": p.low_ns, "median_ci_high_ns": p.high_ns,
                            "bound_ns": p.bound_ns, "cache_bound_ns": p.cache_bound_ns,
                            "bound_fraction": p.bound_fraction}
                           for p in self.points]}


def scaling_series(rows: Sequence, bounds=None) -> list[ScalingSeries]:
    """One series per (alternative, op, size, root, workpieces) measured at two or more p, p ascending; the
    points are the rows' medians of per-launch medians with their intervals (None: too few
    launches for one) and, with ``bounds`` (analysis.bounds.BoundsResult), each p's lower bound."""
    groups: dict[tuple, list] = {}
    for r in rows:
        groups.setdefault((r.alternative, r.op, r.size, r.root, r.workpieces), []).append(r)
    series = []
    for (alt, op, size, root, pieces), rs in groups.items():
        if len({r.nprocs for r in rs}) < 2:
            continue
        rs = sorted(rs, key=lambda r: r.nprocs)
        found = [None if bounds is None else bounds.row(alt, op, size, r.nprocs, r.root) for r in rs]
        points = tuple(ScalingPoint(nprocs=r.nprocs, launches=r.launches, median_ns=r.median_ns,
                                    low_ns=r.median_ci_low_ns, high_ns=r.median_ci_high_ns,
                                    bound_ns=None if b is None else b.bound_ns,
                                    cache_bound_ns=None if b is None else b.cache_bound_ns)
                       for r, b in zip(rs, found))
        series.append(ScalingSeries(alternative=alt, op=op, size=size, root=root, points=points,
                                    one_way=any(r.one_way for r in rs),
                                    no_bound=_no_bound(bounds, alt, op, [r.nprocs for r, b in zip(rs, found)
                                                                         if b is None]),
                                    workpieces=pieces))
    return series


def _no_bound(bounds, alternative: str, op: str, without: Sequence[int]) -> str | None:
    """Why the p in ``without`` have no lower bound: the bound model's own reason when it gave one."""
    if not without:
        return None
    where = "p = " + ", ".join(map(str, without))
    if bounds is None:
        return f"{where}: no bound model computed"
    why = [m.split(": ", 1)[1] for m in bounds.missing
           if m.startswith(f"{alternative}: ") and (op in m or "latency floor" in m or "copy probe" in m)]
    return f"{where}: " + ("; ".join(why) if why else "no bound for this row (median not positive)")


@dataclass(frozen=True, kw_only=True)
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
    epsilon_squared: float | None = None  # the test's effect size, 0 … 1 (stats.effectsize); None with p_value
    test: str = "Kruskal–Wallis over per-launch medians, grouped by root; effect size ε² = H / (n − 1)"
    workpieces: int | None = None  # mw-workpieces: the pieces of these rows, a further key

    @property
    def ratio(self) -> float:
        return self.max_ns / self.min_ns if self.min_ns > 0 else float("nan")

    def to_dict(self) -> dict:
        return {"alternative": self.alternative, "op": self.op, "size": self.size, "nprocs": self.nprocs,
                "roots": list(self.roots), "fastest_root": self.fastest_root, "slowest_root": self.slowest_root,
                "min_ns": self.min_ns, "max_ns": self.max_ns, "max_over_min": self.ratio,
                "p_value": self.p_value, "epsilon_squared": self.epsilon_squared, "test": self.test,
                "workpieces": self.workpieces}


def root_effects(rows: Sequence) -> list[RootEffect]:
    """One record per (alternative, op, size, p) measured at two or more roots."""
    groups: dict[tuple, list] = {}
    for r in rows:
        if r.root is not None:
            groups.setdefault((r.alternative, r.op, r.size, r.nprocs, r.workpieces), []).append(r)
    effects = []
    for (alt, op, size, ranks, pieces), rs in groups.items():
        rs = [r for r in rs if np.isfinite(r.median_ns)]
        if len(rs) < 2:
            continue
        rs.sort(key=lambda r: r.root)
        samples = [np.array([s.median_ns for s in r.per_launch if s.n > 0 and np.isfinite(s.median_ns)])
                   for r in rs]
        p_value = effect = None
        if all(len(x) >= 2 for x in samples):
            pooled = np.concatenate(samples)
            # identical values everywhere: no difference to find (scipy refuses the ties-only case)
            test = _hyp.kruskal(samples)
            p_value, effect = test.p_value, _effect.epsilon_squared(test.statistic, pooled.size)
        lo = min(rs, key=lambda r: r.median_ns)
        hi = max(rs, key=lambda r: r.median_ns)
        effects.append(RootEffect(alternative=alt, op=op, size=size, nprocs=ranks, roots=tuple(r.root for r in rs),
                                  fastest_root=lo.root, slowest_root=hi.root, min_ns=lo.median_ns,
                                  max_ns=hi.median_ns, p_value=p_value, epsilon_squared=effect,
                                  workpieces=pieces))
    return effects
