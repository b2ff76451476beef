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

from mpimeter.analysis.launch_warnings import launch_warnings
from mpimeter.analysis.loading import Campaign, LaunchInfo
from mpimeter.analysis.results import LaunchSummary, RankTest, Row
from mpimeter.io.errors import AnalysisWarning
from mpimeter.io.meta import LaunchMeta, TestRecord


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


def empty_complete_tests(meta: LaunchMeta) -> list[TestRecord]:
    """The tests meta.json calls `complete` that recorded no repetition (``nrep`` 0): a start
    method that got none within its time budget (roundtime/harmonize ``ended_by: budget``).
    They are not results: the analysis treats them as failed and says so (until the binary
    marks them itself)."""
    return [t for t in meta.tests if t.status == "complete" and t.nrep == 0]


def _empty_warning(campaign: Campaign) -> AnalysisWarning | None:
    """One warning naming the `complete` launch tests without a repetition."""
    empty = [(li, t) for li in campaign.launches for t in empty_complete_tests(li.meta)]
    if not empty:
        return None
    li, t = empty[0]
    where = f"{li.alternative}/{li.index:03d}"
    by = f", ended by {t.ended_by}" if t.ended_by else ""
    return AnalysisWarning(
        "empty-complete-tests",
        f"{len(empty)} launch test(s) are marked complete but recorded no repetition (first: {where} {t.op} "
        f"{t.size}{by}, process sync {li.meta.proc_sync.method or li.meta.config.procsync or 'unknown'}); they are "
        "treated as failed: their start method got no repetition in the time it had",
        "use a start method that holds on a busy machine (--procsync roundtime, or barrier), raise "
        "--roundtime-budget-s, or run on a quieter machine", where)


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
    # warmup_length is 0 unless the warm-up is significant (stats.warmup: rank test, p ≤ 0.01, ≥ 10 % slower)
    long_warm = [s for s in summaries if s.n_total and s.warmup_length > s.n_total / 10]
    if long_warm:
        worst = max(long_warm, key=lambda s: s.warmup_length / s.n_total)
        w.append(AnalysisWarning(
            "long-warmup", f"{len(long_warm)} launch test(s) have a significant warm-up (rank test, Roth 2021 §4.5 "
            f"categories) longer than a tenth of their repetitions (worst: {worst.alternative}/{worst.launch:03d} "
            f"{worst.op} {worst.size}: {worst.warmup_length} of {worst.n_total})",
            "raise --warmup, or analyze with --drop-warmup",
            f"{worst.alternative}/{worst.launch:03d}"))
    if (budget := _budget_warning(campaign)) is not None:
        w.append(budget)
    if (precision := _precision_warning(campaign)) is not None:
        w.append(precision)
    if (empty := _empty_warning(campaign)) is not None:
        w.append(empty)
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
