# SPDX-License-Identifier: BSD-3-Clause
"""Issue 27: ``compare --ops A,B`` with master-worker work pieces. mw-workpieces (one test per
value of ``--workpieces LIST``) takes 1 µs per piece: against an operation without work pieces
each number is its own row (the other operation's one result at that size, p and root as the
reference), never one row pooling them; two operations that both have them pair a number with
the same number, and with no number in common the comparison is refused (one line, exit 2); the
rows say their work pieces, in the table, the JSON and the CSV."""

from __future__ import annotations

import csv
import io
import json

import pytest
from click.testing import CliRunner
from data import synth
from test_analysis_workpieces import NS_PER_PIECE, PIECES, pieces_campaign

from mpimeter import analysis
from mpimeter.cli import main


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    return pieces_campaign(tmp_path_factory.mktemp("opcompare-pieces") / "c", launches=5)


def test_each_number_of_work_pieces_is_compared_on_its_own(campaign):
    res = analysis.compare_ops(analysis.analyze(analysis.load_campaign(campaign, cache=False, store=False)),
                               "allreduce", "mw-workpieces")
    assert sorted((r.size, r.workpieces) for r in res.rows) == [(s, w) for s in (8, 1024) for w in PIECES]
    for r in res.rows:  # allreduce: 5 µs + size; mw-workpieces: 1 µs a piece + size (synthetic truths)
        assert r.nprocs == 2 and r.launches_a == r.launches_b == 5
        assert r.median_a_ns == pytest.approx(5000.0 + r.size, rel=0.03)
        assert r.median_b_ns == pytest.approx(NS_PER_PIECE * r.workpieces + r.size, rel=0.03)
        assert r.ratio == pytest.approx((NS_PER_PIECE * r.workpieces + r.size) / (5000.0 + r.size), rel=0.03)
    # 1 and 4 pieces are faster than allreduce, 16 slower: one pooled row could say neither
    assert {r.workpieces for r in res.rows if r.ratio > 1} == {16}
    assert all(r.significant for r in res.rows)
    # the other order: the same rows, the ratio inverted
    back = analysis.compare_ops(analysis.analyze(analysis.load_campaign(campaign, cache=False, store=False)),
                                "mw-workpieces", "allreduce")
    assert [(r.size, r.workpieces) for r in back.rows] == [(r.size, r.workpieces) for r in res.rows]
    assert all(b.ratio == pytest.approx(1 / a.ratio, rel=0.03) for a, b in zip(back.rows, res.rows))


def test_the_cli_shows_the_work_pieces(campaign):
    table = CliRunner().invoke(main, ["compare", str(campaign), "--ops", "allreduce,mw-workpieces", "--no-cache"],
                               env={"COLUMNS": "250"})
    assert table.exit_code == 0, table.output
    header = next(line for line in table.output.splitlines() if "launches" in line)
    assert "workpieces" in header
    rows = [line for line in table.output.splitlines() if line.startswith("│") and "vs mw-workpieces" in line]
    assert len(rows) == 6
    out = CliRunner().invoke(main, ["compare", str(campaign), "--ops", "allreduce,mw-workpieces", "--no-cache",
                                    "--format", "json"])
    assert out.exit_code == 0, out.output
    rows = json.loads(out.output)["rows"]
    assert sorted((r["size"], r["workpieces"]) for r in rows) == [(s, w) for s in (8, 1024) for w in PIECES]
    out = CliRunner().invoke(main, ["compare", str(campaign), "--ops", "allreduce,mw-workpieces", "--no-cache",
                                    "--format", "csv"])
    assert out.exit_code == 0, out.output
    assert sorted(int(r["workpieces"]) for r in csv.DictReader(io.StringIO(out.output))) == sorted(PIECES * 2)


def both_pieces_campaign(folder, pieces_b):
    """Two operations that both record work pieces (synthetic: the binary has one such op today):
    "mw-a" at 1, 4, 16 and "mw-b" at ``pieces_b``, each 1 µs a piece, mw-b 20 % slower."""
    order = {"mw-a": PIECES, "mw-b": pieces_b}
    for i in range(3):
        launch = folder / "launches" / f"{i:03d}"
        seen: dict = {}

        def fn(op, size, rng, n, seen=seen):
            w = order[op][seen.setdefault((op, size), 0)]
            seen[(op, size)] += 1
            return (1.2 if op == "mw-b" else 1.0) * (NS_PER_PIECE * w + size) * rng.lognormal(0.0, 0.01, n)
        ops = ("mw-a",) * len(PIECES) + ("mw-b",) * len(pieces_b)
        synth.write_launch(launch, seed=i, ops=ops, sizes=(8,), nrep=20, time_fn=fn, schema=2)
        meta = json.loads((launch / "meta.json").read_text())
        count: dict = {}
        for t in meta["tests"]:  # in plan order, as fn saw them
            t["workpieces"] = order[t["op"]][count.setdefault((t["op"], t["size"]), 0)]
            count[(t["op"], t["size"])] += 1
        (launch / "meta.json").write_text(json.dumps(meta))
    return folder


def test_two_ops_with_work_pieces_pair_like_with_like_or_refuse(tmp_path):
    res = analysis.compare_ops(analysis.analyze(analysis.load_campaign(
        both_pieces_campaign(tmp_path / "common", (4, 16, 64)), cache=False, store=False)), "mw-a", "mw-b",
        per_repetition=True)
    assert sorted(r.workpieces for r in res.rows) == [4, 16]  # the numbers both measured, each with itself
    assert all(r.ratio == pytest.approx(1.2, rel=0.03) for r in res.rows)
    out = CliRunner().invoke(main, ["compare", str(both_pieces_campaign(tmp_path / "apart", (2, 8))), "--ops",
                                    "mw-a,mw-b", "--per-repetition", "--no-cache"])
    assert out.exit_code == 2 and len(out.output.strip().splitlines()) == 1, out.output
    assert "no size (at one process count, root and number of work pieces) was measured for both" in out.output
