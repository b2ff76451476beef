# SPDX-License-Identifier: BSD-3-Clause
"""The warnings of ``analyze`` about what it found: too few launches, failed normality, invalid
repetitions, long warm-ups, tests that a time budget ended before ``--nrep``, tests that
``--nrep auto`` stopped short of its precision, the launches' own
warnings (machine load, sync residuals, the binary's conditions, … from
``mpimeter.analysis.launch_warnings``) and ranks that differ. Repeats of one code are merged
by ``mpimeter.analysis.warning_groups``.
Each says what to do next (CONTRIBUTING.md, principle 8).
"""

from __future__ import annotations

import math

import numpy as np

from mpimeter.analysis.groups import slice_label
from mpimeter.analysis.launch_warnings import asked_nrep as _asked
from mpimeter.analysis.launch_warnings import budget_ended_tests, launch_warnings
from mpimeter.analysis.loading import Campaign, LaunchInfo
from mpimeter.analysis.results import LaunchSummary, RankTest, Row
from mpimeter.io.errors import AnalysisWarning
from mpimeter.io.meta import LaunchMeta, TestRecord
from mpimeter.io.overhead import MIN_TIMER_STEPS
from mpimeter.stats.hypothesis import holm
from mpimeter.warning_codes import warning


def _fmt_ns(ns: float) -> str:
    return f"{ns / 1000:.3g} µs"


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
    return warning("budget-ended-tests", tests=len(short), budget=f" ({budget:g} s per test)" if budget is not None else "",
                   launch=where, op=t.op, size=t.size, nrep=t.nrep, asked=asked(li, t), where=where)


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
    return warning("empty-complete-tests", tests=len(empty), launch=where, op=t.op, size=t.size, by=by,
                   procsync=li.meta.proc_sync.method or li.meta.config.procsync or "unknown", where=where)


def start_methods(meta: LaunchMeta, t: TestRecord) -> str:
    """The start methods a launch test recorded repetitions with, in order: ``window`` or
    ``window → roundtime → barrier`` (``tests[].procsync_switches``: the window's own policy on a
    busy machine), ``none`` for a round trip the window's policy ran back to back from its first
    repetition (a method that recorded none is not named)."""
    methods = [meta.proc_sync.method or meta.config.procsync or "unknown"]
    for s in t.procsync_switches:
        if s.from_rep == 0:
            methods[-1] = s.to
        else:
            methods.append(s.to)
    return " → ".join(methods)


def _mixed_methods_warning(campaign: Campaign) -> AnalysisWarning | None:
    """One warning when the launches of one (alternative, op, size) measured it with different start
    methods: a campaign never mixes them silently (the per-launch medians it pools did)."""
    used: dict[tuple[str, str, int], dict[str, list[str]]] = {}
    configured: dict[tuple[str, str, int], set[str]] = {}  # the method each launch began with
    for li in campaign.launches:
        for t in li.meta.tests:
            if t.status in ("complete", "incomplete"):
                methods = used.setdefault((li.alternative, t.op, t.size), {})
                methods.setdefault(start_methods(li.meta, t), []).append(f"{li.index:03d}")
                configured.setdefault((li.alternative, t.op, t.size), set()).add(
                    li.meta.proc_sync.method or li.meta.config.procsync or "unknown")
    mixed = {k: v for k, v in used.items() if len(v) > 1}
    if not mixed:
        return None
    (alternative, op, size), methods = max(mixed.items(), key=lambda kv: len(kv[1]))
    which = "; ".join(f"{m} in launch(es) {', '.join(ls[:5])}{', …' if len(ls) > 5 else ''}"
                      for m, ls in sorted(methods.items(), key=lambda kv: -len(kv[1])))
    # where the launches began with one method, the window's own policy switched (FORMAT.md,
    # tests[].procsync_switches); else they were run (or, imported, measured) with different
    # process syncs, which neither a quieter machine nor the switches explain
    switched = len(configured[(alternative, op, size)]) == 1
    why = ("the window's own policy switched some launch tests to roundtime or barrier on a busy machine" if switched
           else "the launches ran with different process syncs: other --procsync settings, or imported from runs "
                "that used them")
    advice = ("compare launches measured by one method (meta.json tests[].procsync_switches), or run on a quieter "
              "machine, or choose the method yourself (--procsync roundtime or barrier)" if switched
              else "analyze the launches of each process sync as a campaign of their own (import or run them apart)")
    return warning("mixed-start-methods", rows=len(mixed), alternative=alternative, op=op, size=size, which=which,
                   why=why, advice=advice, where=alternative)


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
    return warning("precision-not-reached", tests=len(short), asked=asked, launch=where, op=t.op, size=t.size,
                   reached=reached, nrep=t.nrep, where=where)


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


def _row_names(listed: list[Row], rows: list[Row]) -> str:
    """The first five of ``listed`` as alternative/op/size, each with its p, root and work pieces
    where ``rows`` hold one (op, size) at several (--nprocs, --root, --workpieces): they would
    read alike ("a/bcast/8, a/bcast/8")."""
    sliced = len({(r.alternative, r.op, r.size) for r in rows}) < len(rows)
    return ", ".join(f"{r.alternative}/{r.op}/{r.size}{slice_label((r.nprocs, r.root, r.workpieces), sliced)}"
                     for r in listed[:5])


def fewer_launches(campaign: Campaign, rows: list[Row]) -> list[AnalysisWarning]:
    """``fewer-launches``: rows measured in fewer launches than the best-covered row of their
    (alternative, op) — a size only some launches measured (`--sizes auto` run per
    launch, or launches that failed part-way). Not under `--launches auto`, whose rows stop at
    different counts by design (each records why)."""
    record = getattr(campaign, "campaign_record", None)
    if record is not None and record.adaptive_launches is not None:
        return []
    most: dict[tuple[str, str], int] = {}
    for r in rows:
        most[(r.alternative, r.op)] = max(most.get((r.alternative, r.op), 0), r.launches)
    short = [r for r in rows if r.launches < most[(r.alternative, r.op)]]
    if not short:
        return []
    sliced = len({(r.alternative, r.op, r.size) for r in rows}) < len(rows)
    names = ", ".join(f"{r.alternative}/{r.op}/{r.size}{slice_label((r.nprocs, r.root, r.workpieces), sliced)} "
                      f"({r.launches} of {most[(r.alternative, r.op)]})" for r in short[:5])
    return [warning("fewer-launches", rows=len(short), names=names, more=" …" if len(short) > 5 else "",
                    where=names)]


# Hoefler & Belli 2015 §4.2.1: a timed interval is trustworthy when it is well above the timer's
# resolution and its overhead a small part of it
TIMER_RESOLUTIONS = MIN_TIMER_STEPS  # the timed interval should span at least this many timer steps
TIMER_OVERHEAD_SHARE = 0.05  # the timer's overhead at most this share of the timed interval


def timer_adequacy(campaign: Campaign, rows: list[Row]) -> AnalysisWarning | None:
    """``timer-inadequate``: rows whose timed interval — the median per call, twice that for a
    ping-pong's round trip, times ``--batch`` — is below :data:`TIMER_RESOLUTIONS` × the coarsest
    recorded timer resolution of their alternative's launches, or whose timer overhead exceeds
    :data:`TIMER_OVERHEAD_SHARE` of it (meta.json ``timer``)."""
    trips = campaign.round_trip_ops()
    worst: dict[str, tuple[float, float]] = {}  # alternative -> (resolution, overhead), coarsest recorded
    for li in campaign.launches:
        t = li.meta.timer
        res, over = worst.get(li.alternative, (0.0, 0.0))
        batch = li.meta.config.entries.get("batch")
        per = float(batch) if isinstance(batch, (int, float)) and batch >= 1 else 1.0
        # a batch's interval spans `batch` calls: its timer costs spread over them
        worst[li.alternative] = (max(res, (t.resolution_ns or 0.0) / per), max(over, (t.overhead_ns or 0.0) / per))
    bad = []
    for r in rows:
        res, over = worst.get(r.alternative, (0.0, 0.0))
        timed = r.median_ns * (2 if r.op in trips else 1)
        if timed > 0 and (timed < TIMER_RESOLUTIONS * res or over > TIMER_OVERHEAD_SHARE * timed):
            bad.append((r, timed, res, over))
    if not bad:
        return None
    r, timed, res, over = min(bad, key=lambda x: x[1])
    names = _row_names([x for x, *_ in bad], rows)
    # the TSC is the finest, cheapest timer the binary has: advice for launches that used another
    alternatives = {x.alternative for x, *_ in bad}
    other_timer = any(li.meta.timer.name != "tsc" for li in campaign.launches if li.alternative in alternatives)
    return warning("timer-inadequate", rows=len(bad), names=names, more=" …" if len(bad) > 5 else "",
                   shortest=_fmt_ns(timed), resolution=_fmt_ns(res), overhead=_fmt_ns(over),
                   steps=TIMER_RESOLUTIONS, share=f"{100 * TIMER_OVERHEAD_SHARE:g}",
                   finer=" or use a finer timer (--timer tsc)" if other_timer else "", where=names)


def row_warnings(campaign: Campaign, rows: list[Row], summaries: list[LaunchSummary],
                 rank_tests: list[RankTest]) -> list[AnalysisWarning]:
    w: list[AnalysisWarning] = []
    for alt in campaign.alternatives:
        n = max((r.launches for r in rows if r.alternative == alt), default=0)
        if n == 1:
            w.append(warning("one-launch", alternative=alt, where=alt))
        elif 1 < n < 6:
            w.append(warning("too-few-launches", alternative=alt, launches=n, where=alt))
    w += fewer_launches(campaign, rows)
    if (timer := timer_adequacy(campaign, rows)) is not None:
        w.append(timer)
    bad_norm = [r for r in rows if r.normal is False]
    if bad_norm:
        names = _row_names(bad_norm, rows)
        w.append(warning("normality-failed", rows=len(bad_norm), names=names, more=" …" if len(bad_norm) > 5 else "",
                         where=names))
    many_invalid = [s for s in summaries if s.n_total and s.n_invalid / s.n_total > 0.05]
    if many_invalid:
        worst = max(many_invalid, key=lambda s: s.n_invalid / s.n_total)
        launch = f"{worst.alternative}/{worst.launch:03d}"
        w.append(warning("invalid-repetitions", tests=len(many_invalid), launch=launch, op=worst.op, size=worst.size,
                         invalid=worst.n_invalid, total=worst.n_total, where=launch))
    long_warm, tested = long_warmups(summaries)
    if long_warm:
        worst = max(long_warm, key=lambda s: s.warmup_length / s.n_total)
        launch = f"{worst.alternative}/{worst.launch:03d}"
        w.append(warning("long-warmup", tests=len(long_warm), tested=tested, family=f"{WARMUP_FAMILY_ALPHA:g}",
                         launch=launch, op=worst.op, size=worst.size, warmup=worst.warmup_length,
                         total=worst.n_total, where=launch))
    if (budget := _budget_warning(campaign)) is not None:
        w.append(budget)
    if (precision := _precision_warning(campaign)) is not None:
        w.append(precision)
    if (empty := _empty_warning(campaign)) is not None:
        w.append(empty)
    if (mixed := _mixed_methods_warning(campaign)) is not None:
        w.append(mixed)
    min_median: dict[tuple[str, int], float] = {}
    for s in summaries:
        if s.n and s.clock != "local":
            k = (s.alternative, s.launch)
            min_median[k] = min(min_median.get(k, math.inf), s.median_ns)
    for li in campaign.launches:
        name = f"{li.alternative}/{li.index:03d}"
        w += launch_warnings(li.meta, li.folder, name, min_median.get((li.alternative, li.index)))
    several_p = len({t.nprocs for t in rank_tests}) > 1
    for t in rank_tests:
        if t.differ and t.slowest_medians_ns and t.slowest_medians_ns[0] >= 1.1 * t.median_of_rank_medians_ns:
            slow = ", ".join(f"{r} ({_fmt_ns(m)})" for r, m in zip(t.slowest_ranks, t.slowest_medians_ns))
            at = f" at p = {t.nprocs}" if several_p else ""
            w.append(warning("ranks-differ", alternative=t.alternative + at, op=t.op, size=t.size, p=t.p_adjusted,
                             kendall_w=t.kendall_w,
                             slowest=slow, median=_fmt_ns(t.median_of_rank_medians_ns),
                             where=f"{t.alternative}/{t.op}/{t.size}" + (f"/p={t.nprocs}" if several_p else "")))
    return w


def dedupe(warnings: list[AnalysisWarning]) -> tuple[AnalysisWarning, ...]:
    """The warnings without repeats, each where it first appeared."""
    return tuple(dict.fromkeys(warnings))
