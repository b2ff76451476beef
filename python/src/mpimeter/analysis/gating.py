# SPDX-License-Identifier: BSD-3-Clause
"""``gate``: CI for MPI libraries — which (op, size) of a candidate are significantly slower
than the baseline by more than a tolerated slowdown (one-sided Wilcoxon rank-sum against the
baseline scaled by 1 + max_slowdown, exact p whenever computable, Holm-corrected). When both
sides ran in the same explained machine states (analysis.matching), state by state: van
Elteren's stratified test of the same hypothesis, so that the mix of states is no regression,
and beside it the same rank-sum slowdown test within each state, so that a regression of one
state only (the fast path) is not averaged away by the others. The family is every row's test
and every state's test (a regression in any state fails the gate). With matched states its
p-values are adjusted by Westfall–Young step-down min-p over a joint relabelling of the
launches within each state, the same relabelling in every row (stats.joint_permutation): a
launch carries every row, so its launch-wide effect is one piece of evidence however many rows
show it, and Holm, which counts the rows' tests as if independent, spends the level on it again
per row; the relabelling keeps the rows' dependence, with exact family-wise control. Its tests
read ``JOINT_STATISTIC``, the difference of the sides' mean log per-launch medians
(Fisher–Pitman's, summed over the states with weights n_b·n_c / N for a row): at 5 v 5 launches
the rank sum has 26 values over 252 splits, so the family's min-p is cut on a coarse lattice and
part of α is lost between its steps; the mean of the logs takes a value per split, is as exact
(exchangeability under the null is all a permutation test needs) and finds a regression of one
state alone in 0.760 / 0.735 of 10-launch campaigns (states 1.18× / 2.5× apart) where the rank
sum found 0.690 / 0.645, with t(3) launch factors 0.520 / 0.615 against 0.455 / 0.565
(docs/ALGORITHMS.md, "The family relabelled jointly"; 0.8 only at 12 launches and 1.18× states).
Each test's p is then the family's own permutation p (``p_method`` says so); the intervals stay
the rank-sum test's Hodges–Lehmann ones at the test's level.
Without matched states (or without the launches' numbers) it is Holm over the rows. A state
with too few launches to reach significance in that family (Holm: its smallest attainable p above
the level Holm would first test it at; Westfall–Young: above α) is left out of the family and
named (Tarone 1990: a test that cannot reject only dilutes the correction; which ones cannot
depends on the launch counts alone, not on the times, so leaving them out keeps the family-wise
error).

Every test counts a slowdown only beyond the timer's grid: each baseline value is moved half a
grid step up and each candidate value half a step down before the margin is applied (as launch
clusters count a ratio, stats.clusters), so that 40 ns against 35 ns on a 10 ns timer is not read
as a 14 % slowdown. The grid is the timer's recorded resolution (meta.json
``timer.resolution_ns``, the coarsest of both sides' launches; half of it for a one-way latency,
half a timed round trip), else the values' own (stats.clusters.timer_step).

With 5 launches a side in a state, exact rank tests cannot find a 10 % regression of that state
alone with 0.8 power in a Holm family (docs/ALGORITHMS.md, "Decisions by design"), nor can any
exact permutation test of one state: at Holm's first level of 2 rows × 2 states (2 of the
C(10, 5) = 252 splits) the most powerful one against a normal shift, Fisher–Pitman's difference
of means (Lehmann & Romano 2005, §5.9), rejects on the same two splits as the rank-sum test
(python/tests/test_gate_state_power.py); the joint family's level is higher (the rows count
once), and there it finds 0.735–0.760 at 5 launches a side. No family on these launches that
names the row reaches 0.8 there and still finds a regression of every state: weighting the rows'
tests less, or testing the rows merged per state, buys 2–7 points on one state for 10–18 on both
(docs/ALGORITHMS.md, "No family that names the row …"). So each state test says how many launches
a side in that state would find a regression ``REGRESSION_BEYOND`` past the threshold
(``launches_needed``, on the state's own spread, at the level the family tests a regression of
one state alone at — Holm's α / (tests), or the joint family's first step's cut): under Holm
Noether's n for the rank-sum test (stats.compare.launches_needed), under the joint family the
mean log test's own (stats.joint_permutation.launches_needed, the noncentral t's n: campaigns
with the launches it names found the regression in 0.91–1.00, those with fewer in 0.67–0.74)."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from mpimeter.analysis.diagnostics import dedupe
from mpimeter.analysis.groups import (check_launches, groups_of, keys_text, low_power_warning, slice_label,
                                      slice_pieces, slices_text)
from mpimeter.analysis.launch_effects import timer_grid_ns
from mpimeter.analysis import matching as _matching
from mpimeter.analysis.loading import AnalysisError
from mpimeter.analysis.results import AnalysisResult
from mpimeter.io.errors import AnalysisWarning
from mpimeter.stats import clusters as _clusters
from mpimeter.stats import compare as _cmp
from mpimeter.stats import hypothesis as _hyp
from mpimeter.stats import joint_permutation as _jp
from mpimeter.stats import stratified as _strat
from mpimeter.warning_codes import warning

REGRESSION_BEYOND = 0.05  # launches_needed: for a slowdown this far past the threshold (10 % at the default 5 %)
NEEDED_POWER = 0.8
POOLED = "repetitions pooled over launches"  # what --per-repetition tests: its test text names it
JOINT_STATISTIC = _jp.MEAN_LOG
# The rows' tests' weight in the joint family's min-p, the state tests' 1 (weighted Westfall–Young, fixed in
# advance): 0.25 finds a regression of one state alone in 0.805 / 0.740 of 10-launch campaigns (states 1.18× /
# 2.5× apart) instead of 0.785 / 0.705, and one of both states 8 % slower in 0.690 / 0.690 instead of 0.810 / 0.790
# (bench/sim_gate_joint.py --only weights, the same campaigns): the α moved from the rows to the states buys 2–4
# points on one state and costs 10–12 where every state regressed, which the rows' tests exist to find.
ROW_WEIGHT = 1.0
HOLM, WESTFALL_YOUNG = "holm", "westfall-young step-down min-p"  # GateRow.correction: how p_adjusted was adjusted


@dataclass(frozen=True, kw_only=True)
class GateRow:
    """One (op, size): ``ratio`` is the Hodges–Lehmann estimate of candidate / baseline with its
    interval, ``ratio_of_medians`` median_candidate / median_baseline; ``p_value`` of the
    one-sided slowdown test, computed as ``p_method`` says; ``significant``: p_adjusted ≤ α;
    ``stars`` only on significant rows; ``regression``: significant (the test is of ratio > 1 +
    max_slowdown), or one of ``state_tests`` a regression (a state slower on its own). The interval inverts the same rank-sum test at the level Holm tested the row
    at (``interval_level``, one-sided: its lower end is the bound at 1 − level, the interval
    two-sided at 1 − 2·level), so a regression's interval lies above 1 + max_slowdown;
    ``interval_agrees`` False where it does not (Holm stopped at an earlier row, or ties). With
    ``correction`` Westfall–Young the level is its step's: the largest cut on the step's least p
    that at most α of the relabellings pass."""

    op: str
    size: int
    median_baseline_ns: float
    median_candidate_ns: float
    ratio_of_medians: float
    ratio: float
    ratio_ci_low: float | None
    ratio_ci_high: float | None
    p_value: float
    p_method: str
    p_adjusted: float
    stars: str
    significant: bool
    regression: bool
    one_way: bool = False  # medians are one-way latencies (half the timed round trip: ping-pongs)
    interval_level: float = math.nan
    interval_agrees: bool = True
    # matched states (analysis.matching): van Elteren's slowdown test over them, the ratio stratified
    stratified: bool = False
    per_state: tuple = ()  # analysis.matching.StateMedians per state
    pooled_p_value: float | None = None  # the pooled slowdown test, for the mix
    state_tests: tuple = ()  # StateTest per matched state: the slowdown test within it
    nprocs: int = 0  # the process count both sides ran the row at (0: not known)
    root: int | None = None  # rooted operations: the root both sides used, when recorded
    workpieces: int | None = None  # mw-workpieces: the pieces per call both sides handed out
    # the family's adjustment (module docstring): HOLM, or WESTFALL_YOUNG over ``relabellings`` relabellings of
    # the launches (every one when ``relabellings_seed`` is None, else that many seeded random ones)
    correction: str = HOLM
    relabellings: int | None = None
    relabellings_seed: int | None = None
    statistic: str | None = None  # WESTFALL_YOUNG: the joint family's statistic (stats.joint_permutation)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, kw_only=True)
class StateTest:
    """The slowdown test of one row within one matched state: the launches of each side in it,
    the Hodges–Lehmann ratio candidate / baseline with its interval at the level its step was
    tested at (``interval_level``), ``p_value`` of the one-sided slowdown test (``p_method``: the
    rank-sum test under Holm, the joint permutation p of ``GateRow.statistic`` under
    Westfall–Young), ``p_adjusted`` over rows × states (``GateRow.correction``); ``tested`` False
    when the state has too few launches for any p to be significant in the family (then
    ``p_adjusted`` is None and it is no regression, its p the rank-sum test's); ``regression``:
    tested and p_adjusted ≤ α; ``launches_needed``: launches a side in this state that find a
    slowdown ``REGRESSION_BEYOND`` past the threshold with ``NEEDED_POWER`` at the level the
    family tests a regression of one state alone at — its first step's: Holm's α / (tests),
    Westfall–Young's largest cut on the least p of all tests that at most α of the relabellings
    pass —, from the state's spread of log per-launch medians (None: no spread to go by)."""

    stratum: str
    launches_baseline: int
    launches_candidate: int
    ratio: float
    ratio_ci_low: float | None
    ratio_ci_high: float | None
    p_value: float
    p_method: str
    min_p_value: float
    tested: bool
    p_adjusted: float | None
    regression: bool
    launches_needed: int | None = None
    interval_level: float = math.nan  # the level its step of the family tested it at (nan: not tested)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, kw_only=True)
class GateResult:
    """``passed`` is False when some row is significantly slower than the baseline by more than
    ``max_slowdown``: one-sided, candidate medians against baseline medians scaled by
    1 + max_slowdown (Wilcoxon rank-sum; rows tested state by state: the difference of mean logs,
    ``JOINT_STATISTIC``), adjusted over the family at ``alpha`` (the rows' ``correction``: Holm, or
    Westfall–Young over rows × states where the rows were tested state by state)."""

    baseline: str
    candidate: str
    max_slowdown: float
    alpha: float
    rows: tuple[GateRow, ...]
    warnings: tuple[AnalysisWarning, ...]
    metric: str = "time"  # groups.METRICS: what the medians are
    test: str = "one-sided wilcoxon-rank-sum on per-launch medians"

    @property
    def regressions(self) -> tuple[GateRow, ...]:
        return tuple(r for r in self.rows if r.regression)

    @property
    def passed(self) -> bool:
        return not self.regressions

    @property
    def joint_row(self) -> GateRow | None:
        """A row carrying the family's Westfall–Young adjustment (its relabellings); None: Holm."""
        return next((r for r in self.rows if r.correction == WESTFALL_YOUNG), None)

    def to_dict(self) -> dict[str, Any]:
        joint = self.joint_row
        return {
            "baseline": self.baseline,
            "metric": self.metric,
            "candidate": self.candidate,
            "max_slowdown": self.max_slowdown,
            "alpha": self.alpha,
            "test": self.test,
            "correction": HOLM if joint is None else WESTFALL_YOUNG,
            "relabellings": None if joint is None else joint.relabellings,
            "relabellings_seed": None if joint is None else joint.relabellings_seed,
            "statistic": None if joint is None else joint.statistic,
            "passed": self.passed,
            "rows": [r.to_dict() for r in self.rows],
            "warnings": [w.to_dict() for w in self.warnings],
        }


def gate_rows(baseline: Mapping[tuple[str, int], np.ndarray], candidate: Mapping[tuple[str, int], np.ndarray], *,
              max_slowdown: float, alpha: float,
              one_way: Callable[..., bool] = lambda op, size, *where: False,
              matched: Callable[..., tuple | None] | None = None,
              grid_ns: float | None = None) -> list[GateRow]:
    """The gate's rows for the (op, size) both samples have (per-launch medians, or repetitions):
    the one-sided slowdown test of each, Holm-corrected over all of them at ``alpha``. Also
    what the site's history uses to mark campaigns the gate would have failed. ``matched``: per
    (op, size), the (baseline, candidate) medians of each matched state, their ``StateMedians``
    (analysis.matching) and the launch numbers of each side in each state (:func:`split_by_state`):
    the row is then tested state by state (van Elteren), and when every row is, the family of
    rows × states is adjusted by Westfall–Young over a joint relabelling of the launches (module
    docstring; Holm without the launch numbers); None for a row whose p has no matched states
    (states are found per p). ``grid_ns``: the
    timer's recorded resolution (None: not recorded, each row's values' own grid; half of it for
    one-way rows); the tests count a slowdown only beyond it (module docstring)."""
    keys = sorted(set(baseline) & set(candidate), key=_order)
    if not keys:
        return []
    # a one-way latency is half the timed round trip: it lies on half the timer's grid
    half = {k: half_grid_step(baseline[k], candidate[k],
                              grid_ns if grid_ns is None or not one_way(*k) else grid_ns / 2) for k in keys}
    pooled = [slowdown_beyond_grid(baseline[k], candidate[k], max_slowdown, half_step=half[k]) for k in keys]
    strata_of = {k: m for k in keys if (m := matched(*k)) is not None} if matched is not None else {}
    tests = [_strat.stratified_slowdown_test([beyond_grid(a, b, half[k]) for a, b in strata_of[k][0]], max_slowdown)
             if k in strata_of else t for k, t in zip(keys, pooled)]
    # within each matched state of a row: (row index, stratum, baseline, candidate, test, smallest p)
    within = [(i, sm.stratum, a, b, slowdown_beyond_grid(a, b, max_slowdown, half_step=half[k]),
               _cmp.min_p_value(len(b), len(a), "greater"))
              for i, k in enumerate(keys) if k in strata_of
              for (a, b), sm in zip(strata_of[k][0], strata_of[k][1]) if len(a) and len(b)]
    joint = _joint_family(keys, strata_of, half, max_slowdown, within, alpha)
    if joint is None:  # Holm over rows × states, a state left out where its counts cannot reach its level
        tested = _testable([w[5] for w in within], len(keys), alpha)
        family = np.array([t.p_value for t in tests] + [w[4].p_value for w, ok in zip(within, tested) if ok])
        adj_all, levels_all = _hyp.holm(family), _hyp.holm_levels(family, alpha)
        correction: dict[str, Any] = {}
        first_level = alpha / (len(keys) + len(within))  # Holm's first, every state tested: a rule of the counts
    else:  # each test's p is the family's own (its permutation p on the joint statistic)
        tested, adj_all, levels_all, correction, p_all, method, joint_first_level = joint
        tests = [_hyp.TestResult(statistic=t.statistic, p_value=float(p), method=method)
                 for t, p in zip(tests, p_all)]
        p_states = iter(p_all[len(keys):])
        within = [(*w[:4], _hyp.TestResult(statistic=w[4].statistic, p_value=float(next(p_states)), method=method)
                   if ok else w[4], w[5]) for w, ok in zip(within, tested)]
        # the level the step-down tests its first hypothesis at: where a regression of one state alone is found
        first_level = joint_first_level
    adj, levels = adj_all[:len(keys)], levels_all[:len(keys)]
    state_adj = iter(zip(adj_all[len(keys):], levels_all[len(keys):]))
    per_row_states: dict[int, list[StateTest]] = {}
    # the launches a state needs for the test it is given: the mean log's under the joint family, else the rank sum's
    needed = _jp.launches_needed if joint is not None and JOINT_STATISTIC == _jp.MEAN_LOG else _cmp.launches_needed
    shift = math.log1p(max_slowdown + REGRESSION_BEYOND) - math.log1p(max_slowdown)
    for w, ok in zip(within, tested):
        i, stratum, a, b, test, min_p = w
        p_adj, level = next(state_adj) if ok else (math.nan, math.nan)
        hl = _cmp.compare_two(a, b, confidence=_holm_confidence(level, alpha)).ratio_ci
        per_row_states.setdefault(i, []).append(StateTest(
            stratum=stratum, launches_baseline=len(a), launches_candidate=len(b), ratio=hl.estimate,
            ratio_ci_low=hl.low, ratio_ci_high=hl.high, p_value=test.p_value, p_method=test.method,
            min_p_value=min_p, tested=ok, p_adjusted=float(p_adj) if ok else None,
            regression=bool(ok and p_adj <= alpha), interval_level=float(level),
            launches_needed=needed(_log_spread(a, b), shift, first_level, power=NEEDED_POWER)))
    rows = []
    for i, (key, test, pooled_test, p_adj, level) in enumerate(zip(keys, tests, pooled, adj, levels)):
        # a key is (op, size), or (op, size, (p, root, workpieces)) when the sides ran at several
        op, size = key[0], key[1]
        where = {"nprocs": key[2][0], "root": key[2][1], "workpieces": slice_pieces(key[2])} if len(key) > 2 else {}
        a, b = baseline[key], candidate[key]
        # The Hodges–Lehmann ratio goes with the rank-sum test; its interval inverts that test at the level Holm
        # tested this row at (one-sided: the lower end at 1 − level), so decision and interval are one procedure.
        conf = _holm_confidence(level, alpha)
        pc = _cmp.compare_two(a, b, confidence=conf)
        ci = pc.ratio_ci
        extra: dict[str, Any] = {}
        if key in strata_of:  # matched states: the stratified ratio at the same level
            strata, per_state = strata_of[key][:2]
            ci = _strat.stratified_ratio(strata, confidence=conf)
            extra = dict(stratified=True, per_state=per_state, pooled_p_value=pooled_test.p_value,
                         state_tests=tuple(per_row_states.get(i, ())))
        significant = bool(p_adj <= alpha)
        agrees = significant == bool(ci.low is not None and ci.low > 1 + max_slowdown)
        regression = significant or any(st.regression for st in per_row_states.get(i, ()))
        rows.append(GateRow(op=op, size=size, median_baseline_ns=pc.median_a, median_candidate_ns=pc.median_b,
                            ratio_of_medians=pc.ratio, ratio=ci.estimate, ratio_ci_low=ci.low,
                            ratio_ci_high=ci.high, p_value=test.p_value, p_method=test.method,
                            p_adjusted=float(p_adj), stars=_hyp.stars(float(p_adj), alpha=alpha),
                            significant=significant, regression=regression, one_way=one_way(*key),
                            interval_level=float(level), interval_agrees=agrees, **where, **extra, **correction))
    return rows


def _joint_family(keys: Sequence[tuple], strata_of: Mapping[tuple, tuple], half: Mapping[tuple, float],
                  max_slowdown: float, within: Sequence[tuple], alpha: float) -> tuple | None:
    """The family adjusted by Westfall–Young step-down min-p over a joint relabelling of the
    launches within each state (stats.joint_permutation): every row's stratified test and every
    state test whose smallest p can reach α, the launches relabelled alike in every row, so the
    rows' shared launch effect is not counted as independent evidence. Returns (which state
    tests are in it, adjusted p and level per test — rows first, then the state tests in it —,
    the rows' correction fields, each test's permutation p, its method, and the level a state test
    is tested at in the first step); None where the launches are not known per row (a ``matched``
    without launch numbers) or some row has no matched states: Holm then."""
    if not keys or any(k not in strata_of or len(strata_of[k]) < 3 for k in keys):
        return None
    block_of: dict[tuple, int] = {}
    units: list[tuple[list, list]] = []  # per block: the baseline's launches, the candidate's

    def block_key(k, sm) -> tuple:  # a state at one process count (a row's slice, when it has one)
        return (k[2][0] if len(k) > 2 else None, sm.stratum)
    for k in keys:
        for (a_ids, b_ids), sm in zip(strata_of[k][2], strata_of[k][1]):
            b = block_of.setdefault(block_key(k, sm), len(units))
            if b == len(units):
                units.append(([], []))
            units[b][0].extend(i for i in a_ids if i not in units[b][0])
            units[b][1].extend(i for i in b_ids if i not in units[b][1])
    blocks = [_jp.Block(candidate=np.r_[np.zeros(len(a), bool), np.ones(len(b), bool)]) for a, b in units]

    def block(k, s: int) -> int:
        return block_of[block_key(k, strata_of[k][1][s])]

    def values(k, s: int) -> np.ndarray | None:
        (a, b), (a_ids, b_ids) = strata_of[k][0][s], strata_of[k][2][s]
        if not (len(a) and len(b)):
            return None
        ua, ub = units[block(k, s)]
        out = np.full(len(ua) + len(ub), np.nan)
        ta, tb = beyond_grid(a, b, half[k])
        out[[ua.index(i) for i in a_ids]] = ta * (1.0 + max_slowdown)
        out[[len(ua) + ub.index(i) for i in b_ids]] = tb
        return out

    row_tests = [{block(k, s): v for s in range(len(strata_of[k][1])) if (v := values(k, s)) is not None}
                 for k in keys]
    if not all(row_tests):
        return None
    tested = [math.isfinite(w[5]) and w[5] <= alpha for w in within]
    state_tests = []
    for w, ok in zip(within, tested):
        if ok:
            k = keys[w[0]]
            s = next(j for j, sm in enumerate(strata_of[k][1]) if sm.stratum == w[1])
            state_tests.append({block(k, s): values(k, s)})
    res = _jp.step_down_min_p(blocks, [_jp.JointTest(values=v) for v in row_tests + state_tests], alpha,
                              statistic=JOINT_STATISTIC,
                              weights=[ROW_WEIGHT] * len(row_tests) + [1.0] * len(state_tests))
    method = ("exact" if res.exact else "monte-carlo") + f" joint permutation, {_jp.STATISTIC_NAMES[JOINT_STATISTIC]}"
    # the level the step-down tests its first hypothesis at (its cut on the least weighted p), for a state test:
    # where a regression of one state alone is found
    first = float(np.min(res.levels / res.weights)) * (res.weights[-1] if state_tests else 1.0)
    return tested, res.adjusted, res.levels, dict(correction=WESTFALL_YOUNG, relabellings=res.relabellings,
                                                  relabellings_seed=res.seed, statistic=JOINT_STATISTIC), \
        res.p_values, method, first


def slowdown_beyond_grid(baseline: np.ndarray, candidate: np.ndarray, max_slowdown: float, *,
                         grid_ns: float | None = None, half_step: float | None = None) -> _hyp.TestResult:
    """The gate's one-sided rank-sum slowdown test (stats.compare.slowdown_test) counting only
    what lies beyond the timer's grid (module docstring): ``grid_ns`` the recorded resolution
    (None: the values' own grid), or ``half_step`` already worked out."""
    half = half_grid_step(baseline, candidate, grid_ns) if half_step is None else half_step
    return _cmp.slowdown_test(*beyond_grid(baseline, candidate, half), max_slowdown)


def sides_grid_ns(*sides: tuple[AnalysisResult, str]) -> float | None:
    """The timer grid the gate counts a slowdown beyond (module docstring): the coarsest
    resolution the launches of each side — an (analysis, alternative) — recorded; None when none
    did. What every caller of :func:`gate_rows` on campaign folders passes as ``grid_ns``."""
    return timer_grid_ns([li for result, alt in sides for li in result.campaign.launches_of(alt)])


def half_grid_step(a: np.ndarray, b: np.ndarray, grid_ns: float | None) -> float:
    """Half the timer grid's step of a row: the recorded resolution, else the grid both sides'
    values lie on (0 when they lie on none). The one rule of the gate, tune's choice tests and
    the guidelines' tests."""
    if grid_ns is not None:
        return grid_ns / 2
    both = np.concatenate([np.asarray(a, dtype=float), np.asarray(b, dtype=float)])
    return _clusters.timer_step(both) / 2 if both.size and np.isfinite(both).all() else 0.0


def beyond_grid(a: np.ndarray, b: np.ndarray, half: float) -> tuple[np.ndarray, np.ndarray]:
    """The baseline ``a`` moved ``half`` a grid step up and the candidate ``b`` half a step down:
    what the slowdown tests compare, so that only a difference the grid cannot make counts (the
    candidate is the side tested slower: tune's default, a guideline's left-hand side)."""
    return np.asarray(a, dtype=float) + half, np.asarray(b, dtype=float) - half


def _log_spread(a: np.ndarray, b: np.ndarray) -> float:
    """The pooled standard deviation of the log values of both sides (each about its own mean);
    nan with fewer than 3 values or a value that is not positive."""
    parts = [np.log(x) for x in (np.asarray(a, float), np.asarray(b, float)) if x.size and (x > 0).all()]
    df = sum(p.size - 1 for p in parts)
    if len(parts) < 2 or df < 1:
        return math.nan
    return math.sqrt(sum(float(((p - p.mean()) ** 2).sum()) for p in parts) / df)


def _holm_confidence(level: float, alpha: float) -> float:
    """The two-sided confidence whose lower end is the one-sided bound at Holm's ``level``."""
    return min(max(1 - 2 * level if math.isfinite(level) else 1 - alpha, 1e-9), 1 - 1e-12)


def _testable(min_p: Sequence[float], always: int, alpha: float) -> list[bool]:
    """Which of the per-state tests enter the family beside the ``always`` row tests: those whose
    smallest attainable p is at most α / (family size), the family shrunk until every test in it
    can reach its first Holm level (Tarone 1990; the launch counts decide, never the times)."""
    keep = [math.isfinite(p) for p in min_p]
    while True:
        size = always + sum(keep)
        now = [k and p <= alpha / size for k, p in zip(keep, min_p)]
        if now == keep:
            return keep
        keep = now


def _order(key: tuple) -> tuple:
    if len(key) > 2:
        return (key[0], key[1], key[2][0], *(-1 if v is None else v for v in key[2][1:]))
    return key


def _only_mix(rows: Sequence[GateRow], max_slowdown: float, alpha: float, at_p: int | None = None) -> list[str]:
    """Rows (at p ``at_p``; None: all) the pooled test would call regressions that the states do not show."""
    pooled = _hyp.holm(np.array([r.pooled_p_value if r.stratified else r.p_value for r in rows]))
    return [f"{r.op}/{r.size}" + ("" if at_p is None else f" p={at_p}") for r, p in zip(rows, pooled)
            if at_p in (None, r.nprocs) and r.stratified and p <= alpha and r.ratio_of_medians > 1 + max_slowdown
            and not r.regression]


def gate(
    baseline: AnalysisResult,
    candidate: AnalysisResult,
    *,
    max_slowdown: float = 0.05,
    alpha: float = 0.05,
    per_repetition: bool = False,
    metric: str = "time",
) -> GateResult:
    """CI gate for MPI libraries: which (op, size) got slower than ``baseline`` by more than
    ``max_slowdown`` (0.05 = 5 %), significantly after Holm correction. ``metric``
    (groups.METRICS): run times, or the overhead of nonblocking collectives."""
    if max_slowdown < 0:
        raise AnalysisError(f"max_slowdown must be ≥ 0, got {max_slowdown}")
    gb, gc = groups_of([baseline], metric), groups_of([candidate], metric)
    if len(gb) != 1 or len(gc) != 1:
        raise AnalysisError("gate compares one baseline with one candidate; each folder must hold one alternative "
                            f"(baseline has {len(gb)}, candidate has {len(gc)})")
    base, cand = gb[0], gc[0]
    check_launches([base, cand], per_repetition)
    # rows are gated at the same (p, root); with one on both sides the keys stay (op, size)
    sliced = len(base.slices()) > 1 or len(cand.slices()) > 1
    sb, sc = _samples(base, per_repetition, sliced), _samples(cand, per_repetition, sliced)
    common = sorted(set(sb) & set(sc), key=_order)
    if not common:
        # sliced keys are (op, size, (p, root, ...)): name the slices beside the (op, size)
        raise AnalysisError("baseline and candidate have no (op, size) in common: " + "; ".join(
            f"{side} {keys_text({k[:2] for k in s})}" + (f" ({slices_text(g.slices())})" if sliced else "")
            for side, s, g in (("baseline", sb, base), ("candidate", sc, cand))))
    warnings: list[AnalysisWarning] = []
    # rows of one side only, either way: a candidate's new rows are as ungated as a baseline's lost ones
    for side, other, only in (("baseline", "candidate", set(sb) - set(sc)), ("candidate", "baseline", set(sc) - set(sb))):
        if only:
            warnings.append(warning("missing-rows", count=len(only), side=side, other=other,
                                    keys=keys_text({k[:2] for k in only})))
    def on(g, where):
        return g if where is None else g.at(where)

    # states are found per p (analysis.strata): matched slice by slice, once per p
    matchings: dict[int | None, _matching.Matching | None] = {}
    for where in (sorted({k[2] for k in common}, key=lambda w: tuple(-1 if v is None else v for v in w))
                  if sliced else [None]):
        at_p = None if where is None else where[0]
        if at_p not in matchings:
            matchings[at_p], said = _matching.match(on(base, where), on(cand, where), per_repetition=per_repetition)
            warnings += said

    def matched_at(where):
        return matchings.get(None if where is None else where[0])

    def strata_of(op, size, where=None):
        m = matched_at(where)
        if m is None:
            return None
        return state_strata(on(base, where), on(cand, where), op, size, *launch_states(m), m.names)

    rows = gate_rows(sb, sc, max_slowdown=max_slowdown, alpha=alpha,
                     one_way=lambda op, size, where=None: on(base, where).one_way(op, size) and on(cand, where).one_way(op, size),
                     matched=strata_of if any(m is not None for m in matchings.values()) else None,
                     grid_ns=sides_grid_ns((baseline, base.alternative), (candidate, cand.alternative)))
    test = "one-sided wilcoxon-rank-sum on " + (POOLED if per_repetition else "per-launch medians")
    warnings += untested_states(rows, f"{base.name} vs {cand.name}")
    for at_p, matched in matchings.items():
        if matched is None:
            continue
        warnings += _matching.mix_warning(base, cand, matched, _only_mix(rows, max_slowdown, alpha, at_p),
                                          at_p=at_p)
        joint = any(r.correction == WESTFALL_YOUNG for r in rows)
        test = (f"one-sided {_matching.STRATIFIED_TEST}, stratified Hodges–Lehmann ratio; and the one-sided "
                "wilcoxon-rank-sum within each state (holm over rows × states)") if not joint else (
            f"one-sided joint permutation tests of the {_jp.STATISTIC_NAMES[JOINT_STATISTIC]} over the matched "
            "states and within each state, stratified Hodges–Lehmann ratio (westfall-young step-down min-p over "
            "rows × states, the launches relabelled jointly within each state)")
    if per_repetition:
        warnings.append(warning("per-repetition", doing="gating on", consequence="", per="side"))
    else:  # the row with the fewest launches decides (candidate first: the test is of candidate > baseline)
        warnings += low_power_warning([(on(cand, k[2] if sliced else None).launches(k[0], k[1]),
                                        on(base, k[2] if sliced else None).launches(k[0], k[1]),
                                        f"{k[0]}/{k[1]}{slice_label(k[2] if sliced else None, sliced)}")
                                       for k in common],
                                      "greater", alpha, "side")
    matched = [m for m in matchings.values() if m is not None]
    warnings += (_matching.without_too_few(baseline, [m.a for m in matched])
                 + _matching.without_too_few(candidate, [m.b for m in matched]))
    return GateResult(baseline=base.name, candidate=cand.name, max_slowdown=max_slowdown, alpha=alpha,
                      rows=tuple(rows), warnings=dedupe(warnings), metric=metric, test=test)


def launch_states(m: _matching.Matching) -> tuple[dict[int, str], dict[int, str]]:
    """Launch → state of each side of a matching: what the per-state tests are split by."""
    return ({i: s.name for s in m.a.states for i in s.launches}, {i: s.name for s in m.b.states for i in s.launches})


def state_strata(ga, gb, op: str, size: int, state_a: Mapping[int, str], state_b: Mapping[int, str],
                 names: Sequence[str]) -> tuple[list[tuple[np.ndarray, np.ndarray]], tuple, list]:
    """Per state of ``names``, (a's, b's) per-launch medians of the row, their ``StateMedians``
    and (a's, b's) launch numbers; launches without a state are in none."""
    def medians(g):
        row = g.rows().get((op, size))
        return {} if row is None else {s.launch: float(s.median_ns) for s in row.per_launch
                                       if s.n > 0 and math.isfinite(s.median_ns)}
    return split_by_state(medians(ga), medians(gb), state_a, state_b, names)


def split_by_state(a: Mapping[int, float], b: Mapping[int, float], state_a: Mapping[int, str],
                   state_b: Mapping[int, str],
                   names: Sequence[str]) -> tuple[list[tuple[np.ndarray, np.ndarray]], tuple, list]:
    """Per state of ``names``, the values (launch → per-launch median) of each side whose launch
    is in it, their ``StateMedians``, and the launches of each side in it (in the values' order:
    what the gate's joint relabelling moves, the same launch in every row)."""
    ids = [([i for i in a if state_a.get(i) == n], [i for i in b if state_b.get(i) == n]) for n in names]
    strata = [(np.array([a[i] for i in ia]), np.array([b[i] for i in ib])) for ia, ib in ids]
    out = []
    for name, (x, y) in zip(names, strata):
        ma = float(np.median(x)) if x.size else math.nan
        mb = float(np.median(y)) if y.size else math.nan
        out.append(_matching.StateMedians(stratum=name, launches_a=int(x.size), launches_b=int(y.size),
                                          median_a_ns=ma, median_b_ns=mb,
                                          ratio_of_medians=mb / ma if x.size and y.size and ma > 0 else math.nan))
    return strata, tuple(out), ids


def untested_states(rows: Sequence[GateRow], pair: str) -> list[AnalysisWarning]:
    """``state-untested`` per state left out of the gate's family, with the rows it was left out in."""
    family = sum(1 for _ in rows) + sum(st.tested for r in rows for st in r.state_tests)
    out = []
    for name in dict.fromkeys(st.stratum for r in rows for st in r.state_tests if not st.tested):
        where = [(r, st) for r in rows for st in r.state_tests if st.stratum == name and not st.tested]
        fewest = min(where, key=lambda x: min(x[1].launches_baseline, x[1].launches_candidate))[1]
        names = [f"{r.op}/{r.size}" for r, _ in where]
        out.append(warning("state-untested", groups=pair, state=name,
                           launches=f"{fewest.launches_baseline} baseline, {fewest.launches_candidate} candidate",
                           rows=f"{len(names)} row(s): {', '.join(names[:4])}{' …' if len(names) > 4 else ''}",
                           family=family, where=pair))
    return out


def _samples(g, per_repetition: bool, sliced: bool) -> dict:
    """The group's samples keyed (op, size), or (op, size, (p, root, workpieces)) when ``sliced``."""
    if not sliced:
        return g.samples(per_repetition)
    return {(op, size, where): v for where in g.slices() for (op, size), v in g.at(where).samples(per_repetition).items()}
