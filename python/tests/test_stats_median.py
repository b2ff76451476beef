# SPDX-License-Identifier: BSD-3-Clause
"""stats.median.median_finite gives np.median's number, bit for bit: odd and even counts, ties,
signed zeros, huge and tiny values, one value; leading_medians gives np.nanmedian's of the
present values along an axis."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from mpimeter.stats.median import leading_medians, median_finite


@pytest.mark.parametrize("values", [
    [3.0], [2.0, 1.0], [1.0, 5.0, 2.0], [4.0, 4.0, 4.0, 4.0], [-0.0, -0.0], [-0.0], [0.0, -0.0],
    [1e307, 3e307], [5e-324, 0.0], [-1.5, 2.5, -3.5, 7.0], [0.1, 0.2],
])
def test_the_same_number_as_numpy(values):
    v = np.array(values)
    want = float(np.median(v))
    got = median_finite(v)
    assert got == want and math.copysign(1.0, got) == math.copysign(1.0, want)


def test_random_sets_of_every_small_size():
    rng = np.random.default_rng(7)
    for n in range(1, 40):
        for _ in range(20):
            v = np.round(rng.lognormal(size=n), int(rng.integers(0, 4)))  # ties as on a timer grid
            assert median_finite(v) == float(np.median(v))


def test_the_input_is_left_as_it_was():
    v = np.array([3.0, 1.0, 2.0])
    median_finite(v)
    assert v.tolist() == [3.0, 1.0, 2.0]


def test_leading_medians_are_numpys_nanmedian_of_the_present_values():
    rng = np.random.default_rng(4)
    for reps in (1, 2, 5, 8, 600, 601):  # nanmedian's masked arrays below 600, one row at a time above
        local = rng.integers(0, 1000, (4, reps))  # ties; of an even count, half-integer medians
        ok = rng.random((4, reps)) < 0.7
        ok[0] = False  # a rank without valid repetitions: NaN
        ok[1] = True
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # nanmedian's all-NaN row
            expected = np.nanmedian(np.where(ok, local, np.nan), axis=1)
        assert np.array_equal(leading_medians(np.sort(np.where(ok, local, np.nan), axis=1), ok.sum(axis=1), axis=1), expected, equal_nan=True)


def test_leading_medians_along_the_middle_axis_with_counts_per_lane():
    # (samples × launches × rows), the absent launches of each row as inf, as clusters takes them
    rng = np.random.default_rng(5)
    values = rng.normal(size=(3, 7, 4))
    present = rng.random((7, 4)) < 0.6
    present[0] = True  # every row has a launch
    ordered = np.sort(np.where(present, values, np.inf), axis=1)
    expected = np.nanmedian(np.where(present, values, np.nan), axis=1)
    assert np.array_equal(leading_medians(ordered, present.sum(axis=0), axis=1), expected)
