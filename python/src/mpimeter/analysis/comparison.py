# SPDX-License-Identifier: BSD-3-Clause
"""``compare``: the alternatives of one or more analysis results, (op, size) by (op, size):
Wilcoxon rank-sum on per-launch medians (Hunold & Carpen-Amarie 2016 §5.2; exact p whenever
computable), Holm correction, stars where significant at α, the ratio b/a with an interval and
the plain ratio of medians; Kruskal–Wallis first when there are more than two.

Alternatives run in the same rounds of one interleaved campaign are paired by round
(analysis.designs): the signed-rank test of the per-round ratios b/a and the paired
Hodges–Lehmann ratio, where the rounds are enough for its smallest p to reach α / rows; rows
over matched states whose rounds mix states keep van Elteren's test; separate campaigns stay
unpaired. Each row says its design and why.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

import numpy as np

from mpimeter.analysis.diagnostics import dedupe
from mpimeter.analysis.groups import (check_launches, groups_of, keys_text, low_power_warning, slice_label,
                                      slice_pieces, slices_text)
from mpimeter.analysis import designs as _designs
from mpimeter.analysis import matching as _matching
from mpimeter.analysis import separate_campaigns as _separate
from mpimeter.analysis.gating import launch_states
from mpimeter.analysis.choices import ALTERNATIVES, RATIO_CIS, Alternative, RatioCI
from mpimeter.analysis.loading import AnalysisError
from mpimeter.analysis.results import AnalysisResult
from mpimeter.analysis.settings import alternative_settings, settings_warning
from mpimeter.io.errors import AnalysisWarning
from mpimeter.stats import compare as _cmp
from mpimeter.stats import effectsize as _effect
from mpimeter.stats import hypothesis as _hyp
from mpimeter.stats import paired as _paired
from mpimeter.stats import stratified as _strat
from mpimeter.warning_codes import warning

COMPARED_SETTINGS = ("np", "procsync", "clocksync", "raw")


def _at_holm_level(r: "ComparisonRow", p_adj: float, level: float, samples, *, alternative: str, alpha: float,
                   ratio_ci: str, seed: int, strata=None, pairs=None) -> "ComparisonRow":
    """The row with its Holm decision and the ratio interval at the level Holm tested it at
    (ComparisonRow): one procedure for both."""
    significant = bool(p_adj <= alpha)
    if not math.isfinite(level):
        return replace(r, p_adjusted=p_adj, stars=_hyp.stars(p_adj, alpha=alpha), significant=significant)
    conf = min(max(1 - level if alternative == "two-sided" else 1 - 2 * level, 1e-9), 1 - 1e-12)
    # separate campaigns with serially dependent launches: the interval of the widened test
    conf = _separate.widened_confidence(conf, r)
    if pairs is not None:  # paired by round: the paired ratio, at the same level
        ci = _paired.paired_ratio(*pairs, confidence=conf)
    elif strata is not None:  # matched states: the stratified ratio, at the same level
        ci = _strat.stratified_ratio(strata, confidence=conf)
    else:
        ci = _cmp.compare_two(samples[r.a][(r.op, r.size)], samples[r.b][(r.op, r.size)], alternative=alternative,
                              confidence=conf, ratio_ci=ratio_ci, seed=seed).ratio_ci
    lo, hi = ci.low, ci.high
    above, below = lo is not None and lo > 1, hi is not None and hi < 1
    excludes = {"two-sided": above or below, "less": above, "greater": below}[alternative]
    return replace(r, ratio=ci.estimate, ratio_ci_low=lo, ratio_ci_high=hi, p_adjusted=p_adj,
                   stars=_hyp.stars(p_adj, alpha=alpha), significant=significant, interval_level=level,
                   interval_agrees=significant == excludes)


@dataclass(frozen=True, kw_only=True)
class ComparisonRow:
    """One (op, size) compared between groups ``a`` and ``b`` (Hunold & Carpen-Amarie §5.2).

    ``ratio`` estimates b / a (> 1: b is slower) with the estimator of its interval, so the point
    always lies in the interval: ``ratio_ci_method`` ``hodges-lehmann`` gives the Hodges–Lehmann
    ratio (median of all pairwise ratios b_j / a_i, the estimator that goes with the rank-sum test;
    not median_b / median_a), ``bootstrap`` the ratio of medians median_b / median_a;
    ``ratio_of_medians`` is always median_b / median_a. ``p_value`` of the Wilcoxon rank-sum test
    on per-launch medians (on repetitions with ``per_repetition``), computed as ``p_method`` says
    (``exact``, ``exact-permutation`` or ``normal-approximation``); ``p_adjusted`` after the
    correction across all rows; ``significant``: p_adjusted ≤ α; ``stars`` from ``p_adjusted``,
    only on significant rows. The interval is at the level Holm tested the row at
    (``interval_level``: confidence 1 − level two-sided, 1 − 2·level for a one-sided test), so
    with Hodges–Lehmann — the inversion of the same rank-sum test — it excludes 1 exactly where
    the row is significant; ``interval_agrees`` False where it does not (Holm stopped at an
    earlier row, ties, or the bootstrap, which is not the test's inversion)."""

    op: str
    size: int
    a: str
    b: str
    launches_a: int
    launches_b: int
    median_a_ns: float
    median_b_ns: float
    ratio_of_medians: float
    ratio: float
    ratio_ci_low: float | None
    ratio_ci_high: float | None
    ratio_ci_method: str
    statistic: float
    p_value: float
    p_method: str
    p_adjusted: float
    stars: str
    significant: bool
    one_way: bool = False  # medians are one-way latencies (half the timed round trip: ping-pongs)
    interval_level: float = math.nan
    interval_agrees: bool = True
    # matched states (analysis.matching): the test is van Elteren's over them, the ratio stratified
    stratified: bool = False
    per_state: tuple = ()  # analysis.matching.StateMedians per state
    pooled_p_value: float | None = None  # the rank-sum test pooled over the states, for the mix
    nprocs: int = 0  # the process count both sides ran the row at
    root: int | None = None  # rooted operations: the root both sides used, when recorded
    workpieces: int | None = None  # mw-workpieces: the pieces per call both sides handed out
    # analysis.designs: "paired by round", "stratified by state" or "unpaired", and why
    design: str = _designs.UNPAIRED
    pairs: int = 0  # rounds both ran, when paired by round
    design_reason: str = ""
    # separate campaigns (analysis.separate_campaigns): the factor on the rank-sum test's variance
    # from the launches' serial dependence; 1: the plain test
    drift_inflation: float = 1.0
    p_unwidened: float | None = None  # the test's p before the widening (None: not widened)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def where(self) -> tuple:
        """(p, root), with the work pieces third for mw-workpieces rows (analysis.groups slices)."""
        return (self.nprocs, self.root) if self.workpieces is None else (self.nprocs, self.root, self.workpieces)


@dataclass(frozen=True, kw_only=True)
class OmnibusRow:
    """Kruskal–Wallis over all groups for one (op, size), when more than two are compared."""

    op: str
    size: int
    groups: tuple[str, ...]
    statistic: float
    p_value: float
    p_adjusted: float
    stars: str
    significant: bool
    epsilon_squared: float = math.nan  # effect size of H, 0 … 1 (stats.effectsize)
    nprocs: int = 0
    root: int | None = None
    workpieces: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, kw_only=True)
class ComparisonResult:
    groups: tuple[str, ...]
    alternative: str
    test: str  # "wilcoxon-rank-sum (per-launch medians)" or "… (per-repetition)"
    correction: str  # "holm"
    confidence: float
    alpha: float
    rows: tuple[ComparisonRow, ...]
    omnibus: tuple[OmnibusRow, ...]
    warnings: tuple[AnalysisWarning, ...]
    metric: str = "time"  # groups.METRICS: what the medians are
    # per pair of separate campaigns (and p): their launches' dependence (analysis.separate_campaigns)
    separate_campaigns: tuple = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "groups": list(self.groups),
            "metric": self.metric,
            "alternative": self.alternative,
            "test": self.test,
            "correction": self.correction,
            "confidence": self.confidence,
            "alpha": self.alpha,
            "rows": [r.to_dict() for r in self.rows],
            "omnibus": [r.to_dict() for r in self.omnibus],
            "warnings": [w.to_dict() for w in self.warnings],
            "separate_campaigns": [d.to_dict() for d in self.separate_campaigns],
        }


def compare(
    results: AnalysisResult | Sequence[AnalysisResult],
    *,
    alternative: Alternative = "two-sided",
    per_repetition: bool = False,
    confidence: float = 0.95,
    ratio_ci: RatioCI = "hodges-lehmann",
    alpha: float = 0.05,
    seed: int = 0,
    metric: str = "time",
) -> ComparisonResult:
    """Compares the alternatives found in ``results`` (all alternatives of all results, in
    order). Two groups: one row per (op, size) in both. More: Kruskal–Wallis per (op, size)
    (``omnibus``), then every pair. Holm correction over all pairwise rows. ``alternative`` is
    the hypothesis about a relative to b (``less``: a is faster). Raises
    :class:`AnalysisError` when a group has fewer than 3 launches (unless ``per_repetition``)
    or when no (op, size) is common. ``metric`` (groups.METRICS): run times, or the overhead of
    nonblocking collectives."""
    if isinstance(results, AnalysisResult):
        results = [results]
    if alternative not in _hyp.ALTERNATIVES:
        raise AnalysisError(f"alternative must be one of {', '.join(_hyp.ALTERNATIVES)}, got {alternative!r}")
    groups = groups_of(results, metric)
    if len(groups) < 2:
        raise AnalysisError(f"compare needs at least two alternatives, found {len(groups)}: "
                            f"{', '.join(g.name for g in groups) or 'none'}")
    warnings: list[AnalysisWarning] = []
    check_launches(groups, per_repetition)
    # Comparing two libraries is the point; comparing different np or sync methods is usually a mistake.
    warnings += settings_warning(
        [(g.name, alternative_settings(g.result.campaign, g.alternative)) for g in groups],
        COMPARED_SETTINGS)
    if per_repetition:
        warnings.append(warning("per-repetition", doing="comparing",
                                consequence=", so p-values are too small when launches differ (Hunold & Carpen-Amarie "
                                            "2016 §4.2)", per="alternative and compare per-launch medians"))
    # rows are compared at the same (p, root) on both sides, one slice at a time; groups
    # of one slice each are compared as they are (different np: a warning, as before)
    slices = {g.name: g.slices() for g in groups}
    single = all(len(ws) == 1 for ws in slices.values())
    if single:
        slices = {name: [None] for name in slices}
    shown = not single
    keys_all = [{(op, size, w) for w in slices[g.name] for op, size in _at(g, w).samples(per_repetition)}
                for g in groups]
    common_all = set.intersection(*keys_all)
    if not set().union(*(ka & kb for i, ka in enumerate(keys_all) for kb in keys_all[i + 1:])):
        raise AnalysisError("the campaigns have no (op, size) in common: "
                            + "; ".join(f"{g.name}: {keys_text({(o, z) for o, z, _ in k})}"
                                        + (f" ({slices_text(slices[g.name])})" if shown else "")
                                        for g, k in zip(groups, keys_all)))
    rows: list[ComparisonRow] = []
    matchings = {}
    row_strata: dict[tuple, Any] = {}  # matched states of a row
    row_rounds: dict[tuple, _designs.RowDesign] = {}  # analysis.designs.compare_rounds of a row
    samples: dict[tuple[str, tuple], dict] = {}  # (group, (p, root)) -> its samples
    at_groups: dict[tuple, tuple] = {}  # (a, b, slice) -> the two groups at that slice
    for i, ga_all in enumerate(groups):
        for gb_all in groups[i + 1:]:
            for where in (w for w in slices[ga_all.name] if w in slices[gb_all.name]):
                ga, gb = _at(ga_all, where), _at(gb_all, where)
                at_groups[(ga.name, gb.name, where)] = (ga, gb)
                # states are found per p (analysis.strata): matched slice by slice
                matched, said = _matching.match(ga, gb, per_repetition=per_repetition)
                warnings += said
                if matched is not None:
                    matchings.setdefault((ga.name, gb.name, None if where is None else where[0]), (ga, gb, matched))
                sa = samples.setdefault((ga.name, where), ga.samples(per_repetition))
                sb = samples.setdefault((gb.name, where), gb.samples(per_repetition))
                for op, size in sorted(set(sa) & set(sb)):
                    pc = _cmp.compare_two(sa[(op, size)], sb[(op, size)], alternative=alternative,
                                          confidence=confidence, ratio_ci=ratio_ci, seed=seed)
                    row = ComparisonRow(
                        op=op, size=size, a=ga.name, b=gb.name, launches_a=ga.launches(op, size),
                        launches_b=gb.launches(op, size), median_a_ns=pc.median_a, median_b_ns=pc.median_b,
                        ratio_of_medians=pc.ratio, ratio=pc.ratio_ci.estimate, ratio_ci_low=pc.ratio_ci.low,
                        ratio_ci_high=pc.ratio_ci.high, ratio_ci_method=pc.ratio_ci.method, statistic=pc.statistic,
                        p_value=pc.p_value, p_method=pc.p_method, p_adjusted=math.nan, stars="", significant=False,
                        one_way=ga.one_way(op, size) and gb.one_way(op, size), **_where(ga_all, gb_all, where))
                    if matched is not None:
                        strata = matched.strata(ga, gb, op, size)
                        row_strata[(ga.name, gb.name, op, size, where)] = strata
                        test = _strat.van_elteren(strata, alternative=alternative)
                        ci = _strat.stratified_ratio(strata, confidence=confidence)
                        row = replace(row, ratio=ci.estimate, ratio_ci_low=ci.low, ratio_ci_high=ci.high,
                                      ratio_ci_method=ci.method, statistic=test.statistic, p_value=test.p_value,
                                      p_method=test.method, stratified=True,
                                      per_state=matched.medians(ga, gb, op, size), pooled_p_value=pc.p_value)
                    if not per_repetition and ga.metric == "time":
                        row_rounds[(ga.name, gb.name, op, size, where)] = _designs.compare_rounds(
                            ga, gb, op, size, None if matched is None else launch_states(matched))
                    rows.append(row)
    rows, row_pairs = _designs_of(rows, row_rounds, single, alternative=alternative,
                                  alpha=alpha, per_repetition=per_repetition)
    rows, drifts, apart = _separate_rows(rows, row_rounds, at_groups, matchings, single, alternative=alternative,
                                         alpha=alpha)
    p_all = np.array([r.p_value for r in rows])
    adj, levels = _hyp.holm(p_all), _hyp.holm_levels(p_all, alpha)
    def slice_of(r):
        return None if single else r.where

    rows = [_at_holm_level(r, float(p), float(level),
                           {r.a: samples[(r.a, slice_of(r))], r.b: samples[(r.b, slice_of(r))]},
                           alternative=alternative, alpha=alpha, ratio_ci=ratio_ci, seed=seed,
                           strata=row_strata.get((r.a, r.b, r.op, r.size, slice_of(r))),
                           pairs=row_pairs.get((r.a, r.b, r.op, r.size, slice_of(r))))
            for r, p, level in zip(rows, adj, levels)]
    pooled_adj = _hyp.holm(np.array([r.pooled_p_value if r.stratified else r.p_value for r in rows]))
    for (na, nb, at_p), (ga, gb, matched) in matchings.items():
        only = [f"{r.op}/{r.size}{slice_label(r.where, shown)}" for r, p in zip(rows, pooled_adj)
                if r.a == na and r.b == nb and at_p in (None, r.nprocs) and r.stratified and p <= alpha
                and not r.significant]
        warnings += _matching.mix_warning(ga, gb, matched, only, at_p=at_p if shown else None)
    omnibus = []
    if len(groups) > 2:
        for op, size, where in sorted(common_all, key=lambda k: (k[0], k[1]) + ((k[2][0], -1 if k[2][1] is None else k[2][1])
                                                                                if k[2] else ())):
            res = _hyp.kruskal([samples[(g.name, where)][(op, size)] for g in groups])
            values = [samples[(g.name, where)][(op, size)] for g in groups]
            omnibus.append(OmnibusRow(op=op, size=size, groups=tuple(g.name for g in groups),
                                      epsilon_squared=_effect.epsilon_squared(res.statistic, sum(len(v) for v in values)),
                                      statistic=res.statistic, p_value=res.p_value, p_adjusted=math.nan, stars="",
                                      significant=False, **(_where(groups[0], groups[0], where) if where else {})))
        oadj = _hyp.holm(np.array([o.p_value for o in omnibus]))
        omnibus = [replace(o, p_adjusted=float(p), stars=_hyp.stars(float(p), alpha=alpha), significant=bool(p <= alpha))
                   for o, p in zip(omnibus, oadj)]
    if not per_repetition:
        # paired rows are paired only where their smallest p reaches α / rows (analysis.designs)
        warnings += low_power_warning([(r.launches_a, r.launches_b, f"{r.op}/{r.size}{slice_label(r.where, shown)}")
                                       for r in rows if r.design != _designs.BY_ROUND], alternative,
                                      alpha, "alternative")
    # within matched states too: the states a campaign recorded do not say the machine stood still between them
    warned = [r for r in rows if r.significant and _row_key(r, single) in apart]
    if warned:
        warnings.append(warning("separate-campaigns", rows=len(warned),
                                pairs=", ".join(f"{a} vs {b}" for a, b in sorted({(r.a, r.b) for r in warned}))))
    nan_rows = [r for r in rows if not math.isfinite(r.p_value)]
    if nan_rows:
        warnings.append(warning("untested-rows", count=len(nan_rows),
                                where=", ".join(f"{r.op}/{r.size}" for r in nan_rows[:5])))
    for res in results:
        warnings += _matching.without_too_few(res, [s for ga, gb, m in matchings.values()
                                                             for g, s in ((ga, m.a), (gb, m.b)) if g.result is res])
    test = "wilcoxon-rank-sum on " + ("repetitions pooled over launches" if per_repetition else "per-launch medians")
    if matchings:
        test += f"; rows over matched states: {_matching.STRATIFIED_TEST}, stratified Hodges–Lehmann ratio"
    if row_pairs:
        test += ("; rows paired by round (the alternatives ran in the same rounds of one campaign): wilcoxon "
                 "signed-rank on per-round ratios b/a, paired Hodges–Lehmann ratio")
    if any(d.inflation > 1 for d in drifts):
        test += ("; rows of separate campaigns: the test's variance × f, the launches' serial dependence "
                 "(docs/ALGORITHMS.md, \"Two campaigns of one build\")")
    return ComparisonResult(groups=tuple(g.name for g in groups), alternative=alternative, test=test,
                            correction="holm", confidence=confidence, alpha=alpha, rows=tuple(rows),
                            omnibus=tuple(omnibus), warnings=dedupe(warnings), metric=metric,
                            separate_campaigns=tuple(drifts))


def _row_key(r: ComparisonRow, single: bool) -> tuple:
    """A row's key in the per-row tables of :func:`compare`."""
    return r.a, r.b, r.op, r.size, None if single else r.where


def _separate_rows(rows: list[ComparisonRow], row_rounds: dict[tuple, _designs.RowDesign],
                   at_groups: dict[tuple, tuple], matchings: dict, single: bool, *, alternative: str,
                   alpha: float) -> tuple[list[ComparisonRow], list, set[tuple]]:
    """The rows of two separate campaigns (nothing pairs their sides: analysis.designs.RowDesign's
    ``separate``; and they ran apart: analysis.separate_campaigns.one_after_the_other), unpaired
    or over matched states, with their test's variance widened by the launches' serial
    dependence, one estimate per pair of campaigns and p over its rows; the other rows as they
    are. Also the keys (:func:`_row_key`) of the rows widened."""
    def key(r):
        return r.a, r.b, None if single else r.where

    known: dict[tuple, bool] = {}

    def separate(r):
        design = row_rounds.get(_row_key(r, single))
        if design is None or not design.separate:
            return False
        if key(r) not in known:
            known[key(r)] = _separate.one_after_the_other(*at_groups[key(r)])
        return known[key(r)]

    level = alpha / max(len(rows), 1) / (2 if alternative == "two-sided" else 1)
    drifts: dict[tuple, Any] = {}  # (a, b, p, by state): one estimate over every root of that p
    for r in rows:
        pair = (r.a, r.b, r.nprocs, r.stratified)
        if separate(r) and pair not in drifts:
            matched = matchings.get((r.a, r.b, None if single else r.nprocs)) if r.stratified else None
            drifts[pair] = _separate.campaign_drift(
                [(*at_groups[key(x)], x.op, x.size) for x in rows
                 if separate(x) and (x.a, x.b, x.nprocs, x.stratified) == pair],
                a=r.a, b=r.b, nprocs=r.nprocs, level=level,
                states=None if matched is None else launch_states(matched[2]))
    out, apart = [], set()
    for r in rows:
        if separate(r):
            apart.add(_row_key(r, single))
            r = _separate.widened(r, drifts[(r.a, r.b, r.nprocs, r.stratified)].inflation, alternative)
            if not r.stratified:
                r = replace(r, design_reason=_designs.SEPARATE)
        out.append(r)
    return out, list(drifts.values()), apart


def _designs_of(rows: list[ComparisonRow], row_rounds: dict[tuple, _designs.RowDesign], single: bool, *,
                alternative: str, alpha: float, per_repetition: bool) -> tuple[list[ComparisonRow], dict[tuple, Any]]:
    """Each row with its design (analysis.designs) and, for the rows paired by round, the (a's,
    b's) per-round medians by row key. A row that can be paired is, when its rounds' smallest
    signed-rank p reaches α / rows (the family's first Holm level: a rule of the counts, so the
    family's error rate holds whichever way it goes); otherwise it keeps the test it has."""
    level = alpha / max(len(rows), 1)
    out, pairs = [], {}
    for r in rows:
        key = _row_key(r, single)
        design, values, why, _ = row_rounds.get(key, _designs.RowDesign(
            _designs.UNPAIRED, None, "repetitions pooled over launches" if per_repetition else "not a run time"))
        if design == _designs.BY_ROUND:
            n, p_min = len(values[0]), _designs.min_p(len(values[0]), alternative)
            if p_min <= level:
                test, ci = _designs.paired_test(*values, alternative), _paired.paired_ratio(*values)
                pairs[key] = values
                out.append(replace(r, ratio=ci.estimate, ratio_ci_low=ci.low, ratio_ci_high=ci.high,
                                   ratio_ci_method=ci.method, statistic=test.statistic, p_value=test.p_value,
                                   p_method=test.method, stratified=False, per_state=(), pooled_p_value=None,
                                   design=_designs.BY_ROUND, pairs=n,
                                   design_reason=f"the alternatives ran in the same {n} rounds of one campaign; the "
                                                 f"signed-rank test's smallest p {p_min:.2g} reaches α/rows "
                                                 f"{level:.2g}"))
                continue
            why = (f"{n} rounds in common: the signed-rank test's smallest p {p_min:.2g} cannot reach α/rows "
                   f"{level:.2g}")
        if r.stratified:
            out.append(replace(r, design=_designs.BY_STATE, design_reason="machine states matched on both sides"
                               + (f" ({why})" if why else "")))
        else:
            out.append(replace(r, design=_designs.UNPAIRED, design_reason=why))
    return out, pairs


def _at(g, where):
    """The group at one (p, root, workpieces); None: the group as it is (it has one)."""
    return g if where is None else g.at(where)


def _where(ga, gb, where) -> dict:
    """A row's nprocs and root: its slice's, or (groups of one slice each) the common p and root
    of both sides (0 and None where they differ: a comparison across p, warned about)."""
    if where is not None:
        return {"nprocs": where[0], "root": where[1], "workpieces": slice_pieces(where)}
    sa, sb = ga.slices()[0], gb.slices()[0]
    return {"nprocs": sa[0] if sa[0] == sb[0] else 0, "root": sa[1] if sa[1] == sb[1] else None,
            "workpieces": slice_pieces(sa) if slice_pieces(sa) == slice_pieces(sb) else None}


RATIO_ESTIMATORS = {
    "hodges-lehmann": "Hodges–Lehmann estimate of b/a (median of all pairwise ratios, not median b / median a) "
                      "with its distribution-free interval",
    "bootstrap": "ratio of medians b/a with a percentile bootstrap interval",
    "paired-hodges-lehmann": "paired Hodges–Lehmann estimate of b/a (median of the Walsh averages of the per-pair "
                             "log ratios: per round, or per launch) with its distribution-free interval",
}


def ratio_estimator_text(method: str) -> str:
    """What the ``ratio`` column and its interval are, for a footer."""
    return RATIO_ESTIMATORS.get(method.split(" (")[0], method) + (" (subsampled)" if "subsampled" in method else "")
