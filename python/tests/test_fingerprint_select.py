# SPDX-License-Identifier: BSD-3-Clause
"""The test a fingerprint is of (analysis/fingerprint.py): found among the campaign's tests
before anything is analysed, and analysed alone with the numbers the whole analysis gives it."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from data import synth
from data.synth import write_state_campaign

from mpimeter import analysis
from mpimeter.analysis.fingerprint import RowKey, analyze_test, campaign_tests, select_test
from mpimeter.report.fingerprint import FingerprintData, fingerprint_data
from mpimeter.stats import repetitions as stats_repetitions
from test_analysis_multip import np_campaign


@pytest.fixture(scope="module")
def campaigns(tmp_path_factory):
    root = tmp_path_factory.mktemp("fp-select")
    # two machine states (a launch effect over every row, states from the probe) and a warm-up in
    # every series, so that the rank test and Roth's cummin rule categorize them differently
    states = write_state_campaign(root / "states", 3, 7, seed=1, warmup_reps=15, nrep=40)
    nplist = np_campaign(root / "nplist", {2: 3, 4: 3}, lambda p, i: synth.default_time)
    return {name: analysis.load_campaign(folder, cache=False, store=False)
            for name, folder in (("states", states), ("nplist", nplist))}


@pytest.fixture(scope="module")
def whole(campaigns):
    """The whole analysis of each campaign."""
    return {name: analysis.analyze(campaign) for name, campaign in campaigns.items()}


def _key(row) -> RowKey:
    return RowKey(alternative=row.alternative, op=row.op, size=row.size, nprocs=row.nprocs, root=row.root,
                  workpieces=row.workpieces)


def _same_data(a: FingerprintData, b: FingerprintData) -> None:
    for name in FingerprintData.__dataclass_fields__:
        x, y = getattr(a, name), getattr(b, name)
        if isinstance(x, np.ndarray):
            assert np.array_equal(x, y), name
        else:
            assert repr(x) == repr(y), name  # repr: NaN equals NaN, the per-rank arrays are compared whole


@pytest.mark.parametrize("name", ["states", "nplist"])
def test_the_campaign_tests_are_the_rows_of_its_analysis(campaigns, whole, name):
    tests = campaign_tests(campaigns[name])
    rows = whole[name].rows
    assert len(tests) == len(rows) == len({_key(r) for r in rows})
    assert set(tests) == {_key(r) for r in rows}
    if name == "nplist":
        assert {t.nprocs for t in tests} == {2, 4}


def test_one_test_analysed_alone_has_the_numbers_of_the_whole_analysis(campaigns, whole):
    campaign, whole = campaigns["states"], whole["states"]
    (alt,) = campaign.alternatives
    test = select_test(campaign_tests(campaign), campaign.alternatives, "bcast", 1024)
    alone = analyze_test(campaign, test)
    mine = [r for r in whole.rows if (r.op, r.size) == ("bcast", 1024)]
    assert len(whole.rows) == 4 and len(mine) == 1
    assert [json.dumps(r.to_dict()) for r in alone.rows] == [json.dumps(r.to_dict()) for r in mine]
    assert alone.rows[0].per_state and whole.launch_effects  # states and a launch effect to get right
    shown = whole.repetitions[(whole.repetitions["op"] == "bcast") & (whole.repetitions["size"] == 1024)]
    assert (shown["category"] == "warmup").any()
    pd.testing.assert_frame_equal(alone.repetitions, shown.reset_index(drop=True))
    # what is of the campaign as a whole stays so: a launch effect over every row, Holm over every rank test
    for part in ("rank_tests", "launch_effects", "states", "clock_note"):
        assert repr(getattr(alone, part)) == repr(getattr(whole, part)), part
    assert len(alone.rank_tests) == 2  # allreduce 8 and 1024 (a broadcast's ranks finish apart)
    _same_data(fingerprint_data(alone, "bcast", 1024, alt, several_p=False), fingerprint_data(whole, "bcast", 1024))


def test_the_rank_durations_of_one_p_whatever_the_result_holds(campaigns, whole):
    campaign = campaigns["nplist"]
    tests = campaign_tests(campaign)
    test = select_test(tests, campaign.alternatives, "bcast", 8, nprocs=4)
    alone = analyze_test(campaign, test)
    assert {r.nprocs for r in alone.rows} == {2, 4}  # the test's own rows: both p
    expected = fingerprint_data(whole["nplist"], "bcast", 8, nprocs=4)
    _same_data(fingerprint_data(alone, "bcast", 8, nprocs=4, several_p=analysis.scaling.varies(tests)), expected)
    assert expected.ranks.ranks.tolist() == [0, 1, 2, 3]


def test_a_fingerprint_at_one_p_describes_the_launches_of_that_p(campaigns, whole):
    # `fingerprint --np 4` of a `run --np 2,4` campaign said "1 node × 2 ranks per node", "launches
    # 6", the residual "worst of 6 launches" and the clock "… 12 launches" above 3 launches at p = 4
    from mpimeter.report.html_report import _fingerprint_jobs

    result = whole["nplist"]
    for p in (2, 4):
        data = fingerprint_data(result, "bcast", 8, nprocs=p)
        lines = dict(data.facts.lines)
        assert data.launches == 3 and f"× {p} ranks per node" in data.facts.layout, data.facts
        assert lines["ranks"] == data.facts.layout and lines["launches"].startswith("3: ")
        assert "(worst of 3 launches)" in lines["sync residual"] and data.clock_note.endswith(": 3 launches")
    drawn = _fingerprint_jobs(result, ["openmpi"], ["openmpi"])  # the report's fingerprints alike
    assert {(d.nprocs, d.facts.layout) for d in drawn} == {(2, "1 node × 2 ranks per node"),
                                                         (4, "1 node × 4 ranks per node")}


def test_the_figure_of_one_of_several_p_names_its_p(campaigns, tmp_path):
    # `fingerprint --np 4` titled its figure "MPI-MiBFi · bcast · 8 B · openmpi": nothing in it
    # said which p (the report's summary line does)
    from click.testing import CliRunner

    from mpimeter.cli import main

    out = tmp_path / "fp.svg"
    r = CliRunner().invoke(main, ["fingerprint", str(campaigns["nplist"].path), "--op", "bcast", "--size", "8",
                                  "--np", "4", "-o", str(out)])
    assert r.exit_code == 0, r.output
    assert "p = 4" in out.read_text()


@pytest.fixture
def warmup_rules(monkeypatch):
    """The warm-up rule each launch and test is analysed with, in the order analysed."""
    rules = []
    reduce = stats_repetitions.reduce_launch_test

    def spy(*args, **kwargs):
        rules.append(kwargs["warmup_rule"])
        return reduce(*args, **kwargs)

    monkeypatch.setattr(stats_repetitions, "reduce_launch_test", spy)
    return rules


def test_only_the_test_shown_gets_the_warm_up_test(campaigns, warmup_rules):
    """The warm-up test is most of an analysis's time: the other tests take the cheapest rule (their
    medians do not depend on it) — unless the warm-up is dropped, which changes their medians."""
    rules = warmup_rules
    campaign = campaigns["nplist"]
    test = select_test(campaign_tests(campaign), campaign.alternatives, "bcast", 8, nprocs=2)
    analyze_test(campaign, test)
    assert rules.count("rank") == 6 and rules.count("cummin") == 6  # bcast 8 and 1024 in each of 6 launches
    rules.clear()
    analyze_test(campaign, test, drop_warmup=True)
    assert rules == ["rank"] * 12


def test_a_request_is_checked_against_the_campaign_tests(campaigns):
    campaign = campaigns["nplist"]
    tests, alts = campaign_tests(campaign), campaign.alternatives
    with pytest.raises(ValueError, match="bcast 8 of openmpi was measured at p = 2.*p = 4.*name one with --np"):
        select_test(tests, alts, "bcast", 8)
    with pytest.raises(ValueError, match=r"no size 9 for bcast in openmpi; it has: 8, 1024$"):
        select_test(tests, alts, "bcast", 9)
    # a missing operation or size is missing at every p: the p asked for is not listed as if the
    # campaign had it
    with pytest.raises(ValueError, match=r"no operation 'gather' in openmpi; it has: bcast$"):
        select_test(tests, alts, "gather", 8, nprocs=2)
    with pytest.raises(ValueError, match=r"no size 9 for bcast in openmpi; it has: 8, 1024$"):
        select_test(tests, alts, "bcast", 9, nprocs=2)
    # a test the campaign has, at another p or root: which it has, not "no size 8 … it has: 8"
    with pytest.raises(ValueError, match=r"^bcast 8 of openmpi was measured at p = 2, p = 4 only, not at p = 3$"):
        select_test(tests, alts, "bcast", 8, nprocs=3)
    with pytest.raises(ValueError, match=r"^bcast 8 of openmpi was measured at p = 2, p = 4 only, not at p = 4, "
                                         r"root 1 \(bcast has no root: leave out --root\)$"):
        select_test(tests, alts, "bcast", 8, nprocs=4, root=1)
    with pytest.raises(ValueError, match="no alternative 'mpich'; the campaign has openmpi"):
        select_test(tests, alts, "bcast", 8, "mpich")
    found = select_test(tests, alts, "bcast", 1024, nprocs=4)
    assert (found.alternative, found.op, found.size, found.nprocs) == ("openmpi", "bcast", 1024, 4)


def test_tests_one_request_cannot_tell_apart_get_the_options_that_can():
    # "name one with --np (and --root)" for a campaign at one p with --root 0,1 (only --root
    # helps), and --workpieces for mw-workpieces at --workpieces 4,16
    key = lambda p, root, pieces: RowKey(alternative="a", op="mw-workpieces" if pieces else "bcast", size=8,  # noqa: E731
                                         nprocs=p, root=root, workpieces=pieces)
    roots = [key(2, 0, None), key(2, 1, None)]
    with pytest.raises(ValueError, match=r"measured at p = 2 root 0, p = 2 root 1: name one with --root$"):
        select_test(roots, ["a"], "bcast", 8)
    both = [key(2, 0, None), key(4, 1, None)]
    with pytest.raises(ValueError, match=r": name one with --np and --root$"):
        select_test(both, ["a"], "bcast", 8)
    pieces = [key(3, 0, 4), key(3, 0, 16)]
    with pytest.raises(ValueError, match=r"workpieces 16: name one with --workpieces$"):
        select_test(pieces, ["a"], "mw-workpieces", 8, nprocs=3)
    assert select_test(pieces, ["a"], "mw-workpieces", 8, workpieces=16) == pieces[1]  # as the report asks


def test_a_row_of_one_root_and_p_shows_its_own_ranks_and_says_which(tmp_path):
    """One launch of 4 ranks holds bcast 8 B at p = 4 root 0 and on a sub-communicator at p = 2
    root 1 (--nprocs 2,4 --root 0,1): the fingerprint of each shows the local durations of its own
    test's ranks (they were pooled over every test of the (op, size): ranks 0-3 and both tests' times
    in the p = 2 one), and its title names the p and the root."""
    folder = tmp_path / "c" / "openmpi" / "launches" / "000"
    plan = [(4, 0, 1_000.0), (2, 1, 50_000.0)]

    def fn(op, size, rng, n, _i=[0]):
        base = plan[_i[0] % 2][2]
        _i[0] += 1
        return base * rng.lognormal(0.0, 0.01, n)
    synth.write_launch(folder, seed=5, nprocs=4, ops=("bcast", "bcast"), sizes=(8,), nrep=30, time_fn=fn, schema=2)
    meta = json.loads((folder / "meta.json").read_text())
    for t, (p, root, _) in zip(meta["tests"], plan):
        t["nprocs"], t["root"] = p, root
    (folder / "meta.json").write_text(json.dumps(meta))
    raw = pd.read_csv(folder / "raw.csv")  # as the binary writes them: rows of the test's own ranks
    raw[raw["rank"] < raw["test"].map({t["test"]: t["nprocs"] for t in meta["tests"]})].to_csv(
        folder / "raw.csv", index=False)
    res = analysis.analyze(analysis.load_campaign(tmp_path / "c", cache=False, store=False))
    small = fingerprint_data(res, "bcast", 8, nprocs=4, root=0)
    large = fingerprint_data(res, "bcast", 8, nprocs=2, root=1)
    assert small.ranks.ranks.tolist() == [0, 1, 2, 3] and large.ranks.ranks.tolist() == [0, 1]
    assert max(s.median for s in small.ranks.summaries) < 2_000 < 20_000 < min(s.median for s in large.ranks.summaries)
    from mpimeter.report.fingerprint import draw_fingerprint
    # the command and the report mark it one of several of its (op, size): the title names its own
    title = draw_fingerprint(replace(large, one_of_several=True))._suptitle.get_text()
    assert "p = 2  ·  root 1" in title, title
