# SPDX-License-Identifier: BSD-3-Clause
"""IMB-RMA's contention patterns: one-to-all, all-to-all and all-to-one puts and gets
on every rank, in the modes that pattern allows, on 2 and 4 ranks with both libraries; after each
test every window slot a put reached holds its origin's data and every fetched block its target's
(a corrupted byte fails the test with a message); bad input refused with one line, exit 2.

Launches are short (few repetitions, small sizes): they assert correctness and shape."""

from __future__ import annotations

import pytest
from conftest import NO_EXTRA_CALLS, assert_refused, assert_verify_failed, read_launch, run_bench

QUICK = ["--nrep", "4", *NO_EXTRA_CALLS, "--procsync", "barrier", "--copy-probe-bytes", "0"]
OPS = ["rma-one-put-all", "rma-one-get-all", "rma-all-put-all", "rma-all-get-all", "rma-all-put-one",
       "rma-all-get-one"]


@pytest.mark.parametrize("np", [2, 4])
@pytest.mark.parametrize("mode", ["fence", "lock-all-flush", "lock-all-flush-local"])
def test_every_pattern_moves_the_right_data(lib, np, mode, tmp_path):
    out = tmp_path / "o"
    # root 1 on 4 ranks: the one rank is not rank 0; a burst of 3 rounds (aggregate mode)
    root = ["--root", "1"] if np == 4 else []
    run_bench(lib, np, QUICK + ["--ops", ",".join(OPS), "--rma-sync", mode, "--rma-burst", "3",
                                "--sizes", "8,1024"] + root + ["--out", out], timeout=180)
    meta, raw = read_launch(out)
    failed = [(t["op"], t["size"], t.get("error")) for t in meta["tests"] if t["status"] != "complete"]
    assert not failed, failed
    assert len(meta["tests"]) == len(OPS) * 2
    assert meta["config"]["rma"] == {"sync": mode, "window": "create", "burst": 3, "window_bytes": None}
    assert {meta["operations"][o]["kind"] for o in OPS} == {"one-sided"}
    # every rank communicates, not a pair: compare --ops keeps them apart from rma-put's family
    assert {meta["operations"][o]["uses_pair"] for o in OPS} == {False}
    assert len(raw) == len(meta["tests"]) * 4 * np  # every rank records every repetition


@pytest.mark.parametrize("window", ["allocate", "dynamic"])
def test_the_non_aggregate_mode_in_other_windows(lib, window, tmp_path):
    out = tmp_path / "o"
    run_bench(lib, 4, QUICK + ["--ops", "rma-all-put-all,rma-one-get-all,rma-all-put-one", "--rma-sync",
                               "lock-all-flush", "--rma-burst", "1", "--rma-window", window, "--sizes", "64",
                               "--out", out], timeout=180)
    meta, _ = read_launch(out)
    assert [t["status"] for t in meta["tests"]] == ["complete"] * 3, meta["tests"]
    assert meta["config"]["rma"]["window"] == window and meta["config"]["rma"]["burst"] == 1


@pytest.mark.parametrize("op", ["rma-all-put-one", "rma-one-get-all"])
def test_a_corrupted_byte_fails_the_test_with_a_message(lib, op, tmp_path):
    out = tmp_path / "o"
    run_bench(lib, 4, QUICK + ["--ops", f"{op},rma-all-put-all", "--rma-sync", "fence", "--rma-burst", "2",
                               "--sizes", "64", "--inject-error", op, "--out", out], timeout=180)
    meta, raw = read_launch(out)
    by_op = assert_verify_failed(meta, op, "--rma-sync fence")
    assert op not in set(raw["op"])
    assert by_op["rma-all-put-all"]["status"] == "complete"


@pytest.mark.parametrize("args,needle", [
    (["--ops", "rma-all-put-all", "--rma-sync", "pscw"],
     "a contention pattern runs in a lock_all epoch or between fences; allowed --rma-sync: fence"),
    (["--ops", "rma-one-put-all", "--rma-sync", "lock"], "rma-one-put-all: a contention pattern"),
    (["--ops", "rma-all-get-one"], "a one-sided operation needs its synchronization mode"),
    (["--ops", "rma-all-put-all", "--rma-sync", "fence", "--rma-window-bytes", "4096"],
     "--rma-window-bytes with --ops rma-all-put-all"),
])
def test_bad_input_is_refused(args, needle, tmp_path):
    assert_refused("mpich", args, needle, tmp_path)


def test_one_rank_is_refused(tmp_path):
    assert_refused("openmpi", ["--ops", "rma-one-put-all", "--rma-sync", "fence"], "needs at least 2 ranks",
                   tmp_path, np=1)
