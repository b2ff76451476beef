# SPDX-License-Identifier: BSD-3-Clause
"""How often does ``compare --quantile q`` call two alternatives different when they are not
(null), and find a 5 % difference when there is one (power)? Seeded simulations through the
functions the command calls (``stats.quantreg.launch_log_quantiles`` and ``quantile_ratio``: QuantReg
at the median over launches of the per-launch log quantiles). Not a test.

    .venv/bin/python bench/quantile_compare.py [--quick] [--out bench/results/quantile_compare.json]

A campaign: 8 launches per alternative, 200 repetitions each, one row. Scenarios:

- iid: run times lognormal(0, 0.1), nothing shared within a launch;
- heavy-tails: lognormal(0, 0.05) with 5 % of calls slower by a factor 1 + Pareto(α = 1.5)
  (infinite variance);
- launch-effects: lognormal(0, 0.05) per call times a factor lognormal(0, 0.05) shared by every
  call of a launch (the launch state), which a regression on pooled repetitions would mistake
  for precision.

Null: both alternatives from one distribution — the share of campaigns with p ≤ 0.05 (target
≤ 0.05), and how often the interval holds the true ratio 1. Power: b 1.05 × a at every call
(the q-quantiles' true ratio is 1.05) — the share with p ≤ 0.05, and the interval's coverage of
1.05. Wilson 95 % intervals; ≥ 500 null and ≥ 200 power campaigns per cell (--quick: 60).
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import sys
import time
from pathlib import Path

import numpy as np
from statsmodels.stats.proportion import proportion_confint

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "python" / "src"))

from mpimeter.stats.quantreg import launch_log_quantiles, quantile_ratio  # noqa: E402

LAUNCHES, REPS, EFFECT = 8, 200, 1.05


def wilson(k: int, n: int) -> list[float]:
    """The Wilson 95 % interval of k hits in n (statsmodels)."""
    if n == 0:
        return [math.nan, math.nan]
    return [float(x) for x in proportion_confint(k, n, alpha=0.05, method="wilson")]


def launch(scenario: str, rng: np.random.Generator) -> np.ndarray:
    if scenario == "iid":
        return rng.lognormal(0.0, 0.1, REPS)
    x = rng.lognormal(0.0, 0.05, REPS)
    if scenario == "heavy-tails":
        slow = rng.random(REPS) < 0.05
        x[slow] *= 1 + rng.pareto(1.5, int(slow.sum()))
    elif scenario == "launch-effects":
        x *= rng.lognormal(0.0, 0.05)
    return x


def cell(scenario: str, q: float, effect: float, campaigns: int, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    hits = covered = 0
    for _ in range(campaigns):
        a = [launch(scenario, rng) for _ in range(LAUNCHES)]
        b = [effect * launch(scenario, rng) for _ in range(LAUNCHES)]
        fit = quantile_ratio(launch_log_quantiles(a, q), launch_log_quantiles(b, q))
        hits += fit.p_value <= 0.05
        covered += fit.low <= effect <= fit.high
    kind = "null" if effect == 1.0 else "power"
    return {"scenario": scenario, "quantile": q, "kind": kind, "true_ratio": effect, "campaigns": campaigns,
            "rejected": hits, "rate": hits / campaigns, "ci95": wilson(hits, campaigns),
            "interval_coverage": covered / campaigns, "coverage_ci95": wilson(covered, campaigns),
            "target": "≤ 0.05" if kind == "null" else "as large as possible"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--out", type=Path, default=REPO / "bench" / "results" / "quantile_compare.json")
    args = ap.parse_args()
    null_n, power_n = (60, 60) if args.quick else (500, 200)
    t0 = time.time()
    cells = []
    plan = [("iid", 0.95), ("heavy-tails", 0.95), ("heavy-tails", 0.99), ("launch-effects", 0.95)]
    for i, (scenario, q) in enumerate(plan):
        for effect, n in ((1.0, null_n), (EFFECT, power_n)):
            cells.append(cell(scenario, q, effect, n, seed=1000 * i + (effect != 1.0)))
            c = cells[-1]
            print(f"{scenario:15s} q={q:<5g} {c['kind']:5s} rate {c['rate']:.3f} "
                  f"[{c['ci95'][0]:.3f}, {c['ci95'][1]:.3f}] coverage {c['interval_coverage']:.3f}", flush=True)
    doc = {"bench": "quantile_compare", "launches_per_side": LAUNCHES, "repetitions": REPS, "alpha": 0.05,
           "confidence": 0.95, "cells": cells, "seconds": round(time.time() - t0, 1),
           "python": platform.python_version(), "quick": args.quick}
    args.out.write_text(json.dumps(doc, indent=1) + "\n")


if __name__ == "__main__":
    main()
