# SPDX-License-Identifier: BSD-3-Clause
"""The probes of the performance bound (Hoefler & Belli 2015, rule 11), on real ranks:

- every launch records, before the tests, the copy rates of buffers from 4 KiB up to
  --copy-probe-bytes (every rank at once; least, median and largest over the ranks), and the
  latency floor of the sampled pairs (least and median 1-byte round trip per pair);
- --copy-probe-bytes 0 records no copy probe; the pairs are sampled, not all O(p²) of them;
- meta.json and --describe give each operation's bound volume (Chan et al. 2007's lower bound
  as a multiple of size for the launch's ranks);
- a value out of range is refused with one line and nothing written;
- the analysis reads the probes back (mpimeter.io.meta) and builds the bound from them.

Rates and latencies on this VM are noisy: the checks are of presence and order, not speed.
"""

from __future__ import annotations

import json

import pytest
from conftest import NO_EXTRA_CALLS, assert_refused, described, run_bench

from mpimeter.io.meta import read_meta


@pytest.mark.parametrize("np_", [2, 4])
def test_probes_are_in_meta_json(lib, np_, tmp_path):
    out = tmp_path / "l"
    run_bench(lib, np_, ["--ops", "allreduce,bcast,barrier", "--sizes", "8,4096", "--nrep", "5",
                         "--procsync", "barrier", "--copy-probe-bytes", "65536", *NO_EXTRA_CALLS, "--out", out])
    meta = json.loads((out / "meta.json").read_text())
    copy = meta["probes"]["copy_bandwidth"]
    assert copy["max_bytes"] == 65536 and copy["ranks_at_once"] == np_ and copy["batches"] == 5
    assert [s["bytes"] for s in copy["sizes"]] == [4096, 16384, 65536]
    for s in copy["sizes"]:
        assert s["ranks"] == np_ and 0 < s["min_Bps"] <= s["median_Bps"] <= s["max_Bps"]
    floor = meta["probes"]["latency_floor"]
    assert floor["pairs_by"] == "sampled" and floor["message_bytes"] == 1
    pairs = [p["ranks"] for p in floor["pairs"]]  # rank 0 with the next ranks first (pairs.c)
    assert pairs[:np_ - 1] == [[0, r] for r in range(1, np_)] and len(pairs) <= 20
    for p in floor["pairs"]:
        assert 0 < p["min_rtt_ns"] <= p["median_rtt_ns"]
    ops = meta["operations"]
    factor = 2 * (np_ - 1) / np_
    assert ops["allreduce"]["bound_volume"] == {"formula": "2(p-1)/p x size", "bytes_per_size": factor}
    assert ops["bcast"]["bound_volume"]["bytes_per_size"] == 1
    assert ops["barrier"]["bound_volume"] == {"formula": "0", "bytes_per_size": 0}
    assert meta["config"]["copy_probe_bytes"] == 65536
    typed = read_meta(out / "meta.json")  # the Python half reads what the C half wrote
    assert typed.copy_bandwidth is not None and typed.copy_bandwidth.peak_Bps == max(
        s["max_Bps"] for s in copy["sizes"])
    assert typed.latency_floor is not None and typed.latency_floor.floor_ns == min(
        p["min_rtt_ns"] for p in floor["pairs"]) / 2
    assert typed.operations["allreduce"].bound_bytes_per_size == factor


def test_no_copy_probe_and_default_size(lib, tmp_path):
    out = tmp_path / "l"
    run_bench(lib, 2, ["--ops", "barrier", "--nrep", "3", "--procsync", "barrier", "--copy-probe-bytes", "0",
                       "--out", out])
    meta = json.loads((out / "meta.json").read_text())
    assert meta["probes"]["copy_bandwidth"] is None and meta["config"]["copy_probe_bytes"] == 0
    assert meta["probes"]["latency_floor"]["pairs"][0]["ranks"] == [0, 1]  # the floor is always measured


def test_describe_lists_the_option_and_the_volumes(lib):
    doc = described(lib)
    option = next(o for o in doc["options"] if o["name"] == "copy-probe-bytes")
    assert option["type"] == "int" and option["min"] == 0 and option["max"] == 1073741824
    assert option["default"] == "33554432" and option["modes"] == ["bench"]
    volumes = {o["name"]: o["bound_volume"] for o in doc["operations"]}
    assert volumes["allreduce"] == "2(p-1)/p x size" and volumes["alltoall"] == "(p-1) x size"
    assert volumes["iallreduce"] is None and volumes["mw-send"] is None


@pytest.mark.parametrize("value, message", [
    ("-1", "mpimeter-bench: --copy-probe-bytes: -1 is out of range; allowed: a whole number from 0 to 1073741824"),
    ("2000000000", "mpimeter-bench: --copy-probe-bytes: 2000000000 is out of range"),
    ("lots", "mpimeter-bench: --copy-probe-bytes: 'lots' is not a whole number"),
])
def test_bad_value_is_refused(lib, value, message, tmp_path):
    assert_refused(lib, ["--ops", "barrier", "--copy-probe-bytes", value], message, tmp_path)


def test_the_report_shows_the_bounds_of_a_real_launch(lib, tmp_path):
    from mpimeter import analysis
    from mpimeter.analysis.bounds import bounds
    from mpimeter.report.html_report import build_report
    from mpimeter.report.rules import check_rules

    out = tmp_path / "l"
    run_bench(lib, 2, ["--ops", "allreduce,barrier", "--sizes", "8,1024,65536", "--nrep", "20", "--procsync",
                       "barrier", "--copy-probe-bytes", "1048576", "--out", out])
    result = analysis.analyze(analysis.load_campaign(out, cache=False, store=False))
    b = bounds(result)
    assert {(r.op, r.size) for r in b.rows} == {("allreduce", 8), ("allreduce", 1024), ("allreduce", 65536),
                                                ("barrier", 0)}
    for r in b.rows:  # latency floor + volume / copy bandwidth; the bound grows with the volume
        assert r.bound_ns >= r.latency_ns > 0 and r.cache_bound_ns <= r.bound_ns and r.fraction > 0
    alt = result.alternatives[0]  # a lone launch: named by its folder
    assert b.row(alt, "allreduce", 65536).copy_ns > b.row(alt, "allreduce", 8).copy_ns
    assert check_rules(result, None, bounds=b)[10].status == "met"
    text, _ = build_report(result, bounds=b)
    assert "Model and bounds" in text and "How close to the bound" in text
