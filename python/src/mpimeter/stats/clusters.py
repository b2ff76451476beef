"""Launch effects: do the per-launch medians of a test fall into two groups, and does a recorded
property of the launches separate the groups?

Hunold & Carpen-Amarie 2016 §4.2 show that the launch (one mpirun) is a factor: some launches run
a test consistently faster than others. On one machine this shows as two clusters of per-launch
medians (e.g. 0.23 µs in 1 of 10 launches, 0.48 µs in the others, stable within each launch).

- ``split_two``: the best split of the sorted log medians into a low and a high group (each of at
  least ``min_size`` launches), scored by Ashman's D = √2·|μ_h − μ_l| / √(σ_l² + σ_h²) (Ashman,
  Bird & Zepf 1994: D > 2 for a clean separation of two normal components). The largest D over
  the splits is compared with its distribution under one normal population of the same size,
  simulated once per size (seeded, location- and scale-free), which gives a p-value; a split
  counts as clusters only when it is significant *and* the medians of the groups differ by at
  least ``min_ratio`` (a split of 2 % is real on a quiet machine but not an effect anyone needs
  named).
- ``separates``: whether a property of the launches puts the two groups apart — for numbers, a
  threshold with one group wholly below it; for other values, one value in each group, not the
  same —
  and how likely that is by chance: a random property of distinct numbers separates a split of k
  and n − k launches with probability 2 / C(n, k).

Cost: the null distribution, 10 000 simulated samples per size, O(10 000 · n) once per size;
a split O(n log n).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

NULL_SAMPLES = 10_000
_VAR_FLOOR = 1e-12  # two equal log medians: keep D finite


@dataclass(frozen=True)
class TwoClusters:
    """A split of per-launch values: ``low``/``high`` are indices into the input."""

    low: tuple[int, ...]
    high: tuple[int, ...]
    ratio: float  # median(high) / median(low)
    separation: float  # Ashman's D of the log values
    p_value: float  # of the largest D under one normal population of this size


def _max_d(sorted_logs: np.ndarray, min_size: int) -> tuple[np.ndarray, np.ndarray]:
    """Largest D over the splits, and the split (size of the low group), for each row of a
    (samples × n) array of sorted values."""
    x = np.atleast_2d(sorted_logs)
    n = x.shape[1]
    ks = np.arange(min_size, n - min_size + 1)
    c1 = np.cumsum(x, axis=1)
    c2 = np.cumsum(x * x, axis=1)
    total1, total2 = c1[:, -1:], c2[:, -1:]
    s1, s2 = c1[:, ks - 1], c2[:, ks - 1]
    nl, nh = ks.astype(float), (n - ks).astype(float)
    mean_l, mean_h = s1 / nl, (total1 - s1) / nh
    # a group of one has no spread of its own: D is then its distance from the other group in
    # that group's standard deviations (as Grubbs' outlier statistic)
    with np.errstate(divide="ignore", invalid="ignore"):
        var_l = np.where(nl > 1, (s2 - nl * mean_l**2) / np.maximum(nl - 1, 1), 0.0)
        var_h = np.where(nh > 1, (total2 - s2 - nh * mean_h**2) / np.maximum(nh - 1, 1), 0.0)
    var_l = np.maximum(var_l, _VAR_FLOOR)
    var_h = np.maximum(var_h, _VAR_FLOOR)
    d = math.sqrt(2.0) * (mean_h - mean_l) / np.sqrt(var_l + var_h)
    best = np.argmax(d, axis=1)
    return d[np.arange(d.shape[0]), best], ks[best]


@lru_cache(maxsize=64)
def _null_max_d(n: int, min_size: int) -> np.ndarray:
    """The largest D of NULL_SAMPLES normal samples of size n, sorted (seeded: the same p-values
    every time)."""
    rng = np.random.default_rng(20161 + 97 * n + min_size)
    sims = np.sort(rng.standard_normal((NULL_SAMPLES, n)), axis=1)
    d, _ = _max_d(sims, min_size)
    return np.sort(d)


def split_two(values: Sequence[float], *, min_size: int = 1) -> TwoClusters | None:
    """The best low/high split of positive values (per-launch medians), with its p-value; None
    with fewer than 2·min_size + 3 values or non-positive ones. A group may be one launch: one
    launch in ten running everything twice as fast is the launch effect seen here."""
    v = np.asarray(values, dtype=float)
    n = v.size
    if n < 2 * min_size + 3 or np.any(~np.isfinite(v)) or np.any(v <= 0):
        return None
    order = np.argsort(v, kind="stable")
    logs = np.log(v[order])
    d, k = _max_d(logs, min_size)
    d, k = float(d[0]), int(k[0])
    null = _null_max_d(n, min_size)
    p = (np.count_nonzero(null >= d) + 1) / (null.size + 1)
    low, high = order[:k], order[k:]
    ratio = float(np.median(v[high]) / np.median(v[low]))
    return TwoClusters(tuple(int(i) for i in low), tuple(int(i) for i in high), ratio, d, float(p))


@dataclass(frozen=True)
class Separation:
    """How a property of the launches relates to a split: ``low_values``/``high_values`` are what
    the two groups hold (sorted, distinct), ``chance`` the probability that a random property
    separates such a split as well (None when it does not separate)."""

    separates: bool
    low_values: tuple
    high_values: tuple
    chance: float | None


def separates(low: Sequence[Hashable], high: Sequence[Hashable], *, numeric: bool) -> Separation:
    """Does the property split the groups? ``None`` values (not recorded) never separate."""
    lo, hi = list(low), list(high)
    shown_lo = tuple(sorted(set(lo), key=repr))
    shown_hi = tuple(sorted(set(hi), key=repr))
    if not lo or not hi or any(x is None for x in lo + hi):
        return Separation(False, shown_lo, shown_hi, None)
    if numeric:
        ok = max(lo) < min(hi) or max(hi) < min(lo)
    else:
        # a label separates when each group has one value of its own: a label that differs in
        # every launch (a time stamp, an id) would "separate" any split and says nothing
        ok = len(set(lo)) == 1 and len(set(hi)) == 1 and set(lo) != set(hi)
    chance = 2.0 / math.comb(len(lo) + len(hi), len(lo)) if ok else None
    return Separation(ok, shown_lo, shown_hi, min(chance, 1.0) if chance is not None else None)
