# SPDX-License-Identifier: BSD-3-Clause
"""Roth 2021 §4.5 taken literally: the categories first / warmup / outlier / good with the end
of the warm-up found by the cumulative minimum, so that a user can reproduce the paper's
categories (``mpimeter analyze --warmup-rule cummin``; the default rule is the rank test of
``mpimeter.stats.warmup``, which says why it departs from this one).

- first: repetition 0.
- warmup: 0 < i < w, where w is the smallest w ≥ 10 with δ_cummin,w ≤ −0.1 · x̃ (eq. 4.1 and
  4.6: δ_cummin,w = cummin_w − cummin_{w−1}, cummin_i = min(x_0 … x_i); x̃ the median of all
  run times of the series). No such w: no warm-up (w = 0).
- outlier: run time ≥ 2 × x̃.
- good: the rest.
A repetition gets the first category that applies, in that order (as ``stats.warmup`` does).
The run time x_i of the paper is the maximum over the ranks of repetition i: the tool's run time
per repetition (global or local clock) is that already.

Input: the run times of one launch and test in repetition order. Cost: O(n) after the median.
"""

from __future__ import annotations

import math

import numpy as np

from mpimeter.stats.warmup import FIRST, GOOD, OUTLIER, WARMUP, Categories

MIN_END = 10  # Roth's w ≥ 10
CLIFF = 0.1  # the cumulative minimum's drop, a share of the median
OUTLIER_FACTOR = 2.0  # outlier: at least this many medians


def cummin_end(x: np.ndarray, *, min_end: int = MIN_END, cliff: float = CLIFF) -> int:
    """w of Roth 2021 §4.5: the smallest w ≥ ``min_end`` where the cumulative minimum drops by at
    least ``cliff`` × the median; 0 when it never does."""
    x = np.asarray(x, dtype=float)
    if x.size <= min_end:
        return 0
    delta = np.diff(np.minimum.accumulate(x))  # delta[j - 1] = cummin_j − cummin_{j−1}
    drops = np.nonzero(delta[min_end - 1:] <= -cliff * float(np.median(x)))[0]
    return int(drops[0]) + min_end if drops.size else 0


def categorize_cummin(x: np.ndarray, *, min_end: int = MIN_END, cliff: float = CLIFF,
                      outlier_factor: float = OUTLIER_FACTOR) -> Categories:
    """The categories of Roth 2021 §4.5 (module docstring); no test, so no p-value (NaN)."""
    x = np.asarray(x, dtype=float)
    codes = np.full(x.size, GOOD, dtype=np.int8)
    if x.size == 0:
        return Categories(codes, 0)
    end = cummin_end(x, min_end=min_end, cliff=cliff)
    codes[x >= outlier_factor * float(np.median(x))] = OUTLIER
    if end > 1:
        codes[1:end] = WARMUP
    codes[0] = FIRST
    return Categories(codes, end, math.nan, False)
