# SPDX-License-Identifier: BSD-3-Clause
"""stats.median.median_finite gives np.median's number, bit for bit: odd and even counts, ties,
signed zeros, huge and tiny values, one value."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mpimeter.stats.median import median_finite


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
