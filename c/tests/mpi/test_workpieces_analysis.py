# SPDX-License-Identifier: BSD-3-Clause
"""Launches of the real binary with ``--workpieces LIST`` (2 ranks) analysed as one
campaign: mw-workpieces has one result per number of work pieces (tests[].workpieces, a
dimension of the key like p), the ops without work pieces keep their key, and analyze's JSON and
table say which row is which."""

from __future__ import annotations

import json

from click.testing import CliRunner
from conftest import workpieces_campaign

from mpimeter import analysis
from mpimeter.cli.analyze import command as analyze_command

def test_two_rank_launches_keep_the_work_pieces_apart(lib, tmp_path):
    campaign = workpieces_campaign(lib, tmp_path / "c", "mw-workpieces,allreduce", first_seed=11)
    res = analysis.analyze(analysis.load_campaign(campaign, cache=False, store=False))
    mw = {r.workpieces: r for r in res.rows if r.op == "mw-workpieces"}
    assert sorted(mw) == [1, 32]
    for w, r in mw.items():
        assert r.launches == 2 and r.nprocs == 2 and all(s.workpieces == w for s in r.per_launch)
    # not pooled: each row's median is of its own launches' tests (no speed compared: one piece
    # can read slower than 32 on a loaded machine)
    assert mw[32].median_ns != mw[1].median_ns
    assert {s.median_ns for s in mw[32].per_launch}.isdisjoint(s.median_ns for s in mw[1].per_launch)
    (allreduce,) = [r for r in res.rows if r.op == "allreduce"]
    assert allreduce.workpieces is None and allreduce.launches == 2
    out = CliRunner().invoke(analyze_command, [str(campaign), "--no-cache", "--format", "json"])
    assert out.exit_code == 0, out.output
    rows = json.loads(out.output)["rows"]
    assert sorted((r["op"], r["workpieces"] or 0) for r in rows) == [
        ("allreduce", 0), ("mw-workpieces", 1), ("mw-workpieces", 32)]
    table = CliRunner().invoke(analyze_command, [str(campaign), "--no-cache"], env={"COLUMNS": "250"})
    assert table.exit_code == 0 and "workpieces" in table.output
