# SPDX-License-Identifier: BSD-3-Clause
"""Launches of the real binary with ``--workpieces 1,32`` (2 ranks) through the results
store, the site and ``compare --ops``: mw-workpieces is one row per number of work pieces in the
store (``results.workpieces``), one history per number in the site, and one compared row per
number against mw-waitsome (which has none) — never one row pooling them."""

from __future__ import annotations

import json
import re

import duckdb
from click.testing import CliRunner
from conftest import workpieces_campaign

from mpimeter import analysis
from mpimeter.cli import main

def test_two_rank_launches_keep_the_work_pieces_apart_in_store_site_and_compare(lib, tmp_path):
    campaign = workpieces_campaign(lib, tmp_path / "c", "mw-workpieces,mw-waitsome", first_seed=21)
    store = tmp_path / "s.duckdb"
    r = CliRunner().invoke(main, ["store", "add", str(campaign), "--store", str(store), "--no-report"])
    assert r.exit_code == 0, r.output
    con = duckdb.connect(str(store), read_only=True)
    rows = con.execute("SELECT op, workpieces, nprocs, root, launches, median_ns FROM results ORDER BY 1, 2").fetchall()
    pieces = con.execute("SELECT workpieces, count(*) FROM launch_summaries WHERE op = 'mw-workpieces' "
                         "GROUP BY 1 ORDER BY 1").fetchall()
    con.close()
    assert [row[:5] for row in rows] == [("mw-waitsome", None, 2, 0, 2), ("mw-workpieces", 1, 2, 0, 2),
                                         ("mw-workpieces", 32, 2, 0, 2)]
    # each number's row holds that number's own median (as analyze computes it), not the other's:
    # compared by value, not by speed (1 piece can read slower than 32 on a loaded machine)
    res = analysis.analyze(analysis.load_campaign(campaign, cache=False, store=False))
    assert [rows[1][5], rows[2][5]] == [res.row("mw-workpieces", 64, workpieces=k).median_ns for k in (1, 32)]
    assert pieces == [(1, 2), (32, 2)]  # a summary per launch and number of pieces

    out = tmp_path / "www"
    r = CliRunner().invoke(main, ["site", "--store", str(store), "-o", str(out)])
    assert r.exit_code == 0, r.output
    histories = sorted(re.search(r"-(\d+)-w(\d+)\.html$", p.name).groups()
                       for p in (out / "history").rglob("*.html") if re.search(r"-\d+-w\d+\.html$", p.name))
    assert histories == [("64", "1"), ("64", "32")]

    r = CliRunner().invoke(main, ["compare", str(campaign), "--ops", "mw-waitsome,mw-workpieces",
                                  "--per-repetition", "--no-cache", "--format", "json"])
    assert r.exit_code == 0, r.output
    compared = json.loads(r.output)["rows"]
    assert sorted((c["size"], c["workpieces"], c["root"]) for c in compared) == [(64, 1, 0), (64, 32, 0)]
    by_pieces = {c["workpieces"]: c for c in compared}
    # b: mw-workpieces, each number its own median of the kept repetitions, by value (their order
    # against the store's medians of launch medians can flip when one launch is preempted)
    assert by_pieces[32]["median_b_ns"] != by_pieces[1]["median_b_ns"]
    reps = res.repetitions[res.repetitions["kept"] & (res.repetitions["op"] == "mw-workpieces")]
    for k in (1, 32):
        own = reps.loc[reps["workpieces"] == k, "run_time_ns"]
        assert len(own) > 0 and by_pieces[k]["median_b_ns"] == float(own.median()), (k, by_pieces[k])
    assert by_pieces[32]["median_a_ns"] == by_pieces[1]["median_a_ns"]  # a: mw-waitsome's one result, both times
