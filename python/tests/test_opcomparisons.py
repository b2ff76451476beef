# SPDX-License-Identifier: BSD-3-Clause
"""The comparisons between operations of the report and of `mpimeter analyze`: those a suite names
(campaign.json ``suite.comparisons``) and SKaMPI's standard ones (Reussner et al. 1998 §6) of the
pairs measured, with `compare --ops`' statistics — on synthetic campaigns of known truths (reduce
2 µs + size/2, scan twice that, allreduce 3 µs + size/2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from data import synth

from mpimeter import analysis
from mpimeter.analysis import opcomparisons
from mpimeter.cli import main
from mpimeter.report.html_report import _comparison_table
from mpimeter.report.opcomparisons import opcomparisons_section

BASE_NS = {"reduce": 2000.0, "scan": 4000.0, "allreduce": 3000.0, "bcast": 2000.0}


def _time(op, size, rng, n):
    base = BASE_NS[op] + 0.5 * size * (2 if op == "scan" else 1)
    return base * (1 + rng.lognormal(-4.0, 0.3, n))


def _campaign(root: Path, ops, *, launches: int = 5, suite: dict | None = None) -> Path:
    entries = []
    for i in range(launches):
        folder = f"launches/{i:03d}"
        synth.write_launch(root / folder, seed=i, ops=ops, sizes=(8, 1024), nrep=20, time_fn=_time, schema=2)
        entries.append({"folder": folder, "alternative": "openmpi", "index": i, "seed": i, "status": "complete"})
    doc = {"schema_version": 1, "command": "mpimeter run (synthetic)", "bench_args": [], "launcher": "local",
           "np": 2, "launches_per_alternative": launches, "seed": 1,
           "alternatives": [{"name": "openmpi", "mpi": "openmpi", "env": {}}], "launches": entries}
    if suite is not None:
        doc["suite"] = suite
    (root / "campaign.json").write_text(json.dumps(doc))
    return root


def _suite(*pairs) -> dict:
    return {"file": "s.toml", "name": "s", "text": "", "options": {}, "measurements": [],
            "comparisons": [{"name": name, "ops": list(ops)} for name, ops in pairs]}


def _result(folder: Path) -> analysis.AnalysisResult:
    return analysis.analyze(analysis.load_campaign(folder, cache=False, store=False))


def test_skampis_standard_comparison_is_drawn_where_both_operations_were_measured(tmp_path):
    res = _result(_campaign(tmp_path / "c", ("reduce", "scan", "allreduce")))
    drawn = opcomparisons.draw(res)
    assert [(d.name, d.source, d.a, d.b) for d in drawn] == [
        ("SKaMPI 6.13", opcomparisons.SOURCE_SKAMPI, "reduce", "scan")]
    rows = drawn[0].result.rows
    assert [r.size for r in rows] == [8, 1024]
    for r in rows:  # scan: twice reduce's time at every size (the synthetic truth)
        assert r.ratio == pytest.approx(2.0, rel=0.05) and r.significant
        assert r.median_a_ns == pytest.approx(2000 + r.size / 2, rel=0.05)
    # the same statistics as `compare --ops reduce,scan`
    direct = analysis.compare_ops(res, "reduce", "scan")
    assert [(r.p_adjusted, r.ratio) for r in direct.rows] == [(r.p_adjusted, r.ratio) for r in rows]


def test_the_suites_comparisons_come_first_and_a_pair_is_drawn_once(tmp_path):
    suite = _suite(("mine", ("allreduce", "reduce")), ("again", ("scan", "reduce")))
    res = _result(_campaign(tmp_path / "c", ("reduce", "scan", "allreduce"), suite=suite))
    drawn = opcomparisons.draw(res)
    # SKaMPI 6.13 is the suite's "again" (the other order): not drawn twice
    assert [(d.name, d.source, d.a, d.b) for d in drawn] == [
        ("mine", "suite", "allreduce", "reduce"), ("again", "suite", "scan", "reduce")]
    assert all(r.ratio == pytest.approx(0.5, rel=0.05) for r in drawn[1].result.rows)
    assert [r.ratio < 1 for r in drawn[0].result.rows] == [True, True]  # reduce faster than allreduce


def test_a_comparison_that_cannot_be_drawn_says_why(tmp_path):
    suite = _suite(("gone", ("allreduce", "bcast")))
    res = _result(_campaign(tmp_path / "c", ("reduce", "scan", "allreduce"), launches=2, suite=suite))
    drawn = opcomparisons.draw(res)
    assert [d.name for d in drawn] == ["gone", "SKaMPI 6.13"]
    assert drawn[0].result is None and "bcast was not measured" in drawn[0].problem
    assert drawn[1].result is None and "needs at least 3 per side" in drawn[1].problem


def test_no_pair_no_comparison_and_no_section(tmp_path):
    res = _result(_campaign(tmp_path / "c", ("reduce", "allreduce")))
    assert opcomparisons.draw(res) == ()
    assert opcomparisons_section(res, _comparison_table) == ""


def test_the_report_section_and_analyze_list_them(tmp_path):
    folder = _campaign(tmp_path / "c", ("reduce", "scan", "allreduce"), suite=_suite(("mine", ("allreduce", "scan"))))
    html = opcomparisons_section(_result(folder), _comparison_table)
    assert html.count("<h3>") == 2 and "mine: allreduce vs scan" in html and "SKaMPI 6.13: reduce vs scan" in html
    assert "reduce vs scan" in html and "significant" in html
    out = CliRunner().invoke(main, ["analyze", str(folder), "--no-cache"], env={"COLUMNS": "200"})
    assert out.exit_code == 0, out.output
    assert "mine: allreduce vs scan (suite)" in out.output
    assert "SKaMPI 6.13: reduce vs scan (SKaMPI standard (Reussner et al. 1998 §6))" in out.output


def test_a_malformed_suite_record_names_no_comparison(tmp_path):
    """campaign.json is untrusted: comparisons of another shape are left out, as the reader does
    with every record that only describes."""
    suite = {"comparisons": [{"name": "x", "ops": ["reduce"]}]}
    res = _result(_campaign(tmp_path / "c", ("reduce", "scan"), suite=suite))
    assert [d.name for d in opcomparisons.draw(res)] == ["SKaMPI 6.13"]
