# SPDX-License-Identifier: BSD-3-Clause
"""The ``budget-ended-tests`` warning of ``analyze``: tests that the roundtime/harmonize time budget
ended before ``--nrep`` (meta.json ``tests[].ended_by``, docs/FORMAT.md)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from data.synth import write_campaign

from mpimeter import analysis
from mpimeter.analysis.diagnostics import budget_ended_tests
from mpimeter.io.meta import parse_meta

CODE = "budget-ended-tests"


def _edit_metas(campaign, edit):
    for meta_path in sorted(campaign.glob("launches/*/meta.json")):
        meta = json.loads(meta_path.read_text())
        edit(meta)
        meta_path.write_text(json.dumps(meta, indent=1))


def _as_written_by_bench(meta, *, procsync="roundtime", short=()):
    """What mpimeter-bench now writes: nrep_asked and ended_by for every finished test; the tests
    at the indices in ``short`` ended by the budget after 1 repetition."""
    meta["config"]["procsync"] = procsync
    meta["config"]["procsync_params"] = {"roundtime_budget_s": 0.5, "bcast_factor": 2.0}
    for i, t in enumerate(meta["tests"]):
        t["nrep_asked"] = meta["config"]["nrep"]
        t["ended_by"] = "nrep"
        if i in short:
            t["ended_by"], t["nrep"] = "budget", 1


def _keep_first_rep(campaign, short):
    """raw.csv as the bench writes it for tests ended after 1 repetition: their other rows gone."""
    for raw in sorted(campaign.glob("launches/*/raw.csv")):
        lines = raw.read_text().splitlines(keepends=True)
        keep = [ln for ln in lines[1:] if int(ln.split(",")[0]) not in short or ln.split(",")[4] == "0"]
        raw.write_text(lines[0] + "".join(keep))


def _codes(campaign):
    res = analysis.analyze(analysis.load_campaign(campaign))
    return res, [w for w in res.warnings if w.code == CODE]


def test_fires_when_the_budget_ended_a_test(tmp_path):
    camp = write_campaign(tmp_path / "c", 3, seed=1, nrep=20)
    _edit_metas(camp, lambda m: _as_written_by_bench(m, short=(0,)))
    _keep_first_rep(camp, (0,))
    _, found = _codes(camp)
    assert len(found) == 1
    w = found[0]
    assert w.message.startswith("3 launch test(s) were ended by a time budget (the test's share of --launch-budget-s, "
                                "or the roundtime/harmonize budget (0.5 s per test))")
    assert ": 1 of 20)" in w.message
    assert "--roundtime-budget-s" in w.hint and "--nrep" in w.hint
    assert w.where.endswith("/000")


def test_silent_on_a_normal_launch(tmp_path):
    camp = write_campaign(tmp_path / "c", 3, seed=1, nrep=20)
    _edit_metas(camp, lambda m: _as_written_by_bench(m))
    _, found = _codes(camp)
    assert found == []
    # and on metas from before the key existed, under a window sync (no budget there)
    camp = write_campaign(tmp_path / "w", 3, seed=2, nrep=20)
    _, found = _codes(camp)
    assert found == []


@pytest.mark.parametrize("procsync", ["roundtime", "harmonize", "window"])
def test_older_meta_without_ended_by(procsync):
    """Without ended_by, a finished test with fewer repetitions than asked was ended by the budget:
    nothing else stops the loop early (the rule needs no list of process syncs)."""
    meta = {"schema_version": 1, "status": "complete", "nprocs": 2, "config": {"procsync": procsync, "nrep": 5},
            "tests": [{"test": 0, "op": "bcast", "size": 8, "status": "complete", "nrep": 1},
                      {"test": 1, "op": "bcast", "size": 64, "status": "complete", "nrep": 5},
                      {"test": 2, "op": "bcast", "size": 512, "status": "pending", "nrep": 0}]}
    tests = budget_ended_tests(parse_meta(meta, Path("meta.json")))
    assert [t.test for t in tests] == [0]


def test_analyze_json_carries_the_code(tmp_path):
    camp = write_campaign(tmp_path / "c", 2, seed=4, nrep=20)
    _edit_metas(camp, lambda m: _as_written_by_bench(m, procsync="harmonize", short=(1,)))
    _keep_first_rep(camp, (1,))
    out = subprocess.run([sys.executable, "-m", "mpimeter", "analyze", "--format", "json", "--no-cache", str(camp)],
                         capture_output=True, text=True, check=True).stdout
    codes = [w["code"] for w in json.loads(out)["warnings"]]
    assert codes.count(CODE) == 1
