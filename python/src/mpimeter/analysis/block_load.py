# SPDX-License-Identifier: BSD-3-Clause
"""Which repetitions of a test ran while other processes loaded the machine, from meta.json
``tests[].other_cpu`` (docs/FORMAT.md): the CPU share other processes used on rank 0's machine
per block of repetitions, read between the blocks outside the timed region.

Roth 2021 §4.4 read the processor time of other processes per repetition from ``/proc`` and, at
its tick of 10 ms ("around 300 times higher than the time we measure"), found no correlation with
the run time; nothing was left out for it. The same limit holds here: a block of 32 short
repetitions lasts well under a tick, so its share reads 0 or a whole tick's worth, and a slow
block, being longer, catches a tick more often — judged block by block, slow repetitions would
look loaded on a quiet machine. So consecutive blocks are pooled into spans of at least
:data:`MIN_SPAN_TICKS` ticks of wall time (the signed ``other_cpu_s`` summed: no clamp's bias);
each CPU's counter is off by under one tick at either end of a span, so a span's share is off by
less than tick / wall = 1 / :data:`MIN_SPAN_TICKS` of the machine, half of :data:`LOAD_SHARE`. A
span above :data:`LOAD_SHARE` (the launch-wide ``machine-load`` threshold) is busy.

``busy-blocks-slower``: a test whose kept repetitions in busy spans are slower than those in its
quiet spans — the rank sum of the busy repetitions against its values under every circular shift
of the busy spans along the test (stats.rotation) at :data:`ALPHA`, a median at least
:data:`SLOWER` times the quiet one, each side with :data:`MIN_REPS` repetitions or more. Not a
Mann–Whitney test of the repetitions: successive repetitions are not independent and a busy
stretch is contiguous, so on AR(1) run times (φ = 0.9) that test warned where load changed
nothing (docs/ALGORITHMS.md, "Other processes' CPU per block"); a shift keeps the dependence. A
report only: like Roth, the analysis keeps those repetitions.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from mpimeter.analysis.launch_warnings import LOAD_SHARE
from mpimeter.analysis.loading import Campaign
from mpimeter.io.errors import AnalysisWarning
from mpimeter.io.meta_tests import OtherCpu
from mpimeter.stats.rotation import rotation_rank_test
from mpimeter.units import format_ns
from mpimeter.warning_codes import warning

MIN_SPAN_TICKS = 20  # a span's share is then off by < 1/20 of the machine
DEFAULT_TICK_S = 0.01  # Linux's USER_HZ of 100, when meta.json does not say
ALPHA = 0.01
SLOWER = 1.1  # the busy median at least 10 % above the quiet one
MIN_REPS = 10


@dataclass(frozen=True)
class Span:
    """Consecutive blocks pooled: recorded repetitions ``first_rep`` to ``end_rep`` − 1."""

    first_rep: int
    end_rep: int
    wall_s: float
    other_cpu_s: float

    def share(self, ncpus: int) -> float:
        return min(1.0, max(0.0, self.other_cpu_s / (self.wall_s * ncpus)))


def spans(oc: OtherCpu) -> list[Span]:
    """The test's blocks pooled in order into spans of at least MIN_SPAN_TICKS ticks of wall time;
    a rest too short for a span of its own joins the last one. Empty when the whole test is
    shorter than one span: too short to tell."""
    need = MIN_SPAN_TICKS * (oc.tick_s or DEFAULT_TICK_S)
    out: list[Span] = []
    first, wall, other = oc.first_rep[0], 0.0, 0.0
    for k, (n, w, o) in enumerate(zip(oc.nrep, oc.wall_s, oc.other_cpu_s)):
        wall, other = wall + w, other + o
        if wall >= need:
            out.append(Span(first, oc.first_rep[k] + n, wall, other))
            first, wall, other = oc.first_rep[k] + n, 0.0, 0.0
    if out and wall > 0:
        last = out.pop()
        out.append(Span(last.first_rep, oc.first_rep[-1] + oc.nrep[-1], last.wall_s + wall, last.other_cpu_s + other))
    return out


def _in_spans(rep: np.ndarray, chosen: list[Span]) -> np.ndarray:
    inside = np.zeros(len(rep), dtype=bool)
    for s in chosen:
        inside |= (rep >= s.first_rep) & (rep < s.end_rep)
    return inside


def _test_warning(oc: OtherCpu, ncpus: int, rep: np.ndarray, x: np.ndarray, place: dict) -> AnalysisWarning | None:
    pooled = spans(oc)
    busy = [s for s in pooled if s.share(ncpus) > LOAD_SHARE]
    quiet = [s for s in pooled if s.share(ncpus) <= LOAD_SHARE]
    in_busy, in_quiet = _in_spans(rep, busy), _in_spans(rep, quiet)
    if in_busy.sum() < MIN_REPS or in_quiet.sum() < MIN_REPS:
        return None
    slow, fast = np.median(x[in_busy]), np.median(x[in_quiet])
    used = in_busy | in_quiet
    order = np.argsort(rep[used], kind="stable")  # the shifts run along the test's repetitions
    p = rotation_rank_test(x[used][order], in_busy[used][order]).p_value
    if not (p < ALPHA and slow >= SLOWER * fast):
        return None
    share = sum(s.other_cpu_s for s in busy) / (sum(s.wall_s for s in busy) * ncpus)
    return warning("busy-blocks-slower", **place, threshold=100 * LOAD_SHARE, busy_share=100 * min(share, 1.0),
                   nbusy=int(in_busy.sum()), busy=format_ns(slow), quiet=format_ns(fast), nquiet=int(in_quiet.sum()),
                   p=p, badness=slow / fast if fast > 0 else 0.0)


def _test_groups(repetitions: pd.DataFrame) -> list[tuple[str, int, int, np.ndarray]]:
    """(alternative, launch, test, row positions) of the kept, valid, finite repetitions, the
    groups in order of first appearance and rows in frame order, as a groupby with sort=False
    would give them: numpy on the key columns, since pandas' per-group frames cost far more than
    the few tests here that record ``other_cpu``."""
    used = np.flatnonzero(np.asarray(repetitions["kept"], dtype=bool) & np.asarray(repetitions["valid"], dtype=bool)
                          & np.isfinite(repetitions["run_time_ns"].to_numpy(dtype=float)))
    codes, names = pd.factorize(repetitions["alternative"])
    launch, test = repetitions["launch"].to_numpy(), repetitions["test"].to_numpy()
    used = used[codes[used] >= 0]  # a missing alternative is in no group, as groupby drops it
    if used.size == 0:
        return []
    lo_l, lo_t = launch[used].min(), test[used].min()
    span_l, span_t = int(launch[used].max() - lo_l) + 1, int(test[used].max() - lo_t) + 1
    key = (codes[used].astype(np.int64) * span_l + (launch[used] - lo_l)) * span_t + (test[used] - lo_t)
    _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    rows = np.split(used[np.argsort(inverse, kind="stable")], np.cumsum(np.bincount(inverse))[:-1])
    return [(names[codes[used[first[g]]]], int(launch[used[first[g]]]), int(test[used[first[g]]]), rows[g])
            for g in np.argsort(first, kind="stable")]


def block_load_warnings(campaign: Campaign, repetitions: pd.DataFrame) -> list[AnalysisWarning]:
    """``busy-blocks-slower`` for every launch test whose busy spans held slower repetitions than
    its quiet ones; ``repetitions``: the analysis's frame (run_time_ns, kept, valid per rep)."""
    infos = {(li.alternative, li.index): li for li in campaign.launches}
    rep, run_time = repetitions["rep"].to_numpy(), repetitions["run_time_ns"].to_numpy()
    found = []
    for alt, launch, test, rows in _test_groups(repetitions):
        li = infos.get((alt, launch))
        record = li.meta.tests[test] if li and 0 <= test < len(li.meta.tests) else None
        ncpus = li.meta.system.ncpus if li else None
        if record is None or record.other_cpu is None or not ncpus:
            continue
        name = f"{alt}/{launch:03d}"
        place = {"alternative": alt, "op": record.op, "size": record.size, "launch": name,
                 "where": f"{name}: {record.label}"}
        w = _test_warning(record.other_cpu, ncpus, rep[rows], run_time[rows], place)
        if w is not None:
            found.append(w)
    return found
