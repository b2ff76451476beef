# SPDX-License-Identifier: BSD-3-Clause
"""tune's choice tests and the guidelines' tests on a coarse timer grid: how often they decide
wrong where the timer cannot resolve the difference, and what they still find, through the
package's own test functions (``analysis.tuning._design_test`` as `tune` calls it per (op, p,
size), ``analysis.guidelines.guideline_test`` as `guidelines` does per row); prints one JSON
object (rates with Wilson 95 % intervals). Not a test: python/tests/test_decisions_timer_grid.py
runs smaller versions of the same cases.

    .venv/bin/python bench/sim_stats_grid_decisions.py [--quick] [--null N] [--power N] [--seed S] [--out FILE]

Campaigns: 10 launches a side; each launch's value is the median of 100 repetitions of base ×
truth × a launch factor lognormal(0, 0.02) with 8 % repetition noise, each repetition read on
the timer's grid (10 ns; 1 ns in the ``1 µs`` cells). A decision is one row tested at α = 0.05
(a family of one: the loosest level a row meets, so the nulls are at their hardest).

- tune: "the default is slower than the algorithm × (1 + 5 %)", in each design tune has:
  ``paired by round`` (10 rounds, each alternative's launch with its own factor), ``stratified
  by state`` (each launch 2.5× slower with probability ½, the states given), ``unpaired``.
  Nulls (a choice is false): the default exactly 5 % slower at ~35 ns (the minimum effect's
  boundary: 40 against 30, 35 or 40 ns as read), and the two equal at ~35 ns (ties). Power: the
  algorithm 10 % / 20 % faster (the default 1/0.9, 1/0.8 × it) at ~350 ns on the 10 ns grid (and
  10 % at ~700 ns) and at ~1 µs on a 1 ns grid.
- guidelines: "lhs slower than rhs", both sides in the same launches (one launch factor for
  both), ``paired by launch`` (signed-rank) and ``unpaired`` (rank-sum). Nulls (a violation is
  false): lhs 5 % above rhs at ~35 ns (1.75 ns, within a step), and lhs = rhs at ~35 ns. Power:
  lhs 10 % / 20 % above rhs in the same cases as tune's.

Each campaign is tested three ways: beyond the recorded grid (what the commands do: the grid from
meta.json ``timer.resolution_ns``), beyond the grid the medians lie on (``stats.clusters.timer_step``:
what they do when none was recorded), and as read (the tests before they counted the grid).
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "python" / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from stats_dependence import _rate  # noqa: E402

from mpimeter.analysis import guidelines, tuning  # noqa: E402
from mpimeter.analysis.gating import half_grid_step  # noqa: E402

LAUNCHES = 10
ALPHA = 0.05
MIN_EFFECT = 0.05
TUNE_DESIGNS = ("paired by round", "stratified by state", "unpaired")
GUIDELINE_DESIGNS = (guidelines.PAIRED, guidelines.UNPAIRED)
WAYS = ("recorded grid", "medians' grid", "as read")
# (case, truth of the side tested slower, base ns, grid ns, null?)
CASES = (("5 % slower at ~35 ns, 10 ns grid", 1.05, 35.0, 10.0, True),
         ("equal at ~35 ns, 10 ns grid", 1.0, 35.0, 10.0, True),
         ("10 % at ~350 ns, 10 ns grid", 1 / 0.9, 350.0, 10.0, False),
         ("20 % at ~350 ns, 10 ns grid", 1 / 0.8, 350.0, 10.0, False),
         ("10 % at ~700 ns, 10 ns grid", 1 / 0.9, 700.0, 10.0, False),
         ("10 % at ~1 µs, 1 ns grid", 1 / 0.9, 1000.0, 1.0, False),
         ("20 % at ~1 µs, 1 ns grid", 1 / 0.8, 1000.0, 1.0, False))


def launch_medians(rng: np.random.Generator, truth: float, base: float, grid: float, launch: np.ndarray,
                   nrep: int = 100) -> dict[int, float]:
    """Launch → the median of ``nrep`` repetitions of base × truth × its launch factor, 8 %
    repetition noise, each repetition read on the grid."""
    reps = base * truth * launch[:, None] * np.exp(rng.normal(0, 0.08, (launch.size, nrep)))
    return {i: float(m) for i, m in enumerate(np.median(np.maximum(np.round(reps / grid) * grid, grid), axis=1))}


def halves(a: dict[int, float], b: dict[int, float], grid: float) -> dict[str, float]:
    """The half step each way tests with (``WAYS``)."""
    values = [np.array(list(a.values())), np.array(list(b.values()))]
    return {"recorded grid": half_grid_step(*values, grid), "medians' grid": half_grid_step(*values, None),
            "as read": 0.0}


def tune_campaign(rng: np.random.Generator, design: str, truth: float, base: float, grid: float) -> dict[str, bool]:
    """Way → did tune's test choose the algorithm (``truth``: the default's time / the algorithm's)."""
    by_state = design == "stratified by state"
    slow = {a: rng.random(LAUNCHES) < 0.5 if by_state else np.zeros(LAUNCHES, bool) for a in ("default", "alg")}
    d, g = (launch_medians(rng, t, base, grid, rng.lognormal(0, 0.02, LAUNCHES) * np.where(slow[a], 2.5, 1.0))
            for a, t in (("default", truth), ("alg", 1.0)))
    states = tuple({i: "slower" if s else "faster" for i, s in enumerate(slow[a])} for a in ("default", "alg")) \
        if by_state else None
    out = {}
    for way, half in halves(d, g, grid).items():
        got, _, test, _ = tuning._design_test(d, g, 1 if design == "paired by round" else None, states,
                                              min_effect=MIN_EFFECT, confidence=0.95, seed=0, pair_if=5,
                                              half_step=half)
        assert got == design, (got, design)
        out[way] = bool(test.p_value <= ALPHA)
    return out


def guideline_campaign(rng: np.random.Generator, design: str, truth: float, base: float,
                       grid: float) -> dict[str, bool]:
    """Way → was the guideline called violated (``truth``: lhs / rhs)."""
    launch = rng.lognormal(0, 0.02, LAUNCHES)
    lhs, rhs = launch_medians(rng, truth, base, grid, launch), launch_medians(rng, 1.0, base, grid, launch)
    out = {}
    for way, half in halves(lhs, rhs, grid).items():
        t = guidelines.guideline_test(lhs, rhs, paired=design == guidelines.PAIRED, half_steps=(half, half))
        assert t.design == design, (t.design, design)
        out[way] = bool(t.p_value <= ALPHA)
    return out


def cells(kind: str, n_null: int, n_power: int, seed: int) -> list[dict]:
    """Every (design, case) of ``kind`` (tune or guidelines), each way, seeded on its own."""
    run, designs = (tune_campaign, TUNE_DESIGNS) if kind == "tune" else (guideline_campaign, GUIDELINE_DESIGNS)
    out = []
    for d_i, design in enumerate(designs):
        for c_i, (case, truth, base, grid, null) in enumerate(CASES):
            rng = np.random.default_rng([seed, 0 if kind == "tune" else 1, d_i, c_i])
            n = n_null if null else n_power
            got = [run(rng, design, truth, base, grid) for _ in range(n)]
            for way in WAYS:
                out.append({"decision": kind, "design": design, "case": case, "way": way,
                            "counts": "false choices" if kind == "tune" and null else
                            "false violations" if null else "found",
                            "target": "≤ 0.05" if null else "≥ 0.8",
                            **_rate(sum(g[way] for g in got), n)})
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="50 campaigns per cell instead of 500 (null) / 200 (power)")
    ap.add_argument("--null", type=int, default=None, help="campaigns per null cell (default 500)")
    ap.add_argument("--power", type=int, default=None, help="campaigns per power cell (default 200)")
    ap.add_argument("--seed", type=int, default=41)
    ap.add_argument("--out", type=Path, default=None)
    a = ap.parse_args()
    n_null, n_power = (50, 50) if a.quick else (500, 200)
    n_null, n_power = a.null or n_null, a.power or n_power
    start = time.monotonic()
    found = cells("tune", n_null, n_power, a.seed) + cells("guidelines", n_null, n_power, a.seed)
    doc = {"script": "bench/sim_stats_grid_decisions.py", "seed": a.seed, "null": n_null, "power": n_power,
           "seconds": round(time.monotonic() - start, 1), "python": platform.python_version(), "cells": found}
    text = json.dumps(doc, indent=1)
    if a.out:
        a.out.write_text(text + "\n")
    for c in found:
        print(f"{c['rate']:.3f} [{c['ci95'][0]:.3f}, {c['ci95'][1]:.3f}] {c['hits']}/{c['n']} ({c['target']}) "
              f"{c['decision']} {c['design']}: {c['case']}, {c['way']}", file=sys.stderr)
    print(text)


if __name__ == "__main__":
    main()
