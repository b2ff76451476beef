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
  (an exact test that spends all of it) from an excess.
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


def gate_fails(rng, fb: np.ndarray, fc: np.ndarray, *, ratio: float, rows: int, max_slowdown: float,
               base_truth: float = 1.0, cand_truth: float = 1.0, cand_fast: float | None = None, **shape) -> bool:
    """One campaign pair through gating.gate_rows with the probe's states: does the gate fail?"""
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
    return any(r.regression for r in out)


def power_cells(n: int, seed: int) -> list[dict]:
    """The same campaigns through the gate with each statistic of the joint family
    (stats.joint_permutation): the rank sum it had, and the difference of mean logs it has."""
    out = []
    for launches, random_mix, launch_t in ((10, False, None), (12, True, None), (10, False, 3)):
        for ratio in (1.18, 2.5):
            rng = np.random.default_rng([seed, 3, int(ratio * 100), True, launches, random_mix]  # sim_decisions' seeds
                                        + ([launch_t] if launch_t else []))
            hits = {jp.RANK_SUM: 0, jp.MEAN_LOG: 0}
            for _ in range(n):
                def draw():
                    return rng.random(launches) < 0.5 if random_mix else sd.mix(rng, launches // 2, launches)
                fb, fc = draw(), draw()
                start = copy.deepcopy(rng)
                for statistic in hits:
                    twin = copy.deepcopy(start)  # the same campaign for each
                    with GateStatistic(statistic):
                        hits[statistic] += gate_fails(twin, fb, fc, ratio=ratio, rows=2, max_slowdown=0.05,
                                                      cand_fast=1.10, launch_t=launch_t)
                rng = twin
            mixes = "each launch fast with probability 0.5" if random_mix else "half and half"
            for statistic, h in hits.items():
                out.append(sd.cell(f"gate joint power ({statistic}): 10 % slower in the fast state only, 5 % margin"
                                   + (", t(3) launch factors" if launch_t else ""), h, n, "≥ 0.8",
                                   state_ratio=ratio, rows=2, launches=launches, mixes=mixes, statistic=statistic,
                                   adopted=statistic == gating.JOINT_STATISTIC))
    return out


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
    ap.add_argument("--only", choices=("power", "null", "again"), default=None, help="run only these cells")
    ap.add_argument("--again", type=int, nargs="+", default=[3, 42, 43], metavar="CASE SEED",
                    help="--only again: the null case (index into NULL_CASES) and the seeds to draw it with")
    ap.add_argument("--out", type=Path, default=sd.REPO / "bench" / "results" / "sim_gate_joint.json")
    args = ap.parse_args()
    n_null, n_power = (60, 60) if args.quick else (500, 200)
    start, cpu = time.monotonic(), time.process_time()
    if args.only == "again":
        cells = repeat_cells(n_null, args.again[0], args.again[1:])
    else:
        cells = (power_cells(n_power, args.seed) if args.only != "null" else []) + \
            (null_cells(n_null, args.seed) if args.only != "power" else [])
    run = {"seed": args.seed, "quick": args.quick, "seconds": round(time.monotonic() - start, 1),
           "cpu_seconds": round(time.process_time() - cpu, 1)}
    doc = {"script": "bench/sim_gate_joint.py", "cells": []}
    if args.out.exists():  # the other part's cells stay
        doc = json.loads(args.out.read_text())
    prefix = {"power": "gate joint power", "null": "gate joint null:", "again": "gate joint null, again"}
    doc["cells"] = [c for c in doc["cells"]
                    if args.only is None or not c["cell"].startswith(prefix[args.only])] if args.only else []
    doc["cells"] += cells
    doc[f"{args.only or 'all'}_run"] = run
    args.out.write_text(json.dumps(doc, indent=1) + "\n")
    sd.print_cells(cells)
    print(f"{run['seconds']} s wall, {run['cpu_seconds']} s cpu")


if __name__ == "__main__":
    main()
