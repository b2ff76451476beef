"""``analyze``: a :class:`Campaign` → per-launch per-test summaries → one :class:`Row` per
(alternative, op, size) across launches, plus rank tests and warnings.

Hunold & Carpen-Amarie 2016, Algorithm 3 (§5.1), with the launch as the unit of replication
(§4.2): run time per repetition (global or local clock), Roth 2021 §4.5 categories, an outlier
filter and a summary per launch and test (``mpimeter.stats.repetitions``); across launches the
median of medians with its interval and the mean with a t interval (``mpimeter.stats.across``);
across ranks Kruskal–Wallis on local durations (Hoefler & Belli 2015 §4.2.1).
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any, Literal, get_args

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from mpimeter.analysis.diagnostics import dedupe, row_warnings
from mpimeter.analysis.loading import AnalysisError, Campaign, LaunchInfo
from mpimeter.analysis.results import AnalysisResult, AnalysisSettings, LaunchSummary, RankTest, Row
from mpimeter.io import runtimes as _runtimes
from mpimeter.io.errors import AnalysisWarning
from mpimeter.stats import across as _across
from mpimeter.stats import hypothesis as _hyp
from mpimeter.stats import repetitions as _reps

Outlier = Literal["tukey", "none", "mpibench", "trim25"]
Clock = Literal["auto", "global", "online", "local"]
OUTLIERS: tuple[str, ...] = get_args(Outlier)
CLOCKS: tuple[str, ...] = get_args(Clock)


def analyze(
    campaign: Campaign,
    *,
    outlier: Outlier = "tukey",
    drop_warmup: bool = False,
    clock: Clock = "auto",
    confidence: float = 0.95,
    tukey_k: float = 1.5,
    mpibench_a: float = 2.0,
) -> AnalysisResult:
    """Per launch and test: run times, categories, outlier filter, summary; then across launches
    one :class:`Row` per (alternative, op, size). ``clock``: ``auto`` follows each launch
    (:attr:`LaunchInfo.clock`), ``global`` = re-synced global where possible else online,
    ``online`` = the gstart/gend as written, ``local`` = max local duration."""
    if outlier not in OUTLIERS:
        raise AnalysisError(f"unknown outlier filter {outlier!r}; use one of {', '.join(OUTLIERS)}")
    if clock not in CLOCKS:
        raise AnalysisError(f"unknown clock {clock!r}; use auto, global, online or local")
    if not 0 < confidence < 1:
        raise AnalysisError(f"confidence must be between 0 and 1, got {confidence}")
    settings = AnalysisSettings(outlier, tukey_k, mpibench_a, drop_warmup, clock, confidence)
    warnings: list[AnalysisWarning] = list(campaign.warnings)
    con = _runtimes.connect()
    reps = _runtimes.repetition_times(campaign.raw, con)
    used_clock = {(li.alternative, li.index): _launch_clock(li, clock, warnings) for li in campaign.launches}
    n = len(reps)
    run = np.full(n, np.nan)
    codes = np.full(n, _reps.INVALID, dtype=np.int8)
    kept = np.zeros(n, dtype=bool)
    col = {"global-resync": reps.resync_ns, "global-online": reps.online_ns, "local": reps.local_ns}
    summaries: list[LaunchSummary] = []
    for lo, hi in _group_bounds((reps.alternative, reps.launch, reps.test)):
        key = (reps.alternatives[reps.alternative[lo]], int(reps.launch[lo]))
        ck = used_clock[key]
        x = col[ck][lo:hi]
        run[lo:hi] = x
        op, size = reps.ops[reps.op[lo]], int(reps.size[lo])
        st = _reps.reduce_launch_test(
            x, reps.valid[lo:hi] & np.isfinite(x), outlier=outlier, k=tukey_k, a=mpibench_a, drop_warmup=drop_warmup,
            rate_bytes=size if _is_point_to_point(op) else None)
        codes[lo:hi] = st.codes
        kept[lo:hi] = st.kept
        sm = st.summary
        summaries.append(LaunchSummary(
            key[0], key[1], int(reps.test[lo]), op, size, ck, st.n_total, st.n_invalid, st.n_warmup_dropped,
            st.removed, sm.n, sm.median, sm.mean, sm.min, sm.max, sm.q1, sm.q3, sm.p90, sm.p95, sm.p99, sm.std,
            sm.cov, st.warmup_length, st.counts["first"], st.counts["warmup"], st.counts["outlier"],
            st.counts["good"], st.bandwidth_Bps))
    rows = _rows(summaries, confidence)
    repetitions = pd.DataFrame({
        "alternative": pd.Categorical.from_codes(reps.alternative, categories=reps.alternatives),
        "launch": reps.launch, "test": reps.test,
        "op": pd.Categorical.from_codes(reps.op, categories=reps.ops),
        "size": reps.size, "rep": reps.rep, "run_time_ns": run, "valid": reps.valid,
        "category": pd.Categorical.from_codes(codes, categories=list(_reps.CATEGORY_NAMES)), "kept": kept})
    rank_tests = _rank_tests(campaign.raw, con)
    con.close()
    warnings += row_warnings(campaign, rows, summaries, rank_tests)
    return AnalysisResult(campaign, settings, tuple(rows), repetitions, tuple(rank_tests),
                          dedupe(warnings), _clock_note(campaign, used_clock))


# operations whose rate (bytes / s) is meaningful: one message between two ranks per call
_P2P_PREFIXES = ("pingpong", "pingping", "sendrecv", "send", "isend", "recv", "irecv", "put", "get", "exchange")


def _is_point_to_point(op: str) -> bool:
    return op.startswith(_P2P_PREFIXES)


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


def _launch_clock(li: LaunchInfo, clock: str, warnings: list[AnalysisWarning]) -> str:
    if clock == "auto":
        return li.clock
    if clock == "local":
        return "local"
    if clock == "global" and li.clock == "global-resync":
        return "global-resync"
    if li.has_global_times:
        return "global-online"
    warnings.append(AnalysisWarning(
        "clock-unavailable", f"launch {li.alternative}/{li.index:03d} has no global times; its local run times are used",
        "run with a clock sync (--clocksync) to get global run times", str(li.folder)))
    return "local"


def _clock_note(campaign: Campaign, used: dict[tuple[str, int], str]) -> str:
    counts: dict[str, int] = {}
    for c in used.values():
        counts[c] = counts.get(c, 0) + 1
    words = {"global-resync": "global clock recomputed after the fact from the re-syncs in sync.csv "
                              "(piecewise-linear per rank between sync points)",
             "global-online": "global clock as measured online (gstart_ns/gend_ns)",
             "local": "local clock (max over ranks of end − start)"}
    parts = [f"{words[c]}: {n} launch{'es' if n != 1 else ''}" for c, n in sorted(counts.items())]
    return "run time per repetition from the " + "; ".join(parts) if parts else "no launches"


def _rows(summaries: list[LaunchSummary], confidence: float) -> list[Row]:
    groups: dict[tuple[str, str, int], list[LaunchSummary]] = {}
    for s in summaries:
        groups.setdefault((s.alternative, s.op, s.size), []).append(s)
    rows = []
    for (alt, op, size), per in groups.items():
        used = [s for s in per if s.n > 0]
        acr = _across.across_launches(
            np.array([s.median_ns for s in used]), np.array([s.mean_ns for s in used]), confidence=confidence,
            rates=np.array([s.bandwidth_Bps for s in used if s.bandwidth_Bps is not None]) if _is_point_to_point(op) else None)
        clocks = sorted({s.clock for s in per})
        norm = acr.normality
        rows.append(Row(
            alt, op, size, len({s.launch for s in used}), acr.median.estimate, acr.median.low, acr.median.high,
            confidence, acr.mean.estimate, acr.mean.low, acr.mean.high,
            None if norm is None else norm.p_value, None if norm is None else norm.normal,
            acr.spread, sum(s.removed for s in per), sum(s.n_invalid for s in per), sum(s.n_total for s in per),
            max((s.warmup_length for s in per), default=0), "+".join(clocks),
            acr.bandwidth_Bps if acr.bandwidth_Bps is None or math.isfinite(acr.bandwidth_Bps) else None,
            tuple(per)))
    alt_order = {a: i for i, a in enumerate(dict.fromkeys(s.alternative for s in summaries))}
    rows.sort(key=lambda r: (alt_order[r.alternative], r.op, r.size))
    return rows


def _rank_tests(raw: pa.Table, con: Any) -> list[RankTest]:
    if raw.num_rows == 0 or pc.max(raw["rank"]).as_py() < 0:
        return []  # no per-rank rows (--raw reduced)
    out = []
    for alt, op, size, by_rank in _runtimes.rank_samples(raw, con=con):
        if len(by_rank) < 2:
            continue
        res = _hyp.kruskal(list(by_rank.values()))
        meds = {r: float(np.median(v)) for r, v in by_rank.items()}
        slow = sorted(meds, key=lambda r: -meds[r])[:3]
        out.append(RankTest(alt, op, size, len(by_rank), res.statistic, res.p_value, math.nan, False,
                            tuple(slow), tuple(meds[r] for r in slow), float(np.median(list(meds.values())))))
    adj = _hyp.holm(np.array([t.p_value for t in out]))
    return [replace(t, p_adjusted=float(p), differ=bool(p <= 0.05)) for t, p in zip(out, adj)]
