# SPDX-License-Identifier: BSD-3-Clause
"""Comparing two samples of per-launch medians state by state: van Elteren's stratified rank-sum
test and the stratified Hodges–Lehmann ratio with its interval.

Why: on a machine that flips between speed states from launch to launch, the pooled medians of
two campaigns differ by the mix of states (2.8× between two trials of one build),
so a rank-sum test on pooled per-launch medians finds a "regression" that is only the mix, and
can miss one inside every state behind a favourable mix. When both sides show the same
explained states (analysis.strata), the launches are compared within each state only.

- Van Elteren (1960; Hollander & Wolfe §4, "several samples in blocks"): T = Σ_s U_s / (N_s + 1),
  U_s the Mann–Whitney U of ``a`` in stratum s (midranks for ties), N_s its launches. The weight
  1 / (N_s + 1) gives each stratum the locally most powerful share when strata differ in size.
  Its null distribution — within each stratum every split of the launches into m_s and n_s
  equally likely, strata independent — is computed exactly: per stratum the distribution of
  the doubled midrank sum (``hypothesis.subset_sum_distribution``, ties as they are), the strata
  convolved on a common integer lattice (``exact-permutation``). Above ``EXACT_SUPPORT_MAX``
  joint values, the normal approximation with tie-corrected variances (``normal-approximation``).
  With one stratum it is the rank-sum test of ``hypothesis.rank_sum``, p for p.
- Ratio b / a: the shift δ of log values that zeroes the stratified statistic — the weighted
  median of the within-stratum pairwise differences log b − log a, each weighted by its
  stratum's 1 / (N_s + 1) — and the distribution-free interval of the δ the test at 1 − γ does
  not reject (test inversion, as Hodges–Lehmann's interval; Hollander & Wolfe §4.3), from the
  exact null distribution without ties.

Cost: per stratum O(N_s · m_s · N_s²) for its distribution; the convolution O(Π support) bounded
by EXACT_SUPPORT_MAX; the ratio O(M log M), M the within-stratum pairs.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from scipy import stats as _st

from mpimeter.stats import hypothesis
from mpimeter.stats.intervals import Interval

EXACT_SUPPORT_MAX = 4_000_000  # joint values of the convolved strata computed exactly
STRATUM_CELLS_MAX = 30_000_000  # cells of one stratum's subset-sum table (as hypothesis.PERMUTATION_COST_MAX)

Strata = Sequence[tuple[np.ndarray, np.ndarray]]  # per stratum: (a, b)


def _used(strata: Strata) -> list[tuple[np.ndarray, np.ndarray]]:
    """The strata with values on both sides (a stratum one side lacks says nothing about a vs b)."""
    out = []
    for a, b in strata:
        a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
        if a.size and b.size:
            out.append((a, b))
    return out


def _scales(sizes: Sequence[int]) -> list[int]:
    """Integer factors c_s = L / (N_s + 1), L the least common multiple of the N_s + 1: the
    weights 1 / (N_s + 1) on one integer lattice."""
    lcm = math.lcm(*(n + 1 for n in sizes))
    return [lcm // (n + 1) for n in sizes]


def _convolve(dists: Sequence[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray] | None:
    """Distribution of the sum of independent integer variables, each (values, probabilities);
    None when the joint support would exceed EXACT_SUPPORT_MAX."""
    values, probs = np.zeros(1, dtype=np.int64), np.ones(1)
    for v, p in dists:
        if values.size * v.size > EXACT_SUPPORT_MAX:
            return None
        joint = (values[:, None] + v[None, :]).ravel()
        weight = (probs[:, None] * p[None, :]).ravel()
        values, inverse = np.unique(joint, return_inverse=True)
        probs = np.bincount(inverse, weights=weight)
    return values, probs


def _stratum_u2(ranks2: np.ndarray, m: int) -> tuple[np.ndarray, np.ndarray] | None:
    """Null distribution of 2·U of the first m of the doubled midranks (values, probabilities)."""
    n_all = ranks2.size
    if n_all * m * int(ranks2.sum()) > STRATUM_CELLS_MAX:
        return None
    dist = hypothesis.subset_sum_distribution(ranks2, m)
    support = np.nonzero(dist > 0)[0]
    return support.astype(np.int64) - m * (m + 1), dist[support]


def _null(strata: list[tuple[np.ndarray, np.ndarray]], ranks2: list[np.ndarray], scales: list[int]
          ) -> tuple[np.ndarray, np.ndarray] | None:
    dists = []
    for (a, _), r2, c in zip(strata, ranks2, scales):
        d = _stratum_u2(r2, a.size)
        if d is None:
            return None
        dists.append((d[0] * c, d[1]))
    return _convolve(dists)


def van_elteren(strata: Strata, *, alternative: str = "two-sided") -> hypothesis.TestResult:
    """Van Elteren's test of ``a`` against ``b`` over strata of (a, b) pairs: ``less`` means a
    tends to be smaller than b within the strata. The statistic is T = Σ U_s / (N_s + 1) (U_s of
    a, midranks); the p-value exact whenever the joint distribution is small enough (see the
    module docstring; ``method`` says which); NaN when no stratum has values on both sides."""
    if alternative not in hypothesis.ALTERNATIVES:
        raise ValueError(f"alternative must be one of {hypothesis.ALTERNATIVES}, got {alternative!r}")
    used = _used(strata)
    if not used:
        return hypothesis.TestResult(math.nan, math.nan, "")
    ranks2 = [np.rint(2 * _st.rankdata(np.concatenate([a, b]))).astype(np.int64) for a, b in used]
    sizes = [a.size + b.size for a, b in used]
    scales = _scales(sizes)
    # observed 2·U_s of a, on the common lattice
    obs = sum(c * (int(r2[: a.size].sum()) - a.size * (a.size + 1)) for (a, _), r2, c in zip(used, ranks2, scales))
    statistic = obs / 2 / math.lcm(*(n + 1 for n in sizes))
    null = _null(used, ranks2, scales)
    if null is not None:
        values, probs = null
        le = float(probs[values <= obs].sum())
        ge = float(probs[values >= obs].sum())
        method = "exact-permutation"
    else:
        mean, var = 0.0, 0.0
        for (a, b), r2 in zip(used, ranks2):
            m, n = a.size, b.size
            big_n = m + n
            _, t = np.unique(r2, return_counts=True)
            ties = float(np.sum(t**3 - t)) / (big_n * (big_n - 1)) if big_n > 1 else 0.0
            mean += m * n / 2 / (big_n + 1)
            var += m * n / 12 * (big_n + 1 - ties) / (big_n + 1) ** 2
        if var <= 0:
            return hypothesis.TestResult(statistic, 1.0, "normal-approximation")
        z = (statistic - mean) / math.sqrt(var)
        le, ge = float(_st.norm.cdf(z)), float(_st.norm.sf(z))
        method = "normal-approximation"
    if alternative == "less":
        p = le
    elif alternative == "greater":
        p = ge
    else:
        p = 2 * min(le, ge)
    return hypothesis.TestResult(statistic, min(p, 1.0), method)


def stratified_ratio(strata: Strata, *, confidence: float = 0.95) -> Interval:
    """Ratio b / a over strata: exp of the stratified Hodges–Lehmann shift of log values (the
    weighted median of within-stratum pairwise differences, weights 1 / (N_s + 1)) with the
    interval from inverting van Elteren's test at 1 − confidence (module docstring)."""
    method = "hodges-lehmann (stratified)"
    used = [(a, b) for a, b in _used(strata) if np.all(a > 0) and np.all(b > 0)]
    if not used:
        return Interval(math.nan, None, None, confidence, method)
    sizes = [a.size + b.size for a, b in used]
    scales = _scales(sizes)
    diffs = np.concatenate([(np.log(b)[None, :] - np.log(a)[:, None]).ravel() for a, b in used])
    # each pair moves 2·U of b by 2 when δ passes it: weight 2·c_s on the integer lattice
    weights = np.concatenate([np.full(a.size * b.size, 2 * c, dtype=np.int64) for (a, b), c in zip(used, scales)])
    order = np.argsort(diffs, kind="stable")
    d, w = diffs[order], weights[order]
    cum = np.cumsum(w)
    total = int(cum[-1])
    i = int(np.searchsorted(cum, total / 2))
    est = float(d[i]) if cum[i] != total / 2 or i + 1 == d.size else float((d[i] + d[i + 1]) / 2)
    # T(δ) = Σ c_s·2·U_s(b over a shifted by δ) = the weight of the differences above δ; under the
    # null (no ties) 2·U of b has the distribution of 2·U of a
    above = total - np.concatenate([[0], cum])  # above[k]: T for δ between d_(k) and d_(k+1)
    null = _null([(b, a) for a, b in used], [2 * np.arange(1, n + 1, dtype=np.int64) for n in sizes], scales)
    half = (1 - confidence) / 2
    if null is not None:
        values, probs = null
        cdf = np.cumsum(probs)
        below_or_at = cdf[np.searchsorted(values, above, side="right") - 1].clip(0, 1)
        below_or_at[above < values[0]] = 0.0
        at_or_above = 1.0 - np.concatenate([[0.0], cdf])[np.searchsorted(values, above, side="left")]
    else:
        mean = sum(c * a.size * b.size for (a, b), c in zip(used, scales))
        sd = math.sqrt(sum(c * c * 4 * a.size * b.size * (a.size + b.size + 1) / 12 for (a, b), c in zip(used, scales)))
        below_or_at = _st.norm.cdf((above - mean) / sd)
        at_or_above = _st.norm.sf((above - mean) / sd)
    accepted = np.nonzero((below_or_at > half) & (at_or_above > half))[0]
    if accepted.size == 0:
        return Interval(float(np.exp(est)), None, None, confidence, method)
    k1, k2 = int(accepted[0]), int(accepted[-1])
    low = float(np.exp(d[k1 - 1])) if k1 >= 1 else None
    high = float(np.exp(d[k2])) if k2 < d.size else None
    return Interval(float(np.exp(est)), low, high, confidence, method)


def stratified_slowdown_test(strata: Strata, max_slowdown: float) -> hypothesis.TestResult:
    """The one-sided van Elteren test that the candidate (``b`` of each stratum) is larger than
    the baseline (``a``) scaled by 1 + max_slowdown, state by state (as
    ``stats.compare.slowdown_test`` pooled)."""
    return van_elteren([(np.asarray(b, dtype=float), np.asarray(a, dtype=float) * (1.0 + max_slowdown))
                        for a, b in strata], alternative="greater")
