# SPDX-License-Identifier: BSD-3-Clause
"""What the report says of adaptive measurement (issue 14): the sizes --sizes auto added are
marked in the operation tables and figures, the repetitions --nrep auto gave are in the method
and facts, and where --launches auto stopped comes from campaign.json; meta.json schema 4 reads
back typed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from data.synth import write_launch

from mpimeter import SCHEMA_VERSION, analysis
from mpimeter.io.campaign_record import from_document
from mpimeter.io.meta import read_meta
from mpimeter.report.adaptive import added_sizes, launches_text, nrep_text
from mpimeter.report.html_report import build_report

NREP_AUTO = {"rule": "ci", "min": 30, "max": 3000, "precision": 0.02, "confidence": 0.95, "every": 10,
             "budget_s": 10.0}


def _as_adaptive(folder: Path, added: tuple[str, int]) -> None:
    """A synthetic launch rewritten as `--nrep auto --sizes auto` would have written it."""
    path = folder / "meta.json"
    meta = json.loads(path.read_text())
    meta["schema_version"] = 4
    meta["conditions"] = []
    meta["config"]["nrep_auto"] = NREP_AUTO
    meta["config"]["sizes_auto"] = {"min": 8, "max": 1024, "factor": 2, "precision": 0.05, "budget": 16}
    for t in meta["tests"]:
        t["adaptive"] = {"rule": "ci", "stopped_by": "precision" if t["size"] == 8 else "max",
                         "precision": 0.01, "valid": t["nrep"], "decisions": 10}
        t["ended_by"] = "rule"
        t["size_added"] = (t["op"], t["size"]) == added
        t["refine_round"] = 1 if t["size_added"] else 0
    meta["size_refinement"] = [{"op": added[0], "added": [added[1]], "rounds": 2, "max_error": 0.01,
                                "stopped_by": "precision"}]
    path.write_text(json.dumps(meta))


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    root = tmp_path_factory.mktemp("adaptive")
    for i in range(3):
        folder = write_launch(root / "launches" / f"{i:03d}", seed=i + 1, sizes=(8, 1024, 4096))
        _as_adaptive(folder, ("bcast", 1024))
    return root


def test_schema_4_reads_back_typed(campaign):
    meta = read_meta(campaign / "launches" / "000" / "meta.json")
    assert meta.config.nrep_auto.rule == "ci" and meta.config.sizes_auto.budget == 16
    added = [t for t in meta.tests if t.size_added]
    assert [(t.op, t.size, t.refine_round) for t in added] == [("bcast", 1024, 1)]
    assert all(t.adaptive is not None and t.ended_by == "rule" for t in meta.tests)
    assert meta.size_refinement[0].added == (1024,) and meta.size_refinement[0].stopped_by == "precision"


def test_added_sizes_are_marked_and_the_rule_is_described(campaign):
    result = analysis.analyze(analysis.load_campaign(campaign, cache=False, store=False))
    assert {(o, s) for _, o, s in added_sizes(result.campaign.launches)} == {("bcast", 1024)}
    (warning,) = [w for w in result.warnings if w.code == "precision-not-reached"]
    assert warning.message.startswith("12 launch test(s) reached --nrep-max or the --nrep-budget-s")
    assert "precision 0.02 (worst: " in warning.message
    text, _ = build_report(result)
    assert text.count("(added)") == 1  # the one added (op, size) of the one alternative
    assert "1 KiB (added)" in text
    assert "sizes marked “added” were chosen while the launches ran by --sizes auto" in text
    assert "auto:ci (precision 0.02 at 95%, 30–3000 repetitions, decided every 10" in text
    assert "stopped by precision 6, max 12" in text  # 3 launches x 2 ops: 8 B by precision


def _record(doc):
    """campaign.json as the report gets it (mpimeter.io.campaign_record)."""
    return from_document(Path("campaign.json"), {"schema_version": SCHEMA_VERSION, **doc})


def test_nrep_and_launches_texts():
    class Cfg:  # the fields the texts read
        nrep_auto, nrep = None, 300

    class Meta:
        config, tests = Cfg(), ()

    assert nrep_text([Meta()]) == "300"
    assert launches_text(_record({"adaptive_launches": None})) is None and launches_text(None) is None
    doc = {"adaptive_launches": {"min": 10, "max": 30, "precision": 0.02, "confidence": 0.95,
                                 "interval_level": 0.96,
                                 "pairs": [{"status": "precision", "launches": 10},
                                           {"status": "max", "launches": 30}]}}
    text = launches_text(_record(doc))
    assert "10–30 launches: 2 pairs, 1 stopped for precision, 1 at the maximum, 0 still open" in text
    assert "10–30 launches per pair" in text and "at 0.96 for a nominal 95%" in text
