# SPDX-License-Identifier: BSD-3-Clause
"""The violin's density is scipy's Gaussian kernel density with Scott's bandwidth, scaled to a
peak of 1 (written out in numpy for speed: the same numbers), also across the blocks its sums
are taken in."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from mpimeter.stats import distplots


@pytest.mark.parametrize("n", [2, 3, 17, 200, distplots.KDE_BLOCK + 5])
def test_violin_density_is_scipys_gaussian_kde(n):
    rng = np.random.default_rng(n)
    x = np.log(1000.0 * np.exp(rng.normal(0.0, 0.05, n)) * np.where(rng.random(n) < 0.05, 4.0, 1.0))
    grid, density = distplots.violin_density(x)
    expected = stats.gaussian_kde(x)(grid)
    assert grid.tolist() == np.linspace(x.min(), x.max(), 48).tolist()
    np.testing.assert_allclose(density, expected / expected.max(), rtol=0, atol=1e-12)
    assert density.max() == 1.0
