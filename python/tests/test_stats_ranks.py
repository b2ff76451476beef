# SPDX-License-Identifier: BSD-3-Clause
"""stats.ranks gives scipy's midranks (rankdata, "average") of each row, bit for bit, and the
sizes of each sorted row's tie groups: rows with and without ties, one row, a 1-D array."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from mpimeter.stats.ranks import midranks, tie_sizes


@pytest.mark.parametrize("shape", [(1, 1), (1, 9), (5, 2), (40, 13)])
@pytest.mark.parametrize("levels", [3, 1_000_000])  # many ties, almost none
def test_midranks_and_ties_are_scipys(shape, levels):
    rng = np.random.default_rng(shape[1] * levels)
    x = rng.integers(0, levels, shape).astype(float) * 0.1
    ranks, ordered = midranks(x)
    assert np.array_equal(ranks, stats.rankdata(x, axis=1))
    assert np.array_equal(ordered, np.sort(x, axis=1))
    expected = np.concatenate([np.unique(row, return_counts=True)[1] for row in x])
    assert np.array_equal(tie_sizes(ordered), expected)


def test_a_1d_array_is_one_row():
    x = np.array([3.0, 1.0, 3.0, 2.0, 3.0])
    ranks, ordered = midranks(x)
    assert ranks.tolist() == [4.0, 1.0, 4.0, 2.0, 4.0]
    assert ordered.tolist() == [1.0, 2.0, 3.0, 3.0, 3.0]
    assert tie_sizes(ordered).tolist() == [1, 1, 3]
