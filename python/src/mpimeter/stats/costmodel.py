# SPDX-License-Identifier: BSD-3-Clause
"""Cost models of a communication operation: Hockney's T(m) = α + β·m and a piecewise version
whose breakpoints mark where the protocol changes (eager → rendezvous), fitted to per-launch
medians (SKaMPI, Reussner et al. 1998, §5: "piecewise closed form expressions for the cost of
the functions"; Hockney 1994, "The communication challenge for MPP").

The fit (``fit_line``): run times span orders of magnitude across sizes and their noise grows
with them, so each point is divided by the median time at its size — the fit is of relative
errors, every size weighing alike — and fitted by robust regression (statsmodels RLM, Huber's
T norm, tuning constant 1.345): a launch whose median is far off is down-weighted instead of
pulling the line. The tuning constant is per point (``size_tuning``): 1.345 × the spread of its
size's relative times over the median spread of all sizes, never less than 1.345. Why: relative
noise is not alike across sizes when a launch effect is additive (the same nanoseconds at every
size: 3 % of the time at 8 B, nothing at 1 MiB). With one constant, RLM's one scale is set by
the quiet large sizes, and at the small sizes, which carry α, Huber's weights drop most launches
(0.2–0.65): α̂ turns median-like, and the delete-one jackknife below underestimates the variance
of median-like estimates (Efron 1982, *The Jackknife, the Bootstrap and Other Resampling Plans*
§3.4) — α covered 92.8 % (742 of 800) with a shared additive offset. Judged against its own
size's spread, a launch is down-weighted only where it is far off among the launches at that
size, and α̂ stays a smooth (mean-like) function of the launches. The floor at 1.345 keeps the
sizes no noisier than the typical one as they were: where the noise is alike across sizes (a
shared factor, independent noise) only the sizes that are noisier by chance get a little more
room, and the fit changes little; a launch far off at its size is still down-weighted. A size's spread is the
normalised median absolute deviation about its median (statsmodels' ``mad``), estimated only from
``MIN_SPREAD_POINTS`` (6) points or more: the MAD holds with one outlying launch, where the median
pairwise difference (``pure_noise``) does not with few points (one outlier of four owns 3 of the
6 differences and would widen its own size's constant). With 4 points the MAD does not hold
either (one launch twice as slow made its size's factor 3.2; of 6 points, 1.02), so sizes with
fewer than 6 keep 1.345. Between sizes of equal noise the factor scatters by chance (1 to about
3 with 4–6 points), which loosens the constant there to at most ~4 σ: a far-off launch is still
down-weighted. The MAD's small-sample bias cancels in the ratio to the median over sizes.

The intervals of α and β: the points are per-launch medians, and a launch effect moves every
size of a launch together — the points of a launch are not independent, and intervals that
treat them so cover 71 % (α) and 76 % (β) with a shared 3 % launch effect. So when
the points say which launch they come from (``launches``) the intervals resample launches: the
delete-one-launch jackknife (Efron & Tibshirani 1993, *An Introduction to the Bootstrap* §11;
the cluster jackknife of the regression literature, e.g. Cameron & Miller 2015, J. Human
Resources 50:317, §VI.B) — the line refitted without each launch in turn, the covariance of
(α, β) (L − 1)/L · Σ (θ₍ₗ₎ − θ̄)(θ₍ₗ₎ − θ̄)ᵀ over the L launches, and Student-t intervals with
L − 1 degrees of freedom (the launches are the independent units). A cluster bootstrap
would resample the same units; the jackknife is used because it needs only
L refits, repeats exactly, and meets the coverage asked for (bench/stats_dependence.py, 10
launches × 18 sizes, shared 3 % launch factor: α 94 %, β 95 %), and the output names it as the
jackknife. A percentile cluster bootstrap is not added: with about 10 clusters it tends to cover
less than the jackknife-t, not more (Cameron, Gelbach & Miller 2008, Rev. Econ. Stat. 90:414).
A launch offset in nanoseconds shared by every size was its weak case (α 92.8 %) until the
tuning constant became per size (above; numbers in docs/ALGORITHMS.md). Fewer than ``MIN_INTERVAL_LAUNCHES``
launches: no interval (``interval`` says so) — one launch cannot show a launch effect, and an
interval from its points alone would claim what it cannot know. Without ``launches`` (points
known to be independent) the intervals are Student-t from RLM's covariance (H1), n − 2 degrees
of freedom.

The breakpoints (``fit_piecewise``): each segment is its own Hockney line (α jumps where a
protocol adds a handshake), covering at least ``min_sizes`` consecutive distinct sizes. Among
0 … ``max_breakpoints`` breakpoints at every position, the partition with the least
Bayesian information criterion is chosen (Schwarz 1978), with Huber's loss in place of the
Gaussian log-likelihood so that an outlying launch cannot buy a breakpoint:
BIC = 2·Σ ρ(rᵢ/σ₀) + k·ln n, ρ Huber's (c = 1.345), rᵢ the relative residuals of all segments,
k = 2 parameters per segment + 1 per breakpoint. σ₀ is one noise scale for every candidate
(as Mallows' Cp takes σ from the fullest model): the spread of the points of one size among
themselves, which no model of size can explain — 1.4826 × the median of the absolute pairwise
differences of relative times within each size, / √2 (a difference of two has twice the
variance). Pairwise differences need no estimate of the centre, which with 3 launches per size
would make the spread look smaller than it is (the median of three is always one of them). It
needs at least 2 launches at some size; with fewer, no breakpoint is looked for.
Cost: one RLM fit per candidate segment, O(S²) for S distinct sizes (cached), and O(S^b) pooled
scales for b breakpoints.

How well the model fits (``size_errors``): per size, the relative error of the prediction
against the median of per-launch medians, and whether the model misses the size — the
confidence band of the fitted line at that size and the confidence interval of the measured
median do not overlap, or, whatever the intervals, the error exceeds ``error_threshold`` (a jump
the model does not follow is reported even where no interval can judge it: one launch). A size
that neither shows is ``missed`` None: not checked.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
from scipy import stats as _st

from mpimeter.stats.costmodel_threshold import ERROR_THRESHOLD  # above it a size is missed, whatever the intervals
from mpimeter.stats.rlm import huber_rlm

MIN_INTERVAL_LAUNCHES = 3  # fewer launches: no interval of α and β (module docstring)
MAD_TO_SD = 1.4826  # σ of a normal = 1.4826 × its median absolute deviation
HUBER_C = 1.345  # statsmodels' HuberT default: 95 % efficiency at the normal
MIN_SPREAD_POINTS = 6  # fewer points at a size: its spread is not estimated (``size_tuning``)
MAD_NORMAL_QUANTILE = float(_st.norm.ppf(0.75))  # statsmodels' mad divides by it: σ of a normal


@dataclass(frozen=True, kw_only=True)
class LineFit:
    """T(m) = alpha_ns + beta_ns_per_byte·m over the sizes from ``from_bytes`` to ``to_bytes``,
    with intervals at ``confidence`` made as ``interval`` says (``INTERVALS``; None: no interval,
    too few launches), ``df`` their degrees of freedom, ``cov``: the covariance of (α, β), for the
    band of the line (None with no interval)."""

    from_bytes: int
    to_bytes: int
    alpha_ns: float
    beta_ns_per_byte: float
    alpha_ci_ns: tuple[float, float] | None
    beta_ci: tuple[float, float] | None
    confidence: float
    points: int
    sizes: int
    cov: np.ndarray | None = field(repr=False, compare=False)
    relative_residuals: np.ndarray = field(repr=False, compare=False)
    interval: str = "points"
    launches: int = 0
    df: int = 0

    def predict(self, size: float | np.ndarray) -> float | np.ndarray:
        return self.alpha_ns + self.beta_ns_per_byte * np.asarray(size, dtype=float)

    def band(self, size: float) -> tuple[float, float] | None:
        """The confidence band of the line at ``size``: prediction ± t·√([1, m] Σ [1, m]ᵀ); None
        without an interval."""
        if self.cov is None:
            return None
        x = np.array([1.0, float(size)])
        half = _t(self.confidence, self.df) * math.sqrt(max(float(x @ self.cov @ x), 0.0))
        mid = float(self.predict(size))
        return mid - half, mid + half


# how the intervals of a LineFit were made
INTERVALS = {"launches": "delete-one-launch jackknife, Student-t with launches − 1 df",
             "points": "Student-t from the robust fit's covariance, points taken as independent",
             "none": f"none: fewer than {MIN_INTERVAL_LAUNCHES} launches"}


@dataclass(frozen=True)
class PiecewiseFit:
    """Segments in order of size; ``breakpoints`` are the first size of every segment but the
    first; ``bic`` the criterion that chose them among ``candidates`` partitions."""

    segments: tuple[LineFit, ...]
    breakpoints: tuple[int, ...]
    bic: float
    candidates: int

    def segment_for(self, size: float) -> LineFit:
        for seg in reversed(self.segments):
            if size >= seg.from_bytes:
                return seg
        return self.segments[0]

    def predict(self, size: float) -> float:
        return float(self.segment_for(size).predict(size))


@dataclass(frozen=True, kw_only=True)
class SizeError:
    """The model at one size against the measured median with its interval. ``missed``: the
    intervals do not overlap or |rel_error| > the threshold; None when neither could show it (no
    interval on one side and the error below the threshold: not checked)."""

    size: int
    median_ns: float
    predicted_ns: float
    band_ns: tuple[float, float] | None
    rel_error: float  # (predicted − median) / median
    missed: bool | None


@lru_cache(maxsize=256)
def _t(confidence: float, df: int) -> float:
    """The Student-t quantile of a two-sided interval: scipy's ppf costs a twentieth of a line's fit,
    and a piecewise model's segments ask for the same few."""
    return float(_st.t.ppf(0.5 + confidence / 2, max(df, 1)))


def _check(sizes: np.ndarray, times: np.ndarray, confidence: float) -> None:
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    if sizes.shape != times.shape or sizes.ndim != 1:
        raise ValueError("sizes and times must be 1-d arrays of the same length")
    if not (np.all(np.isfinite(times)) and np.all(times > 0) and np.all(sizes >= 0)):
        raise ValueError("times must be finite and positive, sizes non-negative")


def fit_line(sizes: Sequence[float], times: Sequence[float], *, launches: Sequence | None = None,
             confidence: float = 0.95) -> LineFit:
    """Hockney's model fitted to (size, time) points — per-launch medians, several per size —
    by robust regression on relative errors, with intervals resampling ``launches`` (the launch
    of each point) when given (module docstring). Needs ≥ 2 distinct sizes and ≥ 3 points."""
    m = np.asarray(sizes, dtype=float)
    y = np.asarray(times, dtype=float)
    _check(m, y, confidence)
    distinct = np.unique(m)
    if len(distinct) < 2 or len(y) < 3:
        raise ValueError(f"a line needs at least 2 sizes and 3 points (got {len(distinct)} and {len(y)})")
    params, cov, residuals = _rlm(m, y)
    head = {"from_bytes": int(distinct[0]), "to_bytes": int(distinct[-1]), "alpha_ns": float(params[0]),
            "beta_ns_per_byte": float(params[1]), "confidence": confidence, "points": len(y),
            "sizes": len(distinct), "relative_residuals": residuals}
    if launches is None:
        df = len(y) - 2
        alpha_ci, beta_ci = _intervals(params, cov, confidence, df)
        return LineFit(**head, alpha_ci_ns=alpha_ci, beta_ci=beta_ci, cov=cov, interval="points", launches=0, df=df)
    labels = np.asarray(launches)
    if labels.shape != m.shape:
        raise ValueError("launches must give one launch per point")
    units = np.unique(labels)
    cov = _jackknife_cov(m, y, labels, units) if len(units) >= MIN_INTERVAL_LAUNCHES else None
    if cov is None:
        return LineFit(**head, alpha_ci_ns=None, beta_ci=None, cov=None, interval="none", launches=len(units), df=0)
    df = len(units) - 1
    alpha_ci, beta_ci = _intervals(params, cov, confidence, df)
    return LineFit(**head, alpha_ci_ns=alpha_ci, beta_ci=beta_ci, cov=cov, interval="launches", launches=len(units),
                   df=df)


def _rlm(m: np.ndarray, y: np.ndarray, *, with_cov: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The robust fit of relative times: (α, β), RLM's covariance (H1; zeros unless ``with_cov``),
    relative residuals. Huber's tuning constant is per point, ``size_tuning`` (module docstring).
    statsmodels' RLM to the last bit, without its objects (:mod:`mpimeter.stats.rlm`)."""
    order = np.lexsort((y, m))
    medians, group = _group_medians(m, y, order)
    scale = medians[group]  # each point relative to its size's median: sizes weigh alike
    relative = y / scale
    design = np.column_stack([1.0 / scale, m / scale])
    # dividing a size's times by its (positive) median keeps their order: the same sort serves
    with np.errstate(all="ignore"):  # exactly fitted data (scale 0): the fit stands
        params, cov = huber_rlm(relative, design, HUBER_C * size_tuning(m, relative, order=order), with_cov=with_cov)
    params = np.asarray(params, dtype=float)
    cov = np.asarray(cov, dtype=float) if cov is not None else np.zeros((2, 2))
    if not np.all(np.isfinite(cov)):
        cov = np.zeros((2, 2))
    return params, cov, relative - design @ params


def _jackknife_cov(m: np.ndarray, y: np.ndarray, labels: np.ndarray, units: np.ndarray) -> np.ndarray | None:
    """The delete-one-launch jackknife covariance of (α, β) (module docstring); None when some
    launch cannot be left out (the rest would not make a line)."""
    thetas = []
    for u in units:
        keep = labels != u
        if len(np.unique(m[keep])) < 2 or keep.sum() < 3:
            return None
        thetas.append(_rlm(m[keep], y[keep], with_cov=False)[0])
    th = np.array(thetas)
    d = th - th.mean(axis=0)
    return (len(units) - 1) / len(units) * (d.T @ d)


def _intervals(params: np.ndarray, cov: np.ndarray, confidence: float,
               df: int) -> tuple[tuple[float, float], tuple[float, float]]:
    t = _t(confidence, df)
    se = np.sqrt(np.clip(np.diag(cov), 0.0, None))
    return ((float(params[0] - t * se[0]), float(params[0] + t * se[0])),
            (float(params[1] - t * se[1]), float(params[1] + t * se[1])))


def _group_medians(keys: np.ndarray, values: np.ndarray,
                   order: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The median of ``values`` in each group of equal ``keys`` (groups in ascending order of
    key) and each value's group: one sort by key and value, the middle value or the mean of the
    middle two as ``np.median`` takes them (the same numbers, without a call per group: a fit
    of 18 sizes asked for 36 medians, most of a robust fit's own time). ``order``: an order that
    sorts the points by key and value, when already made."""
    if keys.size == 0:
        return np.empty(0), np.empty(0, dtype=np.intp)
    if order is None:
        order = np.lexsort((values, keys))
    ordered_keys = keys[order]
    starts = np.flatnonzero(np.r_[True, ordered_keys[1:] != ordered_keys[:-1]])
    counts = np.diff(np.r_[starts, keys.size])
    ordered = values[order]
    high = starts + counts // 2
    medians = np.where(counts % 2 == 1, ordered[high], (ordered[high - 1] + ordered[high]) / 2)
    group = np.empty(keys.size, dtype=np.intp)
    group[order] = np.repeat(np.arange(starts.size), counts)
    return medians, group


def group_median(keys: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Each point's group's median time (the group: equal keys, e.g. the size; or (p, size)
    coded as one key by scalingmodel)."""
    medians, group = _group_medians(np.asarray(keys), np.asarray(y))
    return medians[group]


def pure_noise(keys: np.ndarray, relative: np.ndarray) -> float | None:
    """σ₀: the spread of the relative times of points of one group among themselves (module
    docstring), groups by any key (a size here; scalingmodel codes (p, m) as one key); None without
    two points in any group."""
    diffs = []
    for s in np.unique(keys):
        v = relative[keys == s]
        if len(v) >= 2:
            i, j = np.triu_indices(len(v), 1)
            diffs.append(np.abs(v[i] - v[j]))
    if not diffs:
        return None
    return MAD_TO_SD * float(np.median(np.concatenate(diffs))) / math.sqrt(2.0)


def size_tuning(m: np.ndarray, relative: np.ndarray, *, order: np.ndarray | None = None) -> np.ndarray:
    """Per point, the factor on Huber's tuning constant: its size's spread of relative times (the
    normalised MAD about the size's median) over the median of these spreads across sizes, at
    least 1 (module docstring); 1 at sizes with fewer than ``MIN_SPREAD_POINTS`` points, and
    everywhere when the typical spread is 0. ``order``: one that sorts the points by size and
    relative time, when already made."""
    factor = np.ones_like(relative)
    centres, group = _group_medians(m, relative, order)
    # statsmodels' ``mad`` of each size: the median of |x − median| / Φ⁻¹(3/4)
    spreads, _ = _group_medians(m, np.abs(relative - centres[group]) / MAD_NORMAL_QUANTILE)
    estimated = np.bincount(group) >= MIN_SPREAD_POINTS
    typical = float(np.median(spreads[estimated])) if estimated.any() else 0.0
    if typical > 0:
        factor = np.where(estimated, np.maximum(1.0, spreads / typical), 1.0)[group]
    return factor


def huber_loss(u: np.ndarray) -> float:
    """Huber's loss (tuning constant HUBER_C) summed over the scaled residuals u."""
    a = np.abs(u)
    return float(np.sum(np.where(a <= HUBER_C, 0.5 * a * a, HUBER_C * a - 0.5 * HUBER_C ** 2)))


def fit_piecewise(sizes: Sequence[float], times: Sequence[float], *, launches: Sequence | None = None,
                  max_breakpoints: int = 2, min_sizes: int = 3, confidence: float = 0.95) -> PiecewiseFit:
    """The piecewise Hockney model with the least BIC among 0 … ``max_breakpoints``
    breakpoints, each segment at least ``min_sizes`` distinct sizes (module docstring); the
    chosen segments' intervals resample ``launches`` when given (as ``fit_line``)."""
    if max_breakpoints < 0 or min_sizes < 2:
        raise ValueError("max_breakpoints must be ≥ 0 and min_sizes ≥ 2")
    m = np.asarray(sizes, dtype=float)
    y = np.asarray(times, dtype=float)
    _check(m, y, confidence)
    distinct = np.unique(m)
    n_sizes = len(distinct)
    if n_sizes < min_sizes:
        raise ValueError(f"a model needs at least {min_sizes} sizes (got {n_sizes})")
    cache: dict[tuple[int, int], LineFit | None] = {}

    def segment(a: int, b: int) -> LineFit | None:  # distinct sizes a … b inclusive
        if (a, b) not in cache:
            at = (m >= distinct[a]) & (m <= distinct[b])
            try:  # the criterion needs only the fits; the chosen segments get intervals below
                cache[(a, b)] = fit_line(m[at], y[at], confidence=confidence)
            except ValueError:
                cache[(a, b)] = None
        return cache[(a, b)]

    n = len(y)
    noise = pure_noise(m, y / group_median(m, y))
    if noise is None:
        max_breakpoints = 0  # one launch: the noise is unknown, so no breakpoint can be judged
    noise = max(noise or 0.0, 1e-9)  # noise-free data: any misfit counts
    best: tuple[float, tuple[LineFit, ...]] | None = None
    candidates = 0
    for k in range(0, max_breakpoints + 1):
        # breakpoint positions: index of the first distinct size of each later segment
        for cuts in itertools.combinations(range(min_sizes, n_sizes - min_sizes + 1), k):
            bounds = (0, *cuts, n_sizes)
            if any(bounds[i + 1] - bounds[i] < min_sizes for i in range(len(bounds) - 1)):
                continue
            segs = [segment(bounds[i], bounds[i + 1] - 1) for i in range(len(bounds) - 1)]
            if any(s is None for s in segs):
                continue
            candidates += 1
            residuals = np.concatenate([s.relative_residuals for s in segs])
            bic = 2 * huber_loss(residuals / noise) + (2 * len(segs) + k) * math.log(n)
            if best is None or bic < best[0] - 1e-9:
                best = (bic, tuple(segs))
    if best is None:
        raise ValueError("no segment could be fitted")
    bic, segs = best
    if launches is not None:
        labels = np.asarray(launches)
        segs = tuple(fit_line(m[at], y[at], launches=labels[at], confidence=confidence)
                     for at in ((m >= s.from_bytes) & (m <= s.to_bytes) for s in segs))
    return PiecewiseFit(segs, tuple(s.from_bytes for s in segs[1:]), bic, candidates)


def size_errors(model: LineFit | PiecewiseFit, sizes: Sequence[int], medians: Sequence[float],
                ci_low: Sequence[float | None], ci_high: Sequence[float | None], *,
                error_threshold: float = ERROR_THRESHOLD) -> tuple[SizeError, ...]:
    """Per size: the prediction, its band, the relative error against the measured median and
    whether the model misses the size — intervals apart, or an error above ``error_threshold``
    (module docstring)."""
    out = []
    for size, med, lo, hi in zip(sizes, medians, ci_low, ci_high):
        line = model.segment_for(size) if isinstance(model, PiecewiseFit) else model
        pred = float(line.predict(size))
        band = line.band(size)
        rel = (pred - med) / med if med > 0 else math.nan
        apart = None if lo is None or hi is None or band is None else bool(band[1] < lo or band[0] > hi)
        missed = True if math.isfinite(rel) and abs(rel) > error_threshold else apart
        out.append(SizeError(size=int(size), median_ns=float(med), predicted_ns=pred, band_ns=band, rel_error=rel,
                             missed=missed))
    return tuple(out)
