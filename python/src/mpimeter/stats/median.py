# SPDX-License-Identifier: BSD-3-Clause
"""The median of a few finite values, the number ``np.median`` gives, without its general
machinery (NaN checks, axes, the partition): in the loops that take thousands of small medians —
a split's two groups and the launch scores (stats/clusters.py), each group's centring
(stats/correlation.py) — that machinery was a sixth to a third of their time."""

from __future__ import annotations

import numpy as np


def median_finite(values: np.ndarray) -> float:
    """``np.median`` of finite ``values``, the same number: the middle value, or the mean of the
    middle two as numpy takes it (their sum from 0.0, halved, so −0.0 comes out 0.0). NaN is the
    caller's to rule out (``np.median`` returns NaN for a group that holds one)."""
    v = np.sort(values)
    mid = v.size // 2
    return float(0.0 + v[mid]) if v.size % 2 else float((0.0 + v[mid - 1] + v[mid]) / 2)
