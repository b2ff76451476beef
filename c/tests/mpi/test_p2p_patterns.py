# SPDX-License-Identifier: BSD-3-Clause
"""Point-to-point ping-pongs, master-worker patterns and simple calls, as rows of the op table:

- every new op runs through the one loop on 2 and 4 ranks (master-worker also on 3, with a
  master that is not rank 0), with both libraries; --list-ops and --describe list them with
  their kind, and meta.json records it (ping-pongs: "round_trip": true);
- the ping-pong pair: --pair A,B is used as given; without it the launch samples pairs and
  takes the one with the largest median 1-byte round trip (SKaMPI), recorded in
  probes.pingpong_pair; ranks outside the pair idle;
- the empty-region probe (probes.empty_region_ns) is in every launch;
- a ping-pong's one-way latency (the analysis halves the round trip) is positive at 1 B and
  below its value at 1 MiB, and its bandwidth column is filled and rises with size;
- communicators created by simple-comm-dup are freed outside the timed region (more
  repetitions than a library has context ids);
- bad input (odd ranks, 1 rank, --pair 0,0, --pair 0,9 on 2 ranks) exits 2 with one line and
  writes nothing.

Timings on this VM are noisy (two cores shared with other work): correctness, not speed.
"""

from __future__ import annotations

import json
import subprocess

import numpy as np
import pytest
from conftest import LIBS, NO_EXTRA_CALLS, assert_refused, bench_path, described, read_launch, run_bench

from mpimeter import analysis

PINGPONGS = ["pingpong-send-recv", "pingpong-ssend-recv", "pingpong-isend-recv", "pingpong-send-irecv",
             "pingpong-isend-irecv", "pingpong-bsend-recv", "pingpong-sendrecv", "pingpong-sendrecv-replace",
             "pingpong-iprobe-recv", "pingpong-anytag"]
MASTER_WORKER = ["mw-recv-any", "mw-waitany", "mw-waitsome", "mw-send", "mw-isend", "mw-bsend", "mw-ssend"]
SIMPLE = ["simple-wtime", "simple-comm-rank", "simple-comm-size", "simple-iprobe", "simple-comm-split",
          "simple-comm-dup", "simple-empty"]
KINDS = {"pingpong": "point-to-point", "mw": "master-worker", "simple": "simple"}


def _kind(op: str) -> str:
    return KINDS[op.split("-")[0]]


def test_list_ops_and_describe_list_the_new_ops(lib):
    listed = subprocess.run([str(bench_path(lib)), "--list-ops"], capture_output=True, text=True,
                            timeout=30, check=True).stdout
    names = {line.split()[0] for line in listed.splitlines() if line.strip()}
    ops = {o["name"]: o for o in described(lib)["operations"]}
    for op in PINGPONGS + MASTER_WORKER + SIMPLE:
        assert op in names and op in ops
        assert ops[op]["kind"] == _kind(op)
        assert ops[op]["round_trip"] == op.startswith("pingpong-")
        assert ops[op]["uses_pair"] == op.startswith("pingpong-")
        assert ops[op]["uses_root"] == op.startswith("mw-")
        assert ops[op]["size_unused"] == op.startswith("simple-")
    pair = {o["name"]: o for o in described(lib)["options"]}["pair"]
    assert pair["type"] == "pair" and pair["default"] == "auto" and "bench" in pair["modes"]


def _check_launch(folder, ops, np_):
    meta, raw = read_launch(folder)
    assert meta["status"] == "complete"
    assert all(t["status"] == "complete" for t in meta["tests"]), [t for t in meta["tests"] if t["status"] != "complete"]
    for op in ops:
        info = meta["operations"][op]
        assert info["kind"] == _kind(op) and info["round_trip"] == op.startswith("pingpong-")
        rows = raw[raw.op == op]
        assert set(rows["rank"]) == set(range(np_))
        assert (rows.end_ns >= rows.start_ns).all()
    assert meta["probes"]["empty_region_ns"] >= 0
    return meta, raw


@pytest.mark.parametrize("np_", [2, 4])
def test_every_new_op_runs_on_2_and_4_ranks(lib, np_, tmp_path):
    ops = PINGPONGS + MASTER_WORKER + SIMPLE
    out = tmp_path / "all"
    nrep = 4 if (lib == "mpich" and np_ > 2) else 8  # MPICH busy-polls when oversubscribed
    run_bench(lib, np_, ["--ops", ",".join(ops), "--sizes", "0,1024", "--datatype", "byte", "--nrep", nrep,
                         *NO_EXTRA_CALLS, "--procsync", "barrier", "--seed", 11, "--out", out], timeout=600)
    meta, raw = _check_launch(out, ops, np_)
    # the simple calls take no size: one test each
    assert sorted(raw[raw.op == "simple-empty"]["size"].unique()) == [0]
    pair = meta["probes"]["pingpong_pair"]
    assert pair["chosen_by"] == "largest-latency" and meta["config"]["pair"] is None
    samples = pair["samples"]
    # rank 0 with every other rank, then seeded random pairs among those not yet listed
    assert [s["ranks"] for s in samples[:np_ - 1]] == [[0, r] for r in range(1, np_)]
    assert len(samples) == (1 if np_ == 2 else 6)
    medians = [s["median_rtt_ns"] for s in samples]
    assert all(m > 0 for m in medians)
    assert pair["ranks"] == samples[int(np.argmax(medians))]["ranks"]


def test_master_worker_on_3_ranks_with_master_1(lib, tmp_path):
    out = tmp_path / "mw"
    run_bench(lib, 3, ["--ops", ",".join(MASTER_WORKER), "--sizes", "0,4096", "--datatype", "byte",
                       "--nrep", 10, *NO_EXTRA_CALLS, "--procsync", "barrier", "--root", 1, "--out", out], timeout=300)
    meta, _ = _check_launch(out, MASTER_WORKER, 3)
    assert meta["probes"]["pingpong_pair"] is None  # no ping-pong: no pair chosen


def test_given_pair_is_used_and_the_other_ranks_idle(lib, tmp_path):
    out = tmp_path / "pair"
    run_bench(lib, 4, ["--ops", "pingpong-send-recv", "--sizes", 4096, "--datatype", "byte", "--nrep", 20,
                       "--procsync", "barrier", "--pair", "3,1", "--out", out], timeout=300)
    meta, raw = _check_launch(out, ["pingpong-send-recv"], 4)
    assert meta["config"]["pair"] == [3, 1]
    assert meta["probes"]["pingpong_pair"] == {"ranks": [3, 1], "chosen_by": "option", "round_trips": 0,
                                               "samples": []}
    med = (raw.end_ns - raw.start_ns).groupby(raw["rank"]).median()
    # the pair's calls carry the round trip; the idle ranks' calls return at once
    assert min(med[3], med[1]) > max(med[0], med[2])


def test_pingpong_one_way_latency_and_bandwidth(lib, tmp_path):
    camp = tmp_path / "pp"
    out = camp / "launches" / "000"
    run_bench(lib, 2, ["--ops", "pingpong-send-recv", "--sizes", "1,1048576", "--datatype", "byte",
                       "--nrep", 60, "--warmup", 20, "--procsync", "barrier", "--pair", "0,1",
                       "--out", out], timeout=300)
    _, raw = read_launch(out)
    res = analysis.analyze(analysis.load_campaign(camp, cache=False, store=False), clock="local", outlier="none")
    small, large = res.row("pingpong-send-recv", 1), res.row("pingpong-send-recv", 1048576)
    assert small.one_way and large.one_way
    assert 0 < small.median_ns < large.median_ns
    # the one-way latency is half the run time of the round trip: the initiator's (rank 0 of
    # --pair 0,1) local duration, over the repetitions valid on every rank
    for row, size in ((small, 1), (large, 1048576)):
        t = raw[raw["size"] == size]
        valid = t.groupby("rep")["valid"].min() == 1
        mine = t[t["rank"] == 0].set_index("rep")
        rt = (mine.end_ns - mine.start_ns)[valid[mine.index].to_numpy()]
        assert row.median_ns == pytest.approx(np.median(rt) / 2)
    assert small.bandwidth_Bps is not None and large.bandwidth_Bps is not None
    assert large.bandwidth_Bps > small.bandwidth_Bps


def test_communicators_made_in_the_timed_call_are_freed(lib, tmp_path):
    # MPICH has about 2000 context ids: without the after-hook freeing them this would fail
    out = tmp_path / "dup"
    run_bench(lib, 2, ["--ops", "simple-comm-dup,simple-comm-split", "--nrep", 2200, "--warmup", 0,
                       "--procsync", "barrier", "--out", out], timeout=300)
    _check_launch(out, ["simple-comm-dup", "simple-comm-split"], 2)


@pytest.mark.parametrize("np_, args, message", [
    (3, [], "mpimeter-bench: --ops: pingpong-send-recv needs an even number of ranks, at least 2 (got 3)"),
    (1, [], "mpimeter-bench: --ops: pingpong-send-recv needs an even number of ranks, at least 2 (got 1)"),
    (2, ["--pair", "0,0"], "mpimeter-bench: --pair: '0,0' names rank 0 twice; allowed: two distinct ranks A,B "
                           "(whole numbers from 0, below the number of ranks), or auto"),
    (2, ["--pair", "0,9"], "mpimeter-bench: --pair: 0,9 names rank 9, which is not a rank of this launch; "
                           "allowed: two distinct ranks from 0 to 1, or auto"),
])
def test_bad_input_exits_2_and_writes_nothing(lib, np_, args, message, tmp_path):
    assert_refused(lib, ["--ops", "pingpong-send-recv"] + args, message, tmp_path, np=np_)


def test_pair_without_a_pingpong_is_refused(lib, tmp_path):
    # it would shape nothing: refused rather than silently ignored
    assert_refused(lib, ["--ops", "allreduce,mw-send", "--pair", "0,1"],
                   "mpimeter-bench: --pair applies only to ping-pongs and one-sided data movement "
                   "(pingpong-send-recv, rma-put, ...; see --list-ops) and --ops has none", tmp_path)


def test_master_worker_needs_two_ranks(tmp_path):
    assert_refused(LIBS[0], ["--ops", "mw-send"],
                   "mpimeter-bench: --ops: mw-send needs at least 2 ranks: a master and a worker (got 1)",
                   tmp_path, np=1)


def test_validate_refuses_odd_ranks_without_mpi(lib):
    b = str(bench_path(lib))
    bad = subprocess.run([b, "--validate", "3", "--ops", "pingpong-anytag"], capture_output=True, text=True,
                         timeout=30)
    assert bad.returncode == 2 and bad.stdout == ""
    assert "needs an even number of ranks" in bad.stderr
    ok = subprocess.run([b, "--validate", "4", "--ops", "pingpong-anytag", "--pair", "1,3"],
                        capture_output=True, text=True, timeout=30)
    assert ok.returncode == 0, ok.stderr
    doc = json.loads(ok.stdout)
    assert doc["config"]["pair"] == [1, 3] and doc["operations"]["pingpong-anytag"]["round_trip"] is True


def test_an_automatic_window_runs_round_trips_back_to_back_and_a_sized_one_does_not(lib, tmp_path):
    """Under the default window, a ping-pong runs with `none` from its first repetition, recorded as
    a switch with why `round-trip` and no condition; a collective of the same launch keeps the
    window; a window the user sized (--window-us) starts the round trips too."""
    auto = tmp_path / "auto"
    # What load does to window starts is not this test's (test_busy_machine.py's): on a loaded
    # machine two late batches of allreduce's starts switched it to roundtime ("late-twice"), and
    # a test whose every start woke late or overran had no valid repetition. --switch-late-fraction
    # 1: late starts never make the window give up, so the only switch a test can show is the
    # round trip's; the longest start tolerance: a rank preempted in its wait does not void the
    # start; 100 repetitions: batches enough for an automatic window to grow past what load makes
    # a call take (it doubles per batch); a sized window of 10 ms, not 0.2: with four CPU hogs
    # 86 % of Open MPI's 8 B round trips overran 2 ms (on a quiet machine it costs 0.3 s)
    whatever_load = ["--switch-late-fraction", 1, "--start-tolerance-ns", 1_000_000_000]
    run_bench(lib, 2, ["--ops", "pingpong-send-recv,allreduce", "--sizes", "8,4096", "--nrep", 100, "--seed", 3,
                       *whatever_load, "--out", auto], timeout=300)
    meta, raw = _check_launch(auto, ["pingpong-send-recv"], 2)
    assert meta["config"]["procsync"] == "window"
    for t in meta["tests"]:
        if t["op"] == "pingpong-send-recv":
            assert t["procsync_switches"] == [{"from": "window", "to": "none", "why": "round-trip", "from_rep": 0,
                                               "at_seq": 0, "late_fraction": None, "window_ns": None}], t
            # no planned start: nothing can be late, and no window was sized for it
            assert t["start_tolerance_ns"] in (None, 0) and t["window_ns"] is None, t
            assert (raw[raw.test == t["test"]]["valid"] == 1).all()
        else:
            assert t["procsync_switches"] == [] and t["window_ns"] > 0, t
    assert not [c for c in meta["conditions"] if c["code"] == "procsync-switched"]

    sized = tmp_path / "sized"
    run_bench(lib, 2, ["--ops", "pingpong-send-recv", "--sizes", "8", "--nrep", 30, "--window-us", 10_000,
                       "--seed", 3, *whatever_load, "--out", sized], timeout=300)
    meta, _ = _check_launch(sized, ["pingpong-send-recv"], 2)
    assert [t["procsync_switches"] for t in meta["tests"]] == [[]]
    assert meta["tests"][0]["window_ns"] == 10_000_000
