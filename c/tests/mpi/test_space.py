# SPDX-License-Identifier: BSD-3-Clause
"""The measurement space beyond operations and sizes, in one launch:

- ``--root all|LIST``: one test per root for each rooted operation (the op table's ``uses_root``),
  shuffled with the other tests; ``tests[].root`` says which, unrooted tests carry none; every
  test carries ``tests[].nprocs``; a root that is not a rank exits 2 with one line, nothing
  written;
- ``--batch N`` (IMB's measurement scheme MS2): N calls back to back timed once per rank, the
  raw.csv row holding one call's share; a ``delay`` of known length gives that length per call,
  not N times it; ``--batch 0``, a batch with a planned-start scheme or a nonblocking
  collective exit 2.

2 and 4 ranks, both libraries. Timings are noisy here (two shared cores): the accuracy check
runs on a quiet machine only (conftest.QuietRuns).
"""

from __future__ import annotations

import pytest
from conftest import NO_EXTRA_CALLS, QuietRuns, assert_refused, described, read_launch, run_bench

FAST = ["--nrep", "6", *NO_EXTRA_CALLS, "--procsync", "barrier", "--copy-probe-bytes", "0", "--quiet"]


@pytest.mark.parametrize("np_", [2, 4])
def test_root_all_gives_one_test_per_root_shuffled_with_the_rest(lib, np_, tmp_path):
    rooted = {o["name"] for o in described(lib)["operations"] if o["uses_root"]}
    assert {"bcast", "reduce", "gather"} <= rooted and "allreduce" not in rooted
    out = tmp_path / "roots"
    run_bench(lib, np_, ["--ops", "bcast,allreduce,reduce", "--sizes", "8,1024", "--root", "all",
                         "--seed", "3", *FAST, "--out", out])
    meta, raw = read_launch(out)
    tests = meta["tests"]
    assert meta["config"]["root"] == "all"
    assert len(tests) == 2 * (np_ + 1 + np_)  # bcast and reduce at every root, allreduce once
    for t in tests:
        assert t["nprocs"] == np_ and t["status"] == "complete"
        assert ("root" in t) == (t["op"] in rooted)
    for op in ("bcast", "reduce"):
        for size in (8, 1024):
            assert sorted(t["root"] for t in tests if t["op"] == op and t["size"] == size) == list(range(np_))
    # shuffled with the rest: the plan is not grouped by op (seed 3 interleaves them)
    ops_in_order = [t["op"] for t in tests]
    runs = sum(1 for a, b in zip(ops_in_order, ops_in_order[1:]) if a != b) + 1
    assert runs > 3, ops_in_order
    # raw.csv rows stay keyed by test: every test has its rows on every rank
    assert set(raw["test"]) == {t["test"] for t in tests}
    assert raw.groupby("test")["rank"].nunique().eq(np_).all()


def test_root_list_on_four_ranks(lib, tmp_path):
    out = tmp_path / "list"
    run_bench(lib, 4, ["--ops", "gather,barrier,mw-waitsome", "--sizes", "64", "--root", "3,1", *FAST,
                       "--out", out])
    meta, _ = read_launch(out)
    assert meta["config"]["root"] == [3, 1]
    by_op: dict[str, list] = {}
    for t in meta["tests"]:
        by_op.setdefault(t["op"], []).append(t.get("root"))
    assert sorted(by_op["gather"]) == [1, 3] and sorted(by_op["mw-waitsome"]) == [1, 3]
    assert by_op["barrier"] == [None]


@pytest.mark.parametrize("args, needle", [
    (["--ops", "bcast", "--root", "2"], "--root: 2 is not a rank of this launch; allowed: 0 to 1"),
    (["--ops", "bcast", "--root", "0,5"], "--root: 5 is not a rank of this launch"),
    (["--ops", "bcast", "--root", "1,1"], "--root: 1 is given twice"),
    (["--ops", "bcast", "--root", "first"], "--root: 'first' is not a whole number"),
    (["--ops", "bcast", "--root", "all", "--sizes", "auto:8:64"], "with --sizes auto"),
    (["--ops", "allreduce", "--batch", "0"], "--batch: 0 is out of range; allowed: a whole number from 1"),
    (["--ops", "allreduce", "--batch", "4"], "--batch 4 with --procsync window"),
    (["--ops", "ibcast", "--batch", "4", "--procsync", "none"], "--batch 4 with ibcast"),
])
def test_bad_root_and_batch_are_refused(lib, tmp_path, args, needle):
    assert_refused(lib, args, needle, tmp_path)


@pytest.mark.parametrize("np_", [2, 4])
def test_batch_records_the_time_per_call(lib, np_, tmp_path):
    """MS2 on a delay of 50 us: each row is one call's share of a batch of 8 (about 50 us, far
    from the batch's 400 us); accurate within 10 % on a quiet machine."""
    out = tmp_path / "ms2"
    # MPICH busy-polls on 4 ranks sharing 2 cores: each allreduce of the batch lasts scheduler
    # slices (the delay's rows are what is checked, and 12 x 4 of them are enough for a median)
    nrep = 12 if lib == "mpich" and np_ > 2 else 30

    def run():
        run_bench(lib, np_, ["--ops", "delay,allreduce", "--sizes", "50000", "--batch", "8", "--nrep", nrep,
                             "--warmup", "2", "--procsync", "none", "--copy-probe-bytes", "0", "--quiet",
                             "--out", out, "--force"])
        return read_launch(out)

    def per_call(launch):
        meta, raw = launch
        assert meta["config"]["batch"] == 8 and meta["config"]["procsync"] == "none"
        delay = next(t["test"] for t in meta["tests"] if t["op"] == "delay")
        rows = raw[raw["test"] == delay]
        assert len(rows) == nrep * np_
        dur = rows["end_ns"] - rows["start_ns"]
        assert (dur >= 50000).all(), dur.min()  # a delay never returns early, per call either
        return dur

    # one launch for both: its rows checked on any machine, then its accuracy (re-run while busy)
    runs = QuietRuns(run, "MS2 delay per call")
    per_call(runs.result)

    def accurate(launch):  # a call's share, not the batch's 400 us (load stretches it)
        dur = per_call(launch)
        assert abs(dur.median() / 50000 - 1) < 0.10, dur.median()

    runs.check(accurate)


def test_batch_gives_imbs_numbers_through_the_imb_scheme(lib, tmp_path):
    """IMB's processing (PS6: each rank's mean, t_min/t_avg/t_max over ranks) on MS2 rows: a
    delay of 30 us per call gives t_min/t_max of about 30 us, not the batch's 120 us; mpptest's
    minimum (PS7) is at least the delay."""
    from mpimeter import analysis
    from mpimeter.analysis import schemes

    campaign = tmp_path / "c"

    def run():
        run_bench(lib, 2, ["--ops", "delay", "--sizes", "30000", "--batch", "4", "--nrep", "20", "--warmup", "2",
                           "--procsync", "none", "--copy-probe-bytes", "0", "--quiet", "--force",
                           "--out", campaign / "launches" / "000"])
        loaded = analysis.load_campaign(campaign, cache=False, store=False)
        rows, _ = schemes.scheme_rows(loaded, ("imb", "mpptest"), None, cache=False)
        return {r.scheme: r for r in rows}

    def numbers(by):  # never below the delay: each call of a batch waits it out
        imb = by["imb"].stats_ns
        assert 30000 <= imb["t_min"] <= imb["t_avg"] <= imb["t_max"], imb
        assert 30000 <= by["mpptest"].headline_ns
        return imb

    runs = QuietRuns(run, "IMB's numbers on MS2 rows")
    numbers(runs.result)

    def per_call(by):  # on a quiet machine: a call's share (30 us), not the batch's 120 us
        imb = numbers(by)
        assert imb["t_max"] < 1.5 * 30000 and by["mpptest"].headline_ns < 1.5 * 30000, imb

    runs.check(per_call)


@pytest.mark.parametrize("procsync", ["barrier", "window"])
def test_nprocs_measures_each_test_on_the_first_k_ranks(lib, procsync, tmp_path):
    """--nprocs 2,3,4 on 4 ranks: each (op, size) once per size, its rows from ranks 0..k-1
    only, with the process sync (and for window the global clock) on those ranks; a rooted op
    with --root all at every rank of each communicator."""
    out = tmp_path / "sub"
    run_bench(lib, 4, ["--ops", "allreduce,bcast,barrier", "--sizes", "8,4096", "--nprocs", "2,3,4",
                       "--root", "all", "--nrep", "8", *NO_EXTRA_CALLS, "--procsync", procsync,
                       "--copy-probe-bytes", "0", "--quiet", "--out", out])
    meta, raw = read_launch(out)
    tests = meta["tests"]
    assert meta["status"] == "complete"
    # barrier: every test completes; window: on this loaded, oversubscribed machine a test may
    # find no rank running at its planned starts (it fails saying so, with or without --nprocs)
    for t in tests:
        assert t["status"] == "complete" or (procsync == "window" and t["error"]["code"] == "no-valid-repetitions")
    assert len(tests) == 3 * (2 + 1) + 2 * (2 + 3 + 4)  # allreduce twice and barrier once per size
    for t in tests:
        if t["status"] != "complete":
            continue
        rows = raw[raw["test"] == t["test"]]
        assert sorted(rows["rank"].unique()) == list(range(t["nprocs"])), t
        assert len(rows) == t["nprocs"] * t["nrep"]
        if t["op"] == "bcast":
            assert 0 <= t["root"] < t["nprocs"]
    for k in (2, 3, 4):
        assert sorted(t["root"] for t in tests if t["op"] == "bcast" and t["size"] == 8 and t["nprocs"] == k) \
            == list(range(k))
    if procsync == "window":  # the global clock on the first k ranks: filled global instants
        assert raw["gstart_ns"].notna().all() and raw["gend_ns"].notna().all()


@pytest.mark.parametrize("args, needle", [
    (["--ops", "allreduce", "--nprocs", "2,3"], "--nprocs: 3 is larger than the launch (2 ranks)"),
    (["--ops", "allreduce", "--nprocs", "0"], "--nprocs: 0 is out of range"),
    (["--ops", "bcast", "--nprocs", "1,2", "--root", "1"], "--root: 1 is not a rank of the sub-communicator of 1"),
    (["--ops", "pingpong-send-recv", "--nprocs", "2"], "--nprocs with pingpong-send-recv"),
    (["--ops", "allreduce", "--nprocs", "2", "--nrep", "auto"], "--nprocs with --nrep auto"),
    (["--ops", "mw-waitsome", "--nprocs", "1,2"], "--nprocs 1 with --ops mw-waitsome"),
])
def test_bad_nprocs_is_refused(lib, tmp_path, args, needle):
    assert_refused(lib, args, needle, tmp_path)


@pytest.mark.parametrize("np_", [2, 4])
def test_simple_attach_times_attach_and_detach(lib, np_, tmp_path):
    """SKaMPI's MPI_Buffer_attach/detach as an op-table row: a sized simple call on every rank;
    a buffer MPI_Buffer_attach cannot take exits 2."""
    row = next(o for o in described(lib)["operations"] if o["name"] == "simple-attach")
    assert row["kind"] == "simple" and not row["size_unused"]
    out = tmp_path / "attach"
    run_bench(lib, np_, ["--ops", "simple-attach", "--sizes", "1024,1048576", *FAST, "--out", out])
    meta, raw = read_launch(out)
    assert {t["status"] for t in meta["tests"]} == {"complete"}
    assert sorted(t["size"] for t in meta["tests"]) == [1024, 1048576]
    assert raw.groupby("test")["rank"].nunique().eq(np_).all()
    assert ((raw["end_ns"] - raw["start_ns"]) > 0).all()
    assert_refused(lib, ["--ops", "simple-attach", "--sizes", "0"], "is not a buffer MPI_Buffer_attach takes",
                   tmp_path)
