# SPDX-License-Identifier: BSD-3-Clause
"""Each processing scheme of another benchmark (``mpimeter.stats.schemes``; Hunold & Carpen-Amarie
2016, Table 4) on the tests of ONE launch, from its raw rows or imported aggregates: computed
while the launch is read (``mpimeter.analysis.loading``, ``schemes=True``), so that `analyze
--scheme` and `schemes` read each launch once. What each kind of launch can give is in
``mpimeter.analysis.schemes``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from mpimeter.io.launch import LaunchData
from mpimeter.stats import schemes as _s

_ON_MAX: dict[str, Callable[[np.ndarray], _s.SchemeValue]] = {"skampi": _s.skampi, "mpiblib": _s.mpiblib}
_ON_RANKS: dict[str, Callable[[np.ndarray], _s.SchemeValue]] = {"osu": _s.osu, "mpibench": _s.mpibench,
                                                                  "imb": _s.imb}
# on rank 0's row (the process that reports: mpptest's root, MPIBlib's root)
_ON_ROOT: dict[str, Callable[[np.ndarray], _s.SchemeValue]] = {"mpptest": _s.mpptest}
_ON_GLOBAL = ("mpiblib-global",)  # on each rank's global start and end (PS4)


@dataclass(frozen=True)
class LaunchValue:
    """One scheme on one test of one launch: its value, or why it cannot be computed."""

    launch: int
    value: _s.SchemeValue | None
    why: str | None = None
PEERS = (*_ON_MAX, *_ON_RANKS, *_ON_ROOT, *_ON_GLOBAL)  # every scheme but ours, in no particular order (callers order them)


def _aggregate_value(scheme: str, data: LaunchData, test: int) -> LaunchValue | str:
    """A scheme's numbers from an imported aggregate, when the tool printed them."""
    o = data.meta.origin
    ot = o.test(test)
    agg = {k: float(v) for k, v in ot.aggregates_ns.items()}
    if o.tool in ("imb", "osu") and not (o.tool == "imb" and "t" in agg):
        ranks = ({"min": agg.get("t_min"), "max": agg.get("t_max"), "avg": agg.get("t_avg")} if o.tool == "imb"
                 else {"min": agg.get("min"), "max": agg.get("max"), "avg": agg.get("avg")})
        if scheme == "osu" and ranks["avg"] is not None:
            stats = {k: v for k, v in ranks.items() if v is not None}
            return LaunchValue(0, _s.SchemeValue(ranks["avg"], stats))
        if scheme == "imb" and None not in ranks.values():
            return LaunchValue(0, _s.SchemeValue(ranks["max"], {"t_max": ranks["max"], "t_min": ranks["min"],
                                                                "t_avg": ranks["avg"]}))
    if o.tool == "imb" and "t" in agg and scheme == "imb":  # single transfer: IMB prints T = t_max (its user guide)
        return LaunchValue(0, _s.SchemeValue(agg["t"], {"t_max": agg["t"]}))
    if o.tool == "reprompi" and scheme == "mpiblib" and not o.global_times and {"mean", "min", "max"} <= set(agg):
        return LaunchValue(0, _s.SchemeValue(agg["mean"], {k: agg[k] for k in ("mean", "min", "max")}))
    return (f"{o.label} printed only {', '.join(sorted(agg))} of {ot.name}: not the numbers of the {scheme} scheme")


def launch_values(data: LaunchData, schemes: tuple[str, ...]
                  ) -> dict[tuple[str, int, int, int | None, int | None], dict[str, LaunchValue | str]]:
    """Per (op, size) of one launch, per scheme (not ``ours``): its value or why not."""
    raw = data.raw
    meta = data.meta
    # keyed (op, size, p, root, work pieces): a launch may hold one (op, size) at several p and
    # roots, and mw-workpieces at several numbers of pieces (each its own row, as analyze's)
    out: dict[tuple[str, int, int, int | None, int | None], dict[str, LaunchValue | str]] = {}
    if raw.num_rows == 0:
        return out
    tests = raw["test"].to_numpy()
    order = np.argsort(tests, kind="stable")
    bounds = np.searchsorted(tests[order], np.unique(tests), side="left").tolist() + [raw.num_rows]
    rank = raw["rank"].to_numpy()[order]
    rep = raw["rep"].to_numpy()[order]
    dur = (raw["end_ns"].to_numpy() - raw["start_ns"].to_numpy())[order].astype(float)
    valid = raw["valid"].to_numpy()[order] == 1
    # the online global clock's instants (empty cells: no global clock, NaN here)
    gstart = np.asarray(raw["gstart_ns"].to_numpy(), dtype=float)[order] if "gstart_ns" in raw.column_names else None
    gend = np.asarray(raw["gend_ns"].to_numpy(), dtype=float)[order] if "gend_ns" in raw.column_names else None
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        t = meta.tests[int(tests[order[lo]])]
        key = (t.op, t.size, t.nprocs if t.nprocs is not None else meta.nprocs, t.root, t.workpieces)
        info = meta.operation(t.op)
        halve = 0.5 if info is not None and info.round_trip else 1.0
        values: dict[str, LaunchValue | str] = {}
        if meta.origin is not None and meta.origin.aggregates:
            for s in schemes:
                values[s] = _aggregate_value(s, data, t.test)
            out[key] = values
            continue
        reps, rep_index = np.unique(rep[lo:hi], return_inverse=True)
        ranks, rank_index = np.unique(rank[lo:hi], return_inverse=True)
        matrix = np.full((ranks.size, reps.size), np.nan)
        matrix[rank_index, rep_index] = dur[lo:hi] * halve
        ok = np.ones(reps.size, dtype=bool)
        np.logical_and.at(ok, rep_index, valid[lo:hi])
        matrix = matrix[:, ok]
        per_rank = ranks[0] >= 0
        has_root = per_rank and ranks[0] == 0
        g_start = g_end = None
        if gstart is not None and gend is not None:
            g_start = np.full((ranks.size, reps.size), np.nan)
            g_end = np.full((ranks.size, reps.size), np.nan)
            g_start[rank_index, rep_index] = gstart[lo:hi]
            g_end[rank_index, rep_index] = gend[lo:hi]
            g_start, g_end = g_start[:, ok], g_end[:, ok]
        global_only = meta.origin is not None and meta.origin.global_times
        for s in schemes:
            if matrix.shape[1] == 0:
                values[s] = "no valid repetition"
            elif s in _ON_GLOBAL:
                values[s] = _global_value(s, g_start, g_end, has_root, halve, meta)
            elif global_only:
                values[s] = (f"{meta.origin.label} gave global run times (max end − min start); the {s} scheme is "
                             "defined on local run times")
            elif s in _ON_ROOT:
                values[s] = (LaunchValue(0, _ON_ROOT[s](matrix)) if has_root else
                             "needs rank 0's times; the launch kept " + ("no row of rank 0" if per_rank else
                                                                         "one row per repetition (--raw reduced)"))
            elif s in _ON_MAX:
                values[s] = LaunchValue(0, _ON_MAX[s](matrix.max(axis=0) if per_rank else matrix[0]))
            elif per_rank:
                values[s] = LaunchValue(0, _ON_RANKS[s](matrix))
            else:
                values[s] = ("needs each rank's times; the launch kept one row per repetition (the maximum over ranks"
                             + (f": imported from {meta.origin.label})" if meta.origin is not None else ": --raw reduced)"))
        out[key] = values
    return out


def _global_value(scheme: str, g_start: np.ndarray | None, g_end: np.ndarray | None, has_root: bool, halve: float,
                  meta) -> LaunchValue | str:
    """PS4 on one test: each rank's global instants, rank 0's start; why not when they are missing."""
    if meta.origin is not None:
        return f"{meta.origin.label} gave no per-rank global instants; the {scheme} scheme needs them"
    if not has_root:
        return "needs each rank's global end and rank 0's global start; the launch kept one row per repetition"
    if g_start is None or g_end is None or not (np.isfinite(g_start).all() and np.isfinite(g_end).all()):
        return "needs a global clock (gstart_ns, gend_ns); the launch ran without one (--clocksync none)"
    # the rows are in rank order: rank 0 is row 0
    return LaunchValue(0, _s.mpiblib_global(g_start * halve, g_end * halve, root=0))
