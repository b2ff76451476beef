"""The warnings of ``analyze`` about what it found: too few launches, failed normality, invalid
repetitions, long warm-ups, tests that a time budget ended before ``--nrep``, tests that
``--nrep auto`` stopped short of its precision, the launches' own
warnings (machine load, sync residuals, the binary's conditions, … from
``mpimeter.analysis.launch_warnings``) and ranks that differ. Repeats of one code are merged
by ``mpimeter.analysis.warning_groups``.
Each says what to do next (STYLE.md, principle 8).
"""

from __future__ import annotations

import math

import numpy as np

from mpimeter.analysis.launch_warnings import launch_warnings
from mpimeter.analysis.loading import Campaign, LaunchInfo
from mpimeter.analysis.results import LaunchSummary, RankTest, Row
from mpimeter.io.errors import AnalysisWarning
from mpimeter.io.meta import LaunchMeta, TestRecord
from mpimeter.stats.hypothesis import holm


def _fmt_ns(ns: float) -> str:
    return f"{ns / 1000:.3g} µs"


def budget_ended_tests(meta: LaunchMeta) -> list[TestRecord]:
    """The finished tests of a launch that the roundtime/harmonize time budget ended before
    ``--nrep``: ``ended_by == "budget"`` (docs/FORMAT.md); in a meta.json written before that key
    existed, a finished test with fewer repetitions than asked (nothing else ended a test early)."""
    short = []
    for t in meta.tests:
        if t.status != "complete":
            continue
        if t.ended_by_recorded:
            if t.ended_by == "budget":
                short.append(t)
            continue
        asked = _asked(meta, t)
        if asked is not None and t.nrep is not None and t.nrep < asked:
            short.append(t)
    return short


def _asked(meta: LaunchMeta, t: TestRecord) -> int | None:
    return t.nrep_asked if t.nrep_asked is not None else meta.config.nrep


def _budget_warning(campaign: Campaign) -> AnalysisWarning | None:
    """One warning naming the launch tests that a time budget ended before --nrep."""
    short = [(li, t) for li in campaign.launches for t in budget_ended_tests(li.meta)]
    if not short:
        return None

    def asked(li: LaunchInfo, t: TestRecord) -> int:
        return _asked(li.meta, t) or 0

    li, t = min(short, key=lambda x: (x[1].nrep or 0) / max(asked(*x), 1))
    budget = li.meta.config.roundtime_budget_s
    where = f"{li.alternative}/{li.index:03d}"
    return AnalysisWarning(
        "budget-ended-tests",
        f"{len(short)} launch test(s) were ended by the roundtime/harmonize time budget"
        f"{f' ({budget:g} s per test)' if budget is not None else ''} before --nrep repetitions "
        f"(worst: {where} {t.op} {t.size}: {t.nrep} of {asked(li, t)}); their statistics rest on fewer "
        "repetitions than asked", "raise --roundtime-budget-s or lower --nrep", where)


def precision_not_reached(meta: LaunchMeta) -> list[TestRecord]:
    """The finished tests that --nrep auto's rule stopped at --nrep-max or at its time budget,
    before the precision asked (meta.json tests[].adaptive.stopped_by, schema 4)."""
    return [t for t in meta.tests if t.status == "complete" and t.adaptive is not None
            and t.adaptive.stopped_by in ("max", "budget")]


def _precision_warning(campaign: Campaign) -> AnalysisWarning | None:
    """One warning naming the launch tests --nrep auto stopped short of its precision."""
    short = [(li, t) for li in campaign.launches for t in precision_not_reached(li.meta)]
    if not short:
        return None
    li, t = max(short, key=lambda x: math.inf if x[1].adaptive.precision is None else x[1].adaptive.precision)
    rule = li.meta.config.nrep_auto
    asked = f" {rule.precision:g}" if rule is not None else ""
    reached = "none computable" if t.adaptive.precision is None else f"{t.adaptive.precision:.3g}"
    where = f"{li.alternative}/{li.index:03d}"
    return AnalysisWarning(
        "precision-not-reached",
        f"{len(short)} launch test(s) reached --nrep-max or the --nrep-budget-s time budget before "
        f"--nrep auto's precision{asked} (worst: {where} {t.op} {t.size}: {reached} after {t.nrep} "
        "repetitions); their launch medians are less precise than asked",
        "raise --nrep-max or --nrep-budget-s, or ask for a coarser --precision", where)


WARMUP_FAMILY_ALPHA = 0.05  # the chance that an i.i.d. campaign, however many tests, warns of a warm-up


def long_warmups(summaries: list[LaunchSummary]) -> tuple[list[LaunchSummary], int]:
    """The launch tests with a long warm-up that holds over the campaign's family, and how many
    were tested. Each series is categorized on its own (p ≤ 0.01, stats.warmup); a campaign of
    20 rows and 10 launches tests 200 series, and one test per series warned in 27–42 % of i.i.d.
    campaigns. The warning claims a warm-up only where Holm's adjusted p-value over every tested
    series (Holm 1979) is at most WARMUP_FAMILY_ALPHA."""
    tested = [s for s in summaries if s.n_total and math.isfinite(s.warmup_p_value)]
    if not tested:
        return [], 0
    adjusted = holm(np.array([s.warmup_p_value for s in tested]))
    return [s for s, p in zip(tested, adjusted)
            if p <= WARMUP_FAMILY_ALPHA and s.warmup_length > s.n_total / 10], len(tested)


def row_warnings(campaign: Campaign, rows: list[Row], summaries: list[LaunchSummary],
                 rank_tests: list[RankTest]) -> list[AnalysisWarning]:
    w: list[AnalysisWarning] = []
    for alt in campaign.alternatives:
        n = max((r.launches for r in rows if r.alternative == alt), default=0)
        if n == 1:
            w.append(AnalysisWarning(
                "one-launch", f"{alt}: one launch only — the between-launch variance is unknown, and the launch is a "
                "factor (Hunold & Carpen-Amarie 2016 §4.2): these numbers may not repeat in the next mpirun",
                "run the campaign with 10 or more launches (mpimeter run --launches 10)", alt))
        elif 1 < n < 6:
            w.append(AnalysisWarning(
                "too-few-launches", f"{alt}: {n} launches — too few for a 95 % interval of the median (needs ≥ 6) "
                "and for a comparison with any power", "run 10 or more launches", alt))
    bad_norm = [r for r in rows if r.normal is False]
    if bad_norm:
        names = ", ".join(f"{r.alternative}/{r.op}/{r.size}" for r in bad_norm[:5])
        w.append(AnalysisWarning(
            "normality-failed", f"the per-launch means of {len(bad_norm)} row(s) fail Shapiro–Wilk (p ≤ 0.05): "
            f"{names}{' …' if len(bad_norm) > 5 else ''}; their t intervals of the mean are not to be trusted",
            "use the median and its interval for these rows", names))
    many_invalid = [s for s in summaries if s.n_total and s.n_invalid / s.n_total > 0.05]
    if many_invalid:
        worst = max(many_invalid, key=lambda s: s.n_invalid / s.n_total)
        w.append(AnalysisWarning(
            "invalid-repetitions", f"{len(many_invalid)} launch test(s) have more than 5 % invalid repetitions "
            f"(worst: {worst.alternative}/{worst.launch:03d} {worst.op} {worst.size}: {worst.n_invalid} of {worst.n_total})",
            "use a larger window (--window-us) or a process sync that redoes late rounds (roundtime, harmonize)",
            f"{worst.alternative}/{worst.launch:03d}"))
    long_warm, tested = long_warmups(summaries)
    if long_warm:
        worst = max(long_warm, key=lambda s: s.warmup_length / s.n_total)
        w.append(AnalysisWarning(
            "long-warmup", f"{len(long_warm)} launch test(s) have a significant warm-up (rank and level tests, Roth "
            f"2021 §4.5 categories; Holm over the {tested} launch tests tested, family-wise "
            f"{WARMUP_FAMILY_ALPHA:g}) longer than a tenth of their repetitions (worst: {worst.alternative}/{worst.launch:03d} "
            f"{worst.op} {worst.size}: {worst.warmup_length} of {worst.n_total})",
            "raise --warmup, or analyze with --drop-warmup",
            f"{worst.alternative}/{worst.launch:03d}"))
    if (budget := _budget_warning(campaign)) is not None:
        w.append(budget)
    if (precision := _precision_warning(campaign)) is not None:
        w.append(precision)
    min_median: dict[tuple[str, int], float] = {}
    for s in summaries:
        if s.n and s.clock != "local":
            k = (s.alternative, s.launch)
            min_median[k] = min(min_median.get(k, math.inf), s.median_ns)
    for li in campaign.launches:
        name = f"{li.alternative}/{li.index:03d}"
        w += launch_warnings(li.meta, li.folder, name, min_median.get((li.alternative, li.index)))
    for t in rank_tests:
        if t.differ and t.slowest_medians_ns and t.slowest_medians_ns[0] >= 1.1 * t.median_of_rank_medians_ns:
            slow = ", ".join(f"{r} ({_fmt_ns(m)})" for r, m in zip(t.slowest_ranks, t.slowest_medians_ns))
            w.append(AnalysisWarning(
                "ranks-differ", f"{t.alternative} {t.op} {t.size}: some ranks take longer launch after launch "
                f"(Friedman's test on per-launch rank medians, Holm-adjusted p = {t.p_adjusted:.2g}); slowest ranks "
                f"{slow}, median rank {_fmt_ns(t.median_of_rank_medians_ns)}",
                "check pinning and the rank → host map in meta.json", f"{t.alternative}/{t.op}/{t.size}"))
    return w


def dedupe(warnings: list[AnalysisWarning]) -> tuple[AnalysisWarning, ...]:
    """The warnings without repeats, each where it first appeared."""
    return tuple(dict.fromkeys(warnings))
