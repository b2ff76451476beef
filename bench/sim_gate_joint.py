# SPDX-License-Identifier: BSD-3-Clause
"""The gate's family adjusted by a joint relabelling of the launches (Westfall–Young step-down
min-p over rows × states, analysis.gating with stats.joint_permutation): does a 10 % regression
of one state alone fail it in ≥ 0.8 of campaigns, and does A/A with two states fail it in ≤ 0.05?
Campaigns as bench/sim_decisions.py draws them (its helpers: two states told apart by the probe,
a launch-wide factor shared by every row of a launch, row noise, medians on the timer's grid),
through analysis.gating.gate_rows. Not a test.

    .venv/bin/python bench/sim_gate_joint.py [--quick] [--out bench/results/sim_gate_joint.json]

Cells (Wilson 95 % intervals; 500 campaigns per null cell, 200 per power cell; --quick: 60):

- power: the candidate 10 % slower in the fast state only, the slow state unchanged, 5 % margin,
  states 1.18× or 2.5× apart, 2 rows; 10 launches a side half and half, 12 in random mixes, and
  10 with t(3) launch factors (heavy tails, where a mean can lose to ranks); each campaign through
  the gate with the joint family on the rank sum and on the difference of mean logs
  (stats.joint_permutation's statistics), the same campaign for both;
- null (A/A, margin 0 unless said; the gate's statistic, gating.JOINT_STATISTIC): mixes 8/2 v 2/8 and balanced 5/5 v 5/5, 1.18× states;
  lognormal or t(3) launch factors (heavy tails); ~35 ns medians of 100 repetitions on a 10 ns
  timer grid (ties; the grid recorded); a strong launch-wide effect (5 %, rows 0.5 %) over 4 rows;
  and the candidate exactly 5 % slower in both states at the 5 % margin (the boundary);
- again (--only again CASE SEED …): one null case drawn with other seeds, to tell a rate at α
  (an exact test that spends all of it) from an excess;
- launches named (with the power cells): is the count `gate` names for the fast state right? The
  share of the power cells' campaigns that failed among those whose fast state had at least the
  launches a side named, and among those with fewer; --only named: the gate at 6 and 7 launches a
  side half and half (12 and 14 launches: the count named at these cells' median);
- weights (--only weights): the rows' tests weighted 0.25 against 1 per state test in the min-p
  (weighted Westfall–Young), a regression of one state alone and of both, the same campaigns;
- families (--only families): what other families allow on the same launches — the row × state
  tests alone, the rows with one test per state of the rows merged (naming no row), that test
  alone — built with stats.joint_permutation, the gate's family beside them as a check.
"""

from __future__ import annotations

import argparse
import copy
import json
import math
import time
from pathlib import Path

import numpy as np

import sim_decisions as sd  # bench/: puts python/src on the path
from mpimeter.analysis import gating
from mpimeter.stats import joint_permutation as jp

GRID35_REPS, GRID35_SPREAD = 100, 0.08  # as sim_decisions.grid35_medians


def side(rng, fast: np.ndarray, ratio: float, rows: int, truth: float, *, launch_t: int | None = None,
         launch_sigma: float = sd.LAUNCH_SIGMA, row_sigma: float = sd.ROW_SIGMA, grid35: bool = False,
         fast_truth: float | None = None) -> np.ndarray:
    """(launches, rows) per-launch medians: state × launch factor (lognormal, or t(launch_t) on
    the log scale) × row noise × truth (``fast_truth`` in the fast state when given); 1 µs on a 1 ns
    grid, or (``grid35``) the median of 100 repetitions of ~35 ns read on a 10 ns grid."""
    n = fast.size
    launch = launch_sigma * (rng.standard_t(launch_t, n) if launch_t else rng.standard_normal(n))
    state = np.where(fast, 1.0, ratio) * np.where(fast, truth if fast_truth is None else fast_truth, truth)
    logs = launch[:, None] + rng.normal(0, row_sigma, (n, rows))
    if not grid35:
        return np.rint(1000.0 * state[:, None] * np.exp(logs))
    reps = 35.0 * state[:, None, None] * np.exp(logs[:, :, None] + rng.normal(0, GRID35_SPREAD, (n, rows, GRID35_REPS)))
    return np.median(np.maximum(np.round(reps / 10) * 10, 10), axis=2)


def gate_fails(rng, fb: np.ndarray, fc: np.ndarray, **campaign) -> bool:
    """One campaign pair through gating.gate_rows with the probe's states: does the gate fail?"""
    return any(r.regression for r in gate_out(rng, fb, fc, **campaign))


def fast_state_need(rows) -> tuple[int | None, int]:
    """The launches a side the gate names for its faster state (the most any row needs, as `gate`
    prints it) and the fewest it has on a side."""
    tests = [st for r in rows for st in r.state_tests if st.stratum == sd.NAMES[0]]
    needs = [st.launches_needed for st in tests if st.launches_needed is not None]
    have = min((min(st.launches_baseline, st.launches_candidate) for st in tests), default=0)
    return (max(needs) if needs else None), have


def gate_out(rng, fb: np.ndarray, fc: np.ndarray, *, ratio: float, rows: int, max_slowdown: float,
             base_truth: float = 1.0, cand_truth: float = 1.0, cand_fast: float | None = None, **shape) -> list:
    """One campaign pair through gating.gate_rows with the probe's states: the gate's rows."""
    base = side(rng, fb, ratio, rows, base_truth, **shape)
    cand = side(rng, fc, ratio, rows, cand_truth, fast_truth=cand_fast, **shape)
    sb, sc = sd.probe_states(sd.probe(rng, fb)), sd.probe_states(sd.probe(rng, fc))
    keys = [("allreduce", 8 << r) for r in range(rows)]

    def matched(op, size):
        j = keys.index((op, size))
        return gating.split_by_state(dict(enumerate(base[:, j])), dict(enumerate(cand[:, j])), sb, sc, sd.NAMES)
    out = gating.gate_rows({k: base[:, j] for j, k in enumerate(keys)}, {k: cand[:, j] for j, k in enumerate(keys)},
                           max_slowdown=max_slowdown, alpha=0.05,
                           matched=matched if sb is not None and sc is not None else None,  # one state: pooled
                           grid_ns=10.0 if shape.get("grid35") else 1.0)
    return out


def power_cells(n: int, seed: int) -> list[dict]:
    """The same campaigns through the gate with each statistic of the joint family
    (stats.joint_permutation): the rank sum it had, and the difference of mean logs it has."""
    out = []
    for launches, random_mix, launch_t in ((10, False, None), (12, True, None), (10, False, 3)):
        for ratio in (1.18, 2.5):
            rng = np.random.default_rng([seed, 3, int(ratio * 100), True, launches, random_mix]  # sim_decisions' seeds
                                        + ([launch_t] if launch_t else []))
            hits = {jp.RANK_SUM: 0, jp.MEAN_LOG: 0}
            named = []  # the adopted gate's (launches it names for the fast state, launches it has, failed)
            for _ in range(n):
                def draw():
                    return rng.random(launches) < 0.5 if random_mix else sd.mix(rng, launches // 2, launches)
                fb, fc = draw(), draw()
                start = copy.deepcopy(rng)
                for statistic in hits:
                    twin = copy.deepcopy(start)  # the same campaign for each
                    with GateStatistic(statistic):
                        out_rows = gate_out(twin, fb, fc, ratio=ratio, rows=2, max_slowdown=0.05, cand_fast=1.10,
                                            launch_t=launch_t)
                    failed = any(r.regression for r in out_rows)
                    hits[statistic] += failed
                    if statistic == gating.JOINT_STATISTIC:
                        named.append((*fast_state_need(out_rows), failed))
                rng = twin
            mixes = "each launch fast with probability 0.5" if random_mix else "half and half"
            for statistic, h in hits.items():
                out.append(sd.cell(f"gate joint power ({statistic}): 10 % slower in the fast state only, 5 % margin"
                                   + (", t(3) launch factors" if launch_t else ""), h, n, "≥ 0.8",
                                   state_ratio=ratio, rows=2, launches=launches, mixes=mixes, statistic=statistic,
                                   adopted=statistic == gating.JOINT_STATISTIC))
            out += named_cells(named, launches=launches, mixes=mixes, ratio=ratio, launch_t=launch_t)
    return out


def named_cells(named: list[tuple], **facts) -> list[dict]:
    """Is the count the gate names right? Of the power cell's campaigns, the share that failed the
    gate among those whose fast state had at least the launches a side the gate named, and among
    those with fewer (the count estimated from each campaign's own spread)."""
    needs = [need for need, _, _ in named if need is not None]
    ok = [failed for need, have, failed in named if need is not None and have >= need]
    short = [failed for need, have, failed in named if need is not None and have < need]
    t = facts.pop("launch_t")
    what = "10 % slower in the fast state only" + (", t(3) launch factors" if t else "")
    return [sd.cell(f"gate launches named, {what}: campaigns with at least the launches named", sum(ok), len(ok),
                    "≥ 0.8", state_ratio=facts["ratio"], launches=facts["launches"], mixes=facts["mixes"], rows=2,
                    named_median=float(np.median(needs)) if needs else None,
                    named_quartiles=[float(q) for q in np.percentile(needs, [25, 75])] if needs else None),
            sd.cell(f"gate launches named, {what}: campaigns with fewer than the launches named", sum(short),
                    len(short), "< 0.8", state_ratio=facts["ratio"], launches=facts["launches"],
                    mixes=facts["mixes"], rows=2)]


def at_named_cells(n: int, seed: int) -> list[dict]:
    """The gate at the launches it names for these cells (6 a side at their median: 12 launches
    half and half) and one more a side, 10 % slower in the fast state only, 5 % margin, 2 rows."""
    out = []
    for launches in (12, 14):
        for ratio in (1.18, 2.5):
            rng = np.random.default_rng([seed, 44, int(ratio * 100), launches])
            hits = sum(gate_fails(rng, sd.mix(rng, launches // 2, launches), sd.mix(rng, launches // 2, launches),
                                  ratio=ratio, rows=2, max_slowdown=0.05, cand_fast=1.10) for _ in range(n))
            out.append(sd.cell("gate joint power at the launches named: 10 % slower in the fast state only, 5 % margin",
                               hits, n, "≥ 0.8", state_ratio=ratio, rows=2, launches=launches, mixes="half and half",
                               statistic=gating.JOINT_STATISTIC))
    return out


def weight_cells(n: int, seed: int) -> list[dict]:
    """Weighted Westfall–Young (each test's p over its weight, weights fixed in advance): the rows'
    stratified tests weighted ``w`` against 1 for each state test, on the same campaigns, for a
    regression of the fast state alone (10 %) and of both states (8 %), 10 launches half and half,
    5 % margin, 2 rows: what moving α from the rows to the states buys and costs."""
    out = []
    for fast, slow in ((1.10, 1.0), (1.08, 1.08)):
        for ratio in (1.18, 2.5):
            rng = np.random.default_rng([seed, 45, int(ratio * 100), int(fast * 100), int(slow * 100)])
            hits = dict.fromkeys((1.0, 0.25), 0)
            for _ in range(n):
                fb, fc = sd.mix(rng, 5, 10), sd.mix(rng, 5, 10)
                start = copy.deepcopy(rng)
                for w in hits:
                    twin = copy.deepcopy(start)
                    with RowWeight(w):
                        hits[w] += gate_fails(twin, fb, fc, ratio=ratio, rows=2, max_slowdown=0.05, cand_fast=fast,
                                              cand_truth=slow)
                rng = twin
            for w, h in hits.items():
                out.append(sd.cell(f"gate joint power, row tests weighted {w:g}: {round(100 * (fast - 1))} % slower in "
                                   + ("the fast state only" if slow == 1.0 else "both states") + ", 5 % margin",
                                   h, n, "≥ 0.8", state_ratio=ratio, rows=2, launches=10, mixes="half and half",
                                   row_weight=w, adopted=w == gating.ROW_WEIGHT))
    return out


FAMILIES = {  # what each family tests (rows: a row's stratified test; row × state: one row in one state; state: the
    # rows merged per launch, their geometric mean, in one state — one test of every row of a state, naming none)
    "rows + row × state (the gate's)": ("rows", "row×state"), "row × state": ("row×state",),
    "rows + state": ("rows", "state"), "state": ("state",)}


def family_cells(n: int, seed: int) -> list[dict]:
    """What other families would allow on the same launches (the joint relabelling, Fisher–Pitman's
    statistic, the states as drawn, 10 launches half and half, 2 rows, 5 % margin on the 1 ns grid):
    a regression of the fast state alone (10 %) and of both states (8 %); any test of the family
    rejecting counts. Built with stats.joint_permutation directly, the gate's family beside them
    as a check of the construction."""
    out = []
    for fast, slow in ((1.10, 1.0), (1.08, 1.08)):
        for ratio in (1.18, 2.5):
            rng = np.random.default_rng([seed, 46, int(ratio * 100), int(fast * 100), int(slow * 100)])
            hits = dict.fromkeys(FAMILIES, 0)
            blocks = [jp.Block(candidate=np.r_[np.zeros(5, bool), np.ones(5, bool)])] * 2
            for _ in range(n):
                fb, fc = sd.mix(rng, 5, 10), sd.mix(rng, 5, 10)
                base = side(rng, fb, ratio, 2, 1.0) + 0.5  # half the 1 ns grid each way (gating.beyond_grid)
                cand = side(rng, fc, ratio, 2, slow, fast_truth=fast) - 0.5
                per = [np.r_[base[state_b] * 1.05, cand[state_c]]
                       for state_b, state_c in ((fb, fc), (~fb, ~fc))]  # per state: (10 launches, 2 rows)
                tests = {"rows": [{0: per[0][:, r], 1: per[1][:, r]} for r in range(2)],
                         "row×state": [{s: per[s][:, r]} for r in range(2) for s in range(2)],
                         "state": [{s: np.exp(np.log(per[s]).mean(axis=1))} for s in range(2)]}
                for name, parts in FAMILIES.items():
                    res = jp.step_down_min_p(blocks, [jp.JointTest(values=v) for part in parts for v in tests[part]],
                                             0.05, statistic=jp.MEAN_LOG)
                    hits[name] += bool((res.adjusted <= 0.05).any())
            for (name, parts), h in zip(FAMILIES.items(), hits.values()):
                out.append(sd.cell(f"gate family {name}: {round(100 * (fast - 1))} % slower in "
                                   + ("the fast state only" if slow == 1.0 else "both states") + ", 5 % margin",
                                   h, n, "≥ 0.8", state_ratio=ratio, rows=2, launches=10, mixes="half and half",
                                   statistic=jp.MEAN_LOG, names_rows="state" not in parts))
    return out


class RowWeight:
    """The rows' tests weighted ``w`` (the state tests 1) in the gate's family for the campaigns run inside it."""

    def __init__(self, w: float):
        self.w = w

    def __enter__(self):
        self.saved, gating.ROW_WEIGHT = gating.ROW_WEIGHT, self.w

    def __exit__(self, *exc):
        gating.ROW_WEIGHT = self.saved


class GateStatistic:
    """The gate's joint family on ``statistic`` for the campaigns run inside it."""

    def __init__(self, statistic: str):
        self.statistic = statistic

    def __enter__(self):
        self.saved, gating.JOINT_STATISTIC = gating.JOINT_STATISTIC, self.statistic

    def __exit__(self, *exc):
        gating.JOINT_STATISTIC = self.saved


NULL_CASES = (  # name, mixes (fast launches of 10: baseline, candidate), rows, margin, candidate truth, shape
    ("A/A, mixes 8/2 v 2/8", (8, 2), 4, 0.0, 1.0, {}),
    ("A/A, balanced 5/5", (5, 5), 2, 0.0, 1.0, {}),
    ("A/A, balanced 5/5", (5, 5), 4, 0.0, 1.0, {}),
    ("A/A, t(3) launch factors, balanced 5/5", (5, 5), 2, 0.0, 1.0, {"launch_t": 3}),
    ("A/A, t(3) launch factors, mixes 8/2 v 2/8", (8, 2), 4, 0.0, 1.0, {"launch_t": 3}),
    ("A/A, ~35 ns medians on a 10 ns grid (ties), balanced 5/5", (5, 5), 2, 0.0, 1.0, {"grid35": True}),
    ("A/A, ~35 ns medians on a 10 ns grid (ties), mixes 8/2 v 2/8", (8, 2), 2, 0.0, 1.0, {"grid35": True}),
    ("A/A, launch-wide effect 5 % (rows 0.5 %), balanced 5/5", (5, 5), 4, 0.0, 1.0,
     {"launch_sigma": 0.05, "row_sigma": 0.005}),
    ("candidate exactly 5 % slower in both states, 5 % margin, balanced 5/5", (5, 5), 2, 0.05, 1.05, {}),
    ("candidate exactly 5 % slower in both states, 5 % margin, t(3), balanced 5/5", (5, 5), 2, 0.05, 1.05,
     {"launch_t": 3}),
)


def null_cells(n: int, seed: int) -> list[dict]:
    out = []
    for k, (name, (fb, fc), rows, margin, truth, shape) in enumerate(NULL_CASES):
        rng = np.random.default_rng([seed, 40, k])
        hits = sum(gate_fails(rng, sd.mix(rng, fb, 10), sd.mix(rng, fc, 10), ratio=1.18, rows=rows,
                              max_slowdown=margin, cand_truth=truth, **shape) for _ in range(n))
        out.append(sd.cell(f"gate joint null: {name}", hits, n, "≤ 0.05", state_ratio=1.18, rows=rows, launches=10,
                           max_slowdown=margin, statistic=gating.JOINT_STATISTIC))
    return out


def repeat_cells(n: int, case: int, seeds: list[int]) -> list[dict]:
    """NULL_CASES[case] drawn again with other seeds: whether a rate near α is the level or chance."""
    name, (fb, fc), rows, margin, truth, shape = NULL_CASES[case]
    out = []
    for seed in seeds:
        rng = np.random.default_rng([seed, 40, case])
        hits = sum(gate_fails(rng, sd.mix(rng, fb, 10), sd.mix(rng, fc, 10), ratio=1.18, rows=rows,
                              max_slowdown=margin, cand_truth=truth, **shape) for _ in range(n))
        out.append(sd.cell(f"gate joint null, again: {name}", hits, n, "≤ 0.05", state_ratio=1.18, rows=rows,
                           launches=10, max_slowdown=margin, statistic=gating.JOINT_STATISTIC, seed=seed))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="60 campaigns per cell (a smoke run)")
    ap.add_argument("--seed", type=int, default=41)
    ap.add_argument("--only", choices=("power", "null", "again", "named", "weights", "families"), default=None,
                    help="run only these cells (named: the gate at the launches it names; weights: the rows' tests "
                         "weighted less; families: other families on the same launches)")
    ap.add_argument("--again", type=int, nargs="+", default=[3, 42, 43], metavar="CASE SEED",
                    help="--only again: the null case (index into NULL_CASES) and the seeds to draw it with")
    ap.add_argument("--out", type=Path, default=sd.REPO / "bench" / "results" / "sim_gate_joint.json")
    args = ap.parse_args()
    n_null, n_power = (60, 60) if args.quick else (500, 200)
    start, cpu = time.monotonic(), time.process_time()
    if args.only == "again":
        cells = repeat_cells(n_null, args.again[0], args.again[1:])
    elif args.only in ("named", "weights", "families"):
        cells = {"named": at_named_cells, "weights": weight_cells, "families": family_cells}[args.only](n_power, args.seed)
    else:
        cells = (power_cells(n_power, args.seed) if args.only != "null" else []) + \
            (null_cells(n_null, args.seed) if args.only != "power" else []) + \
            (at_named_cells(n_power, args.seed) + weight_cells(n_power, args.seed) + family_cells(n_power, args.seed)
             if args.only is None else [])
    run = {"seed": args.seed, "quick": args.quick, "seconds": round(time.monotonic() - start, 1),
           "cpu_seconds": round(time.process_time() - cpu, 1)}
    doc = {"script": "bench/sim_gate_joint.py", "cells": []}
    if args.out.exists():  # the other part's cells stay
        doc = json.loads(args.out.read_text())
    prefix = {"power": ("gate joint power (", "gate launches named"), "null": ("gate joint null:",),
              "again": ("gate joint null, again",), "named": ("gate joint power at the launches named",),
              "weights": ("gate joint power, row tests weighted",), "families": ("gate family ",)}
    doc["cells"] = [c for c in doc["cells"]
                    if args.only is None or not c["cell"].startswith(prefix[args.only])] if args.only else []
    doc["cells"] += cells
    doc[f"{args.only or 'all'}_run"] = run
    args.out.write_text(json.dumps(doc, indent=1) + "\n")
    sd.print_cells(cells)
    print(f"{run['seconds']} s wall, {run['cpu_seconds']} s cpu")


if __name__ == "__main__":
    main()
