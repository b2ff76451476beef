"""Roth 2021 §4.5: categories of repetitions — first, warmup, outlier, good.

- first: repetition 0.
- warmup: 0 < i < w, where w is the end of the warm-up: the smallest w ≥ 10 at which the
  cumulative minimum drops by at least a tenth of the median,
  cummin_w − cummin_{w−1} ≤ −0.1 · median (eq. 4.1 and 4.6). No such w: no warm-up.
  The cumulative minimum is used because outliers only ever raise run times, so it reacts to
  the cliff at the end of the warm-up and to nothing else.
- outlier: run time ≥ 2 × median (of all repetitions given).
- good: the rest.
A repetition gets the first category that applies, in that order.

Input: the run times of one launch and test in repetition order. Cost: O(n) plus the median.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

FIRST, WARMUP, OUTLIER, GOOD = 0, 1, 2, 3
NAMES = ("first", "warmup", "outlier", "good")


@dataclass(frozen=True)
class Categories:
    codes: np.ndarray  # int8, one of FIRST/WARMUP/OUTLIER/GOOD per repetition
    warmup_end: int  # w (0 when no warm-up was found)

    @property
    def warmup_length(self) -> int:
        return max(self.warmup_end - 1, 0)

    def counts(self) -> dict[str, int]:
        c = np.bincount(self.codes, minlength=4)
        return {NAMES[i]: int(c[i]) for i in range(4)}


def warmup_end(x: np.ndarray, *, min_w: int = 10, cliff: float = 0.1) -> int:
    """w of Roth §4.5, or 0 when the cumulative minimum has no cliff at or after ``min_w``."""
    x = np.asarray(x, dtype=float)
    if x.size <= min_w:
        return 0
    med = float(np.median(x))
    cm = np.minimum.accumulate(x)
    delta = np.diff(cm)  # delta[j-1] = cummin_j - cummin_{j-1}
    hits = np.nonzero(delta[min_w - 1 :] <= -cliff * med)[0]
    return int(hits[0] + min_w) if hits.size else 0


def categorize(x: np.ndarray, *, min_w: int = 10, cliff: float = 0.1, outlier_factor: float = 2.0) -> Categories:
    x = np.asarray(x, dtype=float)
    n = x.size
    codes = np.full(n, GOOD, dtype=np.int8)
    if n == 0:
        return Categories(codes, 0)
    w = warmup_end(x, min_w=min_w, cliff=cliff)
    codes[x >= outlier_factor * float(np.median(x))] = OUTLIER
    if w > 1:
        codes[1:w] = WARMUP
    codes[0] = FIRST
    return Categories(codes, w)
