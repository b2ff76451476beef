# SPDX-License-Identifier: BSD-3-Clause
"""Hoefler & Belli's rules judged on the data (issue 25): each judged rule carries the evidence it
rests on; a summary that is not the mean the rule asks for makes rule 3 not met; rule 7 is not
met while the comparison's own ``low-power`` warning says no row can be significant; rule 4 has
nothing to judge without ratios."""

from __future__ import annotations

from dataclasses import replace

import pytest
from data.synth import memory_campaign

import numpy as np

from mpimeter import analysis
from mpimeter.report.rules import MET, NA, NOT_MET, check_rules
from mpimeter.warning_codes import warning


def _campaign(launches: int, sizes=(8, 64, 512, 4096), ratio=1.0, seed=3):
    rng = np.random.default_rng(seed)
    tests = [("allreduce", s) for s in sizes]
    base = np.array([1000.0 + s for s in sizes])
    samples = {alt: f * base[None, :, None] * np.exp(rng.normal(0.0, 0.02, (launches, len(tests), 31)))
               for alt, f in (("a", 1.0), ("b", ratio))}
    return analysis.analyze(memory_campaign(samples, tests))


@pytest.fixture(scope="module")
def few():
    return _campaign(3)


@pytest.fixture(scope="module")
def many():
    return _campaign(10, ratio=1.3)


def test_rule7_is_not_met_without_power(few):
    comparison = analysis.compare(few)
    assert any(w.code == "low-power" for w in comparison.warnings)
    rule = check_rules(few, comparison)[6]
    assert rule.status == NOT_MET and "no power" in rule.reason and "0 significant" in rule.evidence


def test_rule7_is_met_with_power_and_says_what_it_found(many):
    comparison = analysis.compare(many)
    rule = check_rules(many, comparison)[6]
    assert rule.status == MET and "4 significant" in rule.evidence


def test_rule7_is_not_met_beside_a_states_differ_warning(many):
    """The report's rule and its warnings agree: sides that ran wholly in different machine
    states are not a sound comparison, however significant the test."""
    comparison = analysis.compare(many)
    differ = warning("states-differ", groups="a vs b", property="the cache-line probe",
                     a="a 59–93 ns", b="b 433–846 ns", where="a vs b")
    rule = check_rules(many, replace(comparison, warnings=[*comparison.warnings, differ]))[6]
    assert rule.status == NOT_MET and "different states of the machine" in rule.reason
    assert "the cache-line probe" in rule.reason and "4 significant" in rule.evidence


def test_judged_rules_give_their_evidence(many):
    checks = check_rules(many, analysis.compare(many))
    for n in (3, 4, 6, 7, 8, 12):
        assert checks[n - 1].evidence, n
    assert checks[3].status == MET and "4 ratios for 4 compared rows" in checks[3].evidence
    assert "p99 / median" in checks[7].evidence
    assert "8 medians plotted" in checks[11].evidence


def test_rule3_recomputes_the_means(many):
    assert check_rules(many)[2].status == MET
    wrong = replace(many, rows=(replace(many.rows[0], mean_ns=many.rows[0].mean_ns * 1.1), *many.rows[1:]))
    rule = check_rules(wrong)[2]
    assert rule.status == NOT_MET and "mean of a allreduce 8" in rule.reason


def test_rule4_without_a_comparison_has_nothing_to_judge(many):
    assert check_rules(many)[3].status == NA


def test_rule6_a_mean_interval_without_a_normality_check_is_not_met(many):
    unchecked = replace(many, rows=(replace(many.rows[0], normal=None, normality_p=None), *many.rows[1:]))
    assert check_rules(unchecked)[5].status == NOT_MET
    assert check_rules(many)[5].status == MET


def test_rule7_is_not_met_beside_a_states_unmatched_warning(many):
    """Sides compared pooled although one ran in two states: the difference may be only the mix."""
    comparison = analysis.compare(many)
    unmatched = warning("states-unmatched", groups="a vs b", which="a ran in two states, b shows no explained states",
                        where="a vs b")
    rule = check_rules(many, replace(comparison, warnings=[*comparison.warnings, unmatched]))[6]
    assert rule.status == NOT_MET and "states-unmatched" in rule.reason and "4 significant" in rule.evidence


def test_rule5_is_not_met_beside_the_analysis_saying_a_state_has_no_interval(many):
    assert check_rules(many)[4].status == MET
    rare = warning("state-rare", alternative="a", state="faster", how="is rare", launches=2, total=10, share=0.2,
                   confidence=0.95, where="a")
    rule = check_rules(replace(many, warnings=(*many.warnings, rare)))[4]
    assert rule.status == NOT_MET and "the faster state is rare" in rule.reason


def test_each_rule_says_whether_data_decide_it_or_the_report_meets_it_by_construction(many):
    checks = check_rules(many, analysis.compare(many))
    assert [c.number for c in checks if c.basis == "construction"] == [1, 8, 12]
    assert all(c.basis == "data" for c in checks if c.number not in (1, 8, 12))
