# SPDX-License-Identifier: BSD-3-Clause
"""Issue 27, SKaMPI's master–worker Waitsome varied over the number of work pieces: the analysis
keys mw-workpieces results by (op, size, p, workpieces) (meta.json ``tests[].workpieces``, one
test per value of ``--workpieces LIST``), and ops without work pieces keep their key. Synthetic
launches built so that pooling the work pieces gives a wrong answer: the call takes 1 µs per
piece, so 1, 4 and 16 pieces are three results, not one median among them."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from data import synth

from mpimeter import analysis

PIECES = (1, 4, 16)
NS_PER_PIECE = 1000.0


def pieces_launch(folder: Path, *, seed: int, nprocs: int = 2, factor: Callable[[int], float] = lambda w: 1.0,
                  sizes=(8, 1024), nrep: int = 30) -> None:
    """One launch of mw-workpieces at each of PIECES (one test per value and size, shuffled as
    the binary plans them) and allreduce: mw-workpieces takes ``factor(w)`` x (1 µs x w + size) ns."""
    seen: dict[int, int] = {}

    def fn(op, size, rng, n):
        if op != "mw-workpieces":
            return (5000.0 + size) * rng.lognormal(0.0, 0.01, n)
        w = PIECES[seen.setdefault(size, 0)]
        seen[size] += 1
        return factor(w) * (NS_PER_PIECE * w + size) * rng.lognormal(0.0, 0.01, n)
    synth.write_launch(folder, seed=seed, nprocs=nprocs, ops=("mw-workpieces",) * len(PIECES) + ("allreduce",),
                       sizes=sizes, nrep=nrep, time_fn=fn, schema=2)
    meta = json.loads((folder / "meta.json").read_text())
    count: dict[int, int] = {}
    for t in meta["tests"]:  # in plan order, as fn saw them
        if t["op"] == "mw-workpieces":
            t["workpieces"] = PIECES[count.setdefault(t["size"], 0)]
            count[t["size"]] += 1
    meta["config"]["workpieces"] = list(PIECES)
    (folder / "meta.json").write_text(json.dumps(meta))


def pieces_campaign(root: Path, launches: int = 3, **alternatives: Callable[[int], float]) -> Path:
    for k, (alt, factor) in enumerate((alternatives or {"openmpi": lambda w: 1.0}).items()):
        for i in range(launches):
            pieces_launch(root / alt / "launches" / f"{i:03d}", seed=100 * k + i, factor=factor)
    return root


def _analyze(folder: Path) -> analysis.AnalysisResult:
    return analysis.analyze(analysis.load_campaign(folder, cache=False, store=False))


@pytest.fixture(scope="module")
def one(tmp_path_factory) -> analysis.AnalysisResult:
    return _analyze(pieces_campaign(tmp_path_factory.mktemp("pieces") / "c"))


def test_each_number_of_work_pieces_is_its_own_row(one):
    mw = [r for r in one.rows if r.op == "mw-workpieces"]
    assert [(r.size, r.workpieces) for r in mw] == [(s, w) for s in (8, 1024) for w in PIECES]
    for r in mw:
        assert r.launches == 3 and all(s.workpieces == r.workpieces for s in r.per_launch)
        assert r.median_ns == pytest.approx(NS_PER_PIECE * r.workpieces + r.size, rel=0.03)
    # an op without work pieces keeps its key: one row per size, workpieces None
    assert [(r.size, r.workpieces) for r in one.rows if r.op == "allreduce"] == [(8, None), (1024, None)]
    assert one.row("mw-workpieces", 8, workpieces=16).median_ns == pytest.approx(16_000 + 8, rel=0.03)
    reps = one.repetitions
    assert sorted(set(reps.loc[reps["op"] == "mw-workpieces", "workpieces"])) == list(PIECES)
    assert set(reps.loc[reps["op"] == "allreduce", "workpieces"]) == {-1}


def test_the_json_and_the_table_show_the_work_pieces(one, tmp_path):
    doc = one.to_dict()
    assert sorted((r["size"], r["workpieces"]) for r in doc["rows"] if r["op"] == "mw-workpieces") == sorted(
        (s, w) for s in (8, 1024) for w in PIECES)
    assert all(r["workpieces"] is None for r in doc["rows"] if r["op"] == "allreduce")
    from mpimeter.cli.analyze import command
    out = CliRunner().invoke(command, [str(one.campaign.path), "--no-cache"], env={"COLUMNS": "250"})
    assert out.exit_code == 0, out.output
    header = next(line for line in out.output.splitlines() if "launches" in line and "op" in line)
    assert "workpieces" in header
    assert sum(1 for line in out.output.splitlines() if line.split("│")[1:2] == [" mw-workpieces "]) == 6


def test_a_campaign_without_work_pieces_shows_no_column(tmp_path):
    for i in range(2):
        synth.write_launch(tmp_path / "c" / "launches" / f"{i:03d}", seed=i, nrep=20, schema=2)
    res = _analyze(tmp_path / "c")
    assert all(r.workpieces is None for r in res.rows)
    from mpimeter.cli.analyze import command
    out = CliRunner().invoke(command, [str(tmp_path / "c"), "--no-cache"], env={"COLUMNS": "250"})
    assert out.exit_code == 0 and "workpieces" not in out.output


def test_compare_and_gate_go_through_the_work_pieces(tmp_path):
    """b is 30 % slower at 16 pieces only: pooled over the pieces that would be one row (or a
    refusal); per number of pieces it is found at 16 and not at 1 or 4."""
    res = _analyze(pieces_campaign(tmp_path / "c", launches=6, a=lambda w: 1.0, b=lambda w: 1.3 if w == 16 else 1.0))
    cmp = analysis.compare(res)
    mw = sorted((r.size, r.workpieces, r.significant) for r in cmp.rows if r.op == "mw-workpieces")
    assert mw == [(s, w, w == 16) for s in (8, 1024) for w in PIECES]
    assert all(r.workpieces is None and not r.significant for r in cmp.rows if r.op == "allreduce")
    slow = [r for r in cmp.rows if r.workpieces == 16]
    assert all(r.ratio == pytest.approx(1.3, rel=0.03) for r in slow)
    base = _analyze(pieces_campaign(tmp_path / "base", launches=6, openmpi=lambda w: 1.0))
    cand = _analyze(pieces_campaign(tmp_path / "cand", launches=6, openmpi=lambda w: 1.3 if w == 16 else 1.0))
    gate = analysis.gate(base, cand, max_slowdown=0.05)
    assert {(r.size, r.workpieces) for r in gate.rows if r.regression} == {(8, 16), (1024, 16)}
    assert {r.workpieces for r in gate.rows if r.op == "allreduce"} == {None}


def test_the_report_has_one_fingerprint_per_number_of_pieces(one):
    from mpimeter.report.html_report import build_report
    text, _ = build_report(one, None)
    for w in PIECES:
        assert f'id="fp-openmpi-mw-workpieces-8-p2-w{w}"' in text
        assert f"8 B · p = 2 · {w} workpieces" in text
    assert 'id="fp-openmpi-allreduce-8-p2"' in text


def _scaling_campaign(root: Path) -> Path:
    """Launches at p = 2 and p = 4 (one p per launch), mw-workpieces twice as slow at p = 4."""
    launches = []
    for i in range(6):
        p = 2 if i % 2 == 0 else 4
        folder = f"openmpi/launches/{i:03d}"
        pieces_launch(root / folder, seed=i, nprocs=p, factor=lambda w, p=p: 1.0 if p == 2 else 2.0)
        launches.append({"alternative": "openmpi", "index": i, "folder": folder, "seed": i, "status": "complete",
                         "np": p})
    (root / "campaign.json").write_text(json.dumps({  # as `mpimeter run --np 2,4` records it
        "schema_version": 1, "command": "mpimeter run (synthetic)", "bench_args": [], "launcher": "local",
        "np": 4, "np_list": [2, 4], "launches_per_alternative": 3, "seed": 0,
        "alternatives": [{"name": "openmpi", "mpi": "openmpi", "env": {}}], "launches": launches}))
    return root


def test_the_scaling_view_keeps_the_work_pieces_apart(tmp_path):
    """Launches at p = 2 and p = 4 (one p per launch): a series per number of pieces."""
    res = _analyze(_scaling_campaign(tmp_path / "c"))
    series = sorted((s.size, s.workpieces, tuple(pt.nprocs for pt in s.points)) for s in res.scaling
                    if s.op == "mw-workpieces")
    assert series == [(s, w, (2, 4)) for s in (8, 1024) for w in PIECES]
    at16 = next(s for s in res.scaling if s.op == "mw-workpieces" and s.size == 8 and s.workpieces == 16)
    assert at16.points[1].median_ns / at16.points[0].median_ns == pytest.approx(2.0, rel=0.05)
    assert {d["workpieces"] for d in res.to_dict()["scaling"] if d["op"] == "allreduce"} == {None}
    from mpimeter.report.scaling import scaling_section
    assert "8 B 16 workpieces" in scaling_section(res)


def test_the_terminal_scaling_table_names_the_work_pieces_of_each_series(tmp_path):
    """The analyze table's scaling view: one line per series, and the series of one (op, size)
    differ in their pieces only, so the table shows them (it printed three alike lines)."""
    root = _scaling_campaign(tmp_path / "c")
    from mpimeter.cli.analyze import command
    out = CliRunner().invoke(command, [str(root), "--no-cache"], env={"COLUMNS": "250"})
    assert out.exit_code == 0, out.output
    lines = out.output.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("scaling: median"))
    header = next(line for line in lines[start:] if "p=2" in line)
    cells = [c.strip() for c in header.split("┃")]
    assert "workpieces" in cells, header
    column = cells.index("workpieces")
    table = lines[start:start + next(i for i, line in enumerate(lines[start:]) if line.startswith("└"))]
    rows = [[c.strip() for c in line.split("│")] for line in table if line.startswith("│ mw-workpieces")]
    assert sorted((r[2], r[column]) for r in rows) == sorted((s, str(w)) for s in ("8 B", "1 KiB") for w in PIECES)


def test_the_back_to_back_lines_name_the_p_and_pieces_of_their_row(tmp_path):
    """A line per row beside its back-to-back companion: rows of one (op, size) at several p or
    pieces printed as identical lines 'mw-workpieces 8 B: ...'; each now names its own."""
    root = _scaling_campaign(tmp_path / "c")
    for meta_path in root.glob("openmpi/launches/*/meta.json"):
        meta = json.loads(meta_path.read_text())
        for t in meta["tests"]:
            t["back_to_back"] = {"calls": 100, "mean_ns": 500.0}
        meta_path.write_text(json.dumps(meta))
    from mpimeter.cli.analyze import command
    out = CliRunner().invoke(command, [str(root), "--no-cache"], env={"COLUMNS": "250"})
    assert out.exit_code == 0, out.output
    lines = [line.split(":")[0] for line in out.output.splitlines()
             if line.startswith("mw-workpieces 8 B") and "each call timed alone" in line]
    assert sorted(lines) == sorted(f"mw-workpieces 8 B (p={p}, {w} workpieces)" for p in (2, 4) for w in PIECES)


def test_the_root_effect_table_names_the_pieces_of_each_record(tmp_path):
    """Root effects per (op, size, p, pieces): the records of one (op, size, p) differ in their
    pieces only, so the table shows them (it printed alike lines)."""
    root = _scaling_campaign(tmp_path / "c")
    for meta_path in root.glob("openmpi/launches/*/meta.json"):
        index = int(meta_path.parent.name)
        meta = json.loads(meta_path.read_text())
        for t in meta["tests"]:  # roots 0, 1, 0 over the launches of each p
            t["root"] = (index // 2) % 2 if t["op"] == "mw-workpieces" else None
        meta_path.write_text(json.dumps(meta))
    from mpimeter.cli.analyze import command
    out = CliRunner().invoke(command, [str(root), "--no-cache"], env={"COLUMNS": "250"})
    assert out.exit_code == 0, out.output
    lines = out.output.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("root effect: per"))
    header = [c.strip() for c in next(line for line in lines[start:] if "fastest" in line).split("┃")]
    assert "workpieces" in header, lines[start:start + 4]
    rows = [[c.strip() for c in line.split("│")] for line in lines[start:] if line.startswith("│ openmpi")]
    keys = [(r[header.index("size")], r[header.index("p")], r[header.index("workpieces")]) for r in rows]
    assert sorted(keys) == sorted((s, str(p), str(w)) for s in ("8 B", "1 KiB") for p in (2, 4) for w in PIECES)
    # the JSON's records carry their pieces too: the records of one (op, size, p) are told apart there
    js = CliRunner().invoke(command, [str(root), "--no-cache", "--format", "json"])
    assert js.exit_code == 0, js.output
    records = [r for r in json.loads(js.stdout)["root_effects"] if r["op"] == "mw-workpieces"]
    assert sorted((r["size"], r["nprocs"], r["workpieces"]) for r in records) == \
        sorted((s, p, w) for s in (8, 1024) for p in (2, 4) for w in PIECES)
    # ... and so do the report's root-effect table's rows
    from mpimeter import analysis
    from mpimeter.report.scaling import scaling_section
    html = scaling_section(analysis.analyze(analysis.load_campaign(root, cache=False, store=False)))
    effect_table = next(t for t in html.split("<table>") if "<th>fastest root</th>" in t)
    assert "<th>workpieces</th>" in effect_table
