# SPDX-License-Identifier: BSD-3-Clause
"""A test that meta.json calls complete but that recorded no repetition (harmonize/roundtime ended
by its budget before the first one) is not a result: ``analyze`` warns (``empty-complete-tests``)
and, when nothing else is left, its exit-2 message says so."""

import json

from click.testing import CliRunner
from data.synth import write_campaign

from mpimeter import analysis
from mpimeter.analysis.diagnostics import empty_complete_tests
from mpimeter.cli.analyze import command

CODE = "empty-complete-tests"


def _empty(campaign, tests):
    """Tests at the indices in ``tests`` as the binary writes them today: complete, 0 repetitions,
    ended by the budget, no rows in raw.csv."""
    for meta_path in sorted(campaign.glob("launches/*/meta.json")):
        meta = json.loads(meta_path.read_text())
        meta["config"]["procsync"] = "harmonize"
        for t in meta["tests"]:
            if t["test"] in tests:
                t.update(nrep=0, nrep_asked=meta["config"]["nrep"], ended_by="budget")
        meta_path.write_text(json.dumps(meta, indent=1))
        raw = meta_path.parent / "raw.csv"
        lines = raw.read_text().splitlines(keepends=True)
        raw.write_text(lines[0] + "".join(ln for ln in lines[1:] if int(ln.split(",")[0]) not in tests))


def test_an_empty_complete_test_is_warned_about_and_gives_no_row(tmp_path):
    camp = write_campaign(tmp_path / "c", 3, seed=1, nrep=20)
    before = analysis.analyze(analysis.load_campaign(camp, cache=False, store=False))
    _empty(camp, {0})
    res = analysis.analyze(analysis.load_campaign(camp, cache=False, store=False))
    (w,) = [w for w in res.warnings if w.code == CODE]
    assert w.message.startswith("3 launch test(s) are marked complete but recorded no repetition (first: ")
    assert "ended by budget" in w.message and "treated as failed" in w.message
    assert "--procsync roundtime" in w.hint
    assert sum(r.repetitions for r in before.rows) - sum(r.repetitions for r in res.rows) == 3 * 20
    assert CODE not in {w.code for w in before.warnings}


def test_only_zero_repetition_complete_tests_count(tmp_path):
    camp = write_campaign(tmp_path / "c", 1, seed=2, nrep=20)
    meta = analysis.load_campaign(camp, cache=False, store=False).launches[0].meta
    assert empty_complete_tests(meta) == []


def test_nothing_left_exits_2_saying_why(tmp_path):
    camp = write_campaign(tmp_path / "c", 2, seed=3, nrep=20)
    n_tests = len(json.loads((camp / "launches" / "000" / "meta.json").read_text())["tests"])
    _empty(camp, set(range(n_tests)))
    out = CliRunner().invoke(command, [str(camp)])
    assert out.exit_code == 2
    assert f"{2 * n_tests} test(s) marked complete recorded no repetition at all (treated as failed" in out.output
