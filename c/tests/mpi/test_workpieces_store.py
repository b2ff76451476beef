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
    assert rows[2][5] > rows[1][5]  # 32 round trips through the master, against one
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
    assert by_pieces[32]["median_b_ns"] > by_pieces[1]["median_b_ns"]  # b: mw-workpieces, its own median each
    assert by_pieces[32]["median_a_ns"] == by_pieces[1]["median_a_ns"]  # a: mw-waitsome's one result, both times
