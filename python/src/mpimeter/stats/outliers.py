# SPDX-License-Identifier: BSD-3-Clause
"""Outlier filters applied per launch and test before the summary (Algorithm 3, line 5).

- ``tukey``: keep Q1 − k·IQR ≤ x ≤ Q3 + k·IQR, k = 1.5 (Tukey's fences; Hunold &
  Carpen-Amarie 2016 §3.4). Quartiles by linear interpolation (numpy's default, R type 7).
- ``none``: keep everything.
- ``mpibench``: keep x ≤ a · p99, a = 2 (Grove & Coddington's MPIBench, as quoted in Hunold &
  Carpen-Amarie 2016 §2).
- ``trim25``: keep the central half — drop the ⌊n/4⌋ fastest and ⌊n/4⌋ slowest (SKaMPI,
  Reussner et al. 1998 §3.1: "we ignore the 25 % slowest and the 25 % fastest"); the mean of
  what is kept is the interquartile mean.

Cost: O(n log n) (a sort or a partition).
"""

from __future__ import annotations

import numpy as np

METHODS = ("tukey", "none", "mpibench", "trim25")


def keep_mask(x: np.ndarray, method: str = "tukey", *, k: float = 1.5, a: float = 2.0) -> np.ndarray:
    """Boolean mask of the values the filter keeps (True = kept), same shape as ``x`` (1-D)."""
    x = np.asarray(x, dtype=float)
    if x.ndim != 1:
        raise ValueError("keep_mask takes a 1-D array")
    if method not in METHODS:
        raise ValueError(f"unknown outlier filter {method!r}; known: {', '.join(METHODS)}")
    n = x.size
    if n == 0 or method == "none":
        return np.ones(n, dtype=bool)
    if method == "tukey":
        if k < 0:
            raise ValueError("tukey k must be >= 0")
        q1, q3 = np.percentile(x, [25.0, 75.0])
        iqr = q3 - q1
        with np.errstate(over="ignore"):  # a huge k: fences at ±inf, every value kept, no warning
            reach = k * iqr
        return (x >= q1 - reach) & (x <= q3 + reach)
    if method == "mpibench":
        if a < 1:
            raise ValueError("mpibench a must be >= 1")
        return x <= a * np.percentile(x, 99.0)
    # trim25: by rank, ties broken by position so that exactly n - 2*floor(n/4) are kept
    cut = n // 4
    order = np.argsort(x, kind="stable")
    mask = np.zeros(n, dtype=bool)
    mask[order[cut : n - cut]] = True
    return mask
