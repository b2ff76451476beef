# SPDX-License-Identifier: BSD-3-Clause
"""Westfall–Young adjusted p-values of a family of launch-split tests
(mpimeter.stats.clusters.min_p_adjusted) stay the numbers they were for a given seed when their
computation is reorganised: the expected values below were computed by the implementation that
tested one row at a time, on random families with and without missing launches, with and without
the launch-scores test, and with resample counts that split into uneven chunks."""

from __future__ import annotations

import numpy as np

from mpimeter.stats.clusters import WY_SEED, _joint_draws, _p_values, _scores_of, min_p_adjusted

# (launches, rows, some launches missing from rows, with the scores' test, resamples)
FAMILIES = [(10, 4, False, True, 2000), (8, 1, False, False, 2000), (12, 6, True, True, 2000),
            (7, 3, True, False, 600), (10, 5, False, True, 510), (9, 2, True, True, 1000)]
EXPECTED = [
    [0.4985014985014985, 0.07292707292707293, 0.37962037962037964, 0.35564435564435565, 0.5514485514485514],
    [0.11799833860212205],
    [0.48151848151848153, 0.7112887112887113, 0.25574425574425574, 0.6563436563436563, 0.5934065934065934,
     0.6193806193806194, 0.5614385614385614],
    [0.023255813953488372, 0.019933554817275746, 0.016611295681063124],
    [0.48046875, 0.07421875, 0.26953125, 0.08984375, 0.48046875, 0.59765625],
    [0.1936127744510978, 0.37524950099800397, 0.17964071856287425],
]


def _families():
    rng = np.random.default_rng(7)
    for launches, rows, missing, with_scores, resamples in FAMILIES:
        logs = rng.normal(0, 0.05, (launches, rows)) + rng.normal(0, 1, (1, rows))
        present = np.ones((launches, rows), bool)
        if missing:
            for r in range(rows):
                present[rng.choice(launches, rng.integers(0, 3), replace=False), r] = False
        observed = rng.uniform(0, 0.2, rows + with_scores)
        yield logs, present, observed, with_scores, resamples


def test_adjusted_p_values_are_those_of_one_test_at_a_time():
    got = [min_p_adjusted(logs, present, observed, with_scores=with_scores, resamples=resamples).tolist()
           for logs, present, observed, with_scores, resamples in _families()]
    assert got == EXPECTED


def _smallest_p_values(logs, present, with_scores, resamples):
    """Every test's p-value on every resample as the single test computes it (``_p_values``), the
    smallest per resample: Westfall–Young as its definition reads."""
    draws = _joint_draws(logs, present, resamples, WY_SEED)
    samples = [draws[:, present[:, r], r] for r in range(present.shape[1])]
    if with_scores:
        samples.append(_scores_of(draws, present))
    return np.min([_p_values(sample, 1) for sample in samples], axis=0)


def test_the_cuts_on_d_give_the_adjusted_p_of_the_p_values_themselves():
    # min_p_adjusted compares each split's D with a cut per observed p instead of computing the
    # p-values; observed p-values equal to resamples' own smallest ones (and repeated) are the
    # ties where a cut one step off would count differently
    rng = np.random.default_rng(8)
    for logs, present, _, with_scores, resamples in _families():
        smallest = _smallest_p_values(logs, present, with_scores, resamples)
        observed = rng.choice(np.sort(smallest)[:resamples // 10], present.shape[1] + with_scores)
        observed[-1] = observed[0]
        half = max(resamples // 2, 1)
        expected = np.zeros(observed.size)
        for null in (np.sort(smallest[:half]), np.sort(smallest[half:])):
            expected = np.maximum(expected, (np.searchsorted(null, observed, side="right") + 1) / (null.size + 1))
        got = min_p_adjusted(logs, present, observed, with_scores=with_scores, resamples=resamples)
        assert got.tolist() == np.maximum(expected, observed).tolist()
