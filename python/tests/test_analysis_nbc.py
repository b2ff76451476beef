# SPDX-License-Identifier: BSD-3-Clause
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
    ops = {"ibcast": Operation(kind="nonblocking", ranks_finish_apart=True, size_unit="bytes"),
           "bcast": Operation(kind="rooted-collective", ranks_finish_apart=True, size_unit="bytes")}
    tests = (SimpleNamespace(op="ibcast", size=64, nbc=NbcRecord(100, 2, 0, None, 2)),
             SimpleNamespace(op="bcast", size=64, nbc=None))
    launches = tuple(SimpleNamespace(alternative="a", index=i, meta=SimpleNamespace(operations=ops, tests=tests))
                     for i in sorted(set(cols[0])))
    # what reading a campaign keeps of its raw rows for the nonblocking analysis
    reduced = SimpleNamespace(nbc_reps=nbc.per_repetition_table(raw, {"ibcast"}))
    return SimpleNamespace(reductions=reduced, launches=launches)


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


# compare and gate on the overhead (--metric overhead): the samples are the per-launch medians of
# the per-repetition overhead, taken from AnalysisResult.nbc_repetitions

def _with_overheads(tmp_path, name: str, overheads_by_launch: list[list[float]]):
    """An analysis result of a synthetic campaign whose nonblocking repetitions are given: one
    launch per list, the overhead of each repetition of iallreduce at 64 B."""
    from dataclasses import replace

    import pandas as pd
    from data.synth import write_campaign

    from mpimeter import analysis

    res = analysis.analyze(analysis.load_campaign(write_campaign(tmp_path / name, len(overheads_by_launch),
                                                                 ops=("allreduce",), sizes=(64,), nrep=20),
                                                  cache=False, store=False))
    alt = res.alternatives[0]
    reps = pd.DataFrame([{"alternative": alt, "launch": launch, "test": 0, "op": "iallreduce", "size": 64, "rep": i,
                          "overhead_ns": x} for launch, xs in enumerate(overheads_by_launch) for i, x in enumerate(xs)])
    return replace(res, nbc_repetitions=reps)


def test_compare_on_overhead_uses_per_launch_medians(tmp_path):
    from mpimeter import analysis

    a = _with_overheads(tmp_path, "a", [[10, 11, 12], [20, 21, 22], [30, 31, 32]])  # medians 11, 21, 31
    b = _with_overheads(tmp_path, "b", [[100, 101, 400], [200, 210, 220], [300, 300, 300]])  # 101, 210, 300
    cmp = analysis.compare([a, b], metric="overhead")
    (row,) = cmp.rows
    assert (row.op, row.size, row.launches_a, row.launches_b) == ("iallreduce", 64, 3, 3)
    assert (row.median_a_ns, row.median_b_ns) == (21.0, 210.0)
    assert row.p_value == pytest.approx(0.1)  # exact two-sided rank sum, 3 vs 3 fully separated: 2/20
    assert not row.one_way
    assert cmp.to_dict()["metric"] == "overhead"
    # the run-time comparison of the same results compares allreduce, not the overhead
    assert [r.op for r in analysis.compare([a, b]).rows] == ["allreduce"]


def test_gate_on_overhead_and_its_refusals(tmp_path):
    from mpimeter import analysis

    base = _with_overheads(tmp_path, "base", [[10] * 3, [11] * 3, [12] * 3, [10] * 3, [11] * 3])
    slow = _with_overheads(tmp_path, "slow", [[20] * 3, [21] * 3, [22] * 3, [20] * 3, [21] * 3])
    g = analysis.gate(base, slow, metric="overhead")
    (row,) = g.rows
    assert row.median_baseline_ns == 11.0 and row.median_candidate_ns == 21.0
    assert row.regression and not g.passed
    assert analysis.gate(base, base, metric="overhead").passed
    with pytest.raises(analysis.AnalysisError, match="no valid repetition"):
        analysis.gate(base, replace_reps(slow, None), metric="overhead")
    with pytest.raises(analysis.AnalysisError, match="metric must be one of time, overhead"):
        analysis.compare([base, slow], metric="overlap")
    few = _with_overheads(tmp_path, "few", [[10], [11]])
    with pytest.raises(analysis.AnalysisError, match="has 2 launches"):
        analysis.compare([few, slow], metric="overhead")
    assert len(analysis.compare([few, slow], metric="overhead", per_repetition=True).rows) == 1


def replace_reps(res, reps):
    from dataclasses import replace

    return replace(res, nbc_repetitions=reps)


def test_the_table_names_the_root_of_each_row():
    # --root 0,1: one row per root at each size; without a root column the two rows of ibcast 64 B
    # read alike with different overheads (the main table of `analyze` shows the root)
    import io
    from types import SimpleNamespace as NS

    from rich.console import Console

    from mpimeter.cli.analysis_view import nbc_table

    def row(root: int, overhead: float) -> nbc.NbcRow:
        return nbc.NbcRow(alternative="a", op="ibcast", size=64, launches=1, repetitions=9, overhead_ns=overhead,
                          overhead_ci_low_ns=None, overhead_ci_high_ns=None, blocking_ns=100.0, compute_ns=100.0,
                          total_ns=150.0, init_ns=1.0, test_ns=0.0, wait_ns=1.0, overlap=0.5, overlap_imb=0.5,
                          overlap_osu=0.5, tests_per_rep=0, scheme="time", nprocs=3, root=root)
    res = NS(settings=NS(confidence=0.95), nbc_rows=(row(0, 11_000.0), row(1, 77_000.0)),
             size_unit=lambda op: "bytes")
    out = io.StringIO()
    Console(file=out, width=300).print(nbc_table(res, several=False))
    header = next(line for line in out.getvalue().splitlines() if "overhead" in line and "op" in line)
    assert "root" in header.split()
    lines = [line.split() for line in out.getvalue().splitlines() if "ibcast" in line]
    cells = [[c for c in line if c not in "│┃"] for line in lines]
    assert [(c[3], c[6]) for c in cells] == [("0", "11.0"), ("1", "77.0")]
