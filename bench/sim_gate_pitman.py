# SPDX-License-Identifier: BSD-3-Clause
"""Would a Fisher–Pitman permutation test lift the gate's power on one regressed state? The gate
cells of bench/sim_decisions.py (its campaigns, seeds and helpers) with each state tested by the
exact one-sided Fisher–Pitman test of the log per-launch medians (the difference of means over
every split of the state's launches, on the gate's terms: beyond the timer grid, against the
baseline scaled by 1 + max slowdown) instead of the rank-sum test. Not a test. Its gate cells
were measured when the gate's family was Holm's; with matched states the family's p-values now
come from the joint relabelling (stats.joint_permutation, bench/sim_gate_joint.py measures it),
which the patch below does not reach.

    .venv/bin/python bench/sim_gate_pitman.py [--quick] [--out bench/results/sim_decisions.json]

Cells (Wilson 95 % intervals; 500 campaigns per null cell, 200 per power cell; --quick: 60), named
"gate pitman …" and "gate launches needed …" in the results, which they replace there:

- the gate with Fisher–Pitman state tests on the gate cells' own campaigns: A/A (8/2 v 2/8 at
  --max-slowdown 0, random mixes at 5 %) and the fast state 10 % slower (10 launches half and
  half, 12 and 20 in random mixes), each beside the rank-sum gate's hits on the same campaigns;
- its null on the cells where Welch's t failed (one state at 0.05 / 6: the margin's boundary on a
  1 ns grid, ~35 ns medians on a 10 ns grid; 5 v 5, 3 v 7, 2 v 8; lognormal and t(3) launch factors);
- one Fisher–Pitman test per state on the rows merged per launch at 0.05 / 2 (the ceiling cells);
- a joint permutation over the 4 state tests (Westfall–Young min-p, rows left out): the cuts k/252
  its null allows (2000 campaigns) and the power at the largest;
- the rank-sum state test's power with n = 5 … 10 launches a side beside the launches the gate
  says a state needs (stats.compare.launches_needed on the state's spread).
"""

from __future__ import annotations

import argparse
import copy
import itertools
import json
import math
import time
from pathlib import Path

import numpy as np

import sim_decisions as sd  # bench/: puts python/src on the path
from mpimeter.analysis import gating
from mpimeter.stats import compare, hypothesis

SPLITS_ENUMERATED = 20_000  # beyond: that many random splits (the p of a Monte Carlo permutation test)
_splits: dict[tuple[int, int], np.ndarray] = {}


def pitman_slowdown_p(baseline: np.ndarray, candidate: np.ndarray, max_slowdown: float, half: float) -> float:
    """The one-sided Fisher–Pitman permutation test (Pitman 1937; Lehmann & Romano 2005, §5.9:
    the most powerful permutation test against a normal shift) on the gate's terms: the
    candidate's logs (half a grid step down) against the baseline's (half a step up) plus
    log(1 + max_slowdown); p = the share of the splits of the pooled logs into groups of the
    candidate's size whose sum is at least the candidate's. Exact by enumeration up to
    SPLITS_ENUMERATED splits."""
    b, c = gating.beyond_grid(baseline, candidate, half)
    x = np.concatenate([np.log(b) + math.log1p(max_slowdown), np.log(c)])
    observed = float(x[b.size:].sum()) - 1e-9  # equal sums (tied values) count as at least as large
    if math.comb(x.size, c.size) <= SPLITS_ENUMERATED:
        key = (x.size, c.size)
        if key not in _splits:
            _splits[key] = np.array(list(itertools.combinations(range(x.size), c.size)))
        return float(np.mean(x[_splits[key]].sum(axis=1) >= observed))
    draws = np.random.default_rng(0).random((SPLITS_ENUMERATED, x.size)).argsort(axis=1)[:, :c.size]
    return float((1 + np.sum(x[draws].sum(axis=1) >= observed)) / (1 + SPLITS_ENUMERATED))


class PitmanStateTests:
    """Within the block, gating's slowdown test (the per-state tests; the pooled one, which no
    decision of gate_rows uses with matched states) is the Fisher–Pitman test above."""

    def __enter__(self):
        self.saved = gating.slowdown_beyond_grid

        def test(a, b, max_slowdown, *, grid_ns=None, half_step=None):
            half = gating.half_grid_step(a, b, grid_ns) if half_step is None else half_step
            return hypothesis.TestResult(statistic=math.nan, p_value=pitman_slowdown_p(a, b, max_slowdown, half),
                                         method="exact permutation")
        gating.slowdown_beyond_grid = test

    def __exit__(self, *exc):
        gating.slowdown_beyond_grid = self.saved


def both_gates(rng, *args) -> tuple[bool, bool]:
    """(rank-sum gate fails, Fisher–Pitman gate fails) on one campaign of sd.gate_fails(rng, *args)."""
    twin = copy.deepcopy(rng)  # the same draws for both
    ranks = sd.gate_fails(rng, *args)
    with PitmanStateTests():
        return ranks, sd.gate_fails(twin, *args)


def gate_pitman_cells(n_null: int, n_power: int, seed: int) -> list[dict]:
    """The gate with each state tested by the Fisher–Pitman test instead of the rank-sum test, on
    the gate cells' own campaigns (their seeds; beside each the rank-sum gate's figure on the same
    campaigns); its null on the cells where Welch's t failed; one Fisher–Pitman test per state on
    the rows merged per launch at 0.05 / 2 (the ceiling cells' campaigns); and the rank-sum state
    test's power at n launches a side beside the launches the gate says a state needs."""
    out = []
    for nb, nc, margin, ratio in ((8, 2, 0.0, 1.18), (8, 2, 0.0, 2.5), (None, None, 0.05, 1.18)):
        rng = np.random.default_rng([seed, 1, int(ratio * 100), True] if nb else [seed, 2])

        def draws():
            return (sd.mix(rng, nb, 10), sd.mix(rng, nc, 10)) if nb else (rng.random(10) < 0.5, rng.random(10) < 0.5)
        runs = [both_gates(rng, *draws(), ratio, 4, 1.0, margin, True) for _ in range(n_null)]
        out.append(sd.cell(f"gate pitman A/A --max-slowdown {round(100 * margin)} %", sum(p for _, p in runs), n_null,
                           "≤ 0.05", state_ratio=ratio, states="probe", rows=4, launches=10,
                           mixes="8/2 v 2/8" if nb else "random", rank_sum_hits=sum(r for r, _ in runs)))
    for launches, random_mix in ((10, False), (12, True), (20, True)):
        for ratio in (2.5, 1.18):
            rng = np.random.default_rng([seed, 3, int(ratio * 100), True, launches, random_mix])

            def draw():
                return rng.random(launches) < 0.5 if random_mix else sd.mix(rng, launches // 2, launches)
            runs = [both_gates(rng, draw(), draw(), ratio, 2, 1.10, 0.05, True) for _ in range(n_power)]
            out.append(sd.cell("gate pitman 5 %: candidate 10 % slower in the fast state only", sum(p for _, p in runs),
                               n_power, "≥ 0.8", state_ratio=ratio, states="probe", rows=2, launches=launches,
                               mixes="each launch fast with probability 0.5" if random_mix else "half and half",
                               rank_sum_hits=sum(r for r, _ in runs),
                               discordant=sum(r != p for r, p in runs)))
    for tag, grid, margin, draw_state in ((10, "1 ns", 0.05, sd.state_medians),
                                          (10, "35 ns on 10 ns", 0.0, sd.grid35_medians),
                                          (12, "35 ns on 10 ns", 0.05, sd.grid35_medians)):
        half = 5.0 if grid.endswith("10 ns") else 0.5
        for launch_t in (None, 3):
            for nb, nc in ((5, 5), (3, 7), (2, 8)):
                rng = np.random.default_rng([seed, tag, int(margin * 100), launch_t or 0, nb])
                hits = 0
                for _ in range(n_null):
                    b, c = draw_state(rng, nb, 1.0, launch_t), draw_state(rng, nc, 1.0 + margin, launch_t)
                    hits += pitman_slowdown_p(b, c, margin, half) <= sd.WELCH_LEVEL + 1e-12
                out.append(sd.cell("gate pitman null: one state's Fisher–Pitman test rejects at 0.05 / 6", hits,
                                   n_null, f"≤ {sd.WELCH_LEVEL:.4f}", grid=grid, max_slowdown=margin,
                                   truth=1.0 + margin, launch_factor="t(3)" if launch_t else "lognormal",
                                   sizes=f"{nb} v {nc}"))
    for launches, random_mix in ((10, False), (12, True), (20, True)):
        rng = np.random.default_rng([seed, 8, launches, random_mix])
        ps = [fast_state_pitman_p(rng, launches, random_mix) for _ in range(n_power)]
        out.append(sd.cell("gate pitman ceiling: one Fisher–Pitman test per state (rows merged per launch) "
                           "at 0.05 / 2", sum(p <= 0.025 for p, _, _ in ps), n_power, "≥ 0.8 (for the gate)",
                           state_ratio=1.18, rows=2, launches=launches,
                           mixes="each launch fast with probability 0.5" if random_mix else "half and half"))
    out += pitman_joint_cells(10 * n_power, n_power, seed)
    for n in range(5, 11):  # one row's state test at Holm's first level of the power cells' family
        rng = np.random.default_rng([seed, 14, n])
        found, needed = 0, []
        for _ in range(n_power):
            b, c = sd.state_medians(rng, n, 1.0, None), sd.state_medians(rng, n, 1.10, None)
            found += gating.slowdown_beyond_grid(b, c, 0.05, grid_ns=1.0).p_value <= sd.WELCH_LEVEL + 1e-12
            needed.append(compare.launches_needed(gating._log_spread(b, c), math.log(1.10 / 1.05), sd.WELCH_LEVEL))
        out.append(sd.cell("gate launches needed: one state's rank-sum test at 0.05 / 6, n a side, 10 % slower", found,
                           n_power, "≥ 0.8 at the launches the gate names", launches_a_side=n,
                           launches_needed_median=float(np.median(needed)),
                           launches_needed_range=[int(min(needed)), int(max(needed))]))
    return out


def least_state_p(rng, fast: float, slow: float) -> float:
    """The least Fisher–Pitman p of the 4 state tests (2 rows × 2 states, 5 v 5 each, 1.18×
    states, margin 5 %, 1 ns grid) of one campaign whose candidate is ``fast`` × the baseline in
    the fast state and ``slow`` × in the slow one."""
    fb, fc = sd.mix(rng, 5, 10), sd.mix(rng, 5, 10)
    base = sd.side(rng, fb, 1.18, 2, lambda r, f: 1.0)
    cand = sd.side(rng, fc, 1.18, 2, lambda r, f: fast if f else slow)
    return min(pitman_slowdown_p(base[sb, j], cand[sc, j], 0.05, 0.5)
               for sb, sc in ((fb, fc), (~fb, ~fc)) for j in range(2))


def pitman_joint_cells(n_null: int, n_power: int, seed: int) -> list[dict]:
    """A joint permutation of the launches over the 4 state tests (Westfall–Young min-p, the row
    tests left out): the largest cut k/252 the least Fisher–Pitman p passes in at most 5 % of null
    campaigns (the candidate exactly at the 5 % margin in both states: the boundary), and how
    often the power cells' campaigns (10 % slower in the fast state only) pass it."""
    rng = np.random.default_rng([seed, 15])
    null = np.array([least_state_p(rng, 1.05, 1.05) for _ in range(n_null)])
    rng = np.random.default_rng([seed, 16])
    power = np.array([least_state_p(rng, 1.10, 1.0) for _ in range(n_power)])
    shares = {k: int(np.sum(null <= k / 252 + 1e-12)) for k in range(2, 8)}
    cut = max((k for k, h in shares.items() if h <= 0.05 * n_null), default=1)
    return [sd.cell(f"gate pitman joint null: the least of the 4 state tests' p ≤ {k}/252, 5 v 5 per state", h,
                    n_null, "≤ 0.05 for a cut at k", state_ratio=1.18, rows=2, launches=10)
            for k, h in shares.items()] + \
        [sd.cell(f"gate pitman joint power: the least state p ≤ {cut}/252 (the largest cut the null allows)",
                 int(np.sum(power <= cut / 252 + 1e-12)), n_power, "≥ 0.8", state_ratio=1.18, rows=2, launches=10,
                 mixes="half and half")]


def fast_state_pitman_p(rng, launches: int, random_mix: bool) -> tuple[float, int, int]:
    """sim_decisions.fast_state_p (its draws, 1.18× states) with the Fisher–Pitman test."""
    def draw():
        return rng.random(launches) < 0.5 if random_mix else sd.mix(rng, launches // 2, launches)
    fb, fc = draw(), draw()
    base = sd.side(rng, fb, 1.18, 2, lambda r, f: 1.0)
    cand = sd.side(rng, fc, 1.18, 2, lambda r, f: 1.10 if f else 1.0)
    if not fb.any() or not fc.any():
        return 1.0, int(fb.sum()), int(fc.sum())

    def merged(x):
        return np.exp(np.log(x).mean(axis=1))
    return pitman_slowdown_p(merged(base[fb]), merged(cand[fc]), 0.05, 0.0), int(fb.sum()), int(fc.sum())


PREFIXES = ("gate pitman", "gate launches needed")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="60 campaigns per cell (a smoke run)")
    ap.add_argument("--seed", type=int, default=41)
    ap.add_argument("--out", type=Path, default=sd.REPO / "bench" / "results" / "sim_decisions.json")
    args = ap.parse_args()
    n_null, n_power = (60, 60) if args.quick else (500, 200)
    start = time.monotonic()
    cells = gate_pitman_cells(n_null, n_power, args.seed)
    seconds = round(time.monotonic() - start, 1)
    doc = json.loads(args.out.read_text()) if args.out.exists() else {"script": "bench/sim_decisions.py", "cells": []}
    doc["cells"] = [c for c in doc["cells"] if not c["cell"].startswith(PREFIXES)] + cells
    doc["gate_pitman_run"] = {"script": "bench/sim_gate_pitman.py", "seed": args.seed, "quick": args.quick,
                              "seconds": seconds}
    args.out.write_text(json.dumps(doc, indent=1) + "\n")
    sd.print_cells(cells)
    print(f"{seconds} s")


if __name__ == "__main__":
    main()
