# SPDX-License-Identifier: BSD-3-Clause
"""How often do `gate`, `tune` and `guidelines` decide right on a machine with two speed states?
Seeded simulations through the package's own test functions (the ones the commands call:
analysis.gating.gate_rows with its per-state split, analysis.tuning's design test, analysis.
guidelines.guideline_test), on synthetic per-launch medians shaped as a campaign records them.
Not a test.

    .venv/bin/python bench/sim_decisions.py [--quick] [--out bench/results/sim_decisions.json]

The machine: every launch is in the fast or the slow state (the slow one ``ratio`` × the fast),
told apart by the cache-line probe recorded per launch (49–111 ns fast, 344–414 ns slow, as
measured on the test machine); a launch-wide factor lognormal(0, 0.02) multiplies every row of a
launch, each row adds lognormal(0, 0.01) of its own, and medians sit on a 1 ns timer grid.

The states a decision uses come from ``probe_states``: the probe's values split at their widest
gap in log scale when the two groups are ≥ 1.5× apart — a stand-in for the strata code's
stratification on the recorded machine-state property (the package's current source finds
states from a split of the run times first); ``pooled`` cells give the decisions no states.

Cells (Wilson 95 % intervals; ≥ 500 campaigns per null cell, ≥ 200 per power cell; --quick: 60):

- gate A/A, --max-slowdown 0: two states 1.18× apart, mixes 8/2 v 2/8 (10 launches a side), 4
  rows; the share of campaigns whose gate fails (target ≤ 0.05). Also 2.5× states, and no states.
- gate 5 %: the candidate 10 % slower in the fast state only, states 2.5× or 1.18×, 12 launches
  a side (each in either state with probability ½), 2 rows; the share that fails (target ≥ 0.8).
  The gate is given the 1 ns grid as recorded (``--only gate`` runs these cells alone).
- tune: one algorithm 0.8× at 3 sizes beside the default and a second algorithm (1.0×), 10
  rounds, min effect 5 %; states 1.18× or 2.5× drawn per launch, or 2.5× per round (both
  launches of a round in one state); chosen = the 0.8× algorithm at all 3 sizes (target ≥ 0.95).
  Null: every algorithm 1.0× — any choice is false.
- gate ceiling: the gate 5 % cases' campaigns (1.18× states), one one-sided rank-sum slowdown
  test per state on each launch's geometric mean over the rows, at 0.05 / 2 (the least
  correction a gate that can fail on either state needs): what exact rank-sum tests on these
  launches allow (``--only gate_ceiling`` runs these cells alone). Beside them, under the null
  (5 v 5 per state, 2 rows), how often the least of the four state tests' p is at most 4/252:
  the cut a joint permutation over rows × states could take (10× the power count).
- gate welch (``--only gate_welch``): would a state test without the rank tests' floor keep the
  gate's level? The one-sided Welch t on one state's log medians at 0.05 / 6 (Holm's first
  level there), beside the gate's rank-sum test on the same launches (beyond the recorded grid;
  also on the medians' own grid, and without a grid as before): the candidate exactly 5 % slower
  (the margin's boundary), and A/A on ~35 ns medians on a 10 ns grid; normal and t(3) launch
  factors; 5 v 5, 3 v 7, 2 v 8 launches. And its power in the ceiling cells' campaigns.
- compare of two alternatives run in the same rounds of one campaign (``--only compare``): 4
  rows, 10 rounds, a 2.5× state shared by both launches of a round that no recorded property
  explains (drawn per round with probability ½), or no states; the design as `compare` chooses it
  (analysis.designs: paired by round where 2 · 2^−rounds ≤ 0.05 / rows, else the rank-sum test),
  two-sided, Holm over the rows. Null: the same alternatives — the family-wise rate (≤ 0.05);
  power: b 0.95× a at every row — every row found (target ≥ 0.8), beside the rank-sum test the
  design replaces. And 8 rounds × 8 rows, b 0.8×: the design falls back to the rank-sum test.
- guidelines: one mock-up guideline of 4 sizes violated by 10 % or 5 % at one size (lhs = rhs ×
  1.1 in every launch), states 2.5× per launch, 10 launches; found = that row violated (target
  ≥ 0.95). Null: lhs = rhs — any violation is false.
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from scipy import stats
from statsmodels.stats.proportion import proportion_confint

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "python" / "src"))

from mpimeter.analysis import comparison, designs, gating, guidelines, tuning  # noqa: E402
from mpimeter.stats import compare, hypothesis  # noqa: E402

NAMES = ("faster", "slower")
LAUNCH_SIGMA, ROW_SIGMA = 0.02, 0.01


def wilson(k: int, n: int) -> list[float]:
    """The Wilson 95 % interval of k hits in n (statsmodels)."""
    if n == 0:
        return [math.nan, math.nan]
    return [float(x) for x in proportion_confint(k, n, alpha=0.05, method="wilson")]


def cell(name: str, hits: int, n: int, target: str, **facts) -> dict:
    return {"cell": name, "rate": hits / n if n else math.nan, "ci95": wilson(hits, n), "hits": hits, "campaigns": n,
            "target": target, **facts}


def probe(rng: np.random.Generator, fast: np.ndarray) -> np.ndarray:
    return np.where(fast, rng.uniform(49, 111, fast.size), rng.uniform(344, 414, fast.size))


def probe_states(rtt: np.ndarray) -> dict[int, str] | None:
    """Launch → state from the probe's widest gap (log scale), when the groups are ≥ 1.5× apart."""
    order = np.argsort(rtt)
    logs = np.log(rtt[order])
    if rtt.size < 2:
        return None
    cut = int(np.argmax(np.diff(logs)))
    if math.exp(logs[cut + 1] - logs[cut]) < 1.5:
        return None
    fast = set(order[:cut + 1].tolist())
    return {i: NAMES[0] if i in fast else NAMES[1] for i in range(rtt.size)}


def side(rng, fast: np.ndarray, ratio: float, rows: int, truth) -> np.ndarray:
    """(launches, rows) per-launch medians: state × launch factor × row noise × truth(row, fast)."""
    n = fast.size
    launch = rng.lognormal(0, LAUNCH_SIGMA, n) * np.where(fast, 1.0, ratio)
    x = 1000.0 * launch[:, None] * rng.lognormal(0, ROW_SIGMA, (n, rows))
    x *= np.array([[truth(r, f) for r in range(rows)] for f in fast])
    return np.rint(x)


def mix(rng, fast: int, total: int) -> np.ndarray:
    return rng.permutation(np.array([True] * fast + [False] * (total - fast)))


# --- gate --------------------------------------------------------------------------------------

def gate_fails(rng, fb: np.ndarray, fc: np.ndarray, ratio: float, rows: int, slow_fast: float, max_slowdown: float,
               states: bool) -> bool:
    base = side(rng, fb, ratio, rows, lambda r, f: 1.0)
    cand = side(rng, fc, ratio, rows, lambda r, f: slow_fast if f else 1.0)
    sb, sc = probe_states(probe(rng, fb)), probe_states(probe(rng, fc))
    keys = [("allreduce", 8 << r) for r in range(rows)]
    bd = {k: base[:, j] for j, k in enumerate(keys)}
    cd = {k: cand[:, j] for j, k in enumerate(keys)}
    matched = None
    if states and sb is not None and sc is not None:
        def matched(op, size):
            j = keys.index((op, size))
            return gating.split_by_state(dict(enumerate(base[:, j])), dict(enumerate(cand[:, j])), sb, sc, NAMES)
    out = gating.gate_rows(bd, cd, max_slowdown=max_slowdown, alpha=0.05, matched=matched, grid_ns=1.0)
    return any(r.regression for r in out)


def gate_cells(n_null: int, n_power: int, seed: int) -> list[dict]:
    out = []
    for ratio in (1.18, 2.5):
        for states in (True, False):
            rng = np.random.default_rng([seed, 1, int(ratio * 100), states])
            hits = sum(gate_fails(rng, mix(rng, 8, 10), mix(rng, 2, 10), ratio, 4, 1.0, 0.0, states)
                       for _ in range(n_null))
            out.append(cell("gate A/A --max-slowdown 0, mixes 8/2 v 2/8", hits, n_null, "≤ 0.05", state_ratio=ratio,
                            states="probe" if states else "pooled", rows=4, launches=10))
    rng = np.random.default_rng([seed, 2])
    hits = sum(gate_fails(rng, rng.random(10) < 0.5, rng.random(10) < 0.5, 1.18, 4, 1.0, 0.05, True)
               for _ in range(n_null))
    out.append(cell("gate A/A --max-slowdown 5 %, random mixes", hits, n_null, "≤ 0.05", state_ratio=1.18,
                    states="probe", rows=4, launches=10))
    for launches, random_mix in ((10, False), (12, True), (20, True)):
        for ratio in (2.5, 1.18):
            for states in (True, False):
                rng = np.random.default_rng([seed, 3, int(ratio * 100), states, launches, random_mix])

                def draw():
                    return rng.random(launches) < 0.5 if random_mix else mix(rng, launches // 2, launches)
                hits = sum(gate_fails(rng, draw(), draw(), ratio, 2, 1.10, 0.05, states) for _ in range(n_power))
                out.append(cell("gate 5 %: candidate 10 % slower in the fast state only", hits, n_power, "≥ 0.8",
                                state_ratio=ratio, states="probe" if states else "pooled", rows=2, launches=launches,
                                mixes="each launch fast with probability 0.5" if random_mix else "half and half"))
    return out


def fast_state_p(rng, launches: int, random_mix: bool, ratio: float) -> tuple[float, int, int]:
    """The one-sided rank-sum slowdown p (5 % margin) within the fast state of each launch's
    geometric mean over the 2 rows (the rows merged: one test per state), for the campaigns of the
    gate's power cells (10 % slower in the fast state only), and the launches of each side in it."""
    def draw():
        return rng.random(launches) < 0.5 if random_mix else mix(rng, launches // 2, launches)
    fb, fc = draw(), draw()
    base = side(rng, fb, ratio, 2, lambda r, f: 1.0)
    cand = side(rng, fc, ratio, 2, lambda r, f: 1.10 if f else 1.0)
    if not fb.any() or not fc.any():
        return 1.0, int(fb.sum()), int(fc.sum())
    def merged(x):
        return np.exp(np.log(x).mean(axis=1))
    return compare.slowdown_test(merged(base[fb]), merged(cand[fc]), 0.05).p_value, int(fb.sum()), int(fc.sum())


def null_min_p_cell(n: int, seed: int) -> dict:
    """Under the null (the candidate as the baseline, 1.18× states, 5 v 5 in each state, 2 rows
    sharing the launch factor): how often the smallest p of the four state tests (rows × states,
    the rank-sum's exact p) is at most 4/252 (U ≤ 2) — a joint permutation's cut can admit U ≤ 2
    only when this is at most 0.05."""
    rng = np.random.default_rng([seed, 9])
    hits = 0
    for _ in range(n):
        fb, fc = mix(rng, 5, 10), mix(rng, 5, 10)
        base = side(rng, fb, 1.18, 2, lambda r, f: 1.0)
        cand = side(rng, fc, 1.18, 2, lambda r, f: 1.0)
        least = min(compare.slowdown_test(base[sb, j], cand[sc, j], 0.0).p_value
                    for sb, sc in ((fb, fc), (~fb, ~fc)) for j in range(2))
        hits += least <= 4 / 252 + 1e-12
    return cell("gate null: the least of the 4 state tests' p ≤ 4/252 (U ≤ 2), 5 v 5 per state", hits, n,
                "> 0.05: a joint permutation keeps Holm's cut, U ≤ 1", state_ratio=1.18, rows=2, launches=10)


def gate_ceiling_cells(n_power: int, seed: int) -> list[dict]:
    """What the launches allow: a family that can find a regression in either of two states holds
    at least one test per state, so each is tested at 0.05 / 2 at best; here one test per state,
    on the rows merged per launch (valid for the gate's pass or fail, though it names no row), the
    fast state's p taken at 0.025: the power of exact rank-sum tests with the least correction any
    gate needs."""
    out = [null_min_p_cell(10 * n_power, seed)]
    for launches, random_mix in ((10, False), (12, True), (20, True)):
        rng = np.random.default_rng([seed, 8, launches, random_mix])
        ps = [fast_state_p(rng, launches, random_mix, 1.18) for _ in range(n_power)]
        out.append(cell("gate ceiling: one rank-sum test per state (rows merged per launch) at 0.05 / 2, fast state",
                        sum(p <= 0.025 for p, _, _ in ps), n_power, "≥ 0.8 (for the gate)", state_ratio=1.18,
                        rows=2, launches=launches,
                        mixes="each launch fast with probability 0.5" if random_mix else "half and half",
                        least_p_5v5=1 / 252))
    return out


def welch_slowdown_p(baseline: np.ndarray, candidate: np.ndarray, max_slowdown: float) -> float:
    """The one-sided Welch t test that the candidate's log per-launch medians lie above the
    baseline's by more than log(1 + max_slowdown): the test without the rank tests' floor (1/252
    for 5 v 5) that the gate would need; 1 when a side has no spread (the t statistic undefined)."""
    lb, lc = np.log(baseline), np.log(candidate) - math.log1p(max_slowdown)
    if lb.size < 2 or lc.size < 2 or (np.ptp(lb) == 0 and np.ptp(lc) == 0):
        return 1.0
    with warnings.catch_warnings():  # nearly equal values: scipy warns of precision, the p stands
        warnings.simplefilter("ignore", RuntimeWarning)
        return float(stats.ttest_ind(lc, lb, equal_var=False, alternative="greater").pvalue)


def grid35_medians(rng, n: int, truth: float, launch_t: int | None) -> np.ndarray:
    """Per-launch medians of 100 repetitions of ~35 ns (8 % repetition noise) on a 10 ns timer grid."""
    launch = LAUNCH_SIGMA * (rng.standard_t(launch_t, n) if launch_t else rng.standard_normal(n))
    reps = 35.0 * truth * np.exp(launch[:, None] + rng.normal(0, 0.08, (n, 100)))
    return np.median(np.maximum(np.round(reps / 10) * 10, 10), axis=1)


def state_medians(rng, n: int, truth: float, launch_t: int | None) -> np.ndarray:
    """Per-launch medians of one state as ``side`` draws them (launch factor 2 %, or t(launch_t)
    scaled alike; row noise 1 %; 1 ns grid)."""
    launch = LAUNCH_SIGMA * (rng.standard_t(launch_t, n) if launch_t else rng.standard_normal(n))
    return np.rint(1000.0 * truth * np.exp(launch + rng.normal(0, ROW_SIGMA, n)))


WELCH_LEVEL = 0.05 / 6  # Holm's first level in the gate's family of the power cells (2 rows + 4 state tests)


def gate_welch_cells(n_null: int, n_power: int, seed: int) -> list[dict]:
    """Would a state test without the rank tests' floor (Welch's t on the log medians) keep the
    gate's level? Per cell, the share of one state's tests rejecting at WELCH_LEVEL, beside the
    one-sided rank-sum test on the same launches: at the margin's boundary (candidate exactly 5 %
    slower, 1 ns grid) and on ~35 ns medians on a 10 ns grid (A/A at the margin 0, and the
    candidate 5 % slower: a grid step of 29 % hides a 5 % margin from both tests), normal and t(3)
    launch factors, the state sizes the gate's campaigns give (5 v 5; 3 v 7 and 2 v 8 in random
    mixes). Then its power where the ceiling cells measure the rank-sum test's (one test per
    state at 0.05 / 2, rows merged per launch)."""
    out = []
    for tag, grid, margin, draw in ((10, "1 ns", 0.05, state_medians), (10, "35 ns on 10 ns", 0.0, grid35_medians),
                                    (12, "35 ns on 10 ns", 0.05, grid35_medians)):
        step = 10.0 if grid.endswith("10 ns") else 1.0
        for launch_t in (None, 3):
            for nb, nc in ((5, 5), (3, 7), (2, 8)):
                rng = np.random.default_rng([seed, tag, int(margin * 100), launch_t or 0, nb])
                hits = rank_hits = estimated_hits = no_grid_hits = 0
                for _ in range(n_null):
                    b, c = draw(rng, nb, 1.0, launch_t), draw(rng, nc, 1.0 + margin, launch_t)
                    hits += welch_slowdown_p(b, c, margin) <= WELCH_LEVEL
                    # the gate's test on the recorded grid, on the medians' own grid, and without a grid
                    rank_hits += gating.slowdown_beyond_grid(b, c, margin, grid_ns=step).p_value <= WELCH_LEVEL + 1e-12
                    estimated_hits += gating.slowdown_beyond_grid(b, c, margin).p_value <= WELCH_LEVEL + 1e-12
                    no_grid_hits += compare.slowdown_test(b, c, margin).p_value <= WELCH_LEVEL + 1e-12
                out.append(cell("gate welch null: one state's Welch t rejects at 0.05 / 6", hits, n_null,
                                f"≤ {WELCH_LEVEL:.4f}", grid=grid, max_slowdown=margin, truth=1.0 + margin,
                                launch_factor="t(3)" if launch_t else "lognormal", sizes=f"{nb} v {nc}",
                                rank_sum_rate=rank_hits / n_null, rank_sum_ci95=wilson(rank_hits, n_null),
                                rank_sum_rate_medians_grid=estimated_hits / n_null,
                                rank_sum_rate_without_grid=no_grid_hits / n_null))
    for launches, random_mix in ((10, False), (12, True)):
        rng = np.random.default_rng([seed, 11, launches, random_mix])
        hits = 0
        for _ in range(n_power):
            def draw():
                return rng.random(launches) < 0.5 if random_mix else mix(rng, launches // 2, launches)
            fb, fc = draw(), draw()
            base = side(rng, fb, 1.18, 2, lambda r, f: 1.0)
            cand = side(rng, fc, 1.18, 2, lambda r, f: 1.10 if f else 1.0)
            merged_b, merged_c = np.exp(np.log(base).mean(axis=1)), np.exp(np.log(cand).mean(axis=1))
            hits += welch_slowdown_p(merged_b[fb], merged_c[fc], 0.05) <= 0.025
        out.append(cell("gate welch power: one Welch t per state (rows merged per launch) at 0.05 / 2, fast state",
                        hits, n_power, "≥ 0.8 (were its null to hold)", state_ratio=1.18, rows=2, launches=launches,
                        mixes="each launch fast with probability 0.5" if random_mix else "half and half"))
    return out


# --- tune --------------------------------------------------------------------------------------

def tune_choice(rng, ratio: float, per_round: bool, factors: dict[str, float], states: bool, sizes: int = 3,
                launches: int = 10) -> dict[int, str | None]:
    """size → the chosen alternative (None: the default) in one simulated campaign."""
    names = ["default", *factors]
    if per_round:
        fast_round = rng.random(launches) < 0.5
        fast = {a: fast_round for a in names}
    else:
        fast = {a: rng.random(launches) < 0.5 for a in names}
    data = {a: side(rng, fast[a], ratio, sizes, lambda r, f, a=a: factors.get(a, 1.0)) for a in names}
    st = {a: probe_states(probe(rng, fast[a])) for a in names}
    planned = []
    for a in factors:
        maps = (st["default"], st[a]) if states and st["default"] is not None and st[a] is not None else None
        for s in range(sizes):
            planned.append((a, s, dict(enumerate(data["default"][:, s])), dict(enumerate(data[a][:, s])), maps))
    pair_if = next(n for n in range(1, 64) if 0.5 ** n <= 0.05 / len(planned))
    results = []
    for a, s, d, g, maps in planned:
        design, pairs, test, ci = tuning._design_test(d, g, 1, maps, min_effect=0.05, confidence=0.95, seed=0,
                                                      pair_if=pair_if)
        results.append((a, s, test.p_value, ci.estimate, design))
    adj = hypothesis.holm(np.array([r[2] for r in results]))
    chosen = {}
    for s in range(sizes):
        sig = [(r[3], r[0]) for r, q in zip(results, adj) if r[1] == s and q <= 0.05]
        chosen[s] = min(sig)[1] if sig else None
    return chosen


def tune_cells(n_null: int, n_power: int, seed: int) -> list[dict]:
    out = []
    for ratio, per_round in ((1.18, False), (2.5, False), (2.5, True)):
        for states in (True, False):
            rng = np.random.default_rng([seed, 4, int(ratio * 100), per_round, states])
            hits = sum(all(c == "fast" for c in tune_choice(rng, ratio, per_round, {"fast": 0.8, "same": 1.0},
                                                            states).values())
                       for _ in range(n_power))
            out.append(cell("tune: one algorithm 0.8× at 3 sizes, chosen at all 3", hits, n_power, "≥ 0.95",
                            state_ratio=ratio, states_drawn="per round" if per_round else "per launch",
                            states="probe" if states else "none", rounds=10))
        rng = np.random.default_rng([seed, 5, int(ratio * 100), per_round])
        hits = sum(any(c is not None for c in tune_choice(rng, ratio, per_round, {"a": 1.0, "b": 1.0}, True).values())
                   for _ in range(n_null))
        out.append(cell("tune null: every algorithm 1.0×, any choice", hits, n_null, "≤ 0.05", state_ratio=ratio,
                        states_drawn="per round" if per_round else "per launch", states="probe", rounds=10))
    return out


# --- compare of alternatives run in the same rounds ----------------------------------------------

def compare_rounds(rng, ratio: float, factor: float, rows: int, rounds: int, *, states: bool) -> tuple[bool, bool, str]:
    """(every row significant, any row significant, the design) of one campaign's compare of a
    and b (b = a × ``factor``), both launched once per round; with ``states`` each round is slow
    (× ``ratio``) with probability ½ for both launches, nothing recorded explaining it."""
    fast = rng.random(rounds) < 0.5 if states else np.ones(rounds, dtype=bool)
    a = side(rng, fast, ratio, rows, lambda r, f: 1.0)
    b = side(rng, fast, ratio, rows, lambda r, f: factor)
    paired = designs.min_p(rounds, "two-sided") <= 0.05 / rows  # the design rule of comparison._designs_of
    ps = [(designs.paired_test(a[:, j], b[:, j], "two-sided") if paired else
           compare.compare_two(a[:, j], b[:, j], alternative="two-sided")).p_value for j in range(rows)]
    sig = hypothesis.holm(np.array(ps)) <= 0.05
    return bool(sig.all()), bool(sig.any()), designs.BY_ROUND if paired else designs.UNPAIRED


def rank_sum_rounds(rng, ratio: float, factor: float, rows: int, rounds: int, *, states: bool) -> bool:
    """The same power campaign through the rank-sum test alone (the unpaired design): every row
    significant."""
    fast = rng.random(rounds) < 0.5 if states else np.ones(rounds, dtype=bool)
    a = side(rng, fast, ratio, rows, lambda r, f: 1.0)
    b = side(rng, fast, ratio, rows, lambda r, f: factor)
    ps = [compare.compare_two(a[:, j], b[:, j], alternative="two-sided").p_value for j in range(rows)]
    return bool((hypothesis.holm(np.array(ps)) <= 0.05).all())


def compare_cells(n_null: int, n_power: int, seed: int) -> list[dict]:
    out = []
    for states in (True, False):
        rng = np.random.default_rng([seed, 10, states])
        runs = [compare_rounds(rng, 2.5, 1.0, 4, 10, states=states) for _ in range(n_null)]
        out.append(cell("compare A/A, alternatives in the same rounds: any row significant", sum(r[1] for r in runs),
                        n_null, "≤ 0.05", state_ratio=2.5 if states else 1.0,
                        states="per round, unexplained" if states else "none", rows=4, rounds=10,
                        design=runs[0][2]))
        rng = np.random.default_rng([seed, 11, states])
        runs = [compare_rounds(rng, 2.5, 0.95, 4, 10, states=states) for _ in range(n_power)]
        out.append(cell("compare: b 0.95× a at 4 rows, alternatives in the same rounds: every row found",
                        sum(r[0] for r in runs), n_power, "≥ 0.8", state_ratio=2.5 if states else 1.0,
                        states="per round, unexplained" if states else "none", rows=4, rounds=10,
                        design=runs[0][2]))
    for states in (True, False):
        rng = np.random.default_rng([seed, 12, states])
        out.append(cell("compare: the same, through the rank-sum test (the unpaired design it replaces)",
                        sum(rank_sum_rounds(rng, 2.5, 0.95, 4, 10, states=states) for _ in range(n_power)), n_power,
                        "—", state_ratio=2.5 if states else 1.0,
                        states="per round, unexplained" if states else "none", rows=4, rounds=10,
                        design=designs.UNPAIRED))
    rng = np.random.default_rng([seed, 13])
    runs = [compare_rounds(rng, 1.0, 0.8, 8, 8, states=False) for _ in range(n_power)]
    out.append(cell("compare: b 0.8× a at 8 rows, 8 rounds (too few to pair): every row found",
                    sum(r[0] for r in runs), n_power, "≥ 0.8", state_ratio=1.0, states="none", rows=8, rounds=8,
                    design=runs[0][2]))
    return out


# --- guidelines --------------------------------------------------------------------------------

def guideline_found(rng, violation: float, ratio: float, sizes: int = 4, launches: int = 10) -> tuple[bool, bool]:
    """(the violated row found, any other row called violated) in one campaign."""
    fast = rng.random(launches) < 0.5
    lhs = side(rng, fast, ratio, sizes, lambda r, f: violation if r == 0 else 1.0)
    # the mock-up ran in the same launches: the same launch factor and state, its own row noise
    rhs = lhs / np.array([violation if r == 0 else 1.0 for r in range(sizes)]) * rng.lognormal(0, ROW_SIGMA,
                                                                                               lhs.shape)
    pair_ok = 0.5 ** launches <= 0.05 / sizes
    tests = [guidelines.guideline_test(dict(enumerate(lhs[:, s])), dict(enumerate(rhs[:, s])), paired=pair_ok)
             for s in range(sizes)]
    adj = hypothesis.holm(np.array([t.p_value for t in tests]))
    return bool(adj[0] <= 0.05), bool((adj[1:] <= 0.05).any())


def guideline_cells(n_null: int, n_power: int, seed: int) -> list[dict]:
    out = []
    for violation in (1.10, 1.05):
        rng = np.random.default_rng([seed, 6, int(violation * 100)])
        found = [guideline_found(rng, violation, 2.5) for _ in range(n_power)]
        out.append(cell(f"guidelines: violated by {round(100 * (violation - 1))} %, found", sum(f for f, _ in found),
                        n_power, "≥ 0.95", state_ratio=2.5, design=guidelines.PAIRED, launches=10))
    rng = np.random.default_rng([seed, 7])
    null = [guideline_found(rng, 1.0, 2.5) for _ in range(n_null)]
    out.append(cell("guidelines null: every guideline holds with equality, any violation", sum(f or o for f, o in null),
                    n_null, "≤ 0.05", state_ratio=2.5, design=guidelines.PAIRED, launches=10))
    return out


ONLY = {"gate": ("gate A/A", "gate 5 %"), "gate_ceiling": ("gate ceiling", "gate null"), "compare": ("compare",),
        "gate_welch": ("gate welch",)}  # --only: its cells' names


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="60 campaigns per cell (a smoke run)")
    ap.add_argument("--seed", type=int, default=41)
    ap.add_argument("--only", choices=tuple(ONLY), default=None,
                    help="run only these cells (gate: the gate's A/A and power cells; gate_ceiling: what the "
                         "launches allow any gate; compare: "
                         "alternatives run in the same rounds; gate_welch: a state test without the rank "
                         "tests' floor); their cells replace those of --out")
    ap.add_argument("--out", type=Path, default=REPO / "bench" / "results" / "sim_decisions.json")
    args = ap.parse_args()
    n_null, n_power = (60, 60) if args.quick else (500, 200)
    start = time.monotonic()
    if args.only == "gate":
        cells = gate_cells(n_null, n_power, args.seed)
    elif args.only == "gate_ceiling":
        cells = gate_ceiling_cells(n_power, args.seed)
    elif args.only == "compare":
        cells = compare_cells(n_null, n_power, args.seed)
    elif args.only == "gate_welch":
        cells = gate_welch_cells(n_null, n_power, args.seed)
    else:
        cells = gate_cells(n_null, n_power, args.seed) + gate_ceiling_cells(n_power, args.seed) + \
            gate_welch_cells(n_null, n_power, args.seed) + \
            tune_cells(n_null, n_power, args.seed) + compare_cells(n_null, n_power, args.seed) + \
            guideline_cells(n_null, n_power, args.seed)
    seconds = round(time.monotonic() - start, 1)
    doc = {"script": "bench/sim_decisions.py", "seed": args.seed, "quick": args.quick, "seconds": seconds,
           "python": platform.python_version(),
           "designs": [designs.BY_ROUND, designs.BY_STATE, designs.UNPAIRED, guidelines.PAIRED], "cells": cells}
    if args.only and args.out.exists():  # the other cells of the full run stay; these replace their own
        old = json.loads(args.out.read_text())
        doc = {**old, "cells": [c for c in old["cells"] if not c["cell"].startswith(ONLY[args.only])] + cells,
               "designs": doc["designs"], f"{args.only}_run": {"seed": args.seed, "quick": args.quick,
                                                               "seconds": seconds}}
    args.out.write_text(json.dumps(doc, indent=1) + "\n")
    print_cells(cells)
    print(f"{seconds} s")  # this run's (with --only, the file keeps the full run's beside it)


def print_cells(cells: list[dict]) -> None:
    """One line a cell: its rate, Wilson interval, counts, target and the cell's other keys."""
    for c in cells:
        print(f"{c['rate']:.3f} [{c['ci95'][0]:.3f}, {c['ci95'][1]:.3f}] {c['hits']}/{c['campaigns']} "
              f"(target {c['target']}) {c['cell']} " + " ".join(f"{k}={v}" for k, v in c.items()
                                                               if k not in ("cell", "rate", "ci95", "hits", "campaigns",
                                                                            "target")))


if __name__ == "__main__":
    main()
