# SPDX-License-Identifier: BSD-3-Clause
"""The back-to-back companion of a test (--back-to-back, meta.json tests[].back_to_back):

- by default every ping-pong and blocking collective test records {calls, mean_ns}, calls at
  most 100 (or --back-to-back N: fewer when N calls would take over 10 ms, which depends on the
  machine's load; the count itself is unit-tested in test_back_to_back.c), mean_ns positive; a nonblocking collective records none; the test's own
  rows and counts are those of a launch without it;
- --back-to-back 0 switches it off: config.back_to_back is 0 and no test has the key;
- a count out of range is refused (exit 2, one line, nothing written).
"""

from __future__ import annotations

from conftest import assert_refused, read_launch, run_bench

SMALL = ["--ops", "pingpong-send-recv,allreduce,ibcast", "--sizes", "8,1024", "--nrep", "12", "--warmup", "2",
         "--procsync", "barrier", "--copy-probe-bytes", "0", "--seed", "3", "--quiet"]
WITH_COMPANION = {"pingpong-send-recv", "allreduce"}


def test_each_pingpong_and_blocking_collective_records_its_companion(lib, tmp_path):
    run_bench(lib, 2, SMALL + ["--out", tmp_path / "on"], timeout=120)
    meta, raw = read_launch(tmp_path / "on")
    assert meta["config"]["back_to_back"] == 100
    assert len(meta["tests"]) == 6
    for t in meta["tests"]:
        assert t["status"] == "complete", t
        if t["op"] in WITH_COMPANION:
            b = t["back_to_back"]
            assert set(b) == {"calls", "mean_ns"}
            assert 1 <= b["calls"] <= 100 and b["mean_ns"] > 0, t
        else:
            assert "back_to_back" not in t, t
        # the companion ran into arrays of its own: the test's rows are its 12 per rank
        assert t["nrep"] == 12
        assert len(raw[raw["test"] == t["test"]]) == 12 * 2


def test_a_given_count_and_zero_switches_it_off(lib, tmp_path):
    run_bench(lib, 2, SMALL + ["--back-to-back", "7", "--out", tmp_path / "seven"], timeout=120)
    meta, _ = read_launch(tmp_path / "seven")
    assert meta["config"]["back_to_back"] == 7
    calls = [t["back_to_back"]["calls"] for t in meta["tests"] if t["op"] in WITH_COMPANION]
    assert len(calls) == 4 and all(1 <= c <= 7 for c in calls)
    run_bench(lib, 2, SMALL + ["--back-to-back", "0", "--out", tmp_path / "off"], timeout=120)
    meta, raw = read_launch(tmp_path / "off")
    assert meta["config"]["back_to_back"] == 0
    assert all("back_to_back" not in t and t["status"] == "complete" for t in meta["tests"])
    assert len(raw) == 6 * 12 * 2


def test_a_negative_count_is_refused(lib, tmp_path):
    assert_refused(lib, SMALL + ["--back-to-back", "-1"], "--back-to-back", tmp_path)
