# SPDX-License-Identifier: BSD-3-Clause
"""Why was a repetition slow? The counters a launch read per repetition (docs/FORMAT.md,
"counters.csv"; Roth 2021 §4.2–4.3, §4.6) against its run time and its category (§4.5).

What, per (alternative, op, size, p[, root]) and counter (the rows of one p only; a
repetition's p and root are its test's):
- the value of a repetition is the sum over ranks of the counter's delta (what the repetition
  added on all ranks; a ``--raw reduced`` launch wrote that sum);
- Pearson's r and Spearman's ρ of value and run time within launches, each series prewhitened
  by its own AR(1) fit (``stats.correlation``: repetitions are not independent), over the valid
  repetitions of all launches — outliers included: they are what is to be
  explained — with Holm's correction over every counter × (op, size) of the alternative, one
  family per coefficient (``stats.hypothesis.holm``);
- the counter's median in each category (first, warm-up, outlier, good);
- a counter ``explains`` a row when Spearman's ρ is significant after Holm (p ≤ 0.05) and
  |ρ| ≥ :data:`EXPLAIN_RHO` — a moderate effect, so that thousands of repetitions do not turn a
  negligible association into a finding; each such row is a ``counter-correlation`` warning.

The cost of looking: what reading took per repetition (meta.json ``counters.read_ns_by_test``,
per alternative), and — when the campaign holds the same library and number of ranks with and
without counters — the run times compared as ``compare`` compares them (``stats.compare``:
Wilcoxon rank-sum on per-launch medians, Hodges–Lehmann ratio with its interval, Holm over the
rows); a significant slowdown is a ``counter-perturbation`` warning.

Launch by launch: each launch's counters.csv is read (``io.counters``), reduced to one value per
repetition and counter, and joined with that launch's repetitions; nothing of the raw table is
needed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from mpimeter.analysis.comparison import ComparisonRow
from mpimeter.analysis.scaling import launch_counts
from mpimeter.io import counters as _io
from mpimeter.io.errors import AnalysisWarning
from mpimeter.stats import compare as _cmp
from mpimeter.stats import correlation as _corr
from mpimeter.stats import hypothesis as _hyp
from mpimeter.units import format_interval
from mpimeter.warning_codes import warning

EXPLAIN_RHO = 0.3
ALPHA = 0.05
CATEGORIES = ("first", "warmup", "outlier", "good")


@dataclass(frozen=True, kw_only=True)
class CounterRow:
    """One counter of one (alternative, op, size): its correlation with run time and its medians
    per category. p-values NaN (and ``constant``) when the counter did not vary within launches."""

    alternative: str
    op: str
    size: int
    metric: str
    source: str
    klass: str
    repetitions: int
    launches: int
    pearson_r: float
    pearson_p: float
    pearson_p_adjusted: float
    spearman_rho: float
    spearman_p: float
    spearman_p_adjusted: float
    explains: bool
    constant: bool
    median_by_category: dict[str, float | None] = field(default_factory=dict)
    n_by_category: dict[str, int] = field(default_factory=dict)
    nprocs: int = 0  # the row's process count (0: not known)
    root: int | None = None  # the row's root (rooted operations)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        return {k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in d.items()}


@dataclass(frozen=True, kw_only=True)
class ReadCost:
    """What reading every counter before and after one repetition took, per test (max over
    ranks, median of 21 pairs), over the launches of an alternative."""

    alternative: str
    launches: int
    counters: int
    median_ns: float
    min_ns: float
    max_ns: float


@dataclass(frozen=True, kw_only=True)
class CounterAnalysis:
    """``points``: one row per valid repetition and counter — alternative, launch, op, size, rep,
    metric, value, run_time_ns, category — for the plots of the report."""

    rows: tuple[CounterRow, ...]
    costs: tuple[ReadCost, ...]
    # the same (op, size) without (a) and with (b) counters, as `compare` gives it (ratio b / a)
    perturbation: tuple[ComparisonRow, ...]
    points: pd.DataFrame = field(repr=False)
    warnings: tuple[AnalysisWarning, ...] = ()
    launches: int = 0  # launches that read counters
    left_out: tuple[tuple[str, str | None, str], ...] = ()  # (alternative, name, why), first launch of each

    def rows_of(self, alternative: str, op: str, size: int, nprocs: int | None = None,
                root: int | None = None) -> tuple[CounterRow, ...]:
        """The counters of one row; ``nprocs`` None: of every p and root (a campaign of one)."""
        return tuple(r for r in self.rows if (r.alternative, r.op, r.size) == (alternative, op, size)
                     and (nprocs is None or (r.nprocs, r.root) == (nprocs, root)))

    def to_dict(self) -> dict[str, Any]:
        return {"explain_rho": EXPLAIN_RHO, "alpha": ALPHA, "launches": self.launches,
                "rows": [r.to_dict() for r in self.rows], "costs": [asdict(c) for c in self.costs],
                "perturbation": [p.to_dict() for p in self.perturbation],
                "left_out": [{"alternative": a, "name": n, "why": w} for a, n, w in self.left_out]}


def _launch_points(lc: _io.LaunchCounters, reps: pd.DataFrame) -> pd.DataFrame:
    """One launch: each repetition's counter values (summed over ranks) next to its run time."""
    t = lc.table
    if t.num_rows == 0 or reps.empty:
        return pd.DataFrame()
    df = pd.DataFrame({c: t[c].to_numpy() for c in ("test", "rep", "metric", "value")})
    summed = df.groupby(["test", "rep", "metric"], sort=False)["value"].sum(min_count=1).reset_index()
    mine = reps[reps["valid"].astype(bool) & np.isfinite(reps["run_time_ns"].to_numpy(dtype=float))]
    joined = summed.merge(mine[["test", "rep", "op", "size", "nprocs", "root", "run_time_ns", "category"]],
                          on=["test", "rep"])
    names = np.array(lc.meta.names, dtype=object)
    joined["metric"] = names[joined["metric"].to_numpy()]
    return joined


def analyze_counters(campaign, repetitions: pd.DataFrame, rows: Sequence) -> CounterAnalysis | None:
    """The counters of every launch of ``campaign`` that read some (None when none did), against
    ``repetitions`` (the analysis's table: alternative, launch, test, op, size, rep, run_time_ns,
    valid, category) and ``rows`` (its per-(alternative, op, size) results, for the cost)."""
    parts: list[pd.DataFrame] = []
    costs: dict[str, list[tuple[float, int]]] = {}
    ncounters: dict[str, int] = {}
    info: dict[tuple[str, str], _io.Metric] = {}
    left_out: dict[str, tuple] = {}
    warnings: list[AnalysisWarning] = []
    launches = 0
    by_launch = None  # grouped once a launch has read counters: most campaigns read none
    for li in campaign.launches:
        # read with the launch (analysis.loading); a launch record made in memory: read now
        lc = li.counters if li.counters_read else _io.read_counters(li.folder, li.meta, cache=False)
        if lc is None:
            continue
        launches += 1
        warnings += lc.warnings
        for m in lc.meta.metrics:
            info.setdefault((li.alternative, m.name), m)
        ncounters[li.alternative] = max(ncounters.get(li.alternative, 0), len(lc.meta.metrics))
        left_out.setdefault(li.alternative, lc.meta.left_out)
        costs.setdefault(li.alternative, []).extend((v, li.index) for v in lc.meta.read_ns_by_test.values())
        if by_launch is None:
            by_launch = repetitions.groupby(["alternative", "launch"], sort=False, observed=True).indices
        idx = by_launch.get((li.alternative, li.index))
        if idx is None:
            continue
        reps = repetitions.iloc[idx]
        pts = _launch_points(lc, pd.DataFrame({c: reps[c].to_numpy() for c in
                                               ("test", "rep", "op", "size", "nprocs", "root", "run_time_ns",
                                                "valid", "category")}))
        if not pts.empty:
            pts.insert(0, "launch", li.index)
            pts.insert(0, "alternative", li.alternative)
            parts.append(pts)
    if launches == 0:
        return None
    points = (pd.concat(parts, ignore_index=True) if parts else
              pd.DataFrame(columns=["alternative", "launch", "test", "rep", "metric", "value", "op", "size",
                                    "nprocs", "root", "run_time_ns", "category"]))
    out_rows = _correlate(points, info)
    warnings += _explain_warnings(out_rows)
    cost = tuple(ReadCost(alternative=alt, launches=len({i for _, i in items}), counters=ncounters.get(alt, 0),
                          median_ns=float(np.median([v for v, _ in items])), min_ns=float(min(v for v, _ in items)),
                          max_ns=float(max(v for v, _ in items)))
                 for alt, items in costs.items() if items)
    perturbation = _perturbation(campaign, rows)
    warnings += _perturbation_warnings(perturbation)
    lo = tuple((alt, name, why) for alt, items in left_out.items() for name, why in items)
    return CounterAnalysis(rows=tuple(out_rows), costs=cost, perturbation=perturbation,
                           points=points[["alternative", "launch", "op", "size", "nprocs", "root", "rep", "metric",
                                          "value", "run_time_ns", "category"]] if len(points) else points,
                           warnings=tuple(warnings), launches=launches, left_out=lo)


def _correlate(points: pd.DataFrame, info: dict[tuple[str, str], _io.Metric]) -> list[CounterRow]:
    rows: list[CounterRow] = []
    if points.empty:
        return rows
    for (alt, op, size, ranks, root, metric), g in points.groupby(
            ["alternative", "op", "size", "nprocs", "root", "metric"], sort=True, observed=True):
        g = g.sort_values(["launch", "rep"], kind="stable")  # in repetition order: the series are prewhitened
        c = _corr.within_groups(g["value"].to_numpy(dtype=float), g["run_time_ns"].to_numpy(dtype=float),
                                g["launch"].to_numpy())
        cats = g["category"].astype(str).to_numpy()
        values = g["value"].to_numpy(dtype=float)
        med = {k: (float(np.nanmedian(values[cats == k])) if np.any((cats == k) & np.isfinite(values)) else None)
               for k in CATEGORIES}
        nby = {k: int(np.sum(cats == k)) for k in CATEGORIES}
        m = info.get((alt, metric))
        rows.append(CounterRow(alternative=str(alt), op=str(op), size=int(size), metric=str(metric),
                               source=m.source if m else "", klass=m.klass if m else "", repetitions=c.n,
                               launches=c.groups, pearson_r=c.pearson_r, pearson_p=c.pearson_p,
                               pearson_p_adjusted=math.nan, spearman_rho=c.spearman_rho, spearman_p=c.spearman_p,
                               spearman_p_adjusted=math.nan, explains=False, constant=c.constant,
                               median_by_category=med, n_by_category=nby, nprocs=int(ranks),
                               root=None if root < 0 else int(root)))
    out = []
    for alt in dict.fromkeys(r.alternative for r in rows):
        mine = [r for r in rows if r.alternative == alt]
        padj = _holm([r.pearson_p for r in mine])
        sadj = _holm([r.spearman_p for r in mine])
        for r, pa_, sa_ in zip(mine, padj, sadj):
            explains = bool(math.isfinite(sa_) and sa_ <= ALPHA and abs(r.spearman_rho) >= EXPLAIN_RHO)
            out.append(replace(r, pearson_p_adjusted=pa_, spearman_p_adjusted=sa_, explains=explains))
    return out


def _holm(p: list[float]) -> list[float]:
    """Holm over the finite p-values (the untestable rows stay NaN and are not in the family)."""
    arr = np.array(p, dtype=float)
    out = np.full(arr.size, math.nan)
    ok = np.isfinite(arr)
    if ok.any():
        out[ok] = _hyp.holm(arr[ok])
    return out.tolist()


def _fmt(v: float | None) -> str:
    return "–" if v is None or not math.isfinite(v) else f"{v:.4g}"


def _explain_warnings(rows: list[CounterRow]) -> list[AnalysisWarning]:
    out = []
    several = len({(r.nprocs, r.root) for r in rows}) > 1
    for r in rows:
        if not r.explains:
            continue
        at = (f" p={r.nprocs}" + ("" if r.root is None else f" root={r.root}")) if several else ""
        direction = "rises" if r.spearman_rho > 0 else "falls"
        cats = ", ".join(f"{k} {_fmt(v)}" for k, v in r.median_by_category.items() if v is not None)
        out.append(warning("counter-correlation", op=r.op, size=r.size, alternative=r.alternative, direction=direction,
                           metric=r.metric, rho=r.spearman_rho, p=r.spearman_p_adjusted, repetitions=r.repetitions,
                           categories=cats, where=f"{r.alternative}/{r.op}/{r.size}{at}/{r.metric}",
                           badness=abs(r.spearman_rho)))
    return out


def _library(campaign, alternative: str) -> tuple[str | None, frozenset[int], bool]:
    """(library, the process counts, reads counters) of an alternative's launches (library and
    counters: the first launch's)."""
    mine = [li for li in campaign.launches if li.alternative == alternative]
    if not mine:
        return None, frozenset(), False
    return (mine[0].meta.mpi.library, frozenset(p for li in mine for p in launch_counts(li)),
            _io.counters_meta(mine[0].meta) is not None)


def _perturbation(campaign, rows: Sequence) -> tuple[ComparisonRow, ...]:
    """Every (op, size, p, root) of an alternative without counters (a) and one with them (b) of
    the same library and process counts: per-launch medians compared as ``compare`` does, at the
    same p."""
    alts = list(campaign.alternatives)
    facts = {a: _library(campaign, a) for a in alts}
    pairs = [(a, b) for a in alts for b in alts
             if not facts[a][2] and facts[b][2] and facts[a][:2] == facts[b][:2] and facts[a][0] is not None]
    by = {(r.alternative, r.op, r.size, r.nprocs, r.root): r for r in rows}
    out = []
    for a, b in pairs:
        for (alt, op, size, ranks, root), ra in sorted(by.items(), key=lambda kv: (
                kv[0][1], kv[0][2], kv[0][3], -1 if kv[0][4] is None else kv[0][4])):
            rb = by.get((b, op, size, ranks, root)) if alt == a else None
            if rb is None:
                continue
            ma = np.array([s.median_ns for s in ra.per_launch if s.n > 0], dtype=float)
            mb = np.array([s.median_ns for s in rb.per_launch if s.n > 0], dtype=float)
            pc = _cmp.compare_two(ma, mb)
            out.append(ComparisonRow(op=op, size=size, a=a, b=b, launches_a=ma.size, launches_b=mb.size,
                                     median_a_ns=pc.median_a, median_b_ns=pc.median_b, ratio_of_medians=pc.ratio,
                                     ratio=pc.ratio_ci.estimate, ratio_ci_low=pc.ratio_ci.low,
                                     ratio_ci_high=pc.ratio_ci.high, ratio_ci_method=pc.ratio_ci.method,
                                     statistic=pc.statistic, p_value=pc.p_value, p_method=pc.p_method,
                                     p_adjusted=math.nan, stars="", significant=False, one_way=ra.one_way,
                                     nprocs=ranks, root=root))
    adj = _holm([p.p_value for p in out])
    return tuple(replace(p, p_adjusted=q, stars=_hyp.stars(q, alpha=ALPHA) if math.isfinite(q) else "",
                         significant=bool(math.isfinite(q) and q <= ALPHA)) for p, q in zip(out, adj))


def _perturbation_warnings(rows: tuple[ComparisonRow, ...]) -> list[AnalysisWarning]:
    out = []
    for p in rows:
        if not p.significant:
            continue
        out.append(warning(
            "counter-perturbation", op=p.op, size=p.size, b=p.b, a=p.a, ratio=p.ratio, p=p.p_adjusted,
            interval=format_interval(p.ratio_ci_low, p.ratio_ci_high, lambda x: f"{x:.3g}"),
            where=f"{p.b}/{p.op}/{p.size}", badness=abs(math.log(p.ratio)) if p.ratio > 0 else 0.0))
    return out
