# SPDX-License-Identifier: BSD-3-Clause
"""A family of permutation tests on the same launches, adjusted jointly: Westfall–Young step-down
min-p over a permutation of the launch labels within blocks (Westfall & Young 1993, §2.6,
algorithm 2.8; Westfall & Troendle 2008 for exact family-wise control when each test's
statistic is a function of its own hypothesis' data).

Why: the tests of a gate with machine states (every row, and every row within every state) are
far from independent — a launch carries every row, so a launch-wide effect is the same
information in each of them — and Holm spends the level as if they were. Relabelling the
launches keeps that dependence: within each block (the launches of one state) every split of
the block's launches into the baseline's and the candidate's counts is equally likely under the
null, the SAME split for every row, blocks relabelled independently.

- A block is a list of launch units, each a baseline or a candidate launch. Each test is a
  one-sided statistic of its candidate units over one block (a state test), or a sum over several
  (a row test over its states), ``statistic`` one of:
  ``RANK_SUM``: the rank sum, van Elteren's weighted sum over blocks (T = Σ_s (W_s − E_s) /
  (N_s + 1), W_s the candidate's midrank sum among the units the row has in block s, E_s its mean);
  ``MEAN_LOG``: Fisher–Pitman's, Σ_s Σ_candidate (log x − mean log x of block s) = Σ_s
  n_b·n_c / N_s × (the difference of the sides' mean logs), the common-shift estimate's weights.
  Why the second: at 5 v 5 a rank sum takes 26 values over the 252 splits, so a min-p over a
  family is cut on a coarse lattice (complete separation 1/252, then 2, 3, 5, 7 … /252) and a
  level between two steps is lost; the mean of the logs takes a value per split and uses the sizes,
  not only the order (Lehmann & Romano 2005, §5.9: the most powerful permutation test against a
  normal shift). Either is exact: validity needs only exchangeability of the labels under the null.
  Values are what the caller tests (the gate: baseline × (1 + margin), both moved by the timer
  grid); NaN marks a unit the test does not have (and, for ``MEAN_LOG``, a value ≤ 0, which has
  no log: the same units in every relabelling, so the test stays exact).
- The relabellings: every split of every block (their product) when there are at most
  ``EXACT_MAX`` of them — C(10, 5)² = 63 504 for two states of 5 + 5 launches a side — else
  ``RESAMPLES`` seeded random ones per block, the observed labels counted among them
  (Monte Carlo; its count is returned so callers print it).
- Each test's p is the share of relabellings whose statistic is at least the observed one (ties
  count as at least: the exact permutation p, the rank-sum test's own when the test has every
  unit). The adjusted p of the test with the j-th smallest p is the share of relabellings in
  which the least p of the tests from the j-th on is at most p_(j), made monotone; its
  ``level`` — the largest cut on that least p whose share is at most α — is the level the step
  tests at, as Holm's α / (m − j) is Holm's (a caller inverts its interval there).
- ``weights`` (fixed in advance, scaled to sum to the tests' count): weighted min-p (Westfall,
  Kropf & Finos 2004), each test's p over its weight in the ordering and in the least p per
  relabelling, a step's level on a test's own p its cut times its weight; family-wise control is
  as exact. The gate keeps equal weights (analysis.gating.ROW_WEIGHT: why).

Cost: O(relabellings · tests) memory and O(tests · relabellings · log relabellings) time."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats as _st

EXACT_MAX = 100_000  # relabellings enumerated at most (the product over the blocks)
RESAMPLES = 10_000  # Monte Carlo relabellings beyond it (the observed labels one of them)
SEED = 20_260_530
RANK_SUM, MEAN_LOG = "rank-sum", "mean-log"  # step_down_min_p's statistics (module docstring)
STATISTIC_NAMES = {RANK_SUM: "rank sum (van Elteren's over several states)",
                   MEAN_LOG: "difference of mean log values (Fisher–Pitman's, summed over the states)"}
_TIE = 1e-9  # statistics equal up to float rounding of sums (of midranks, of logs) count as equal


@dataclass(frozen=True, kw_only=True)
class Block:
    """The launch units of one block: ``candidate[i]`` True for a unit the candidate ran."""

    candidate: np.ndarray


@dataclass(frozen=True, kw_only=True)
class JointTest:
    """One test: per block it reads (index into the blocks), the values of that block's units
    (NaN: a unit it does not have). One block: a two-sample statistic; several: its sum over them."""

    values: dict[int, np.ndarray]


@dataclass(frozen=True, kw_only=True)
class JointResult:
    """Per test its permutation p, its adjusted p and the level its step tested at; the
    relabellings counted and whether they were all of them (``exact``) or seeded draws."""

    p_values: np.ndarray
    adjusted: np.ndarray
    levels: np.ndarray
    relabellings: int
    exact: bool
    seed: int | None
    weights: np.ndarray | None = None  # each test's weight in the min-p (summing to the tests), None: all 1


def relabelling_count(blocks: Sequence[Block]) -> int:
    """How many relabellings the blocks have together: the product of C(N_s, candidates_s)."""
    return math.prod(math.comb(b.candidate.size, int(b.candidate.sum())) for b in blocks)


def _block_labels(block: Block, draws: int | None, rng: np.random.Generator) -> np.ndarray:
    """(relabellings × units) candidate labels of one block, the observed labels first: every
    split (``draws`` None), or the observed and draws − 1 uniform random ones."""
    n, k = block.candidate.size, int(block.candidate.sum())
    if draws is None:
        out = np.zeros((math.comb(n, k), n), dtype=bool)
        for i, chosen in enumerate(itertools.combinations(range(n), k)):
            out[i, list(chosen)] = True
        observed = int(np.flatnonzero((out == block.candidate).all(axis=1))[0])
        return np.concatenate([out[observed:observed + 1], np.delete(out, observed, axis=0)])
    order = rng.random((draws - 1, n)).argsort(axis=1)[:, :k]
    out = np.zeros((draws - 1, n), dtype=bool)
    np.put_along_axis(out, order, True, axis=1)
    return np.concatenate([block.candidate[None, :], out])


def _mean_log_component(labels: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Per relabelling, Σ over the candidate's units of (log value − the mean log of the units
    with a value): n_b·n_c / N times the difference of the sides' mean logs (Fisher–Pitman's
    statistic), so the sum over blocks weighs each block as the common-shift estimate would."""
    have = np.isfinite(values) & (values > 0)
    if not have.any():
        return np.zeros(labels.shape[0])
    x = np.log(values[have])
    return labels[:, have].astype(float) @ (x - x.mean())


def _component(labels: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Per relabelling, (W − E) / (N + 1) of the units that have a value: W the candidate's
    midrank sum, E = candidates · (N + 1) / 2; N the units with a value."""
    have = np.isfinite(values)
    n = int(have.sum())
    if n == 0:
        return np.zeros(labels.shape[0])
    ranks = np.zeros(values.size)
    ranks[have] = _st.rankdata(values[have])
    lab = labels[:, have]
    return (lab.astype(float) @ ranks[have] - lab.sum(axis=1) * (n + 1) / 2) / (n + 1)


def _p_of_each(stat: np.ndarray) -> np.ndarray:
    """Per relabelling, the share of relabellings whose statistic is at least its own. The
    lookups run in sorted order and are put back in place: the same counts, and a search of
    tens of thousands of sorted keys stays in cache where keys in random order miss it."""
    order = np.argsort(stat)
    srt = stat[order]
    tol = _TIE * max(1.0, float(np.abs(srt).max()) if srt.size else 1.0)
    out = np.empty(stat.size)
    out[order] = (stat.size - np.searchsorted(srt, srt - tol, side="left")) / stat.size
    return out


def _largest_cut(least: np.ndarray, most: int) -> float:
    """The largest value v of ``least`` with at most ``most`` of its values ≤ v (0: none)."""
    if most < 1:
        return 0.0
    if most >= least.size:
        return float(least.max())
    low = np.partition(least, most)[:most + 1]  # the most + 1 smallest, the largest of them last
    above = low[most]
    below = low[:most][low[:most] < above]
    return float(below.max()) if below.size else 0.0


_COMPONENTS = {RANK_SUM: _component, MEAN_LOG: _mean_log_component}


def step_down_min_p(blocks: Sequence[Block], tests: Sequence[JointTest], alpha: float, *,
                    exact_max: int = EXACT_MAX, resamples: int = RESAMPLES, seed: int = SEED,
                    statistic: str = RANK_SUM, weights: Sequence[float] | None = None) -> JointResult:
    """Westfall–Young step-down min-p over ``tests`` by relabelling the launches of each block
    (module docstring); p-values, adjusted p-values and each step's level, in the tests' order."""
    component = _COMPONENTS[statistic]
    count = relabelling_count(blocks)
    exact = count <= exact_max
    rng = np.random.default_rng(seed)
    labels = [_block_labels(b, None if exact else resamples, rng) for b in blocks]
    if exact:  # every combination of the blocks' splits, the observed one (index 0 in each) first
        grids = np.meshgrid(*[np.arange(lab.shape[0]) for lab in labels], indexing="ij")
        index = [g.ravel() for g in grids]
    else:  # the j-th draw of every block together
        index = [np.arange(resamples) for _ in blocks]
    size = index[0].size if index else 1
    p_each = np.empty((len(tests), size))
    for t, test in enumerate(tests):
        if exact and len(test.values) == 1:  # one block: its p over its own splits, each repeated alike
            (s, values), = test.values.items()
            p_each[t] = _p_of_each(component(labels[s], np.asarray(values, dtype=float)))[index[s]]
            continue
        stat = np.zeros(size)
        for s, values in test.values.items():
            stat += component(labels[s], np.asarray(values, dtype=float))[index[s]]
        p_each[t] = _p_of_each(stat)
    w = np.ones(len(tests)) if weights is None else np.asarray(weights, dtype=float)
    if w.shape != (len(tests),) or not (w > 0).all():
        raise ValueError(f"weights: one positive weight per test, got {w.tolist()}")
    w = w * len(tests) / w.sum()  # summing to the family's size, as the unweighted procedure's ones do
    p_each /= w[:, None]  # weighted min-p: each test's p over its weight, per relabelling
    observed = p_each[:, 0].copy()
    order = np.argsort(observed, kind="stable")
    adjusted, levels = np.empty(len(tests)), np.empty(len(tests))
    least = np.full(size, np.inf)
    most = math.floor(alpha * size + 1e-9)  # relabellings a cut may admit
    for j in order[::-1]:  # the least weighted p of the tests from this step on, per relabelling
        np.minimum(least, p_each[j], out=least)
        adjusted[j] = np.count_nonzero(least <= observed[j] * (1 + _TIE)) / size
        levels[j] = _largest_cut(least, most) * w[j]  # the cut on p / w is a cut at w × it on this test's p
    running = 0.0
    for j in order:  # step-down: never below an earlier step's
        running = max(running, adjusted[j], observed[j] * w[j])
        adjusted[j] = min(running, 1.0)
    observed *= w
    return JointResult(p_values=observed, adjusted=adjusted, levels=levels, relabellings=size, exact=exact,
                       seed=None if exact else seed, weights=w)


def launches_needed(sigma: float, shift: float, level: float, *, power: float = 0.8, most: int = 10_000) -> int | None:
    """Launches per side the one-sided ``MEAN_LOG`` test of one block needs to find a shift of
    ``shift`` in log values of spread ``sigma`` at ``level`` with ``power``: the one-sided
    two-sample t test's (noncentral t, 2n − 2 degrees of freedom), whose power the Fisher–Pitman
    permutation test has for large samples (Hoeffding 1952), never
    fewer than make its smallest p, 1 / C(2n, n), reach ``level``. Noether's n for the rank sum
    (stats.compare.launches_needed) is 9 at σ 0.022, a 10 % regression past a 5 % margin and
    level 4/252, where this says 6: bench/sim_gate_joint.py measures which the gate's campaigns
    follow. None without a spread or a shift to find, or above ``most``."""
    if not (math.isfinite(sigma) and math.isfinite(shift) and shift > 0 and 0 < level < 1 and 0 < power < 1):
        return None
    n = 2
    while n <= most and (1 / math.comb(2 * n, n) > level or (sigma > 0 and _t_power(sigma, shift, level, n) < power)):
        n += 1
    return n if n <= most else None


def _t_power(sigma: float, shift: float, level: float, n: int) -> float:
    """The one-sided two-sample t test's power, n a side, at ``level`` against ``shift``."""
    df = 2 * n - 2
    return float(_st.nct.sf(_st.t.isf(level, df), df, shift / (sigma * math.sqrt(2 / n))))
