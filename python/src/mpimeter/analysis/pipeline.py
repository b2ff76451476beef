# SPDX-License-Identifier: BSD-3-Clause
"""``analyze``: a :class:`Campaign` → per-launch per-test summaries → one :class:`Row` per
(alternative, op, size) across launches, plus rank tests and warnings.

Hunold & Carpen-Amarie 2016, Algorithm 3 (§5.1), with the launch as the unit of replication
(§4.2): run time per repetition (global or local clock), Roth 2021 §4.5 categories, an outlier
filter and a summary per launch and test (``mpimeter.stats.repetitions``); across launches the
median of medians with its interval and the mean with a t interval (``mpimeter.stats.across``);
across ranks Friedman's test on per-launch rank medians (Hoefler & Belli 2015 §4.2.1, ``_rank_tests``).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable
from dataclasses import replace

import numpy as np
import pandas as pd

from mpimeter.analysis import allocations as _allocations
from mpimeter.analysis import bounds as _bounds
from mpimeter.analysis.block_load import block_load_warnings
from mpimeter.analysis import counters as _counters
from mpimeter.analysis.choices import CLOCKS, OUTLIERS, WARMUP_RULES, Clock, Outlier, WarmupRule
from mpimeter.analysis.diagnostics import row_warnings
from mpimeter.analysis.launch_effects import launch_effect_warnings, launch_effects
from mpimeter.analysis import imported as _imported
from mpimeter.analysis import nbc as _nbc
from mpimeter.analysis import scaling as _scaling
from mpimeter.analysis import strata as _strata
from mpimeter.analysis.loading import AnalysisError, Campaign, LaunchInfo
from mpimeter.analysis.results import AnalysisResult, AnalysisSettings, LaunchSummary, RankTest, Row
from mpimeter.analysis.startspread import check_start_spread
from mpimeter.analysis.warning_groups import group_warnings
from mpimeter.io.errors import AnalysisWarning
from mpimeter.stats import across as _across
from mpimeter.stats import effectsize as _effect
from mpimeter.stats import hypothesis as _hyp
from mpimeter.stats import repetitions as _reps
from mpimeter.warning_codes import warning


def analyze(
    campaign: Campaign,
    *,
    outlier: Outlier = "tukey",
    drop_warmup: bool = False,
    warmup_rule: WarmupRule = "rank",
    clock: Clock = "auto",
    confidence: float = 0.95,
    tukey_k: float = 1.5,
    mpibench_a: float = 2.0,
    tests: Collection[tuple[str, str, int]] | None = None,
) -> AnalysisResult:
    """Per launch and test: run times, categories, outlier filter, summary; then across launches
    one :class:`Row` per (alternative, op, size). ``clock``: ``auto`` follows each launch
    (:attr:`LaunchInfo.clock`), ``global`` = re-synced global where possible else online,
    ``online`` = the gstart/gend as written, ``local`` = max local duration. ``warmup_rule``: how
    the warm-up is found (``stats.repetitions.WARMUP_RULES``: the rank test, or Roth's cummin).
    ``tests``: only these (alternative, op, size) (None: all), for a caller that shows them alone
    (a fingerprint): the result's rows, repetitions and the warnings about them are theirs, each
    as the whole analysis gives it; the rank tests, launch effects, states and the clock note are
    still the campaign's. The other tests' warm-up test, most of an analysis's time, is skipped
    (it changes none of their medians, which the launch effects take, unless ``drop_warmup``)."""
    if outlier not in OUTLIERS:
        raise AnalysisError(f"unknown outlier filter {outlier!r}; use one of {', '.join(OUTLIERS)}")
    if clock not in CLOCKS:
        raise AnalysisError(f"unknown clock {clock!r}; use auto, global, online or local")
    if warmup_rule not in WARMUP_RULES:
        raise AnalysisError(f"unknown warm-up rule {warmup_rule!r}; use one of {', '.join(WARMUP_RULES)}")
    if not 0 < confidence < 1:
        raise AnalysisError(f"confidence must be between 0 and 1, got {confidence}")
    settings = AnalysisSettings(outlier=outlier, tukey_k=tukey_k, mpibench_a=mpibench_a, drop_warmup=drop_warmup,
                                warmup_rule=warmup_rule, clock=clock, confidence=confidence)
    warnings: list[AnalysisWarning] = list(campaign.warnings)
    reduced = campaign.reductions
    reps = reduced.reps
    used_clock = {(li.alternative, li.index): _launch_clock(li, clock, warnings) for li in campaign.launches}
    bounds = _group_bounds((reps.alternative, reps.launch, reps.test))
    spread = check_start_spread(campaign, reps, bounds, used_clock)
    n = len(reps)
    run = np.full(n, np.nan)
    codes = np.full(n, _reps.INVALID, dtype=np.int8)
    kept = np.zeros(n, dtype=bool)
    rep_ranks = np.zeros(n, dtype=np.int32)  # each repetition's p and root (-1: none)
    rep_root = np.full(n, -1, dtype=np.int32)
    rep_pieces = np.full(n, -1, dtype=np.int32)  # mw-workpieces' pieces per call (-1: not that op)
    rep_shown = np.ones(n, dtype=bool)  # of one of ``tests``
    col = {"global-resync": reps.resync_ns, "global-online": reps.online_ns, "local": reps.local_ns}
    p2p = _point_to_point_ops(campaign)
    one_way = campaign.round_trip_ops()
    summaries: list[LaunchSummary] = []
    infos = {(li.alternative, li.index): li for li in campaign.launches}
    for lo, hi in bounds:
        key = (reps.alternatives[reps.alternative[lo]], int(reps.launch[lo]))
        ck = used_clock[key]
        op, size = reps.ops[reps.op[lo]], int(reps.size[lo])
        x = col[ck][lo:hi]
        if clock == "auto" and ck != "local":
            x = _barrier_repetitions_local(x, reps, lo, hi, infos.get(key))
        if op in one_way:
            x = one_way_latency(x)
        run[lo:hi] = x
        late = spread.late[lo:hi] & np.isfinite(x)  # dropped like invalid ones, counted apart
        shown = rep_shown[lo:hi] = tests is None or (key[0], op, size) in tests
        st = _reps.reduce_launch_test(  # a test not shown keeps only its summary: the cheapest rule will do
            x, reps.valid[lo:hi] & np.isfinite(x) & ~late, outlier=outlier, k=tukey_k, a=mpibench_a, drop_warmup=drop_warmup,
            warmup_rule=warmup_rule if shown or drop_warmup else "cummin",
            rate_bytes=int(size * p2p[op]) if op in p2p else None)
        test = int(reps.test[lo])
        ranks, root = _scaling.test_ranks(infos.get(key), test)
        rep_ranks[lo:hi] = ranks
        rep_root[lo:hi] = -1 if root is None else root
        pieces = _scaling.test_workpieces(infos.get(key), test)
        rep_pieces[lo:hi] = -1 if pieces is None else pieces
        codes[lo:hi] = st.codes
        kept[lo:hi] = st.kept
        sm = st.summary
        summaries.append(LaunchSummary(
            alternative=key[0], launch=key[1], test=test, op=op, size=size, clock=ck, nprocs=ranks, root=root, workpieces=pieces,
            n_total=st.n_total, n_invalid=st.n_invalid - int(late.sum()), n_warmup_dropped=st.n_warmup_dropped,
            removed=st.removed, n=sm.n, median_ns=sm.median, mean_ns=sm.mean, min_ns=sm.min, max_ns=sm.max,
            q1_ns=sm.q1, q3_ns=sm.q3, p90_ns=sm.p90, p95_ns=sm.p95, p99_ns=sm.p99, std_ns=sm.std, cov=sm.cov,
            warmup_length=st.warmup_length, n_first=st.counts["first"], n_warmup=st.counts["warmup"],
            n_outlier=st.counts["outlier"], n_good=st.counts["good"], bandwidth_Bps=st.bandwidth_Bps,
            n_start_spread=int(late.sum()), warmup_p_value=st.warmup_p))
    all_rows = _rows(summaries, confidence, p2p, one_way)
    rows = all_rows
    if tests is not None:
        rows = [r for r in all_rows if (r.alternative, r.op, r.size) in tests]
        summaries = [s for s in summaries if (s.alternative, s.op, s.size) in tests]
    repetitions = pd.DataFrame({
        "alternative": pd.Categorical.from_codes(reps.alternative, categories=reps.alternatives),
        "launch": reps.launch, "test": reps.test,
        "op": pd.Categorical.from_codes(reps.op, categories=reps.ops),
        "size": reps.size, "rep": reps.rep, "run_time_ns": run, "valid": reps.valid,
        "category": pd.Categorical.from_codes(codes, categories=list(_reps.CATEGORY_NAMES)), "kept": kept,
        "nprocs": rep_ranks, "root": rep_root, "workpieces": rep_pieces})
    if tests is not None:
        repetitions = repetitions[rep_shown].reset_index(drop=True)
    rank_tests = _rank_tests(campaign, infos)
    warnings += row_warnings(campaign, rows, summaries, rank_tests)
    warnings += block_load_warnings(campaign, repetitions)
    effects = launch_effects(campaign, all_rows)  # a launch effect is one over all rows
    states = _strata.campaign_states(campaign, all_rows, effects)
    warnings += launch_effect_warnings(effects, campaign, states)
    rows = [replace(r, per_state=_strata.state_rows(r, _strata.states_for(states, r.alternative, r.nprocs))) for r in rows]
    warnings += _strata.strata_warnings(states, rows)
    allocations = _allocations.allocation_components(campaign, rows, confidence=confidence)
    warnings += _allocations.allocation_warnings(
        allocations, {alt: sum(r.alternative == alt for r in rows) for alt in campaign.alternatives})
    if spread.warning is not None:
        warnings.append(spread.warning)
    tail = _imported.clock_note(campaign) + (f"; {spread.note}" if spread.note else "")
    note = clocks_note(used_clock.values()) + tail
    nbc_reps = _with_ranks(reduced.nbc_reps, infos)
    counters = _counters.analyze_counters(campaign, repetitions, rows)  # None: no launch read counters
    warnings += counters.warnings if counters is not None else ()
    result = AnalysisResult(campaign=campaign, settings=settings, rows=tuple(rows), repetitions=repetitions,
                            rank_tests=tuple(rank_tests), warnings=group_warnings(warnings), clock_note=note, clock_note_tail=tail,
                            launch_effects=tuple(effects), nbc_rows=_nbc.nbc_rows(campaign, confidence, nbc_reps),
                            nbc_repetitions=nbc_reps, counters=counters, states=states, allocations=allocations)
    if not _scaling.varies(rows):
        return result
    # the scaling view with each p's lower bound (Hoefler & Belli 2015 §5.1, rule 11)
    return replace(result, scaling=tuple(_scaling.scaling_series(rows, _bounds.bounds(result))))


def _with_ranks(reps: pd.DataFrame, infos: dict[tuple[str, int], LaunchInfo]) -> pd.DataFrame:
    """Per-repetition rows (alternative, launch, test, …) with each test's p and root (-1: none)
    as columns ``nprocs`` and ``root`` (every table downstream keys by them)."""
    if reps is None or reps.empty or "nprocs" in reps.columns:
        return reps
    triples = reps[["alternative", "launch", "test"]].drop_duplicates()
    found = {(a, int(i), int(t)): _scaling.test_ranks(infos.get((a, int(i))), int(t))
             for a, i, t in triples.itertuples(index=False)}
    keys = list(zip(reps["alternative"], reps["launch"].astype(int), reps["test"].astype(int)))
    return reps.assign(nprocs=[found[k][0] for k in keys],
                       root=[-1 if found[k][1] is None else found[k][1] for k in keys])


def _point_to_point_ops(campaign: Campaign) -> dict[str, float]:
    """Operations whose rate (bytes / s) is meaningful — data moved between two ranks per call —
    by the kind the binary's operations table gave them (meta.json schema 2 ``operations``), with
    the bytes moved per byte of size: 1 for a ping-pong's message; for one-sided data movement
    the multiple its bound states (``bound_volume.bytes_per_size``: 1 for rma-put, --rma-burst
    for the -bw rows, OSU's window of back-to-back operations; none for fetch-and-op,
    compare-and-swap and window creation, which move one element or none)."""
    factors: dict[str, float] = {}
    for li in campaign.launches:
        for op, info in li.meta.operations.items():
            if info.kind == "point-to-point":
                factors[op] = 1.0
            elif info.kind == "one-sided" and info.bound_bytes_per_size:
                factors[op] = float(info.bound_bytes_per_size)
    return factors


def one_way_latency(round_trip_ns: np.ndarray) -> np.ndarray:
    """The one-way latency of ping-pongs: half the round trip (SKaMPI, Reussner et al. 1998,
    §2.1), per repetition, so that every statistic, interval, test and rate (size / one-way
    latency) downstream is of the one-way latency."""
    return np.asarray(round_trip_ns, dtype=float) / 2.0


def _group_bounds(keys: tuple[np.ndarray, ...]) -> list[tuple[int, int]]:
    """(start, end) of the runs of equal keys in arrays sorted by them."""
    n = keys[0].size if keys else 0
    if n == 0:
        return []
    change = np.zeros(n, dtype=bool)
    change[0] = True
    for v in keys:
        change[1:] |= v[1:] != v[:-1]
    starts = np.nonzero(change)[0]
    return list(zip(starts.tolist(), np.append(starts[1:], n).tolist()))


def _barrier_repetitions_local(x: np.ndarray, reps, lo: int, hi: int, li: LaunchInfo | None) -> np.ndarray:
    """A test that went on with barrier (the window's own policy on a busy machine, meta.json
    ``tests[].procsync_switches``) has no planned common start from that repetition on: its
    global run time (latest end − earliest start) holds the barrier's exit skew — on an
    oversubscribed machine milliseconds around a 200 µs call. Those repetitions take the
    barrier scheme's own run time, the longest local duration over the ranks (ReproMPI's
    barrier scheme; docs/FORMAT.md, "run time of a repetition"), where raw.csv has it."""
    tests = li.meta.tests if li is not None else ()
    t = int(reps.test[lo])
    from_rep = tests[t].unplanned_from if t < len(tests) else None
    if from_rep is None:
        return x
    local = reps.local_ns[lo:hi]
    return np.where((reps.rep[lo:hi] >= from_rep) & np.isfinite(local), local, x)


def _launch_clock(li: LaunchInfo, clock: str, warnings: list[AnalysisWarning]) -> str:
    imported = _imported.launch_clock(li, clock, warnings)  # an imported launch keeps the tool's clock
    if imported is not None:
        return imported
    if clock == "auto":
        return li.clock
    if clock == "local":
        return "local"
    if clock == "global" and li.clock == "global-resync":
        return "global-resync"
    if li.has_global_times:
        return "global-online"
    warnings.append(warning("clock-unavailable", launch=f"{li.alternative}/{li.index:03d}", where=str(li.folder)))
    return "local"


def clocks_note(clocks: Iterable[str]) -> str:
    """The clocks the launches were analyzed with, in words, with how many launches each (one
    value per launch: ``global-online``, ``global-resync``, ``local``)."""
    counts: dict[str, int] = {}
    for c in clocks:
        counts[c] = counts.get(c, 0) + 1
    words = {"global-resync": "global clock recomputed after the fact from the re-syncs in sync.csv "
                              "(piecewise-linear per rank between sync points)",
             "global-online": "global clock as measured online (gstart_ns/gend_ns)",
             "local": "local clock (max over ranks of end − start)"}
    parts = [f"{words.get(c, c)}: {n} launch{'es' if n != 1 else ''}" for c, n in sorted(counts.items())]
    return "run time per repetition from the " + "; ".join(parts) if parts else "no launches"


def _rows(summaries: list[LaunchSummary], confidence: float, p2p: dict[str, float],
          one_way: frozenset[str] = frozenset()) -> list[Row]:
    groups: dict[tuple, list[LaunchSummary]] = {}
    for s in summaries:  # one row per (op, size, p[, root][, workpieces])
        groups.setdefault((s.alternative, s.op, s.size, s.nprocs, s.root, s.workpieces), []).append(s)
    rows = []
    for (alt, op, size, ranks, root, pieces), per in groups.items():
        used = [s for s in per if s.n > 0]
        acr = _across.across_launches(
            np.array([s.median_ns for s in used]), np.array([s.mean_ns for s in used]), confidence=confidence,
            rates=np.array([s.bandwidth_Bps for s in used if s.bandwidth_Bps is not None]) if op in p2p else None)
        clocks = sorted({s.clock for s in per})
        norm = acr.normality
        rows.append(Row(
            alternative=alt, op=op, size=size, launches=len({s.launch for s in used}),
            median_ns=acr.median.estimate, median_ci_low_ns=acr.median.low, median_ci_high_ns=acr.median.high,
            confidence=confidence, mean_ns=acr.mean.estimate, mean_ci_low_ns=acr.mean.low,
            mean_ci_high_ns=acr.mean.high, normality_p=None if norm is None else norm.p_value,
            normal=None if norm is None else norm.normal, spread=acr.spread,
            outliers_removed=sum(s.removed for s in per), invalid=sum(s.n_invalid for s in per),
            repetitions=sum(s.n_total for s in per), warmup_max=max((s.warmup_length for s in per), default=0),
            clock="+".join(clocks),
            bandwidth_Bps=acr.bandwidth_Bps if acr.bandwidth_Bps is None or math.isfinite(acr.bandwidth_Bps) else None,
            per_launch=tuple(per), start_spread_dropped=sum(s.n_start_spread for s in per), one_way=op in one_way,
            nprocs=ranks, root=root, workpieces=pieces))
    alt_order = {a: i for i, a in enumerate(dict.fromkeys(s.alternative for s in summaries))}
    rows.sort(key=lambda r: (alt_order[r.alternative], r.op, r.size, r.nprocs, -1 if r.root is None else r.root,
                             -1 if r.workpieces is None else r.workpieces))
    return rows


def _ops_finishing_apart(campaign: Campaign) -> frozenset[str]:
    """Operations whose ranks finish at different times by design (meta.json schema 2
    ``operations[op].ranks_finish_apart``, e.g. the root of a broadcast): not rank-tested."""
    return frozenset(op for li in campaign.launches for op, info in li.meta.operations.items()
                     if info.ranks_finish_apart)


def _rank_tests(campaign: Campaign, infos: dict[tuple[str, int], LaunchInfo]) -> list[RankTest]:
    """Do some ranks take longer than the others, launch after launch? (Hoefler & Belli 2015
    §4.2.1.) Friedman's test (``hypothesis.friedman``; the sign test for 2 ranks) on the
    per-launch median local duration of each rank, launches as blocks, Holm over all rows.

    Why not Kruskal–Wallis on the repetitions pooled over launches, as before: the repetitions
    of a launch are not independent replicates of a rank — all ranks time the same calls, and
    where a rank sits is fixed for the launch (the launch is the unit of replication, Hunold &
    Carpen-Amarie 2016 §4.2) — so with ~3000 repetitions per rank any difference, even one that
    changes from launch to launch, gave p ≈ 0. Blocks by launch remove the shifts a launch gives
    all its ranks; a rank is flagged only when it is slow in most launches. Operations whose
    ranks finish apart by design (``_ops_finishing_apart``) are not tested, nor rows with fewer
    than 2 launches in which every rank has data. ``slowest_*`` and the median rank use each
    rank's median over launches of its launch medians.

    Per p: a ``--np LIST`` campaign's launches are tested with the launches of their
    own p (ranks 2, 3 exist at p = 4 only). The rank medians are per launch and (op, size), so a
    launch whose tests ran at several p (sub-communicators) pools them: its rows are left out of
    the rank test (its ranks' durations are in the fingerprints)."""
    df = campaign.reductions.rank_medians  # runtimes.rank_launch_medians, launch by launch
    if df.empty:
        return []  # no per-rank rows (--raw reduced)
    counts = {key: _scaling.launch_counts(li) for key, li in infos.items()}
    ranks_of = np.array([next(iter(c)) if len(c := counts.get((a, int(i)), frozenset())) == 1 else -1
                         for a, i in zip(df["alternative"].to_numpy(), df["launch"].to_numpy())], dtype=np.int64)
    keep = ranks_of >= 0
    df, ranks_of = df[keep], ranks_of[keep]
    op_code, alt_code = pd.factorize(df["op"])[0], pd.factorize(df["alternative"])[0]
    order = np.lexsort((df["rank"].to_numpy(), df["launch"].to_numpy(), ranks_of, df["size"].to_numpy(), op_code, alt_code))
    df, ranks_of, op_code, alt_code = df.iloc[order], ranks_of[order], op_code[order], alt_code[order]
    apart = _ops_finishing_apart(campaign)
    alt, op, size = (df[c].to_numpy() for c in ("alternative", "op", "size"))
    launch, rank, med = df["launch"].to_numpy(), df["rank"].to_numpy(), df["med"].to_numpy(dtype=float)
    out = []
    for lo, hi in _group_bounds((alt_code, op_code, size, ranks_of)):  # equal codes: equal values
        if op[lo] in apart:
            continue
        launches, li = np.unique(launch[lo:hi], return_inverse=True)
        ranks, ri = np.unique(rank[lo:hi], return_inverse=True)
        by_launch = np.full((launches.size, ranks.size), np.nan)  # blocks × treatments
        by_launch[li, ri] = med[lo:hi]
        res = _hyp.friedman(by_launch)
        if not math.isfinite(res.p_value):
            continue
        meds = dict(zip(ranks.tolist(), np.median(by_launch[~np.isnan(by_launch).any(axis=1)], axis=0).tolist()))
        slow = sorted(meds, key=lambda r: -meds[r])[:3]
        out.append(RankTest(alternative=str(alt[lo]), op=str(op[lo]), size=int(size[lo]), ranks=len(meds),
                            statistic=res.statistic, p_value=res.p_value, p_adjusted=math.nan, differ=False,
                            slowest_ranks=tuple(slow), slowest_medians_ns=tuple(meds[r] for r in slow),
                            median_of_rank_medians_ns=float(np.median(list(meds.values()))),
                            nprocs=int(ranks_of[lo]), kendall_w=_effect.kendall_w(by_launch)))
    adj = _hyp.holm(np.array([t.p_value for t in out]))
    return [replace(t, p_adjusted=float(p), differ=bool(p <= 0.05)) for t, p in zip(out, adj)]
