# SPDX-License-Identifier: BSD-3-Clause
"""Does a recorded property of the launches separate two groups of them (the groups a launch
effect split, mpimeter.stats.clusters; two machine states, mpimeter.analysis.matching), and how
likely is that by chance?

- ``separates``: for numbers, a threshold with one group wholly below it; for other values, one
  value in each group, not the same — and how likely that is by chance under random assignment of
  the property's values to the launches (:func:`separation_chance`).

Cost: a chance is exact over the C(n, k) assignments up to EXACT_CHANCE_LIMIT of them, else
CHANCE_DRAWS random ones.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np

EXACT_CHANCE_LIMIT = 5_000  # assignments enumerated for a chance; above, CHANCE_DRAWS random ones
CHANCE_DRAWS = 4_000


@dataclass(frozen=True)
class Separation:
    """How a property of the launches relates to a split: ``low_values``/``high_values`` are what
    the two groups hold (sorted, distinct), ``chance`` the probability that the property's values,
    assigned to the launches at random, separate a split of these sizes (None when values are
    missing)."""

    separates: bool
    low_values: tuple
    high_values: tuple
    chance: float | None


def _separated(lo: Sequence, hi: Sequence, numeric: bool) -> bool:
    if numeric:
        return max(lo) < min(hi) or max(hi) < min(lo)
    # a label separates when each group has one value of its own: a label that differs in
    # every launch (a time stamp, an id) would "separate" any split and says nothing
    return len(set(lo)) == 1 and len(set(hi)) == 1 and set(lo) != set(hi)


def separation_chance(values: Sequence[Hashable], k: int, *, numeric: bool, seed: int = 0) -> float:
    """The probability that ``values`` (one per launch), assigned to the launches at random, put
    the first k launches and the others apart: exact over all C(n, k) choices of the low group
    when there are at most EXACT_CHANCE_LIMIT, else from CHANCE_DRAWS random ones. Repeated values make
    this larger than 2 / C(n, k) (two launches with the same value can never be split by it)."""
    vals = list(values)
    n = len(vals)
    total = math.comb(n, k)
    if total <= EXACT_CHANCE_LIMIT:
        hits = sum(_separated([vals[i] for i in low], [vals[i] for i in set(range(n)) - set(low)], numeric)
                   for low in itertools.combinations(range(n), k))
        return hits / total
    rng = np.random.default_rng(seed)
    draws = CHANCE_DRAWS
    hits = 0
    for _ in range(draws):
        perm = rng.permutation(n)
        hits += _separated([vals[i] for i in perm[:k]], [vals[i] for i in perm[k:]], numeric)
    return hits / draws


def separates(low: Sequence[Hashable], high: Sequence[Hashable], *, numeric: bool) -> Separation:
    """Does the property split the groups? ``None`` values (not recorded) never separate."""
    lo, hi = list(low), list(high)
    shown_lo = tuple(sorted(set(lo), key=repr))
    shown_hi = tuple(sorted(set(hi), key=repr))
    if not lo or not hi or any(x is None for x in lo + hi):
        return Separation(False, shown_lo, shown_hi, None)
    ok = _separated(lo, hi, numeric)
    return Separation(ok, shown_lo, shown_hi, separation_chance(lo + hi, len(lo), numeric=numeric))
