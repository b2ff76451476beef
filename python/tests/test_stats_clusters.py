# SPDX-License-Identifier: BSD-3-Clause
"""Launch effects (mpimeter.stats.clusters): two groups of per-launch medians, found when they
are there (one launch in ten twice as fast, as seen on the test machine) and rarely when they are
not (the null check: i.i.d. medians), and the properties that separate them."""

from __future__ import annotations

import numpy as np
import pytest

from mpimeter.stats.clusters import split_two
from mpimeter.stats.separation import separates


def _flagged(x) -> bool:
    r = split_two(x)
    return bool(r and r.p_value <= 0.05 and r.ratio >= 1.1)


@pytest.mark.parametrize("n", [6, 10, 20, 30])
@pytest.mark.parametrize("kind", ["normal", "lognormal", "tight"])
def test_null_iid_medians_are_rarely_split(n, kind):
    rng = np.random.default_rng(1000 + n)
    hits = 0
    for _ in range(300):
        if kind == "normal":
            x = 1000 + rng.normal(0, 30, n)
        elif kind == "lognormal":
            x = np.exp(rng.normal(6, 0.15, n))
        else:
            x = np.exp(rng.normal(6, 0.05, n))
        hits += _flagged(x)
    # the p-value is calibrated on one normal population of log medians: the level holds
    assert hits / 300 < 0.08, hits


@pytest.mark.parametrize("n,fast", [(10, 1), (10, 3), (20, 2), (30, 5)])
def test_a_planted_launch_effect_is_found(n, fast):
    rng = np.random.default_rng(n + fast)
    found = 0
    for _ in range(50):
        x = np.exp(rng.normal(np.log(480), 0.05, n))
        x[:fast] *= 0.48  # these launches run the test at about half the time
        r = split_two(x)
        if r and r.p_value <= 0.05 and r.ratio >= 1.1:
            found += set(r.low) == set(range(fast))
    assert found >= 48, found


def test_split_edges():
    assert split_two([1.0, 2.0, 3.0, 4.0]) is None  # too few launches to tell
    assert split_two([1.0, 2.0, -3.0, 4.0, 5.0, 6.0]) is None  # not run times
    r = split_two([480.0] * 9 + [230.0])
    assert r.low == (9,) and r.ratio == pytest.approx(480 / 230) and r.p_value < 0.01
    # equal values: no split worth a name
    r = split_two([500.0] * 8)
    assert r is None or r.ratio == 1.0


def test_separates_numbers_and_labels():
    s = separates([50.0, 55.0], [180.0, 190.0, 200.0], numeric=True)
    assert s.separates and s.chance == pytest.approx(2 / 10)  # C(5, 2) = 10
    assert not separates([50.0, 185.0], [180.0, 190.0], numeric=True).separates
    lab = separates(["0,1"], ["0,0", "0,0", "0,0"], numeric=False)
    # at random, only the one launch holding "0,1" put alone separates: 1 of the 4 assignments
    assert lab.separates and lab.chance == pytest.approx(1 / 4)
    assert not separates(["a", "b"], ["b", "c"], numeric=False).separates
    # a label that differs in every launch separates nothing
    assert not separates(["t0"], ["t1", "t2", "t3"], numeric=False).separates
    # repeated numbers: a random assignment separates more often than 2 / C(n, k)
    rep = separates([1.0, 1.0], [2.0, 2.0, 2.0], numeric=True)
    assert rep.separates and rep.chance == pytest.approx(1 / 10)  # only {1, 1} low: 1 of C(5, 2)
    assert separates([1.0], [2.0, 3.0, 4.0], numeric=True).chance == pytest.approx(2 / 4)
    unknown = separates([None], [1.0, 2.0], numeric=True)
    assert not unknown.separates and unknown.chance is None


def test_the_rows_medians_of_present_launches_are_numpys_nanmedian():
    # the launch scores of a family centre each row on the median of the launches it has
    from mpimeter.stats.clusters import _present_medians

    rng = np.random.default_rng(31)
    logs = np.round(rng.normal(size=(200, 7, 5)), 1)  # ties among the values
    present = rng.random((7, 5)) < 0.6
    present[:2] = True  # every row has a launch; odd and even counts
    reference = np.nanmedian(np.where(present, logs, np.nan), axis=1)
    assert np.array_equal(_present_medians(logs, present), reference)
