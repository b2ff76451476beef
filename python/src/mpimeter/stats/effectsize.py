# SPDX-License-Identifier: BSD-3-Clause
"""Effect sizes beside the p-values of the tests across ranks, roots and alternatives
(Hoefler & Belli 2015 §3.2.2, "Effect Size": with many measurements a test finds differences
too small to matter, so say how large the difference is; §4.2.1: compare processes before
summarizing across them). Both are shares of the rank variance, 0 (no effect) … 1:

- ε² of a Kruskal–Wallis H over n values (Kelley 1935; Tomczak & Tomczak 2014, eq. 7):
  ε² = H / ((n² − 1) / (n + 1)) = H / (n − 1).
- Kendall's W of a Friedman design, b blocks × k treatments (Kendall & Babington Smith 1939):
  W = 12 S / (b² (k³ − k) − b Σ(t³ − t)), S the sum of squared deviations of the treatments'
  rank sums from b (k + 1) / 2, t the sizes of tied groups within a block; W = χ²_F / (b (k − 1))
  where Friedman's χ² is defined (k ≥ 3), and defined for k = 2 too (the sign-test case).

Pure functions on arrays; NaN where the effect is undefined.
"""

from __future__ import annotations

import math

import numpy as np

from mpimeter.stats.hypothesis import complete_blocks
from mpimeter.stats.ranks import midranks, tie_sizes


def epsilon_squared(h: float, n: int) -> float:
    """ε² of a Kruskal–Wallis ``h`` over ``n`` values in all groups; NaN for n < 2 or a NaN h,
    clipped to [0, 1] (H cannot exceed n − 1 without ties; with ties the tie correction can)."""
    if n < 2 or not math.isfinite(h):
        return math.nan
    return float(min(max(h / (n - 1), 0.0), 1.0))


def kendall_w(x: np.ndarray) -> float:
    """Kendall's W of ``x``, blocks (rows) × treatments (columns); rows with a NaN dropped. NaN
    with fewer than 2 blocks or treatments; 0 when every block is constant."""
    x = complete_blocks(x)
    b, k = x.shape
    if b < 2 or k < 2:
        return math.nan
    ranks, srt = midranks(x)
    s = float(((ranks.sum(axis=0) - b * (k + 1) / 2) ** 2).sum())
    t = tie_sizes(srt).astype(float)
    ties = float((t**3 - t).sum())
    denom = b * b * (k**3 - k) - b * ties
    return 0.0 if denom <= 0 else float(12 * s / denom)
