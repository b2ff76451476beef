# SPDX-License-Identifier: BSD-3-Clause
"""The warnings a launch's own record calls for (meta.json, read as ``mpimeter.io.meta.LaunchMeta``):

- ``sync-residual``: the clock sync's measured residual (the largest |offset| between rank 0's
  global clock and another rank's, right after the sync and at the end) matters only when it is
  both above measurement noise — :data:`NOISE_READS` × (timer overhead + resolution): a residual
  check is itself a few timer reads on two ranks — and more than a tenth of the launch's
  shortest median run time (global clock only). The advice fits the method in use: an
  offset-only sync does not follow drift (a drift-aware one such as hca3, or re-syncs, does); a
  drift-aware one needs a longer fit span; either way ``--clock local`` avoids the global clock.
  Not in a launch whose ranks all read one kernel clock (``clock_sync.chosen`` "auto, one
  clock"): there the offsets are zero by construction and what the check measured is the
  asymmetry of its own ping-pong (110 ns with MPICH 4.0 on one host), which no sync would remove.
- ``machine-load``: other processes used more than a tenth of the machine's CPU time.
- every ``conditions`` entry (schema 2: code, message, hint, where; schema 1: a ``warnings``
  string, code ``bench-warning``) with its own code, except where the analysis derived its own
  warning of that code from the same facts of that launch (:data:`DERIVED_CODES`).
"""

from __future__ import annotations

from pathlib import Path

from mpimeter.io.meta import ROW_STATUSES, LaunchMeta, TestRecord
from mpimeter.units import format_ns
from mpimeter.warning_codes import AnalysisWarning, condition_warning, warning

NOISE_READS = 3  # residuals up to 3 × (timer overhead + resolution) are measurement noise
RESIDUAL_SHARE = 0.1  # of the shortest median run time
LOAD_SHARE = 0.1  # of the machine's CPU time
# A condition the analysis derives itself from the same facts: the condition of a launch whose
# facts gave the analysis's own warning of that code is covered by it (one warning for the
# campaign, naming the worst case); one whose facts do not (a meta.json without ended_by and
# without nrep_asked, or whose tests do not say what the condition says) reaches the user as the
# binary wrote it — no condition is dropped unseen.
DERIVED_CODES = {"budget-ended-tests": lambda meta: bool(budget_ended_tests(meta))}


def budget_ended_tests(meta: LaunchMeta) -> list[TestRecord]:
    """The finished tests of a launch that the roundtime/harmonize time budget ended before
    ``--nrep``: ``ended_by == "budget"`` (docs/FORMAT.md); in a meta.json written before that key
    existed, a finished test with fewer repetitions than asked (nothing else ended a test early)."""
    short = []
    for t in meta.tests:
        if t.status not in ROW_STATUSES:  # incomplete: a budget ended it (ended_by "budget")
            continue
        if t.ended_by_recorded:
            if t.ended_by == "budget":
                short.append(t)
            continue
        asked = asked_nrep(meta, t)
        if asked is not None and t.nrep is not None and t.nrep < asked:
            short.append(t)
    return short


def asked_nrep(meta: LaunchMeta, t: TestRecord) -> int | None:
    return t.nrep_asked if t.nrep_asked is not None else meta.config.nrep


def residual_noise_ns(meta: LaunchMeta) -> float:
    """The residual below which a residual check cannot tell the clocks apart."""
    return NOISE_READS * ((meta.timer.overhead_ns or 0.0) + (meta.timer.resolution_ns or 0.0))


def sync_residual(meta: LaunchMeta, name: str, folder: Path, min_median_ns: float | None) -> AnalysisWarning | None:
    cs = meta.clock_sync
    worst = cs.worst_residual_ns
    if cs.one_clock or not worst or not min_median_ns or worst <= residual_noise_ns(meta) or worst <= RESIDUAL_SHARE * min_median_ns:
        return None
    start = cs.residual_start.max_abs_ns if cs.residual_start else None
    end = cs.residual_end.max_abs_ns if cs.residual_end else None
    measured = ", ".join(f"{w} {format_ns(v)}" for w, v in (("start", start), ("end", end)) if v is not None)
    return warning("sync-residual", launch=name, measured=measured, method=cs.method, model=cs.model or "unknown",
                   shortest=format_ns(min_median_ns), noise=format_ns(residual_noise_ns(meta)),
                   advice=residual_advice(meta), where=name, badness=worst / min_median_ns)


def residual_advice(meta: LaunchMeta) -> str:
    cs, cfg = meta.clock_sync, meta.config
    if cs.model == "linear":
        span = f" (now {cfg.fit_span_s:g} s)" if cfg.fit_span_s is not None else ""
        return (f"{cs.method} already models drift: give its fit more time with a longer --fit-span-s{span}, or "
                "analyze with --clock local")
    resyncing = cs.resyncs > 0 or cfg.resync_s is not None
    if cs.model == "offset":
        resync = (f"re-sync more often (--resync-s below {cfg.resync_s:g})" if resyncing and cfg.resync_s
                  else "re-sync during the launch (--resync-s 0.5)")
        return (f"{cs.method} corrects offsets only, not drift: use a drift-aware clock sync (--clocksync hca3) or "
                f"{resync}; or analyze with --clock local")
    return "use a drift-aware clock sync (--clocksync hca3), or analyze with --clock local"


def other_load_share(meta: LaunchMeta) -> float | None:
    """The share of the machine's CPU time other processes used while the launch ran:
    load.other_cpu_s / (wall_s × ncpus) — the one figure every message about load prints (the
    launch-effect diagnosis once printed the same load per CPU: 181 % beside this 90 %)."""
    other, wall = meta.load.other_cpu_s, meta.load.wall_s
    if other is None or not wall or wall <= 0:
        return None
    return other / (wall * (meta.system.ncpus or 1))


def machine_load(meta: LaunchMeta, name: str, folder: Path) -> AnalysisWarning | None:
    share = other_load_share(meta)
    if share is None or share <= LOAD_SHARE:
        return None
    return warning("machine-load", launch=name, percent=100 * share, where=name, badness=share)


def conditions(meta: LaunchMeta, name: str) -> list[AnalysisWarning]:
    return [condition_warning(c.code, launch=name, message=c.message, hint=c.hint,
                              where=f"{name}: {c.where}" if c.where else name)
            for c in meta.conditions if not (c.code in DERIVED_CODES and DERIVED_CODES[c.code](meta))]


def launch_warnings(meta: LaunchMeta, folder: Path, name: str, min_median_ns: float | None) -> list[AnalysisWarning]:
    """Every warning of one launch's record; ``min_median_ns``: its shortest median run time on
    a global clock (None when it used none)."""
    found = [sync_residual(meta, name, folder, min_median_ns), machine_load(meta, name, folder)]
    return [w for w in found if w is not None] + conditions(meta, name)
