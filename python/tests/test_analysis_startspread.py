# SPDX-License-Identifier: BSD-3-Clause
"""The start-spread double check (analysis/startspread.py): repetitions whose ranks did not start
together on the global clock are dropped like invalid ones, counted, and warned about; the
tolerance is the test's start_tolerance_ns (schema 2) or FORMAT.md's rule (schema 1)."""

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from data.synth import meta_template, write_campaign

from mpimeter import analysis
from mpimeter.analysis.startspread import tolerance_ns
from mpimeter.cli.analyze import command
from mpimeter.io.meta import parse_meta


def analyzed(folder, **kw):
    return analysis.analyze(analysis.load_campaign(folder, cache=False, store=False), **kw)


def test_late_starts_are_dropped_counted_and_warned_about(tmp_path):
    camp = write_campaign(tmp_path / "c", 3, seed=1, nrep=100, late_start_fraction=0.1)
    res = analyzed(camp)
    dropped = sum(r.start_spread_dropped for r in res.rows)
    assert 80 < dropped < 160  # ~10 % of 3 launches × 4 tests × 100 repetitions
    assert sum(s.n_start_spread for r in res.rows for s in r.per_launch) == dropped
    assert all(r.invalid == 0 for r in res.rows)  # counted apart from the binary's invalid repetitions
    assert (~res.repetitions["kept"][res.repetitions["valid"]]).sum() >= dropped
    (w,) = [w for w in res.warnings if w.code == "late-start-spread"]
    assert w.message.startswith(f"{dropped} repetition(s) were dropped because their ranks did not start together")
    assert "against a tolerance of 1.00 µs" in w.message and w.where.startswith("c/")
    assert f"{dropped} repetition(s) dropped" in res.clock_note
    clean = analyzed(write_campaign(tmp_path / "ok", 3, seed=1, nrep=100))
    assert sum(r.start_spread_dropped for r in clean.rows) == 0 and "start spread" not in clean.clock_note


def test_dropping_changes_the_medians_toward_the_truth(tmp_path):
    late = analyzed(write_campaign(tmp_path / "late", 3, seed=2, nrep=100, late_start_fraction=0.3), outlier="none")
    truth = analyzed(write_campaign(tmp_path / "truth", 3, seed=2, nrep=100), outlier="none")
    for r, t in zip(late.rows, truth.rows):
        assert abs(r.mean_ns - t.mean_ns) < 0.05 * t.mean_ns  # 5 µs late starts would add ~1.5 µs to the mean


def test_a_few_late_starts_are_counted_without_a_warning(tmp_path):
    res = analyzed(write_campaign(tmp_path / "c", 3, seed=3, nrep=300, late_start_fraction=0.003))
    assert sum(r.start_spread_dropped for r in res.rows) > 0
    assert "late-start-spread" not in {w.code for w in res.warnings}


def test_the_local_clock_and_reduced_raw_are_not_checked(tmp_path):
    camp = write_campaign(tmp_path / "c", 2, seed=4, nrep=50, late_start_fraction=0.2)
    local = analyzed(camp, clock="local")
    assert sum(r.start_spread_dropped for r in local.rows) == 0
    reduced = analyzed(write_campaign(tmp_path / "r", 2, seed=4, nrep=50, raw_mode="reduced"))
    assert sum(r.start_spread_dropped for r in reduced.rows) == 0
    assert reduced.clock_note.count("the start spread of 2 launch(es) is not checked: --raw reduced") == 1
    assert "late-start-spread" not in {w.code for w in reduced.warnings}


def test_schema_2_uses_the_tolerance_of_the_test(tmp_path):
    camp = write_campaign(tmp_path / "c", 2, seed=5, nrep=50, schema=2, late_start_fraction=0.2)
    assert sum(r.start_spread_dropped for r in analyzed(camp).rows) > 0
    for p in camp.glob("launches/*/meta.json"):  # a tolerance above the 5 µs late starts keeps them
        m = json.loads(p.read_text())
        for t in m["tests"]:
            t["start_tolerance_ns"] = 6000
        p.write_text(json.dumps(m))
    assert sum(r.start_spread_dropped for r in analyzed(camp).rows) == 0


@pytest.mark.parametrize("overhead,procsync,expected", [
    (20.0, "window", 1000.0),  # 10 × 20 = 200: at least 1000 ns
    (150.0, "roundtime", 1500.0),  # 10 × 150
    (20.0, "barrier", None),  # no planned start: not checked
])
def test_a_tolerance_the_binary_did_not_write_follows_format_md(overhead, procsync, expected):
    # version 1 writes a window (or start slack) exactly for the tests with a planned start
    tests = [{"test": 0, "op": "bcast", "size": 8, "status": "complete", "nrep": 5,
              "window_ns": 20000 if procsync in ("window", "roundtime", "harmonize") else None}]
    doc = meta_template(2, clocksync="skampi", procsync=procsync, tests=tests, status="complete")
    doc["timer"]["overhead_ns"] = overhead
    m = parse_meta(doc, Path("meta.json"))
    assert tolerance_ns(m, m.tests[0]) == expected
    v2 = parse_meta(dict(doc, schema_version=2), Path("meta.json"))
    # version 2 writes none where ranks share CPUs (its own check is off): the same rule applies,
    # every start is checked (issue 24); without a planned start still none
    assert tolerance_ns(v2, v2.tests[0]) == expected


def test_the_per_launch_table_and_json_carry_the_count(tmp_path):
    camp = write_campaign(tmp_path / "c", 3, seed=6, nrep=100, late_start_fraction=0.1)
    out = json.loads(CliRunner().invoke(command, [str(camp), "--no-cache", "--format", "json"]).stdout)
    assert sum(r["start_spread_dropped"] for r in out["rows"]) == sum(s["n_start_spread"] for s in out["launch_summaries"])
    assert np.sum([s["n_start_spread"] for s in out["launch_summaries"]]) > 0


OVERSUBSCRIBED = {"code": "oversubscribed", "message": "more ranks than CPUs on a machine (3 ranks share 2 CPUs)",
                  "hint": "run at most one rank per CPU for timings", "where": "node1"}


def _no_tolerance(camp):
    """As the binary writes an oversubscribed launch: its own check off, no tolerance."""
    for p in camp.glob("launches/*/meta.json"):
        m = json.loads(p.read_text())
        for t in m["tests"]:
            t["start_tolerance_ns"] = None
        p.write_text(json.dumps(m))


def test_oversubscribed_launches_are_checked_with_the_automatic_tolerance(tmp_path):
    camp = write_campaign(tmp_path / "c", 2, seed=7, nrep=100, schema=2, late_start_fraction=0.2,
                          conditions=[OVERSUBSCRIBED])
    _no_tolerance(camp)
    res = analyzed(camp)
    dropped = sum(r.start_spread_dropped for r in res.rows)
    assert 2 * 4 * 100 * 0.1 < dropped < 2 * 4 * 100 * 0.3  # the 5 µs late starts of ~20 % of the repetitions
    assert ("the start spread of 2 launch(es) whose binary wrote no start tolerance (ranks sharing CPUs) is checked "
            "against 1.00 µs: 10 timer overheads, at least 1.00 µs") in res.clock_note
    assert "late-start-spread" in {w.code for w in res.warnings}
    on_time = write_campaign(tmp_path / "ok", 2, seed=7, nrep=100, schema=2, conditions=[OVERSUBSCRIBED])
    _no_tolerance(on_time)
    assert sum(r.start_spread_dropped for r in analyzed(on_time).rows) == 0


def _drift_rank_1_after_the_fact(camp, drift_ns):
    """sync.csv as an offset-only sync sees it when rank 1's clock ran away between the syncs: its
    offset at the second sync is ``drift_ns`` larger than at the first, which the online clock
    (first sync only) never applied."""
    for p in camp.glob("launches/*/sync.csv"):
        lines = p.read_text().splitlines()
        out = [lines[0]]
        for ln in lines[1:]:
            f = ln.split(",")
            if f[0] == "1" and f[1] == "1" and f[2] in ("model", "edge"):
                f[5] = str(int(f[5]) + drift_ns)
            out.append(",".join(f))
        p.write_text("\n".join(out) + "\n")


def test_validity_is_recomputed_on_the_resynced_clock(tmp_path):
    camp = write_campaign(tmp_path / "c", 2, seed=8, nrep=100, schema=2, syncs=2)
    _drift_rank_1_after_the_fact(camp, 140_000)
    online = analyzed(camp, clock="online")
    assert sum(r.start_spread_dropped for r in online.rows) == 0  # the online starts agreed
    res = analyzed(camp)  # auto: the re-synced clock
    assert {s.clock for r in res.rows for s in r.per_launch} == {"global-resync"}
    dropped = sum(r.start_spread_dropped for r in res.rows)
    assert dropped > 0.9 * 2 * 4 * 100  # rank 1's corrected starts drift up to 140 µs away: nearly all
    assert "the start spread of 2 launch(es) is taken on the re-synced clock" in res.clock_note
    (w,) = [w for w in res.warnings if w.code == "late-start-spread"]
    assert "against a tolerance of 1.00 µs" in w.message
    # without the drift the re-synced starts agree as the online ones do
    clean = write_campaign(tmp_path / "ok", 2, seed=8, nrep=100, schema=2, syncs=2)
    assert sum(r.start_spread_dropped for r in analyzed(clean).rows) == 0
