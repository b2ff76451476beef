# SPDX-License-Identifier: BSD-3-Clause
"""Launch effects: do the per-launch medians of a test fall into two groups, and does a recorded
property of the launches separate the groups?

Hunold & Carpen-Amarie 2016 §4.2 show that the launch (one mpirun) is a factor: some launches run
a test consistently faster than others. On one machine this shows as two clusters of per-launch
medians (e.g. 0.23 µs in 1 of 10 launches, 0.48 µs in the others, stable within each launch).
Launches always differ a little (a lognormal launch factor is the null here, not an effect): the
question is whether they fall into *groups*.

- ``split_two``: every split of the sorted log medians into a low group of k and a high group of
  n − k (each of at least ``min_size``) is scored by Ashman's D = √2·|μ_h − μ_l| / √(σ_l² + σ_h²)
  (Ashman, Bird & Zepf 1994). The splits are not alike under the null — a one-launch group's D is
  an outlier statistic with a much longer tail than a 5-vs-5 split's — so each split size k is
  given its own p-value against the D_k of simulated null samples, and the smallest of these,
  each divided by its split's weight, is calibrated against the same smallest of the simulated
  samples (a weighted min-p test over k, Westfall & Young 1993 §2.6 with weights as in weighted
  Bonferroni: a 5-vs-5 split is not drowned by the one-launch splits). The weight of a split is
  k·(n − k), proportional to the between-group sum of squares a gap of a given size makes with
  groups of k and n − k (δ²·k·(n − k)/n): the level goes where the splits carry the most
  evidence. It moves power from lone launches to balanced groups (10 launches, 3 % noise,
  normal and t(5) null: 5-vs-5 at 1.15× 50 → 56 %, 4-vs-6 44 → 50 %; one launch at 0.48× with
  5 % noise 99.9 → 97 %) and brings t(3) launch factors — heavier than the t(5) the null is
  calibrated on — from 6.6 % to 4.8 % false splits, before the 1.1× ratio; docs/ALGORITHMS.md. The null samples are drawn from two shapes, normal and
  Student's t with 5 degrees of freedom (heavy-tailed launch effects), and the larger p-value of
  the two is reported: the test keeps its level for either shape. (t with 3 degrees of freedom
  makes one launch in ten at half the time no rarer than its own tail; with the 1.1× ratio the
  analysis asks for and Holm over the rows, campaigns with t(3) launch factors stay under 5 %.)
  Timings on a coarse timer grid give tied medians (a group of equal values has no spread, and D no bound): each value is moved
  by a seeded uniform amount within half the grid's step (:func:`dithered`), which turns rounded
  values back into continuous ones without making a unimodal population bimodal; and the groups'
  ratio that counts is the one the grid allows for certain (each median moved half a step
  towards the other: 100 ns and 110 ns on a 10 ns grid are not 1.1× apart beyond doubt). The
  grid is the timer's recorded resolution (meta.json ``timer.resolution_ns``), not one read off
  the medians: the median of an even count of repetitions on a 10 ns grid may be 35 ns, and the
  greatest common divisor of 30, 35 and 40 (5 ns) made a dither too small, so that 30 against 40
  became a "1.15× split" in 45 % of such campaigns. Only when no resolution was recorded is the
  medians' own grid (:func:`timer_step`) taken.
- ``split_family``: every row's test and the test on the launch scores over the rows
  (:func:`launch_scores`), with p-values adjusted over that family by Westfall & Young's (1993
  §2.6) single-step min-p on a joint resampling of the launches across the rows
  (:func:`min_p_adjusted`): a launch-wide effect is the same information in every row, which
  Holm over the rows counted once per row.
- whether a recorded property of the launches puts the two groups apart: mpimeter.stats.separation.

Cost: per (n, min_size) and shape, NULL_SAMPLES simulated samples, O(NULL_SAMPLES · n log n),
cached; a split O(n log n); a family O(WY_RESAMPLES · (n² · rows + rows · n log n)).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np

from mpimeter.stats.median import leading_medians, median_finite


NULL_SAMPLES = 10_000  # a lone launch far off needs p_1 < 1/4000 to survive its weight
NULL_SHAPES = (None, 5)  # normal, and Student's t with 5 degrees of freedom
DITHER_SEED = 20161
WY_RESAMPLES = 2_000  # joint resamples of a family (half per null shape): p down to 1/1000 per shape
WY_SEED = 19932
WY_CHUNK = 250  # resamples drawn at once: launches² multipliers each
REACHED_BLOCK = 1024  # resampled tests whose splits are computed at once (_observed_reached)
MULTIPLIERS_CACHED = 1_000_000  # launches² · resamples kept for the next family (8 MB: 22 launches at 2,000)


@dataclass(frozen=True, kw_only=True)
class TwoClusters:
    """A split of per-launch values: ``low``/``high`` are indices into the input."""

    low: tuple[int, ...]
    high: tuple[int, ...]
    ratio: float  # median(high) / median(low)
    separation: float  # Ashman's D of the log values (dithered off the timer grid)
    p_value: float  # weighted min-p over the split sizes, calibrated under normal and t(5) launch effects
    grid_ratio: float = math.nan  # the smallest ratio the timer grid allows: each median ± half a step


def _split_d(sorted_x: np.ndarray, min_size: int) -> tuple[np.ndarray, np.ndarray]:
    """D of every split (columns: the low group's size k = min_size … n − min_size) of each row of
    a (samples × n) array of sorted values: :func:`_split_d_by_k` of its transpose, transposed."""
    x = np.atleast_2d(sorted_x)
    d, ks = _split_d_by_k(np.ascontiguousarray(x.T), min_size)
    return d.T, ks


def _running_sums(x: np.ndarray) -> np.ndarray:
    """``np.cumsum(x, axis=0)``, the same sequential additions, one vector addition per row: numpy
    accumulates down a short axis of many columns several times slower (a family's thousand), of
    a few dozen faster than a call per row (a single split)."""
    if x.shape[1] <= 64:
        return np.cumsum(x, axis=0)
    out = np.empty_like(x)
    out[0] = x[0]
    for i in range(1, x.shape[0]):
        np.add(out[i - 1], x[i], out=out[i])
    return out


def _split_d_by_k(x: np.ndarray, min_size: int) -> tuple[np.ndarray, np.ndarray]:
    """D of every split (rows: the low group's size k = min_size … n − min_size) of each column of
    an (n × samples) array of values sorted down the columns. Each sample's sums run down a column,
    one vector addition per value: the same additions, in the same order, as along a row, many
    faster for a family's thousands of short samples."""
    n = x.shape[0]
    ks = np.arange(min_size, n - min_size + 1)
    c1, c2 = _running_sums(x), _running_sums(x * x)
    total1, total2 = c1[-1:], c2[-1:]
    s1, s2 = c1[min_size - 1:n - min_size], c2[min_size - 1:n - min_size]  # the sums of the first k
    nl, nh = ks.astype(float)[:, None], (n - ks).astype(float)[:, None]
    # in place where a temporary would be made: a family computes this on every resample
    mean_l = s1 / nl
    mean_h = total1 - s1
    mean_h /= nh
    var_l = s2 - nl * mean_l**2
    var_l /= np.maximum(nl - 1, 1)
    var_h = total2 - s2
    var_h -= nh * mean_h**2
    var_h /= np.maximum(nh - 1, 1)
    # a group of one has no spread of its own: D is then its distance from the other group in
    # that group's standard deviations (as Grubbs' outlier statistic)
    var_l[nl[:, 0] <= 1] = 0.0
    var_h[nh[:, 0] <= 1] = 0.0
    spread = np.maximum(var_l, 0.0, out=var_l)
    spread += np.maximum(var_h, 0.0, out=var_h)
    d = mean_h
    d -= mean_l
    d *= math.sqrt(2.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        d /= np.sqrt(spread, out=spread)
    # equal values in both groups (0/0) separate nothing; a finite gap over no spread is the
    # largest D possible (numpy's nan_to_num, on the few values that need it: it scans thrice)
    odd = ~np.isfinite(d)
    if odd.any():
        d[odd] = np.nan_to_num(d[odd], nan=0.0, posinf=np.finfo(float).max)
    return d, ks


@lru_cache(maxsize=128)
def split_weights(n: int, min_size: int) -> np.ndarray:
    """The weight of each split size k = min_size … n − min_size: k·(n − k), summing to 1 (module
    docstring). Made once per size (read-only): every split test asks for them."""
    ks = np.arange(min_size, n - min_size + 1, dtype=float)
    w = ks * (n - ks)
    w = w / w.sum()
    w.flags.writeable = False
    return w


def _sorted_queries(d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The values of each split size k (the last axis of ``d``) as a row, in ascending order, and
    that order: what :func:`_upper_p` looks up, shared by the lookups in the nulls of both shapes."""
    by_k = np.ascontiguousarray(d.reshape(-1, d.shape[-1]).T)
    order = np.argsort(by_k, axis=1)
    return np.take_along_axis(by_k, order, axis=1), order


def _upper_p(null_sorted: np.ndarray, d: np.ndarray,
             queries: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """P(D_k ≥ d) per split size k (the last axis of ``d``) from the null's sorted D_k (a row of
    ``null_sorted`` per k), with the +1 of a Monte Carlo p-value. Each k's values are looked up
    in ascending order (``queries``: :func:`_sorted_queries` of ``d``, when already made): a
    binary search that starts where the previous one ended stays in cache (a fifth less time for
    a family), and the counts are the same."""
    values, order = _sorted_queries(d) if queries is None else queries
    s = null_sorted.shape[1]
    below = np.empty(values.shape, dtype=np.intp)
    for j, null_k in enumerate(null_sorted):
        below[j, order[j]] = null_k.searchsorted(values[j], side="left")
    return ((s - below.T + 1) / (s + 1)).reshape(d.shape)


def _upper_p_one(null_sorted: np.ndarray, d: np.ndarray) -> np.ndarray:
    """:func:`_upper_p` of one sample's D, a search per split size: the same counts, without the
    sorted queries and the scatter that serve many samples (half a split test's time)."""
    s = null_sorted.shape[1]
    below = np.fromiter((null_k.searchsorted(v) for null_k, v in zip(null_sorted, d.tolist())), np.intp, d.size)
    return (s - below + 1) / (s + 1)


@lru_cache(maxsize=128)
def _null(n: int, min_size: int, shape: int | None) -> tuple[np.ndarray, np.ndarray]:
    """Null samples of size n (normal, or t with ``shape`` degrees of freedom): their D_k per
    split size, sorted (a row per split size), and their smallest weighted per-k p-value (p_k / w_k), sorted.
    Seeded: the same p-values every time."""
    rng = np.random.default_rng(20161 + 97 * n + 7 * min_size + (shape or 0))
    x = rng.standard_t(shape, (NULL_SAMPLES, n)) if shape else rng.standard_normal((NULL_SAMPLES, n))
    d, _ = _split_d(np.sort(x, axis=1), min_size)
    # _upper_p's counts of the samples' own D: below a sorted value lie those before the first
    # of its equals, read off one argsort per split size (not a sort, an argsort and a search)
    by_k = np.ascontiguousarray(d.T)
    order = np.argsort(by_k, axis=1)
    cols = np.take_along_axis(by_k, order, axis=1)
    s = cols.shape[1]
    starts = np.zeros(cols.shape, dtype=np.intp)
    starts[:, 1:] = np.where(cols[:, 1:] != cols[:, :-1], np.arange(1, s), 0)
    below = np.empty_like(starts)
    np.put_along_axis(below, order, np.maximum.accumulate(starts, axis=1), axis=1)
    upper = ((s - below.T + 1) / (s + 1)).reshape(d.shape)
    return cols, np.sort((upper / split_weights(n, min_size)).min(axis=1))


def timer_step(values: np.ndarray) -> float:
    """The grid the values lie on: the greatest common divisor of whole (or half: a median of an
    even count) nanoseconds, 0 when they are not on such a grid."""
    for scale in (1.0, 2.0):
        scaled = values * scale
        whole = np.round(scaled)
        if (np.abs(scaled - whole) < 1e-6).all() and (whole < 2**62).all():
            return float(np.gcd.reduce(whole.astype(np.int64))) / scale
    return 0.0


def dithered(values: np.ndarray, seed: int = DITHER_SEED, *, step: float | None = None) -> np.ndarray:
    """Values on a timer grid made continuous: each moved by a seeded uniform amount within half
    the grid's step, so that tied values no longer form groups without spread. Rounding followed
    by such a dither is the original value plus independent uniform noise: a unimodal population
    stays unimodal. ``step``: the timer's recorded resolution (meta.json ``timer.resolution_ns``);
    None when none was recorded, and then the values' own grid (:func:`timer_step`)."""
    step = timer_step(values) if step is None else step
    if step <= 0:
        return values
    return values + _dither(seed, float(step), values.size)


@lru_cache(maxsize=256)
def _dither(seed: int, step: float, n: int) -> np.ndarray:
    """The seeded moves of :func:`dithered`, drawn once per grid and count (a generator's set-up
    cost more than the split test of ten launches)."""
    moves = np.random.default_rng(seed).uniform(-step / 2, step / 2, n)
    moves.flags.writeable = False
    return moves


def split_two(values: Sequence[float], *, min_size: int = 1, grid_ns: float | None = None) -> TwoClusters | None:
    """The best low/high split of positive values (per-launch medians), with its p-value; None
    with fewer than 2·min_size + 3 values, non-positive ones, or all equal. A group may be one
    launch: one launch in ten running everything twice as fast is the launch effect seen here.
    ``grid_ns``: the timer's resolution as recorded (see :func:`dithered`)."""
    v = np.asarray(values, dtype=float)
    n = v.size
    if n < 2 * min_size + 3 or not np.isfinite(v).all() or (v <= 0).any() or (v == v[0]).all():
        return None
    step = timer_step(v) if grid_ns is None else grid_ns  # the dither's grid, and the ratio's
    jittered = dithered(v, step=step)
    if (jittered <= 0).any():
        return None
    order = np.argsort(jittered, kind="stable")
    d, ks = _split_d(np.log(jittered[order]), min_size)
    d = d[0]
    p = 0.0
    best = 0
    weights = split_weights(n, min_size)
    for shape in NULL_SHAPES:
        cols, min_p = _null(n, min_size, shape)
        per_k = _upper_p_one(cols, d) / weights
        j = int(np.lexsort((-d, per_k))[0])  # the smallest p; of equal ones, the largest D
        p_shape = (np.count_nonzero(min_p <= per_k[j]) + 1) / (min_p.size + 1)
        if p_shape >= p:
            p, best = p_shape, j
    k = int(ks[best])
    low, high = order[:k], order[k:]
    med_low, med_high = median_finite(v[low]), median_finite(v[high])
    half = step / 2
    # on a 10 ns grid, 100 ns and 110 ns are one step apart: not 1.1× apart beyond doubt
    grid_ratio = (med_high - half) / (med_low + half) if med_low + half > 0 else math.nan
    return TwoClusters(low=tuple(int(i) for i in low), high=tuple(int(i) for i in high), ratio=med_high / med_low,
                       separation=float(d[best]), p_value=float(p), grid_ratio=float(grid_ratio))


def launch_scores(per_row: Sequence[dict[int, float]]) -> dict[int, float]:
    """A launch's effect over many rows: the mean over the rows it ran of its log median's
    distance from the row's median of log medians, returned as a factor (exp). A launch effect is
    launch-wide (Hunold & Carpen-Amarie 2016 §4.2): it adds up over the rows while the rows' own
    noise averages out, so one test on these scores sees a split that no single row shows."""
    sums: dict[int, float] = {}
    counts: dict[int, int] = {}
    for medians in per_row:
        logs = {i: math.log(m) for i, m in medians.items() if m > 0 and math.isfinite(m)}
        if not logs:
            continue
        centre = median_finite(np.fromiter(logs.values(), float, len(logs)))
        for i, x in logs.items():
            sums[i] = sums.get(i, 0.0) + x - centre
            counts[i] = counts.get(i, 0) + 1
    return {i: math.exp(sums[i] / counts[i]) for i in sorted(sums)}


def _p_values(logs: np.ndarray, min_size: int) -> np.ndarray:
    """The p-value :func:`split_two` gives each row of a (samples × n) array of log values: the
    weighted min-p over the split sizes, the larger under the normal and the t(5) null."""
    n = logs.shape[1]
    d, _ = _split_d(np.sort(logs, axis=1), min_size)
    weights = split_weights(n, min_size)
    p = np.zeros(logs.shape[0])
    queries = _sorted_queries(d)
    for shape in NULL_SHAPES:
        cols, min_p = _null(n, min_size, shape)
        per_k = (_upper_p(cols, d, queries) / weights).min(axis=1)
        p = np.maximum(p, (np.searchsorted(min_p, per_k, side="right") + 1) / (min_p.size + 1))
    return p


def _scores_of(logs: np.ndarray, present: np.ndarray) -> np.ndarray:
    """:func:`launch_scores` (as logs) of (samples × launches × rows) log medians, ``present``
    (launches × rows) marking the medians a row has: per row the distance from the row's median,
    averaged per launch over the rows it ran. The centred values go into the buffer the medians
    were sorted in: a fresh array of a family's size costs page faults, more than the arithmetic."""
    ordered = np.where(present, logs, np.inf)
    centred = np.subtract(logs, _present_medians(logs, present, ordered)[:, None, :], out=ordered)
    if not present.all():
        centred[:, ~present] = 0.0
    return centred.sum(axis=2) / present.sum(axis=1)


def _present_medians(logs: np.ndarray, present: np.ndarray, ordered: np.ndarray | None = None) -> np.ndarray:
    """Per sample and row, the median of the present launches' values of (samples × launches ×
    rows) ``logs``: numpy's ``nanmedian`` with the absent ones as NaN (the same numbers: the
    middle value, or the mean of the middle two), from one sort with the absent ones last,
    without its masked arrays (most of a family's time besides the p-values). Every row has a
    launch (the rows tested). ``ordered``: ``np.where(present, logs, np.inf)`` when the caller
    has made it, sorted here in place."""
    ordered = np.where(present, logs, np.inf) if ordered is None else ordered
    ordered.sort(axis=1)
    return leading_medians(ordered, present.sum(axis=0), axis=1)


def min_p_adjusted(logs: np.ndarray, present: np.ndarray, observed: np.ndarray, *, with_scores: bool,
                   min_size: int = 1, resamples: int = WY_RESAMPLES, seed: int = WY_SEED) -> np.ndarray:
    """Westfall–Young single-step min-p adjusted p-values (Westfall & Young 1993 §2.6, algorithm
    2.8) of a family of split tests on the same launches: one per row (columns of the launches ×
    rows array ``logs`` of log medians, ``present`` marking those a row has), then, with
    ``with_scores``, the test on the launch scores over the rows; ``observed``: their p-values.

    The family's tests are far from independent: a launch-wide effect is the same information in
    every row, and Holm over the rows spends the level as if it were not. The joint null keeps
    that dependence and has no groups: each resample draws every launch anew as a Gaussian
    combination of the observed launches' centred log medians, the SAME combination in every
    row (multipliers G_ij ~ N(0, 1/(n_r − 1)): each launch's vector over the rows has the sample
    covariance of the observed ones, a launch-wide effect included, but is unimodal); half the
    resamples multiply each drawn launch by √(5/χ²₅) (launch factors with t(5) tails, the second
    shape the single tests are calibrated on). Every test's p is computed on each resample as on
    the data; the adjusted p of a test is the share of resamples whose smallest p is at most its
    own, the larger over the two shapes and never below its own p. Seeded: the same every time.
    Only whether a resample's smallest p is at most each observed one counts, and that is read
    off each split's D against a cut per observed p (:func:`_cuts`) instead of computing the
    p-values. Cost: O(resamples · launches² · rows)."""
    half = max(resamples // 2, 1)
    order = np.argsort(observed, kind="stable")
    ascending = np.asarray(observed, dtype=float)[order]
    # reached[r]: for how many of the largest observed p-values resample r's smallest p is at most them
    reached = _observed_reached(_joint_draws(logs, present, resamples, seed), present, with_scores, min_size,
                                ascending)
    adjusted = np.zeros(observed.size)
    at_most = ascending.size - np.arange(ascending.size)  # o_j is reached by the resamples with reached ≥ this
    for null in (reached[:half], reached[half:]):
        tally = np.bincount(null, minlength=ascending.size + 1)[::-1].cumsum()[::-1]  # tally[f]: reached ≥ f
        adjusted = np.maximum(adjusted, (tally[at_most] + 1) / (null.size + 1))
    result = np.empty(observed.size)
    result[order] = adjusted
    return np.maximum(result, observed)


def _joint_draws(logs: np.ndarray, present: np.ndarray, resamples: int, seed: int) -> np.ndarray:
    """The (resamples × launches × rows) joint null draws of :func:`min_p_adjusted`: half of them
    normal, then half with t(5) launch factors, in the seeded order of chunks (normal
    multipliers, then the chunk's χ²)."""
    launches = logs.shape[0]
    counts = present.sum(axis=0)
    centred = np.where(present, logs - np.where(present, logs, 0.0).sum(axis=0) / np.maximum(counts, 1), 0.0)
    centred = centred / np.sqrt(np.maximum(counts - 1, 1))
    drawn = _shared_multipliers if launches * launches * resamples <= MULTIPLIERS_CACHED else _drawn_multipliers
    chunks = drawn(launches, resamples, seed)
    # each chunk is written where it belongs, not joined after: a copy of the family's draws less
    draws = np.empty((sum(normal.shape[0] for normal, _ in chunks), launches, logs.shape[1]))
    start = 0
    for normal, factor in chunks:
        part = draws[start:start + normal.shape[0]]
        np.einsum("bij,jr->bir", normal, centred, out=part)
        if factor is not None:
            part *= factor
        start += normal.shape[0]
    return draws


def _drawn_multipliers(launches: int, resamples: int, seed: int) -> tuple[tuple[np.ndarray, np.ndarray | None], ...]:
    """The seeded random part of :func:`_joint_draws`, chunk by chunk: the normal multipliers and,
    for the t(5) half, each drawn launch's factor √(5/χ²₅); the family's size alone sets them."""
    rng = np.random.default_rng(seed)
    half = max(resamples // 2, 1)
    chunks = []
    for heavy in (False, True):
        for start in range(0, half, WY_CHUNK):
            b = min(WY_CHUNK, half - start)
            normal = rng.standard_normal((b, launches, launches))
            normal.flags.writeable = False  # shared by every family of this size
            factor = np.sqrt(5.0 / rng.chisquare(5, (b, launches, 1))) if heavy else None
            chunks.append((normal, factor))
    return tuple(chunks)


# drawing was a quarter of a 10-launch family's time; a check or a simulation tests hundreds
_shared_multipliers = lru_cache(maxsize=4)(_drawn_multipliers)


@lru_cache(maxsize=128)
def _weighted_levels(n: int, min_size: int) -> np.ndarray:
    """Every value p_k / w_k that :func:`_p_values` can give a split size k (a row per k): with b
    null values below the split's D, (S − b + 1)/(S + 1) / w_k for b = 0 … S, the same floating-point
    operations as :func:`_upper_p` and its division by the weights, so non-increasing in b."""
    s = NULL_SAMPLES
    below = np.arange(s + 1)
    return ((s - below + 1) / (s + 1))[None, :] / split_weights(n, min_size)[:, None]


def _cuts(n: int, min_size: int, shape: int | None, ascending: np.ndarray) -> np.ndarray:
    """Per split size k (rows) and observed p-value o (columns, ``ascending``), the value a split's
    D must exceed for :func:`_p_values`' p under this null shape to be at most o; the columns in
    ascending order (o descending). The chain, each step exact on the same floating-point values:
    (c + 1)/(S + 1) ≤ o for the c null minima at most the test's smallest weighted p m ⟺ c ≤ c_o
    ⟺ m < min_p[c_o]; m < t ⟺ some k has b null D_k below the split's D with level_k(b) < t ⟺
    b ≥ b_k ⟺ D > null_k[b_k − 1] (−∞ when every b qualifies, +∞ when none does)."""
    cols, min_p = _null(n, min_size, shape)
    s = min_p.size
    c_o = np.searchsorted((np.arange(s + 1) + 1) / (s + 1), ascending, side="right") - 1
    bound = np.where(c_o >= s, np.inf, min_p[np.minimum(np.maximum(c_o, 0), s - 1)])
    bound[c_o < 0] = -np.inf
    levels = _weighted_levels(n, min_size)
    cuts = np.empty((levels.shape[0], ascending.size))
    for k, level in enumerate(levels):
        first = levels.shape[1] - np.searchsorted(level[::-1], bound, side="left")  # b_k: the first b below t
        cuts[k] = np.where(first <= 0, -np.inf, cols[k][np.clip(first - 1, 0, s - 1)])
        cuts[k][first > s] = np.inf
    return cuts[:, ::-1]


def _observed_reached(draws: np.ndarray, present: np.ndarray, with_scores: bool, min_size: int,
                      ascending: np.ndarray) -> np.ndarray:
    """Per resample of (resamples × launches × rows) draws, f such that the smallest p-value of the
    family's tests (:func:`_p_values` of each row's launches, then of the launch scores) is at
    most exactly the f largest of the ``ascending`` observed p-values. A test's p is at most o
    when under both null shapes some split size's D exceeds its cut (:func:`_cuts`). The tests
    on the same number of launches are one array, without a Python loop per test."""
    # a row that has every launch is a view (a mask would copy it before the concatenation does)
    samples = [draws[:, :, r] if present[:, r].all() else draws[:, present[:, r], r] for r in range(present.shape[1])]
    if with_scores:
        samples.append(_scores_of(draws, present))
    by_size: dict[int, list[np.ndarray]] = {}
    for sample in samples:
        by_size.setdefault(sample.shape[1], []).append(sample)
    reached = np.zeros(draws.shape[0], dtype=np.intp)
    for n, group in by_size.items():
        tests = np.concatenate(group)
        cuts = [_cuts(n, min_size, shape, ascending) for shape in NULL_SHAPES]
        per_test = np.empty(tests.shape[0], dtype=np.intp)
        # a block of samples at a time, each computed as on all of them (every step is per sample):
        # its arrays stay in cache and under the allocator's mapping threshold, where the whole
        # family's, fresh from the kernel on every resampling, were page faults for a third of
        # the time
        for start in range(0, tests.shape[0], REACHED_BLOCK):
            block = tests[start:start + REACHED_BLOCK]
            block.sort(axis=1)  # in place: ``tests`` is this function's own copy
            d, _ = _split_d_by_k(np.ascontiguousarray(block.T), min_size)
            least = None
            for cut in cuts:
                # the largest count of cuts below D over the split sizes (a search per k of the
                # cuts, ascending along f): the number of f at which some k's D exceeds its cut
                most = np.count_nonzero((d[:, None, :] > cut[:, :, None]).any(axis=0), axis=0)
                least = most if least is None else np.minimum(least, most)
            per_test[start:start + block.shape[0]] = least
        np.maximum(reached, per_test.reshape(len(group), draws.shape[0]).max(axis=0), out=reached)
    return reached


@dataclass(frozen=True)
class FamilyTest:
    """One test of a campaign's family: ``row`` the index of the row tested, None for the launch
    scores over all rows; ``launches`` the launch of each value (the split's indices point here)."""

    row: int | None
    launches: tuple[int, ...]
    split: TwoClusters
    adjusted_p: float  # Westfall–Young min-p over the family

    def flagged(self, alpha: float, min_ratio: float) -> bool:
        """Significant over the family, and the groups at least ``min_ratio`` apart beyond the grid."""
        return self.adjusted_p <= alpha and self.split.grid_ratio >= min_ratio

    @property
    def low_launches(self) -> frozenset[int]:
        return frozenset(self.launches[i] for i in self.split.low)


def _grid_shrink(rows: Sequence[dict[int, float]], low: frozenset[int], grid_ns: float | None) -> float:
    """How much of the launch scores' ratio the timer grid may make: per row, the factor by which
    the groups' medians come closer when each moves half a step towards the other (as
    :attr:`TwoClusters.grid_ratio`), averaged over the rows on the log scale; 1 without a grid."""
    logs = []
    for medians in rows:
        lo = [m for i, m in medians.items() if i in low and m > 0 and math.isfinite(m)]
        hi = [m for i, m in medians.items() if i not in low and m > 0 and math.isfinite(m)]
        if not lo or not hi:
            continue
        half = (timer_step(np.array(lo + hi)) if grid_ns is None else grid_ns) / 2
        m_lo, m_hi = median_finite(np.array(lo)), median_finite(np.array(hi))
        logs.append(math.log(max(m_hi - half, np.finfo(float).tiny) * m_lo / ((m_lo + half) * m_hi)))
    return math.exp(float(np.mean(logs))) if logs else 1.0


def split_family(per_row: Sequence[dict[int, float]], *, min_launches: int, grid_ns: float | None = None,
                 resamples: int = WY_RESAMPLES) -> list[FamilyTest]:
    """Every row with at least ``min_launches`` launches tested on its own, and (with two or more
    such rows) the launch scores over them, with p-values adjusted over that family by a joint
    resampling of the launches across the rows (:func:`min_p_adjusted`): the chance that any of
    them is flagged in a campaign without groups stays at alpha however many rows it has, and a
    launch-wide split, seen in every row at once, is not divided by the number of rows.
    ``grid_ns``: the timer's recorded resolution (:func:`dithered`; None: not recorded)."""
    tested: list[tuple[int | None, tuple[int, ...], TwoClusters]] = []
    used: list[dict[int, float]] = []  # the tested rows' medians, dithered as their tests saw them
    for index, medians in enumerate(per_row):
        clean = {i: m for i, m in medians.items() if m > 0 and math.isfinite(m)}
        if len(clean) < min_launches:
            continue
        launches = tuple(sorted(clean))
        split = split_two([clean[i] for i in launches], grid_ns=grid_ns)
        if split is not None:
            moved = dithered(np.array([clean[i] for i in launches]), step=grid_ns)
            used.append({i: float(m) for i, m in zip(launches, np.maximum(moved, np.finfo(float).tiny))})
            tested.append((index, launches, split))
    with_scores = False
    if len(used) > 1:
        scores = launch_scores(used)
        launches = tuple(sorted(scores))
        split = split_two([scores[i] for i in launches], grid_ns=0.0) if len(scores) >= min_launches else None
        if split is not None:
            low = frozenset(launches[i] for i in split.low)
            tested.append((None, launches, replace(split, grid_ratio=split.ratio * _grid_shrink(
                [per_row[t[0]] for t in tested if t[0] is not None], low, grid_ns))))
            with_scores = True
    if not tested:
        return []
    every = sorted({i for row in used for i in row})
    position = {launch: j for j, launch in enumerate(every)}
    logs = np.zeros((len(every), len(used)))
    present = np.zeros_like(logs, dtype=bool)
    for r, row in enumerate(used):
        for i, m in row.items():
            logs[position[i], r], present[position[i], r] = math.log(m), True
    adjusted = min_p_adjusted(logs, present, np.array([t[2].p_value for t in tested]), with_scores=with_scores,
                              resamples=resamples)
    return [FamilyTest(r, ls, sp, float(p)) for (r, ls, sp), p in zip(tested, adjusted)]
