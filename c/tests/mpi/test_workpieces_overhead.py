# SPDX-License-Identifier: BSD-3-Clause
"""SKaMPI's remaining knobs and the per-communicator bound:

- ``--workpieces N|LIST`` with ``mw-workpieces`` (SKaMPI: MPI_Waitsome varied over the number of
  workpieces): one test per value, ``tests[].workpieces`` says which; more pieces take longer; a
  value the op cannot use (0, twice, several with --sizes auto, the option without the op)
  exits 2 with one line, nothing written;
- ``--subtract-overhead`` (SKaMPI §3.1): each test's empty-region time in ``tests[].overhead_ns``
  (null without the option), raw.csv as measured, the analysis's run times lowered by it;
- ``tests[].bound_bytes_per_size`` with ``--nprocs LIST``: the bound's data term of each test's
  sub-communicator, not the launch's.

2 and 4 ranks, both libraries.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from conftest import NO_EXTRA_CALLS, QuietRuns, assert_refused, described, read_launch, run_bench

FAST = ["--nrep", "10", "--procsync", "barrier", "--copy-probe-bytes", "0", "--quiet"]


def _run_times(raw, test: int) -> np.ndarray:
    rows = raw[raw["test"] == test]
    return (rows["end_ns"] - rows["start_ns"]).groupby(rows["rep"]).max().to_numpy(dtype=float)


@pytest.mark.parametrize("np_", [2, 4])
def test_workpieces_gives_one_test_per_value(lib, np_, tmp_path):
    ops = described(lib)["operations"]
    assert [o["name"] for o in ops if o["uses_workpieces"]] == ["mw-workpieces"]
    out = tmp_path / "pieces"

    def run():
        run_bench(lib, np_, ["--ops", "mw-workpieces,allreduce", "--sizes", "8,4096", "--workpieces", "1,5,24",
                             "--seed", "5", *FAST, "--warmup", "2", "--out", out, "--force"])
        return read_launch(out)

    runs = QuietRuns(run, f"{lib} on {np_} ranks: 24 work pieces take longer than one")
    meta, raw = runs.result
    assert meta["config"]["workpieces"] == [1, 5, 24]
    tests = meta["tests"]
    assert len(tests) == 2 * 3 + 2
    for t in tests:
        assert t["status"] == "complete", t
        assert ("workpieces" in t) == (t["op"] == "mw-workpieces")
        assert raw[raw["test"] == t["test"]]["rank"].nunique() == np_
    for size in (8, 4096):
        assert sorted(t["workpieces"] for t in tests if t["op"] == "mw-workpieces" and t["size"] == size) == [1, 5, 24]
    # 24 pieces are 24 round trips through the master, one piece one: the call takes longer. Only
    # where every rank has a core: oversubscribed (4 ranks on 2 cores), MPICH's calls of both last a
    # scheduler slice (~8 ms), and which median is larger is the scheduler's choice, not the op's
    # (a comparison of times: re-run while other processes took the CPU, as a rank descheduled
    # for a slice makes a 1-piece call last milliseconds)
    def slower(result):
        meta, raw = result
        by = {(t["size"], t["workpieces"]): t["test"] for t in meta["tests"] if t["op"] == "mw-workpieces"}
        assert np.median(_run_times(raw, by[(4096, 24)])) > np.median(_run_times(raw, by[(4096, 1)]))

    if np_ <= (os.cpu_count() or 1):
        runs.check(slower)


@pytest.mark.parametrize("args, needle", [
    (["--ops", "mw-workpieces", "--workpieces", "0"], "--workpieces: 0 is out of range; allowed: distinct whole numbers from 1"),
    (["--ops", "mw-workpieces", "--workpieces", "4,4"], "--workpieces: 4 is given twice"),
    (["--ops", "mw-workpieces", "--workpieces", "many"], "--workpieces: 'many' is not a whole number"),
    (["--ops", "mw-workpieces", "--workpieces", "2,8", "--sizes", "auto:8:64"], "--workpieces: 2 values with --sizes auto"),
    (["--ops", "mw-waitsome", "--workpieces", "8"], "--workpieces applies only to mw-workpieces and --ops has none"),
    (["--ops", "mw-workpieces", "--nprocs", "1,2"], "--nprocs 1 with --ops mw-workpieces"),
])
def test_workpieces_the_op_cannot_use_are_refused(lib, tmp_path, args, needle):
    assert_refused(lib, args, needle, tmp_path)


@pytest.mark.parametrize("np_", [2, 4])
def test_subtract_overhead_records_each_tests_empty_region(lib, np_, tmp_path):
    from mpimeter import analysis
    from mpimeter.cli.analysis_view import overhead_kept, overhead_subtracted
    from mpimeter.io.overhead import MIN_TIMER_STEPS

    campaign = tmp_path / "c"
    out = campaign / "launches" / "000"
    run_bench(lib, np_, ["--ops", "simple-empty,allreduce", "--sizes", "64", "--subtract-overhead",
                         *FAST, *NO_EXTRA_CALLS, "--out", out])
    meta, raw = read_launch(out)
    assert meta["config"]["subtract_overhead"] is True
    for t in meta["tests"]:
        # two reads of the monotonic clock take tens of ns; a launch-wide probe is not reused
        assert t["status"] == "complete" and 0 < t["overhead_ns"] < 1e6, t
    # raw.csv keeps the times as measured; the analysis subtracts each test's own value, except
    # where the result would be below 10 timer steps (simple-empty: tens of ns less tens of ns)
    res = analysis.analyze(analysis.load_campaign(campaign, cache=False, store=False), outlier="none", clock="local")
    floor = MIN_TIMER_STEPS * meta["timer"]["resolution_ns"]
    kept = []
    for t in meta["tests"]:
        row = next(r for r in res.rows if r.op == t["op"])
        measured = np.median(_run_times(raw, t["test"]))
        if measured - t["overhead_ns"] < floor:
            kept.append(t["op"])
            assert row.median_ns == pytest.approx(measured)
        else:
            assert row.median_ns == pytest.approx(measured - t["overhead_ns"])
    assert overhead_subtracted(res) == ("c: allreduce, simple-empty (1 of 1 launches)",)
    assert (overhead_kept(res) is None) == (not kept)
    assert all(f"c/{op}/" in overhead_kept(res) for op in kept)
    # without the option nothing is measured and nothing subtracted
    plain = tmp_path / "plain"
    run_bench(lib, np_, ["--ops", "simple-empty", *FAST, *NO_EXTRA_CALLS, "--out", plain])
    meta, _ = read_launch(plain)
    assert meta["config"]["subtract_overhead"] is False and meta["tests"][0]["overhead_ns"] is None


def test_bound_volume_per_sub_communicator(lib, tmp_path):
    """--nprocs 2,3,4 on 4 ranks: each test's bound data term is its communicator's (allreduce
    2(k-1)/k, alltoall k-1, bcast 1), while operations[] keeps the launch's (p = 4)."""
    out = tmp_path / "bounds"
    run_bench(lib, 4, ["--ops", "allreduce,alltoall,bcast", "--sizes", "64", "--nprocs", "2,3,4", *FAST,
                       *NO_EXTRA_CALLS, "--out", out])
    meta, _ = read_launch(out)
    want = {"allreduce": lambda k: 2 * (k - 1) / k, "alltoall": lambda k: k - 1, "bcast": lambda k: 1}
    assert len(meta["tests"]) == 9
    for t in meta["tests"]:
        assert t["bound_bytes_per_size"] == pytest.approx(want[t["op"]](t["nprocs"])), t
    assert meta["operations"]["allreduce"]["bound_volume"]["bytes_per_size"] == pytest.approx(1.5)
    assert meta["operations"]["alltoall"]["bound_volume"]["bytes_per_size"] == pytest.approx(3)
