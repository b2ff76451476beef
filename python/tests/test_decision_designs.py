# SPDX-License-Identifier: BSD-3-Clause
"""Decisions that use the design they ran with: the gate state by state (a regression of one
state fails it; a state too rare for its own test is named), guidelines paired by launch, tune
paired by round or stratified by state (analysis.gating, analysis.guidelines, analysis.tuning,
stats.paired), on machines with two speed states told apart by the cache-line probe."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from click.testing import CliRunner
from data.synth import write_state_campaign
from data.synth_tuning import algorithm_campaign, ompi
from scipy import stats

from mpimeter.analysis import gating
from mpimeter.cli.gate import command as gate_command
from mpimeter.cli.guidelines import command as guidelines_command
from mpimeter.cli.tune import command as tune_command

NAMES = ("faster", "slower")
MOCKUP = "allreduce-as-reduce-bcast"


# --- stats.paired ------------------------------------------------------------------------------

def test_signed_rank_p_is_scipys_exact_one_and_counts_ties_as_they_are():
    from mpimeter.stats import paired
    rng = np.random.default_rng(3)
    for n in (4, 9, 15):
        d = rng.normal(0.4, 1.0, n)
        assert paired.signed_rank_greater(d).p_value == pytest.approx(
            stats.wilcoxon(d, alternative="greater", method="exact").pvalue, rel=1e-12)
    # hand-computed with ties: |d| = 1, 1, 2 → midranks 1.5, 1.5, 3; T⁺ = 1.5 + 3 = 4.5; of the 8 sign
    # patterns T⁺ ≥ 4.5 for {all +: 6}, {1.5+3: 4.5} twice → 3/8
    t = paired.signed_rank_greater(np.array([1.0, -1.0, 2.0]))
    assert (t.statistic, t.p_value, t.method) == (4.5, 3 / 8, "exact-sign-flip")
    assert paired.min_p_value(10) == 2.0 ** -10


def test_paired_ratio_covers_the_true_ratio_and_ignores_a_shared_launch_factor():
    from mpimeter.stats import paired
    rng = np.random.default_rng(5)
    covered = 0
    for _ in range(200):
        launch = rng.choice([1.0, 2.5], 10) * rng.lognormal(0, 0.02, 10)  # states and launch factors, shared
        base = 1000 * launch * rng.lognormal(0, 0.01, 10)
        cand = 1.1 * 1000 * launch * rng.lognormal(0, 0.01, 10)
        ci = paired.paired_ratio(base, cand, confidence=0.9)
        covered += ci.low <= 1.1 <= ci.high
        assert abs(ci.estimate - 1.1) < 0.03
    assert 0.84 <= covered / 200 <= 0.96  # 0.9 nominal; discreteness makes it at least 0.9 in theory


# --- gate per state ----------------------------------------------------------------------------

def _gate_row(fast_slowdown: float, fast_b: int = 5, fast_c: int = 5, launches: int = 10, seed: int = 1):
    """One row of two campaigns: fast launches 1000 ns, slow 2500 ns, the candidate's fast ones ×
    ``fast_slowdown``; launch factors lognormal(0, 0.01)."""
    rng = np.random.default_rng(seed)
    sb = {i: NAMES[0] if i < fast_b else NAMES[1] for i in range(launches)}
    sc = {i: NAMES[0] if i < fast_c else NAMES[1] for i in range(launches)}
    b = {i: (1000.0 if s == NAMES[0] else 2500.0) * rng.lognormal(0, 0.01) for i, s in sb.items()}
    c = {i: (1000.0 * fast_slowdown if s == NAMES[0] else 2500.0) * rng.lognormal(0, 0.01) for i, s in sc.items()}
    key = ("allreduce", 8)
    return gating.gate_rows({key: np.array(list(b.values()))}, {key: np.array(list(c.values()))}, max_slowdown=0.05,
                            alpha=0.05, matched=lambda op, size: gating.split_by_state(b, c, sb, sc, NAMES))


def test_a_regression_of_one_state_only_fails_the_gate():
    (row,) = _gate_row(1.10)
    # the stratified test over both states is no regression: the slow state is 5 % under the threshold
    assert not row.significant
    assert row.regression
    fast, slow = row.state_tests
    assert (fast.stratum, fast.tested, fast.regression) == ("faster", True, True)
    assert fast.ratio == pytest.approx(1.10, abs=0.02) and fast.ratio_ci_low > 1.05
    assert (slow.tested, slow.regression) == (True, False) and slow.ratio == pytest.approx(1.0, abs=0.02)
    # p = 1/C(10, 5); the family (1 row + 2 states) adjusted by Westfall–Young over the 252² joint splits: the
    # share in which some test's p is at most 1/252 — 252 + 252 − 1 with either state's complete separation,
    # and 143 more where only the row's test (the mean logs summed over the states) reaches it; below Holm's 3/252
    assert fast.p_value == pytest.approx(1 / 252)
    assert fast.p_adjusted == pytest.approx(646 / 252 ** 2) and fast.p_adjusted < 3 / 252


def test_equal_states_pass_the_gate_whatever_the_mix():
    (row,) = _gate_row(1.0, fast_b=8, fast_c=2)
    assert not row.regression and not any(st.regression for st in row.state_tests)


def test_a_state_too_rare_for_its_own_test_is_left_out_and_named():
    # one fast launch in the baseline against 5 of the candidate: no p below 1/6, so the state cannot be tested
    (row,) = _gate_row(1.10, fast_b=1, fast_c=5)
    fast = row.state_tests[0]
    assert (fast.tested, fast.p_adjusted, fast.regression) == (False, None, False)
    assert fast.min_p_value == pytest.approx(1 / 6)
    assert row.state_tests[1].tested
    (said,) = gating.untested_states([row], "a vs b")
    assert said.code == "state-untested" and "faster state" in said.message and "1 baseline" in said.message


@pytest.fixture(scope="module")
def fast_state_slower(tmp_path_factory):
    root = tmp_path_factory.mktemp("gate_states")
    base = write_state_campaign(root / "base", 5, 5, seed=11, sizes=(8,), ops=("allreduce",))
    cand = write_state_campaign(root / "cand", 5, 5, seed=12, fast_factor=0.44, sizes=(8,), ops=("allreduce",))
    return base, cand


def test_gate_cli_fails_on_one_state_and_prints_its_ratio_against_the_threshold(fast_state_slower):
    base, cand = fast_state_slower
    r = CliRunner().invoke(gate_command, [str(base), str(cand), "--no-cache", "--format", "json"])
    assert r.exit_code == 1, r.output
    out = json.loads(r.stdout)
    (row,) = out["rows"]
    assert row["regression"] and row["stratified"]
    by_state = {st["stratum"]: st for st in row["state_tests"]}
    assert by_state["faster"]["regression"] and not by_state["slower"]["regression"]
    assert "within each state" in out["test"]
    r = CliRunner().invoke(gate_command, [str(base), str(cand), "--no-cache"])
    assert r.exit_code == 1
    assert "per state: candidate / baseline against 1.05" in r.output and "REGRESSION" in r.output


def test_launches_needed_finds_the_regression_with_its_power_and_half_as_many_do_not():
    from mpimeter.stats import compare
    sigma, level = 0.03, 0.05 / 6
    shift = math.log(1.10 / 1.05)  # a 10 % regression against the gate's 5 % threshold
    need = compare.launches_needed(sigma, shift, level)
    rng = np.random.default_rng(5)

    def power(n):
        return np.mean([compare.slowdown_test(rng.lognormal(0, sigma, n), rng.lognormal(math.log(1.10), sigma, n),
                                              0.05).p_value <= level for _ in range(400)])
    assert 8 <= need <= 30
    assert power(need) >= 0.78  # Noether's approximation: at its power, within the simulation's noise
    assert power(need // 2) < 0.6
    # no spread: the fewest launches whose smallest p, 1 / C(2n, n), reaches the level (1/252 ≤ 0.0083 < 1/70)
    assert compare.launches_needed(0.0, shift, level) == 5
    assert compare.launches_needed(math.nan, shift, level) is None
    assert compare.launches_needed(sigma, 0.0, level) is None


def test_gate_says_how_many_launches_each_state_needs_for_a_10_percent_regression(tmp_path):
    # a 3 % launch spread: at 2 % the joint family's mean-log test needs only 4 launches a side in the slower
    # state of this campaign, fewer than it has, and the gate rightly prints no line for it
    base = write_state_campaign(tmp_path / "base", 5, 5, seed=11, sizes=(8,), ops=("allreduce",), launch_sigma=0.03)
    cand = write_state_campaign(tmp_path / "cand", 5, 5, seed=12, sizes=(8,), ops=("allreduce",), launch_sigma=0.03)
    r = CliRunner().invoke(gate_command, [str(base), str(cand), "--no-cache", "--format", "json"])
    assert r.exit_code == 0, r.output
    (row,) = json.loads(r.stdout)["rows"]
    needed = {st["stratum"]: st["launches_needed"] for st in row["state_tests"]}
    assert set(needed) == set(NAMES) and all(n > 5 for n in needed.values())
    r = CliRunner().invoke(gate_command, [str(base), str(cand), "--no-cache"], env={"COLUMNS": "250"})
    text = " ".join(r.output.split())
    for name, n in needed.items():
        assert (f"the {name} state needs about {n} launches a side (it has 5) for a 10 % regression of it alone "
                "to fail the gate with 80 % power") in text


# --- guidelines paired by launch ---------------------------------------------------------------

def _mockup_campaign(root, violation: float, seed: int, fast: int = 5, slow: int = 5):
    """``fast`` + ``slow`` launches, the slow ones 2.5× slower; allreduce ``violation`` × its mock-up in every launch."""
    def fn(op, size, rng, n):
        return (2000.0 + 0.5 * size) * (violation if op == "allreduce" else 1.0) * (1 + rng.lognormal(-5.0, 0.3, n))
    write_state_campaign(root, fast, slow, seed=seed, ops=("allreduce", MOCKUP), sizes=(8, 64), nrep=40, time_fn=fn)
    for meta_path in root.glob("launches/*/meta.json"):
        meta = json.loads(meta_path.read_text())
        meta["operations"][MOCKUP].update(kind="mock-up", mockup_of="allreduce")
        meta_path.write_text(json.dumps(meta))
    return root


def test_a_guideline_violated_by_5_percent_under_states_is_found_paired_by_launch(tmp_path):
    root = _mockup_campaign(tmp_path / "c", 1.05, seed=21)
    r = CliRunner().invoke(guidelines_command, [str(root), "--no-cache", "--kind", "mock-up", "--format", "json"])
    out = json.loads(r.stdout)
    assert [x["violated"] for x in out["rows"]] == [True, True]  # unpaired, the states hid it
    assert [(x["size"], x["violated"], x["design"], x["pairs"]) for x in out["rows"]] == [
        (8, True, "paired by launch", 10), (64, True, "paired by launch", 10)]
    assert all(x["ratio"] == pytest.approx(1.05, abs=0.01) for x in out["rows"])
    assert "paired by launch" in out["test"]


def test_a_guideline_that_holds_is_not_violated_paired(tmp_path):
    root = _mockup_campaign(tmp_path / "c", 1.0, seed=22)
    r = CliRunner().invoke(guidelines_command, [str(root), "--no-cache", "--kind", "mock-up", "--format", "json"])
    out = json.loads(r.stdout)
    assert out["violations"] == 0 and {x["design"] for x in out["rows"]} == {"paired by launch"}


def test_too_few_launches_to_pair_fall_back_to_the_rank_sum_test(tmp_path):
    # 5 launches, 2 rows: the signed-rank test's smallest p, 1/32, is above 0.05 / 2; the rank-sum's is 1/252
    root = _mockup_campaign(tmp_path / "c", 1.5, seed=23, fast=5, slow=0)
    r = CliRunner().invoke(guidelines_command, [str(root), "--no-cache", "--kind", "mock-up", "--format", "json"])
    out = json.loads(r.stdout)
    assert [(x["design"], x["pairs"], x["violated"]) for x in out["rows"]] == [("unpaired", 0, True)] * 2
    assert "too few launches to pair" in out["test"]


# --- tune: by round, or by state ---------------------------------------------------------------

def _tune(root):
    # --bench-dir to nowhere: the algorithms' names are their values
    r = CliRunner().invoke(tune_command, [str(root), "--no-cache", "--json", "--bench-dir", str(root / "nobin")])
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


@pytest.mark.parametrize("per_round", [False, True])
def test_tune_chooses_a_faster_algorithm_under_states_drawn_per_launch_or_per_round(tmp_path, per_round):
    rng = np.random.default_rng(1 if per_round else 6)  # seeds where the unpaired, pooled test chose nothing
    slow_rounds = rng.random(10) < 0.5
    slow_launch = {alt: rng.random(10) < 0.5 for alt in ("openmpi", "ring")}
    root = algorithm_campaign(tmp_path / "c", {"openmpi": {}, "ring": ompi("allreduce", 4)},
                              lambda alt, op, size, p: 0.8 if alt == "ring" else 1.0, sizes=(8, 64, 512),
                              slow_state=(lambda alt, i: bool(slow_rounds[i])) if per_round
                              else (lambda alt, i: bool(slow_launch[alt][i])))
    out = _tune(root)
    (lib,) = out["libraries"]
    assert [c["alternative"] for c in lib["choices"]] == ["ring"] * 3
    designs = {c["design"] for c in lib["comparisons"]}
    # per round both launches of a round share their state: paired by round; per launch they do not
    assert designs == ({"paired by round"} if per_round else {"stratified by state"})
    assert all(c["ratio"] == pytest.approx(0.8, abs=0.03) for c in lib["comparisons"])


def test_tune_without_a_record_of_the_rounds_is_unpaired(tmp_path):
    root = algorithm_campaign(tmp_path / "c", {"openmpi": {}, "ring": ompi("allreduce", 4)},
                              lambda alt, op, size, p: 0.8 if alt == "ring" else 1.0, sizes=(8,), record=False)
    (lib,) = _tune(root)["libraries"]
    assert {c["design"] for c in lib["comparisons"]} == {"unpaired"}
    assert not math.isnan(lib["comparisons"][0]["p_value"])



def test_tune_does_not_call_states_it_compared_state_by_state_pooled(tmp_path):
    # the probe puts 2 of each alternative's 10 launches apart: too few for a state on either side
    # alone (state-too-few: "they stay in the pooled result"), a state of 4 over both, which tune
    # compares state by state; the warning would contradict that design
    root = algorithm_campaign(tmp_path / "c", {"openmpi": {}, "ring": ompi("allreduce", 4)},
                              lambda alt, op, size, p: 0.8 if alt == "ring" else 1.0, sizes=(8,),
                              slow_state=lambda alt, i: i not in ((0, 1) if alt == "openmpi" else (4, 5)))
    out = _tune(root)
    (lib,) = out["libraries"]
    assert {c["design"] for c in lib["comparisons"]} == {"stratified by state"}
    assert not [w for w in out["warnings"] if w["code"] == "state-too-few"], out["warnings"]


def test_tune_of_a_one_alternative_campaign_reads_its_campaign_json(tmp_path):
    # a campaign folder of one alternative: the analysis names it after the folder, campaign.json
    # after the library; tune read the launches' environments instead, which the launcher makes
    # differ in every launch (PMIX_ID, …), and said there was no campaign.json
    root = algorithm_campaign(tmp_path / "c", {"openmpi": {}}, lambda alt, op, size, p: 1.0, sizes=(8,), launches=3)
    one = tmp_path / "one"
    (root / "openmpi").rename(one)
    doc = json.loads((root / "campaign.json").read_text())
    for entry in doc["launches"]:
        entry["folder"] = entry["folder"].removeprefix("openmpi/")
    (one / "campaign.json").write_text(json.dumps(doc))
    for i, folder in enumerate(sorted((one / "launches").iterdir())):
        meta = json.loads((folder / "meta.json").read_text())
        meta["environment"] = {"PMIX_ID": f"{1963130881 + i}.0"}
        (folder / "meta.json").write_text(json.dumps(meta))
    r = CliRunner().invoke(tune_command, [str(one), "--no-cache", "--bench-dir", str(one / "nobin")])
    assert r.exit_code == 2 and "no algorithm alternatives" in r.stderr, r.output
    assert "no campaign.json" not in r.stderr


# --- compare of alternatives run in the same rounds ---------------------------------------------

def _compare(*roots, **kw):
    from mpimeter import analysis
    return analysis.compare([analysis.analyze(analysis.load_campaign(r, cache=False, store=False)) for r in roots],
                            **kw)


def _ring_faster_in_shared_rounds(root, sizes):
    """Two alternatives in the same 10 rounds, ring 0.95× the default, each round in a 2.5× state
    no recorded property explains (no probe)."""
    slow_rounds = np.random.default_rng(2).random(10) < 0.5
    return algorithm_campaign(root, {"openmpi": {}, "ring": ompi("allreduce", 4)},
                              lambda alt, op, size, p: 0.95 if alt == "ring" else 1.0, sizes=sizes,
                              slow_state=lambda alt, i: bool(slow_rounds[i]), probe=False)


def test_compare_pairs_alternatives_run_in_the_same_rounds(tmp_path):
    root = _ring_faster_in_shared_rounds(tmp_path / "c", sizes=(8, 64))
    res = _compare(root)
    # a 5 % difference under a 2.5× state shared by each round that no recorded property explains (so
    # not stratified): the per-round ratios see it, the rank-sum test of the mixed launches does not
    assert [r.significant for r in res.rows] == [True, True]
    assert {(r.design, r.pairs) for r in res.rows} == {("paired by round", 10)}
    assert all(r.ratio == pytest.approx(0.95, abs=0.02) and r.interval_agrees for r in res.rows)
    assert all("10 rounds" in r.design_reason and "reaches α/rows 0.025" in r.design_reason for r in res.rows)
    assert "paired by round" in res.test
    assert {r.p_method for r in res.rows} == {"exact-sign-flip"}


def test_compare_of_the_alternatives_folders_of_one_campaign_pairs_them_by_round(tmp_path):
    # `compare C/openmpi C/ring` (the README's form) reads C's campaign.json as `compare C` does: the
    # alternatives ran in the same rounds, so they are paired, not taken for separate campaigns
    from mpimeter.cli.compare import command as compare_command
    root = _ring_faster_in_shared_rounds(tmp_path / "c", sizes=(8, 64))

    def compared(*paths):
        out = CliRunner().invoke(compare_command, [*map(str, paths), "--no-cache", "--format", "json"])
        assert out.exit_code == 0, out.output
        doc = json.loads(out.stdout)
        return [(r["design"], r["design_reason"], r["significant"]) for r in doc["rows"]], doc["warnings"]

    whole, warned = compared(root)
    assert {d for d, _, _ in whole} == {"paired by round"} and all(sig for _, _, sig in whole)
    assert compared(root / "openmpi", root / "ring") == (whole, warned)
    # two alternatives' folders of different campaigns are not paired
    other = algorithm_campaign(tmp_path / "d", {"openmpi": {}, "ring": ompi("allreduce", 4)},
                               lambda alt, op, size, p: 1.0, sizes=(8, 64), seed=5)
    apart, _ = compared(root / "openmpi", other / "ring")
    assert {(d, why) for d, why, _ in apart} == {("unpaired", "no campaign.json: no record of the rounds")}


def test_compare_keeps_the_rank_sum_test_where_the_rounds_cannot_reach_the_holm_level(tmp_path):
    # 8 rounds, 8 rows: the signed-rank test's smallest two-sided p, 2/256, is above 0.05 / 8, the
    # rank-sum test's 2 / C(16, 8) is not — the exact rank-sum p stays, and the row says why
    root = algorithm_campaign(tmp_path / "c", {"openmpi": {}, "ring": ompi("allreduce", 4)},
                              lambda alt, op, size, p: 0.8 if alt == "ring" else 1.0,
                              sizes=(8, 16, 32, 64, 128, 256, 512, 1024), launches=8)
    res = _compare(root)
    assert {r.design for r in res.rows} == {"unpaired"}
    assert all(r.design_reason == "8 rounds in common: the signed-rank test's smallest p 0.0078 cannot reach "
                                  "α/rows 0.0063" for r in res.rows)
    assert all(r.p_value == pytest.approx(2 / math.comb(16, 8)) and r.significant for r in res.rows)
    assert "paired by round" not in res.test


def test_compare_of_two_campaigns_stays_unpaired(tmp_path):
    a = algorithm_campaign(tmp_path / "a", {"openmpi": {}}, lambda alt, op, size, p: 1.0, sizes=(8,), seed=3)
    b = algorithm_campaign(tmp_path / "b", {"mpich": {}}, lambda alt, op, size, p: 1.0, sizes=(8,), seed=4,
                           library="mpich")
    res = _compare(a, b)
    assert {(r.design, r.design_reason) for r in res.rows} == {("unpaired", "separate campaigns")}


def test_compare_cli_says_which_design_and_why(tmp_path):
    from mpimeter.cli.compare import command as compare_command
    root = _ring_faster_in_shared_rounds(tmp_path / "c", sizes=(8,))
    out = CliRunner().invoke(compare_command, [str(root)], env={"COLUMNS": "250"})
    assert out.exit_code == 0, out.output
    text = " ".join(out.output.split())
    assert "design: paired by round (1 row: the alternatives ran in the same 10 rounds of one campaign" in text
    assert "paired Hodges–Lehmann" in text


def test_significant_rows_of_separate_campaigns_say_the_design_cannot_tell_a_drift(tmp_path):
    # two campaigns run one after the other: b 20 % slower is significant, and the warning names the
    # design's blind spot; the same difference between alternatives of one campaign gets no such warning
    a = algorithm_campaign(tmp_path / "a", {"openmpi": {}}, lambda alt, op, size, p: 1.0, sizes=(8,), seed=3)
    b = algorithm_campaign(tmp_path / "b", {"mpich": {}}, lambda alt, op, size, p: 1.2, sizes=(8,), seed=4,
                           library="mpich")
    res = _compare(a, b)
    assert [r.significant for r in res.rows] == [True]
    (said,) = [w for w in res.warnings if w.code == "separate-campaigns"]
    assert "1 significant row(s)" in said.message and "one after the other" in said.message
    same = algorithm_campaign(tmp_path / "c", {"openmpi": {}, "ring": ompi("allreduce", 4)},
                              lambda alt, op, size, p: 0.8 if alt == "ring" else 1.0, sizes=(8,))
    res = _compare(same)
    assert [r.significant for r in res.rows] == [True]
    assert not [w for w in res.warnings if w.code == "separate-campaigns"]
    equal = algorithm_campaign(tmp_path / "d", {"mpich": {}}, lambda alt, op, size, p: 1.0, sizes=(8,), seed=5,
                               library="mpich")
    res = _compare(a, equal)
    assert not any(r.significant for r in res.rows)
    assert not [w for w in res.warnings if w.code == "separate-campaigns"]
