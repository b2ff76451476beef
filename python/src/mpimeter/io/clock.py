# SPDX-License-Identifier: BSD-3-Clause
"""The after-the-fact global clock: global times recomputed from sync.csv's model rows.

Online, a rank's global time had to be extrapolated from the last sync. Afterwards every sync
of the launch is known: for each rank, the model rows give (local_ns, offset_ns) points, one
per sync, with offset = global − local. The offset at any local time is interpolated linearly
between the two surrounding sync points and held constant before the first and after the last
(np.interp), as trace tools do with offsets taken at initialization and finalization
(docs/ALGORITHMS.md, "After the fact"). Rank 0's clock is the global clock: offset 0 when it has no
model rows. With fewer than two sync points this is the same constant offset as online, so the
analysis only uses it when there were re-syncs.

Cost: O(N log N) for N raw rows (a sort by rank), O(N) interpolation.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from mpimeter.errors import MpimeterError


class ClockModelError(ValueError, MpimeterError):
    """sync.csv cannot give a model for some rank of raw.csv."""


def offsets_by_rank(sync: pa.Table) -> dict[int, tuple[np.ndarray, np.ndarray]]:
    """rank → (local_ns sorted, offset_ns) of its model rows (phase ≥ 0)."""
    model = sync.filter(pc.and_(pc.equal(sync["kind"], "model"), pc.greater_equal(sync["phase"], 0)))
    ranks = model["rank"].to_numpy()
    local = model["local_ns"].to_numpy().astype(np.float64)
    offset = model["offset_ns"].to_numpy().astype(np.float64)
    out = {}
    for r in np.unique(ranks):
        sel = ranks == r
        order = np.argsort(local[sel], kind="stable")
        out[int(r)] = (local[sel][order], offset[sel][order])
    return out


def global_time(local_ns: np.ndarray, points: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """local + interpolated offset, rounded to integer ns."""
    xs, ys = points
    local = np.asarray(local_ns, dtype=np.float64)
    return np.rint(local + np.interp(local, xs, ys)).astype(np.int64)


def resync_times(raw: pa.Table, sync: pa.Table) -> tuple[pa.Array, pa.Array, float]:
    """(rgstart_ns, rgend_ns, largest |recomputed − online| in ns) for every raw row."""
    models = offsets_by_rank(sync)
    rank = raw["rank"].to_numpy()
    start = raw["start_ns"].to_numpy()
    end = raw["end_ns"].to_numpy()
    rgs = np.empty(rank.size, dtype=np.int64)
    rge = np.empty(rank.size, dtype=np.int64)
    order = np.argsort(rank, kind="stable")
    sorted_rank = rank[order]
    uniq, first = np.unique(sorted_rank, return_index=True)
    bounds = list(first) + [rank.size]
    for i, r in enumerate(uniq):
        idx = order[bounds[i] : bounds[i + 1]]
        if int(r) in models:
            pts = models[int(r)]
        elif r == 0:
            pts = (np.zeros(1), np.zeros(1))
        else:
            raise ClockModelError(f"sync.csv has no model rows for rank {int(r)}")
        rgs[idx] = global_time(start[idx], pts)
        rge[idx] = global_time(end[idx], pts)
    change = 0.0
    if raw["gstart_ns"].null_count == 0 and rank.size:
        gs = raw["gstart_ns"].to_numpy()
        ge = raw["gend_ns"].to_numpy()
        change = float(max(np.abs(rgs - gs).max(), np.abs(rge - ge).max()))
    return pa.array(rgs), pa.array(rge), change
