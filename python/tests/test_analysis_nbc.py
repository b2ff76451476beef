"""analysis.nbc: overhead and the three overlap definitions, from hand-computed repetitions."""

from __future__ import annotations

from types import SimpleNamespace

import pyarrow as pa
import pytest

from mpimeter.analysis import nbc
from mpimeter.io.meta import NbcRecord, Operation


def _campaign(rows: list[tuple]) -> SimpleNamespace:
    """rows: (launch, op, rank, rep, valid, start, end, init, test, wait, compute, blocking)."""
    cols = list(zip(*rows))
    raw = pa.table({
        "alternative": pa.array(["a"] * len(rows)), "launch": pa.array(cols[0], pa.int32()),
        "test": pa.array([0 if op == "ibcast" else 1 for op in cols[1]], pa.int32()),
        "op": pa.array(cols[1]), "size": pa.array([64] * len(rows), pa.int64()),
        "rank": pa.array(cols[2], pa.int32()), "rep": pa.array(cols[3], pa.int32()),
        "valid": pa.array(cols[4], pa.int8()), "start_ns": pa.array(cols[5], pa.int64()),
        "end_ns": pa.array(cols[6], pa.int64()),
        **{name: pa.array(cols[7 + i], pa.int64()) for i, name in enumerate(nbc.COMPONENTS)}})
    ops = {"ibcast": Operation("nonblocking", True, "bytes"), "bcast": Operation("rooted-collective", True, "bytes")}
    tests = (SimpleNamespace(op="ibcast", size=64, nbc=NbcRecord(100, 2, 0, None, 2)),
             SimpleNamespace(op="bcast", size=64, nbc=None))
    launches = tuple(SimpleNamespace(alternative="a", index=i, meta=SimpleNamespace(operations=ops, tests=tests))
                     for i in sorted(set(cols[0])))
    return SimpleNamespace(raw=raw, launches=launches)


def test_overhead_and_overlaps_by_hand():
    # rep 0: rank 0 init 10 test 5 wait 5 (overhead 20), rank 1 overhead 30 → 30; blocking max 60;
    # compute max 100; total max 130 → overlap 1 − 30/60 = 0.5; IMB (60+100−130)/60 = 0.5;
    # OSU 1 − (130−100)/60 = 0.5
    rows = [(0, "ibcast", 0, 0, 1, 0, 120, 10, 5, 5, 100, 50),
            (0, "ibcast", 1, 0, 1, 0, 130, 10, 10, 10, 100, 60),
            # rep 1: invalid on one rank: dropped
            (0, "ibcast", 0, 1, 1, 200, 300, 1, 1, 1, 97, 40),
            (0, "ibcast", 1, 1, 0, 200, 300, 1, 1, 1, 97, 40),
            # rep 2: no blocking time on rank 1 (blocking phase ended early): dropped
            (0, "ibcast", 0, 2, 1, 400, 500, 1, 1, 1, 97, 40),
            (0, "ibcast", 1, 2, 1, 400, 500, 1, 1, 1, 97, None),
            # a blocking op's rows are not nonblocking: ignored
            (0, "bcast", 0, 0, 1, 0, 10, None, None, None, None, None)]
    reps = nbc.per_repetition(_campaign(rows))
    assert len(reps) == 1
    r = reps.iloc[0]
    assert (r["overhead_ns"], r["blocking_ns"], r["compute_ns"], r["total_ns"]) == (30, 60, 100, 130)
    assert r["overlap"] == pytest.approx(0.5)
    assert r["overlap_imb"] == pytest.approx(0.5)
    assert r["overlap_osu"] == pytest.approx(0.5)


def test_overlap_figures_are_clipped_where_their_tools_clip_them():
    # overhead 90 > blocking 60: NBCBench's overlap is negative (the CPU lost more than blocking);
    # IMB and OSU clip at 0
    rows = [(0, "ibcast", 0, 0, 1, 0, 200, 30, 30, 30, 100, 60)]
    r = nbc.per_repetition(_campaign(rows)).iloc[0]
    assert r["overlap"] == pytest.approx(-0.5)
    assert r["overlap_imb"] == 0.0 and r["overlap_osu"] == 0.0


def test_rows_take_the_median_over_launches_of_per_launch_medians():
    rows = []
    for launch, overhead in ((0, 10), (1, 20), (2, 40)):
        for rep in range(3):
            rows.append((launch, "ibcast", 0, rep, 1, 0, 200, overhead + rep, 0, 0, 100, 100))
    (row,) = nbc.nbc_rows(_campaign(rows))
    assert (row.op, row.size, row.launches, row.repetitions) == ("ibcast", 64, 3, 9)
    assert row.overhead_ns == 21  # per-launch medians 11, 21, 41
    assert row.overlap == pytest.approx(1 - 21 / 100)
    assert row.tests_per_rep == 2 and row.scheme == "time"
    assert row.overhead_ci_low_ns is None  # 3 launches: too few for a 95 % interval


def test_no_nonblocking_ops_no_rows():
    rows = [(0, "bcast", 0, 0, 1, 0, 10, None, None, None, None, None)]
    assert nbc.nbc_rows(_campaign(rows)) == ()
