# SPDX-License-Identifier: BSD-3-Clause
"""Roth 2021 §4.5: categories of repetitions — first, warmup, outlier, good — where a warm-up
is declared only when it is a real trend.

- first: repetition 0.
- warmup: 0 < i < w, where w is the end of the warm-up, found in three steps:
  1. Is there a warm-up? One-sided Wilcoxon rank-sum test that repetitions 1 … w−1 are slower
     than repetitions w … n−1, at every w of a geometric grid min_w, ⌈1.5·min_w⌉, … ≤ n/2
     (normal approximation with tie and continuity corrections, one ranking for all w), and
     Bonferroni over the K grid points: p = min(1, K · min_w p_w). Rank tests know their
     false-positive rate on any i.i.d. (or shuffled) series, whatever the distribution — but not
     on autocorrelated ones: on AR(1) run times with φ = 0.9 the first repetitions wander far
     from the rest by chance. So a second test must agree (:func:`level_test`: the difference of
     mean log run times over its AR(1) standard error, calibrated by a sieve bootstrap of the
     AR(1) fitted to the series); p is the larger of the two. Significant when p ≤ ``alpha``
     (0.01).
  2. Where does it end? w fitted by least squares on the log run times (values above the
     outlier threshold clipped to it) over every 2 ≤ w ≤ n/2, for two shapes: a plateau that
     drops to the steady level (a step), or a ramp, linear in log time, that meets the steady
     level at w (a decay); the ramp unless the step fits clearly better (n · log(RSS_ramp /
     RSS_step) > 2, "positive evidence" on the BIC scale of Kass & Raftery 1995: with noisy short
     decays the step tends to win by a hair and ends too early).
  3. Is it one? Only when the test is significant, w ≥ ``min_w`` (Roth's w ≥ 10) and the
     warm-up is material: median(x_1 … x_{w−1}) ≥ (1 + ``cliff``) · median(x_w … x_{n−1}),
     Roth's 10 % of the median. Otherwise w = 0: no warm-up.
- outlier: run time ≥ 2 × median (of all repetitions given).
- good: the rest.
A repetition gets the first category that applies, in that order.

What changed from Roth's rule (the smallest w ≥ 10 where the cumulative minimum drops by at
least 0.1 · median, eq. 4.1 and 4.6): that rule reacts to a single fast repetition. On i.i.d.
lognormal noise (σ = 0.15) it found a warm-up in 31 % of 300-repetition series, shuffled series
kept theirs, and one repetition 15 % faster than the rest at 251 made a warm-up of 251. The
rank test above flags well under 5 % of i.i.d. normal, lognormal, bimodal or shuffled series,
and the fit finds decaying warm-ups of 20, 50 and 100 of 300 repetitions within ±20 %
(python/tests/test_stats_warmup.py).

Input: the run times of one launch and test in repetition order. Cost: O(n log n) for the rank
test; when it is significant, O((BOOT_FIRST + BOOT_MORE) · n) for the level test's bootstrap.
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy import special

from mpimeter.stats.ranks import midranks, tie_sizes

FIRST, WARMUP, OUTLIER, GOOD = 0, 1, 2, 3
NAMES = ("first", "warmup", "outlier", "good")
STEP_EVIDENCE = 2.0  # n · log(RSS_ramp / RSS_step) above which the step shape is taken
BOOT_FIRST = 400  # sieve-bootstrap series of the level test's null
BOOT_MORE = 7_600  # more when the p-value is small: Holm over 200 series needs p ≤ 2.5e-4
BOOT_EXTEND = 0.05
BOOT_SEED = 1997
BURN_IN = 50
PHI_MAX = 0.99
PHI_UP = 2.0  # the null's φ: the estimate plus this many standard errors × |N(0, 1)|


@dataclass(frozen=True)
class Warmup:
    """``end``: w (0 when there is no warm-up); ``p_value`` of the trend test (NaN when the
    series is too short for any candidate, n < 2·min_w); ``significant``: p_value ≤ alpha;
    ``fitted_end``: where the fit puts the end when the test is significant (else 0), even when
    it is too short or too small to be a warm-up."""

    end: int
    p_value: float
    significant: bool
    fitted_end: int


@dataclass(frozen=True)
class Categories:
    codes: np.ndarray  # int8, one of FIRST/WARMUP/OUTLIER/GOOD per repetition
    warmup_end: int  # w (0 when no warm-up was found)
    warmup_p: float = math.nan  # p-value of the warm-up test
    warmup_significant: bool = False

    @property
    def warmup_length(self) -> int:
        return max(self.warmup_end - 1, 0)

    def counts(self) -> dict[str, int]:
        c = np.bincount(self.codes, minlength=4)
        return {NAMES[i]: int(c[i]) for i in range(4)}


def candidate_ends(n: int, *, min_w: int = 10, ratio: float = 1.5) -> np.ndarray:
    """The grid of w tested: min_w, then × ``ratio`` (rounded up), up to n // 2."""
    return np.array(_candidate_ends(n, min_w, ratio), dtype=int)


@lru_cache(maxsize=64)
def _candidate_ends(n: int, min_w: int, ratio: float) -> tuple[int, ...]:
    # once per length: a campaign's series, and a check's simulations, share few lengths
    out: list[int] = []
    w = float(min_w)
    while math.ceil(w) <= n // 2:
        if not out or math.ceil(w) > out[-1]:
            out.append(math.ceil(w))
        w *= ratio
    return tuple(out)


def trend_test(x: np.ndarray, *, min_w: int = 10, ratio: float = 1.5) -> float:
    """p-value that the repetitions after the first get faster: the one-sided rank-sum test of
    x_1 … x_{w−1} > x_w … x_{n−1} at each w of :func:`candidate_ends`, Bonferroni over them.
    NaN when there is no candidate."""
    x = np.asarray(x, dtype=float)
    last, least, mean, var = _rank_sum_terms(x.size, min_w, ratio)
    y = x[1:]
    n = y.size
    # np.ptp's numbers (the largest less the smallest) without its wrappers
    if last.size == 0 or y.max() - y.min() == 0:
        return math.nan if last.size == 0 else 1.0
    r, ordered = midranks(y)
    t = tie_sizes(ordered)
    tie = float((t**3 - t).sum()) / (n * (n - 1))
    u = np.cumsum(r)[last] - least
    z = (u - mean - 0.5) / np.sqrt(var * (n + 1 - tie))
    return float(min(1.0, last.size * special.ndtr(-z).min()))


@lru_cache(maxsize=64)
def _rank_sum_terms(size: int, min_w: int, ratio: float) -> tuple[np.ndarray, ...]:
    """What :func:`trend_test` computes from the length alone, once per length (read-only): at each
    candidate end w, with k = w − 1 of the n = size − 1 repetitions before it, the position of the
    k-th rank in the cumulative sum, the smallest rank sum k(k + 1)/2, the null mean k(n − k)/2
    and the variance factor k(n − k)/12 (before the tie correction)."""
    ends = candidate_ends(size, min_w=min_w, ratio=ratio)
    n = size - 1
    k = (ends - 1).astype(float)  # repetitions 1 … w−1
    terms = (ends - 2, k * (k + 1) / 2, k * (n - k) / 2, k * (n - k) / 12.0)
    for a in terms:
        a.flags.writeable = False
    return terms


def _ar1_phi(z: np.ndarray, *, upper: bool = True) -> np.ndarray:
    """φ of each row of a (series × m) array (m ≥ 8): the lag-1 autocorrelation with Kendall's
    (1954) small-sample bias correction (φ̂ + (1 + 3φ̂)/m) plus one standard error √((1 − φ̂²)/m)
    — from 50 values φ̂ is rough, and an underestimate makes false warm-ups — kept in [0, 0.98]."""
    m = z.shape[1]
    z = z - z.mean(axis=1, keepdims=True)
    var = np.einsum("ij,ij->i", z, z)
    with np.errstate(divide="ignore", invalid="ignore"):
        phi = np.einsum("ij,ij->i", z[:, 1:], z[:, :-1]) / var
    phi = np.where(var > 0, phi, 0.0)
    phi = phi + (1 + 3 * phi) / m
    if upper:
        phi = phi + np.sqrt(np.maximum(1 - phi * phi, 0.0) / m)
    return np.clip(phi, 0.0, 0.98)


def ar1_variance_factor(y: np.ndarray) -> float:
    """How much AR(1) dependence widens a mean of consecutive values: (1 + φ) / (1 − φ), φ from
    :func:`_ar1_phi`: never below the i.i.d. variance; 1 for fewer than 8 values."""
    z = np.asarray(y, dtype=float)
    if z.size < 8:
        return 1.0
    phi = float(_ar1_phi(z[None, :])[0])
    return (1 + phi) / (1 - phi)


def _level_z_per_end(y: np.ndarray, ends: np.ndarray, *, overwrite: bool = False) -> np.ndarray:
    """The level statistic at each candidate end (rows) of each series in the columns of a
    (n × series) array of log run times: (mean before w − mean after) over its standard error
    under AR(1) dependence, φ and the variance from the residuals of the whole series around
    those two means (a stationary series when w is the end; a wrong w leaves part of the step in
    them, which only widens its own error) — −inf where the residuals do not vary. The sums over
    the residuals come from prefix sums of the centred series, its squares and its lag-1
    products: O(n) per series once, then O(1) per end (the residuals of every end written out
    were most of a bootstrap's time). Series run down the columns so that the prefix sums add
    contiguous rows. ``overwrite``: ``y`` is scratch, centred in place (the same numbers)."""
    n = y.shape[0]
    ks = ends.astype(int) - 1  # repetitions 1 … w−1 are the first k of the series
    rows = np.unique(np.r_[0, ks - 1, ks, n - 1])
    sums = _prefix_sums(y, rows, overwrite=overwrite)
    at_k = np.searchsorted(rows, ks)
    k = ks[:, None].astype(float)  # whole numbers, exact: the arithmetic below casts them so
    out = np.empty((ends.size, y.shape[1]))
    # every end at once, a block of series at a time: a few calls, on arrays small enough for
    # the allocator to reuse (ends × thousands of series were mapped anew each time, page by page)
    for start in range(0, y.shape[1], END_BLOCK):
        block = slice(start, start + END_BLOCK)
        out[:, block] = _level_z_from_sums(sums[:, :, block], at_k, k, n)
    return out


def _level_z_from_sums(sums: np.ndarray, at_k: np.ndarray, k: np.ndarray, n: int) -> np.ndarray:
    """:func:`_level_z_per_end` from the prefix sums of :func:`_prefix_sums` at the ends k (a
    column; ``at_k``, k's row in ``sums``): element by element the arithmetic of one end at a time."""
    first, sq, lag, value = sums
    sum_before = first[at_k - 1]
    sum_after = first[-1] - sum_before
    before, after = sum_before / k, sum_after / (n - k)
    ss = sq[-1] - sum_before * before - sum_after * after
    # Σ r_i·r_{i−1} of the residuals r: pairs within the first k, the pair across k, pairs after
    y_first, y_before, y_at, y_last = value[0], value[at_k - 1], value[at_k], value[-1]
    cross = (lag[at_k - 1] - before * (2 * sum_before - y_first - y_before) + (k - 1) * before * before
             + (y_at - after) * (y_before - before)
             + lag[-1] - lag[at_k] - after * (2 * sum_after - y_at - y_last) + (n - k - 1) * after * after)
    # residuals within the rounding of these sums do not vary: a step without noise
    varies = ss > 4 * n * np.finfo(float).eps * sq[-1]
    with np.errstate(divide="ignore", invalid="ignore"):
        phi = cross / ss
    np.copyto(phi, 0.0, where=~varies)  # np.where's numbers, without its slower selection
    # Kendall's correction as in _ar1_phi, without its margin: the bootstrap calibrates the statistic
    phi = np.clip(phi + (1 + 3 * phi) / n, 0.0, 0.98)
    factor = (1 + phi) / (1 - phi)
    # a dependent series' sample variance misses the part its own means wander: E s² ≈ σ²(1 − f/n)
    var = ss / (n - 2) / np.maximum(1.0 - 2 * factor / n, 0.5)
    scale = np.sqrt(np.maximum(var * factor * (1 / k + 1 / (n - k)), 0.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (before - after) / scale
    np.copyto(z, -np.inf, where=~(varies & (scale > 0)))
    return z


WIDE = 256  # columns from which _prefix_sums adds row by row instead of np.cumsum
END_BLOCK = 1024  # series per block of _level_z_per_end's arithmetic over the ends
# bootstrap series drawn at once (_draws): even, so that no block leaves half of a 64-bit draw
# of the integers' stream; small, so that a block's indices and values reuse the allocator's
# memory instead of pages mapped anew (512 spent a third of a bootstrap in page faults)
DRAW_BLOCK = 64
TAKE_BLOCK = 1 << 16  # innovations _sieve_null takes at once (512 KiB of float64)


def _prefix_sums(y: np.ndarray, rows: np.ndarray, *, overwrite: bool = False) -> np.ndarray:
    """The prefix sums of the columns of ``y`` centred (less their means) — Σ c_i, Σ c_i² and
    Σ c_i·c_{i−1} (from i = 1) over i ≤ j — and c_j itself, at each row j of the sorted
    ``rows`` only: a (4 × rows × columns) array. ``overwrite``: ``y`` is centred in place. Both
    ways add in np.cumsum's order, one row after the other, and give its numbers
    (python/tests/test_stats_warmup.py): np.cumsum down the columns of a bootstrap's few
    thousand series strides across rows and writes three arrays of the series' size, where one
    running sum per column, kept at the few rows the ends ask for (in memory kept from one
    bootstrap to the next: :func:`_scratch`), stays in cache (a sixth of the time at 7 600 series)."""
    # centred: the sums of squares cancel no large common level
    if overwrite:
        y -= y.mean(axis=0)
    else:
        y = y - y.mean(axis=0)
    if y.shape[1] < WIDE:
        lag = np.zeros_like(y)
        np.cumsum(y[1:] * y[:-1], axis=0, out=lag[1:])
        return np.stack([np.cumsum(y, axis=0)[rows], np.cumsum(y * y, axis=0)[rows], lag[rows], y[rows]])
    memory = _scratch(4 * rows.size + 4, y.shape[1], use="sums")
    kept = memory[:4 * rows.size].reshape(4, rows.size, y.shape[1])
    run_first, run_sq, run_lag, product = memory[4 * rows.size:]
    run_first[:] = y[0]
    np.multiply(y[0], y[0], out=run_sq)
    run_lag[:] = 0.0
    at = {j: i for i, j in enumerate(rows.tolist())}
    previous = None
    # each row's view made once: at a few hundred series the loop is calls more than arithmetic
    for j, row in enumerate(y):
        if previous is not None:
            run_first += row
            run_sq += np.multiply(row, row, out=product)
            run_lag += np.multiply(row, previous, out=product)
        previous = row
        if j in at:
            kept[:, at[j]] = run_first, run_sq, run_lag, row
    return kept


def _draws(rng: np.random.Generator, size: int, n: int, draws: int) -> tuple[np.ndarray, np.ndarray]:
    """The random part of :func:`_sieve_null`: which residual each value of each series takes (a
    column per series, n + BURN_IN rows) and each series' normal deviate of its φ. The indices
    are rng.choice(resid, (draws, n + BURN_IN))'s: it draws these indices, and integers drawn in
    blocks of series are the same stream."""
    # the smallest type that holds them: the bootstrap reads them all, row by row
    indices = np.empty((n + BURN_IN, draws), dtype=np.int16 if size <= 1 << 15 else np.int32)
    for start in range(0, draws, DRAW_BLOCK):
        drawn = rng.integers(0, size, size=(min(DRAW_BLOCK, draws - start), n + BURN_IN), dtype=np.int64)
        indices[:, start:start + drawn.shape[0]] = drawn.T
    return indices, rng.standard_normal(draws)


DRAWS_KEPT = 8 << 20  # indices kept per series length (16 MiB: 7 600 series of 1 000 values)


def _level_draws(n: int, more: bool) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_draws` of :func:`level_test`'s bootstrap of a series of n values (seeded by n):
    the BOOT_FIRST series, or the BOOT_MORE after them. They depend on n only, so the series of
    one length — a campaign's, a check's — share them (:func:`_shared_level_draws`): drawing the
    integers was a third of a bootstrap's time."""
    if (n + BURN_IN) * BOOT_MORE <= DRAWS_KEPT:
        return _shared_level_draws(n, more)
    return _drawn_level_draws(n, more)


def _drawn_level_draws(n: int, more: bool) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(BOOT_SEED + n)
    drawn = _draws(rng, n - 1, n, BOOT_FIRST)
    if more:
        drawn = _draws(rng, n - 1, n, BOOT_MORE)
    for a in drawn:
        a.flags.writeable = False
    return drawn


_shared_level_draws = lru_cache(maxsize=2)(_drawn_level_draws)


def _sieve_null(z: np.ndarray, phi: float, n: int, ends: np.ndarray, indices: np.ndarray,
                normals: np.ndarray) -> np.ndarray:
    """The level statistic (:func:`_level_z_per_end`, the largest over the ends) of as many
    series of n values as ``normals`` holds, from AR(1) processes with coefficients drawn at and
    above ``phi`` (``phi`` + PHI_UP standard errors × |N(0, 1)|, ``normals``, at most PHI_MAX),
    whose innovations are the centred residuals of the centred series ``z`` that ``indices``
    picks (:func:`_draws`), after a burn-in of BURN_IN values: a sieve bootstrap (Bühlmann 1997)
    of the statistic's null."""
    resid = z[1:] - phi * z[:-1]
    resid = resid - resid.mean()
    # one series per column: each step of the recursion below adds one contiguous row
    y = _scratch(n + BURN_IN, normals.size)
    # φ is an estimate from n values, and low exactly where a stationary series looks like a
    # warm-up: the best end's two means take up its early wander. Drawn symmetrically around the
    # estimate (one standard error), the bootstrap's far tail was too thin — 1.0e-3 of stationary
    # series at p ≤ 4.2e-4, Holm's first level over 120 series — so each series draws its φ above
    phis = np.clip(phi + PHI_UP * math.sqrt(max(1 - phi * phi, 0.0) / n) * np.abs(normals), 0.0, PHI_MAX)
    # a block of rows' innovations taken just before the recursion adds to them, while in cache:
    # one call for a few rows of thousands of series, or for all rows of a few hundred
    # ("wrap": the indices are in range, and numpy buffers a take into ``out`` under "raise")
    step = max(1, TAKE_BLOCK // normals.size)
    product = np.empty(normals.size)
    previous = None
    for start in range(0, n + BURN_IN, step):
        block = y[start:start + step]
        resid.take(indices[start:start + step], out=block, mode="wrap")
        for row in block:
            if previous is not None:
                row += np.multiply(phis, previous, out=product)
            previous = row
    return _level_z_per_end(y[BURN_IN:], ends, overwrite=True).max(axis=0)


_SCRATCH = threading.local()
SCRATCH_KEPT = 8 << 20  # 64 MiB of float64 per use: 8 000 series of 1 000 values


def _scratch(rows: int, columns: int, *, use: str = "series") -> np.ndarray:
    """An uninitialised (rows × columns) array for :func:`_sieve_null`'s series (or, ``use``,
    another of a bootstrap's big arrays), the same memory from one bootstrap to the next (per
    thread and use): 8 000 series of a few hundred values are tens of MB, which the allocator
    otherwise maps anew each time and the kernel zeroes page by page (a third of a bootstrap's
    time in page faults). Every element is written before it is read. Kept up to SCRATCH_KEPT
    values: a longer series' bootstrap gets memory of its own, not held after."""
    size = rows * columns
    if size > SCRATCH_KEPT:
        return np.empty((rows, columns))
    kept = _SCRATCH.__dict__.setdefault("memory", {})
    if use not in kept or kept[use].size < size:
        kept[use] = np.empty(size)
    return kept[use][:size].reshape(rows, columns)


def level_test(x: np.ndarray, *, min_w: int = 10, ratio: float = 1.5, outlier_factor: float = 2.0) -> float:
    """p-value that repetitions 1 … w−1 sit above the rest by more than the series' own slow
    wandering explains. The statistic (:func:`_level_z_per_end`) is the largest over the candidate
    ends of :func:`candidate_ends` of the difference of the mean log run times (values clipped at the
    outlier threshold) over its standard error under AR(1) dependence. Its null is not the
    normal one: with φ = 0.9 an estimated φ is rough, and a normal p-value with Bonferroni over
    the ends put 1.2 % of stationary series at p ≤ 0.01, so that Holm over a campaign's series
    warned in a quarter of the campaigns. The p-value is therefore the share of series simulated
    from the AR(1) fitted to the series (its residuals around the best end's two means; φ one
    standard error up, each simulated series drawing its own φ above that: :func:`_sieve_null`)
    whose statistic, computed as the data's, is at least the data's — a sieve bootstrap
    (Bühlmann 1997): BOOT_FIRST series, and BOOT_MORE more when that share is below BOOT_EXTEND
    (the small p-values a campaign's Holm needs, down to 1/(BOOT_FIRST + BOOT_MORE + 1)). Seeded by the series' length: the same p every time. NaN without a candidate."""
    x = np.asarray(x, dtype=float)
    ends = candidate_ends(x.size, min_w=min_w, ratio=ratio)
    if ends.size == 0:
        return math.nan
    med = float(np.median(x))
    y = np.minimum(x[1:], outlier_factor * med) if med > 0 else x[1:]
    if np.any(y <= 0):
        return 1.0
    y = np.log(y)
    n = y.size
    per_end = _level_z_per_end(y[:, None], ends)[:, 0]
    observed = float(per_end.max())
    if n < 8 or not np.isfinite(observed):
        return 1.0
    # the null's AR(1) is fitted to the residuals around the best end's two means: the whole
    # series, stationary under the null and, under a warm-up ending there, without it
    k = int(ends[int(np.argmax(per_end))]) - 1
    z = np.concatenate([y[:k] - y[:k].mean(), y[k:] - y[k:].mean()])
    # removing the best end's step also removes part of a stationary series' slow wander, and
    # its φ comes out low: the second half, which a warm-up leaves steady, may say more
    steady = y[n // 2:] - y[n // 2:].mean()
    phi = max(float(_ar1_phi(z[None, :])[0]), float(_ar1_phi(steady[None, :])[0]) if steady.size >= 8 else 0.0)
    # seeded by n: the draws of rng = default_rng(BOOT_SEED + n), BOOT_FIRST series then BOOT_MORE
    null = _sieve_null(z, phi, n, ends, *_level_draws(n, False))
    if (np.count_nonzero(null >= observed) + 1) / (null.size + 1) < BOOT_EXTEND:
        null = np.concatenate([null, _sieve_null(z, phi, n, ends, *_level_draws(n, True))])
    return float((np.count_nonzero(null >= observed) + 1) / (null.size + 1))


def fit_end(x: np.ndarray, *, outlier_factor: float = 2.0) -> int:
    """w by least squares on log run times (clipped at the outlier threshold): the better of a
    plateau x_1 … x_{w−1} then a constant, and a ramp linear in log time that meets the constant
    at w, over 2 ≤ w ≤ n/2, the ramp unless the step is clearly better. 0 when n < 5."""
    x = np.asarray(x, dtype=float)
    if x.size < 5:
        return 0
    med = float(np.median(x))
    y = np.minimum(x[1:], outlier_factor * med) if med > 0 else x[1:]
    y = np.log(y) if np.all(y > 0) else y
    n = y.size
    i = np.arange(n, dtype=float)
    cy, ciy, cyy = np.cumsum(y), np.cumsum(i * y), np.cumsum(y * y)
    ty, tyy = cy[-1], cyy[-1]
    k = np.arange(1, n // 2 + 1, dtype=float)  # warm-up repetitions
    sy, siy = cy[k.astype(int) - 1], ciy[k.astype(int) - 1]
    rss_step = tyy - sy**2 / k - (ty - sy) ** 2 / (n - k)
    # ramp: y = a + b·f with f_i = max(k − i, 0); residuals of the regression on f
    sf, sff = k * (k + 1) / 2, k * (k + 1) * (2 * k + 1) / 6
    sfy = k * sy - siy
    sxx, sxy = sff - sf**2 / n, sfy - sf * ty / n
    rss_ramp = (tyy - ty**2 / n) - sxy**2 / sxx
    step_wins = n * math.log(max(rss_ramp.min(), 1e-300) / max(rss_step.min(), 1e-300)) > STEP_EVIDENCE
    return int(k[int(np.argmin(rss_step if step_wins else rss_ramp))]) + 1


def detect_warmup(
    x: np.ndarray, *, min_w: int = 10, alpha: float = 0.01, cliff: float = 0.1, outlier_factor: float = 2.0
) -> Warmup:
    """The warm-up of one series (see the module docstring)."""
    x = np.asarray(x, dtype=float)
    p = trend_test(x, min_w=min_w)
    if p <= alpha:  # both must hold: the rank test's level on any i.i.d. series, this one's under AR(1)
        p = max(p, level_test(x, min_w=min_w, outlier_factor=outlier_factor))
    if not p <= alpha:
        return Warmup(0, p, False, 0)
    w = fit_end(x, outlier_factor=outlier_factor)
    real = w >= min_w and float(np.median(x[1:w])) >= (1 + cliff) * float(np.median(x[w:]))
    return Warmup(w if real else 0, p, True, w)


def warmup_end(x: np.ndarray, *, min_w: int = 10, alpha: float = 0.01, cliff: float = 0.1) -> int:
    """w of :func:`detect_warmup`, 0 when there is no warm-up."""
    return detect_warmup(x, min_w=min_w, alpha=alpha, cliff=cliff).end


def categorize(
    x: np.ndarray, *, min_w: int = 10, alpha: float = 0.01, cliff: float = 0.1, outlier_factor: float = 2.0
) -> Categories:
    x = np.asarray(x, dtype=float)
    n = x.size
    codes = np.full(n, GOOD, dtype=np.int8)
    if n == 0:
        return Categories(codes, 0)
    wu = detect_warmup(x, min_w=min_w, alpha=alpha, cliff=cliff, outlier_factor=outlier_factor)
    codes[x >= outlier_factor * float(np.median(x))] = OUTLIER
    if wu.end > 1:
        codes[1:wu.end] = WARMUP
    codes[0] = FIRST
    return Categories(codes, wu.end, wu.p_value, wu.significant)
