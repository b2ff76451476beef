# SPDX-License-Identifier: BSD-3-Clause
"""Results per machine state (analysis/strata.py) and comparisons that match states
(analysis/matching.py), on campaign folders written as the binary writes them: a machine that
flips between a fast and a slow state from launch to launch, told apart by the cache-line probe
(issue 31). Acceptance: two campaigns with identical per-state times and mixes of 2/8 and 8/2
launches have per-state medians within 3 % and pass `gate`; the same with a 10 % slowdown in both
states fails it."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from data.synth import write_campaign, write_state_campaign

from mpimeter import analysis
from mpimeter.cli.analyze import command as analyze_command
from mpimeter.cli.compare import command as compare_command
from mpimeter.cli.gate import command as gate_command


def _analyze(folder):
    return analysis.analyze(analysis.load_campaign(folder, cache=False, store=False))


@pytest.fixture(scope="module")
def campaigns(tmp_path_factory):
    root = tmp_path_factory.mktemp("states")
    return {
        "mostly_slow": write_state_campaign(root / "mostly_slow", 3, 7, seed=1),
        "mostly_fast": write_state_campaign(root / "mostly_fast", 7, 3, seed=2),
        "slower_both": write_state_campaign(root / "slower_both", 8, 2, seed=3, slowdown=1.1),
        "no_probe": write_state_campaign(root / "no_probe", 8, 2, seed=4, probe=False),
        "fast_11_1": write_state_campaign(root / "fast_11_1", 11, 1, seed=6),
        "slow_1_11": write_state_campaign(root / "slow_1_11", 1, 11, seed=7),
        "one_state": write_campaign(root / "one_state", 10, seed=5, schema=2, nrep=60),
        "all_fast": write_state_campaign(root / "all_fast", 10, 0, seed=8),
        "all_fast_again": write_state_campaign(root / "all_fast_again", 10, 0, seed=9),
        "all_slow": write_state_campaign(root / "all_slow", 0, 10, seed=10),
        # 2 fast / 8 slow launches without the probe that tells the states apart
        "mostly_slow_no_probe": write_state_campaign(root / "mostly_slow_no_probe", 2, 8, seed=1, probe=False),
    }


def test_per_state_medians_agree_whatever_the_mix(campaigns):
    a, b = _analyze(campaigns["mostly_slow"]), _analyze(campaigns["mostly_fast"])
    for ra in a.rows:
        rb = b.row(ra.op, ra.size)
        # the pooled medians are decided by the mix: 2.5× apart
        assert rb.median_ns / ra.median_ns < 0.5
        assert [s.stratum for s in ra.per_state] == ["faster", "slower"] == [s.stratum for s in rb.per_state]
        for sa, sb in zip(ra.per_state, rb.per_state):
            assert abs(sb.median_ns / sa.median_ns - 1) <= 0.03, (ra.op, ra.size, sa, sb)
        assert [s.launches for s in ra.per_state] == [3, 7] and [s.launches for s in rb.per_state] == [7, 3]
        assert ra.per_state[0].share == pytest.approx(0.3)
        # 3 launches have no interval at 95 %, 7 have one
        assert ra.per_state[0].median_ci_low_ns is None and ra.per_state[1].median_ci_low_ns is not None
    (states,) = a.states
    assert states.explained and "cache-line" in states.property
    codes = {w.code for w in a.warnings}
    assert {"states", "state-rare"} <= codes and "states-unexplained" not in codes
    # 30 % of the launches is not rare: the state has few launches for its interval
    (rare,) = [w for w in a.warnings if w.code == "state-rare"]
    assert "has few launches: 3 of 10" in rare.message and "is rare" not in rare.message
    (said,) = [w for w in a.warnings if w.code == "states"]
    assert "level 0.05" in said.message and "cache-line probe" in said.message
    # the time split's own verdict on the probe does not contradict it
    (clusters,) = [w for w in a.warnings if w.code == "launch-clusters"]
    assert "the probe's own two clusters make the states" in clusters.message
    assert "too likely by chance" not in clusters.message


def test_json_and_table_show_the_states(campaigns):
    r = CliRunner().invoke(analyze_command, [str(campaigns["mostly_slow"]), "--no-cache", "--format", "json"])
    out = json.loads(r.stdout)
    row = out["rows"][0]
    assert row["stratum"] is None  # the pooled row
    assert [s["stratum"] for s in row["per_state"]] == ["faster", "slower"]
    assert row["per_state"][0]["launches"] == 3 and row["per_state"][0]["share"] == pytest.approx(0.3)
    (st,) = out["states"]
    assert st["explained"] and [s["stratum"] for s in st["states"]] == ["faster", "slower"]
    assert len(st["states"][0]["launches"]) == 3 and "level 0.05" in st["test"]
    r = CliRunner().invoke(analyze_command, [str(campaigns["mostly_slow"]), "--no-cache"])
    text = " ".join(r.stdout.split())
    assert "per state" in text and "3 (30 %)" in text and "7 (70 %)" in text and "pooled median" in text


def test_groups_no_property_explains_keep_the_pooled_headline(campaigns):
    res = _analyze(campaigns["no_probe"])
    assert all(not r.per_state for r in res.rows)
    (states,) = res.states
    assert not states.explained
    (w,) = [w for w in res.warnings if w.code == "states-unexplained"]
    assert "no recorded property explains" in w.message and "pooled result stays the headline" in w.message
    # i.i.d. launches: no groups, no states, no words about them
    res = _analyze(campaigns["one_state"])
    assert res.states == () and not any(w.code.startswith("state") for w in res.warnings)


def _gate(base, cand, *extra):
    return CliRunner().invoke(gate_command, [str(base), str(cand), "--no-cache", *extra])


def test_gate_passes_a_different_mix_of_equal_states(campaigns):
    r = _gate(campaigns["mostly_slow"], campaigns["mostly_fast"])
    assert r.exit_code == 0, r.output
    text = " ".join(r.stdout.split())
    # stratified: the joint family's test over the matched states (analysis.gating.JOINT_STATISTIC)
    assert "over the matched states" in text and "per state" in text and "state-mix" in text
    r = _gate(campaigns["mostly_slow"], campaigns["mostly_fast"], "--format", "json")
    out = json.loads(r.stdout)
    assert out["passed"] and "over the matched states" in out["test"]
    for row in out["rows"]:
        assert row["stratified"] and row["ratio_of_medians"] < 0.5  # pooled: "2.5× faster", only the mix
        assert 0.97 <= row["ratio"] <= 1.03
        assert [s["stratum"] for s in row["per_state"]] == ["faster", "slower"]
    r = _gate(campaigns["mostly_fast"], campaigns["mostly_slow"], "--format", "json")
    assert r.exit_code == 0 and json.loads(r.stdout)["passed"]


def test_gate_says_when_the_sides_differ_only_in_their_mix(campaigns):
    # 11 fast / 1 slow against 1 fast / 11 slow: the pooled medians are 2.5× apart and the pooled
    # test would call every row a regression (p ≈ 0.002); state by state nothing changed
    r = _gate(campaigns["fast_11_1"], campaigns["slow_1_11"], "--format", "json")
    out = json.loads(r.stdout)
    assert r.exit_code == 0 and out["passed"], r.output
    assert all(row["pooled_p_value"] < 0.01 and row["ratio_of_medians"] > 2 for row in out["rows"])
    (w,) = [w for w in out["warnings"] if w["code"] == "state-mix"]
    assert "differ only in their mix" in w["message"] and "11 faster / 1 slower" in w["message"]


def test_gate_finds_a_ten_percent_slowdown_in_both_states(campaigns):
    # the candidate is 10 % slower in each state but mostly fast: its pooled median is 2.3× below the baseline's
    r = _gate(campaigns["mostly_slow"], campaigns["slower_both"], "--format", "json")
    assert r.exit_code == 1, r.output
    out = json.loads(r.stdout)
    assert all(row["regression"] for row in out["rows"])
    for row in out["rows"]:
        assert 1.05 < row["ratio"] < 1.16 and row["ratio_of_medians"] < 0.5
        assert all(1.05 < s["ratio_of_medians"] < 1.16 for s in row["per_state"])


def test_compare_matches_states_and_says_when_it_cannot(campaigns):
    r = CliRunner().invoke(compare_command, [str(campaigns["mostly_slow"]), str(campaigns["mostly_fast"]),
                                             "--no-cache", "--format", "json"])
    out = json.loads(r.stdout)
    assert "van Elteren" in out["test"]
    assert all(row["stratified"] and not row["significant"] for row in out["rows"])
    assert any(w["code"] == "state-mix" for w in out["warnings"])
    r = CliRunner().invoke(compare_command, [str(campaigns["mostly_slow"]), str(campaigns["no_probe"]),
                                             "--no-cache", "--format", "json"])
    out = json.loads(r.stdout)
    assert not any(row["stratified"] for row in out["rows"])
    (w,) = [w for w in out["warnings"] if w["code"] == "states-unmatched"]
    assert "shows no explained states" in w["message"]


def test_report_and_fingerprint_show_the_states(campaigns, tmp_path):
    from mpimeter.report.fingerprint import fingerprint_data
    from mpimeter.report.html_report import write_report

    res = _analyze(campaigns["mostly_slow"])
    write_report(tmp_path / "r.html", res)
    page = (tmp_path / "r.html").read_text()
    assert "Per state: mostly_slow" in page and "3 (30 %)" in page and "too few launches" in page
    assert "decided by two clusters of the cache-line probe" in page and "level 0.05" in page
    assert "median per state" in page  # in each fingerprint's facts
    data = fingerprint_data(res, "allreduce", 8)
    assert [t.split(" ")[0] for t in data.per_state] == ["faster", "slower"]
    assert data.per_state[0].startswith("faster 3/10: ") and "(too few launches)" in data.per_state[0]
    # no states, no per-state lines; unexplained groups are named in the report
    res = _analyze(campaigns["no_probe"])
    write_report(tmp_path / "n.html", res)
    assert "no recorded property explains" in (tmp_path / "n.html").read_text()
    assert fingerprint_data(res, "allreduce", 8).per_state == ()


def test_csv_has_a_row_per_state(campaigns):
    import csv
    import io

    r = CliRunner().invoke(analyze_command, [str(campaigns["mostly_slow"]), "--no-cache", "--format", "csv"])
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    assert [x["stratum"] for x in rows[:3]] == ["", "faster", "slower"]
    assert rows[1]["launches"] == "3" and float(rows[1]["share"]) == pytest.approx(0.3)
    assert rows[1]["op"] == rows[0]["op"] and rows[1]["mean_ns"] == ""
    assert float(rows[2]["median_ns"]) > 2 * float(rows[1]["median_ns"])


def test_a_campaign_of_one_state_is_compared_with_that_state_of_the_other(campaigns):
    # the baseline ran wholly in the fast state and shows no states of its own; the candidate ran 2
    # fast / 8 slow launches at the same per-state times: pooled it is 2.5× slower, state by state
    # nothing changed — its launches are put in the candidate's states by the probe
    r = _gate(campaigns["all_fast"], campaigns["mostly_slow"], "--format", "json")
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert out["passed"] and "over the matched states" in out["test"]
    for row in out["rows"]:
        assert row["stratified"] and row["ratio_of_medians"] > 2  # pooled: only the mix
        faster = next(s for s in row["per_state"] if s["stratum"] == "faster")
        assert (faster["launches_a"], faster["launches_b"]) == (10, 3)
    # both sides put in states by one cut of the probe over all their launches: every launch kept
    (w,) = [w for w in out["warnings"] if w["code"] == "state-mix"]
    assert "all_fast 10 faster / 0 slower" in w["message"] and "mostly_slow 3 faster / 7 slower" in w["message"]
    # the candidate's 7 slow launches meet no launch of the baseline: set aside, and named
    (w,) = [w for w in out["warnings"] if w["code"] == "launches-set-aside"]
    assert "mostly_slow's launches" in w["message"] and "all_fast's" not in w["message"] and "were set aside" in w["message"]
    # the pooled test on a like mix without the probe calls every row a regression
    pooled = _gate(campaigns["all_fast"], campaigns["mostly_slow_no_probe"], "--format", "json")
    assert pooled.exit_code == 1 and not any(row["stratified"] for row in json.loads(pooled.stdout)["rows"])
    # a 10 % slowdown inside the fast state is still found (8 fast launches of the candidate)
    r = _gate(campaigns["all_fast"], campaigns["slower_both"], "--format", "json")
    assert r.exit_code == 1, r.output
    # (the candidate's 2 slow launches are the only ones in that state on both sides: too few for a
    # state, so the rows are compared pooled, every launch kept)
    out = json.loads(r.stdout)
    assert all(row["regression"] and not row["stratified"] for row in out["rows"])
    (w,) = [w for w in out["warnings"] if w["code"] == "state-too-few"]
    assert "a state needs 3 launches" in w["message"]


def test_sides_wholly_in_different_states_are_named(campaigns):
    for tool in (compare_command, gate_command):
        r = CliRunner().invoke(tool, [str(campaigns["all_fast"]), str(campaigns["all_slow"]), "--no-cache",
                                      "--format", "json"])
        out = json.loads(r.stdout)
        (w,) = [w for w in out["warnings"] if w["code"] == "states-differ"]
        assert "cache-line round trip" in w["message"] and "different states of the machine" in w["message"]
        assert "all_fast 4" in w["message"] or "all_fast 5" in w["message"] or "all_fast 6" in w["message"]
        assert "all_slow 3" in w["message"] or "all_slow 4" in w["message"]
        assert not any(row["stratified"] for row in out["rows"])
    # two campaigns in the same state: not a word, whatever their times
    r = CliRunner().invoke(compare_command, [str(campaigns["all_fast"]), str(campaigns["all_fast_again"]),
                                             "--no-cache", "--format", "json"])
    assert not any(w["code"].startswith("state") for w in json.loads(r.stdout)["warnings"])


def test_launches_far_outside_the_states_values_are_not_placed(campaigns, tmp_path):
    # the same slow launches with a probe of 2 µs: beyond the slow state's 344–414 ns by more than
    # the gap between the states, so nothing says which state they ran in
    import shutil

    far = tmp_path / "far"
    shutil.copytree(campaigns["all_slow"], far)
    for meta_file in far.glob("launches/*/meta.json"):
        meta = json.loads(meta_file.read_text())
        meta["probes"]["cacheline_rtt_ns"][0]["rtt_ns"] = 2000.0
        meta_file.write_text(json.dumps(meta))
    r = CliRunner().invoke(compare_command, [str(campaigns["mostly_slow"]), str(far), "--no-cache", "--format", "json"])
    out = json.loads(r.stdout)
    assert not any(row["stratified"] for row in out["rows"])
    codes = [w["code"] for w in out["warnings"]]
    assert "states-unmatched" in codes and "states-assigned" not in codes
    # with the probe in the slow state's range they are placed there
    r = CliRunner().invoke(compare_command, [str(campaigns["mostly_slow"]), str(campaigns["all_slow"]), "--no-cache",
                                             "--format", "json"])
    out = json.loads(r.stdout)
    assert all(row["stratified"] for row in out["rows"])
    (w,) = [w for w in out["warnings"] if w["code"] == "state-mix"]
    assert "all_slow 0 faster / 10 slower" in w["message"]


def test_the_verdict_names_the_probe_when_the_start_time_separates_the_launches_as_well(campaigns, tmp_path):
    # the slow launches ran first: the start time separates them as the probe does, and two slow
    # launches that started in the same second make its chance smaller (1/120 against the probe's
    # 2/120: the first three launches are no longer a split of it); the probe made the states, so
    # the time split's verdict is about the probe, not "too likely by chance" about the start time
    import shutil

    ordered = tmp_path / "slow_first"
    shutil.copytree(campaigns["mostly_slow"], ordered)
    metas = sorted(ordered.glob("launches/*/meta.json"))
    rtts = [json.loads(p.read_text())["probes"]["cacheline_rtt_ns"][0]["rtt_ns"] for p in metas]
    by_speed = sorted(range(len(metas)), key=lambda i: -rtts[i])  # the slow state first
    for second, i in enumerate(by_speed):
        meta = json.loads(metas[i].read_text())
        meta["wall_start"] = f"2026-12-01T03:00:{second - (second >= 3):02d}Z"
        metas[i].write_text(json.dumps(meta))
    (clusters,) = [w for w in _analyze(ordered).warnings if w.code == "launch-clusters"]
    assert "the cache-line round trip" in clusters.message.split(" separates them")[0]
    assert "the probe's own two clusters make the states" in clusters.message
    assert "also the start time (wall_start)" in clusters.message
    assert "too likely by chance" not in clusters.message


def test_a_state_too_few_on_each_side_but_matched_over_both_is_not_called_pooled(tmp_path):
    # each side alone puts 2 launches apart (state-too-few: "no states are reported and they stay in
    # the pooled result"), but one cut of the probe over both sides makes a state of 4: compare and
    # gate then compare state by state and show the states, so that warning would be false there
    a = write_state_campaign(tmp_path / "a", 2, 6, seed=21)
    b = write_state_campaign(tmp_path / "b", 2, 6, seed=22)
    assert [w.code for w in _analyze(a).warnings].count("state-too-few") == 1
    for tool in (compare_command, gate_command):
        r = CliRunner().invoke(tool, [str(a), str(b), "--no-cache", "--format", "json"])
        out = json.loads(r.stdout)
        assert all(row["stratified"] for row in out["rows"]), r.output
        assert all([s["stratum"] for s in row["per_state"]] == ["faster", "slower"] for row in out["rows"])
        assert not [w for w in out["warnings"] if w["code"] == "state-too-few"], out["warnings"]
        hints = " ".join(w["hint"] for w in out["warnings"])
        assert "per-state results are in `analyze`" not in hints  # analyze shows no states of either side


def test_compare_of_three_groups_names_the_pair_of_each_per_state_line(tmp_path):
    # three groups compared pairwise: the per-state table stacked every pair's lines under the same
    # (op, size, state) with nothing saying which pair a line was
    sides = [write_state_campaign(tmp_path / name, 4, 4, seed=31 + i, ops=("allreduce",), sizes=(8,))
             for i, name in enumerate(("x", "y", "z"))]
    r = CliRunner().invoke(compare_command, [*map(str, sides), "--no-cache"], env={"COLUMNS": "250"})
    assert r.exit_code == 0, r.output
    table = r.stdout[r.stdout.index("per state"):]
    lines = [line for line in table.splitlines() if line.startswith("│") and "faster" in line]
    assert len(lines) == 3 and [line.split("│")[1].strip() for line in lines] == ["x vs y", "x vs z", "y vs z"]


def test_compare_csv_gives_each_rows_per_state_results_as_json(campaigns):
    # a CSV consumer that is not Python reads the nested per-state results: JSON, not a Python repr
    import csv
    import io

    r = CliRunner().invoke(compare_command, [str(campaigns["mostly_slow"]), str(campaigns["mostly_fast"]),
                                             "--no-cache", "--format", "csv"])
    assert r.exit_code == 0, r.output
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    assert rows and all(row["per_state"] for row in rows)
    for row in rows:
        states = json.loads(row["per_state"])
        assert [s["stratum"] for s in states] == ["faster", "slower"]
        assert all(isinstance(s["ratio_of_medians"], float) and s["launches_a"] >= 3 for s in states)
