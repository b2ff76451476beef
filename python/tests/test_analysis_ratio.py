# SPDX-License-Identifier: BSD-3-Clause
"""The ratio of compare and gate comes from the same estimator as its interval."""

import numpy as np
from data.synth import memory_campaign

from mpimeter import analysis

TESTS = [("bcast", 8)]


def bimodal_launches(rng, n_low, n_high, nrep=40):
    """Launches whose run times sit near 1000 ns (n_low launches) or 1500 ns (n_high)."""
    levels = np.array([1000.0] * n_low + [1500.0] * n_high)[:, None, None]
    return levels * (1 + rng.normal(0, 0.001, (n_low + n_high, 1, nrep)))


def test_ratio_lies_in_its_interval_where_the_ratio_of_medians_does_not():
    # a: 11 launches near 1000, 10 near 1500 (median 1000); b: 10 and 11 (median 1500). The ratio
    # of medians is 1.5, but most pairwise ratios are near 1, so the Hodges–Lehmann interval is
    # near 1: the old code printed 1.5 next to that interval.
    rng = np.random.default_rng(7)
    res = analysis.analyze(memory_campaign({"a": bimodal_launches(rng, 11, 10),
                                            "b": bimodal_launches(rng, 10, 11)}, TESTS))
    row = analysis.compare(res).rows[0]
    assert row.ratio_ci_method == "hodges-lehmann"
    assert row.median_b_ns / row.median_a_ns > 1.4
    assert not row.ratio_ci_low <= row.median_b_ns / row.median_a_ns <= row.ratio_ci_high
    assert row.ratio_ci_low <= row.ratio <= row.ratio_ci_high
    assert abs(row.ratio - 1) < 0.05
    assert "median of all pairwise ratios" in analysis.ratio_estimator_text(row.ratio_ci_method)

    boot = analysis.compare(res, ratio_ci="bootstrap").rows[0]
    assert boot.ratio == boot.median_b_ns / boot.median_a_ns


def test_gate_ratio_lies_in_its_interval():
    rng = np.random.default_rng(8)
    base = analysis.analyze(memory_campaign({"base": bimodal_launches(rng, 11, 10)}, TESTS))
    cand = analysis.analyze(memory_campaign({"cand": bimodal_launches(rng, 10, 11)}, TESTS))
    row = analysis.gate(base, cand).rows[0]
    assert row.ratio_ci_low <= row.ratio <= row.ratio_ci_high
