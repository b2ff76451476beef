# SPDX-License-Identifier: BSD-3-Clause
"""`compare` of two separate campaigns on a simulated machine that drifts: the plain rank-sum
rule against the rule widened by the launches' serial dependence (stats.campaign_drift). Not a
test (python/tests/test_compare_separate.py runs small cells of it).

    .venv/bin/python bench/compare_aa_sim.py [--null 1000] [--power 400] [--out bench/results/compare_aa_sim.json]

A campaign is n launches in time order; campaign B runs right after A. Each row's log per-launch
median is the row's level + the machine's state at that launch (shared by every row, scaled per
row) + the launch's own noise. The machine's state is an AR(1) process over launches (an episode
lasts about 1 / (1 − ρ) launches) that runs on across the two campaigns, optionally plus a step
drawn once per campaign (a shift nothing inside one campaign shows). A/A: nothing differs but
the time; a power cell multiplies every row of B by a factor. Each cell: the share of campaign
pairs with a significant row after Holm (plain rule: the exact rank-sum p; widened: p with the
variance × f, f from the two campaigns themselves), Wilson 95 % intervals.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "python" / "src"))
from mpimeter.stats import campaign_drift as drift  # noqa: E402
from mpimeter.stats import hypothesis  # noqa: E402


@dataclass(frozen=True, kw_only=True)
class Machine:
    rho: float = 0.0  # lag-1 autocorrelation of the machine's state over launches
    state_sd: float = 0.10  # stationary spread of the state (log)
    noise_sd: float = 0.05  # each launch's own noise per row (log)
    step_sd: float = 0.0  # a shift drawn once per campaign (log)
    rows: int = 6
    launches: int = 10


def campaigns(rng: np.random.Generator, m: Machine, factor: float) -> tuple[np.ndarray, np.ndarray]:
    """(A, B): per-launch medians (launches × rows) of two campaigns run one after the other."""
    n = m.launches
    state = np.empty(2 * n)
    state[0] = rng.normal(0, m.state_sd)
    innov = m.state_sd * np.sqrt(1 - m.rho ** 2)
    for t in range(1, 2 * n):
        state[t] = m.rho * state[t - 1] + rng.normal(0, innov)
    state[:n] += rng.normal(0, m.step_sd)
    state[n:] += rng.normal(0, m.step_sd)
    load = rng.uniform(0.5, 1.5, m.rows)  # rows feel the machine to different degrees
    level = np.log(np.geomspace(300, 3000, m.rows))
    y = level + state[:, None] * load + rng.normal(0, m.noise_sd, (2 * n, m.rows))
    times = np.exp(y)
    times[n:] *= factor
    return times[:n], times[n:]


def decide(a: np.ndarray, b: np.ndarray, alpha: float = 0.05) -> tuple[bool, bool, float]:
    """(any row significant by the plain rule, by the widened rule, f) for one pair of campaigns."""
    plain = hypothesis.rank_sum(a.T, b.T, alternative="two-sided").p_value
    f = drift.inflation([np.log(a[:, j]) for j in range(a.shape[1])] + [np.log(b[:, j]) for j in range(b.shape[1])])
    widened = np.array([drift.widened_p(a[:, j], b[:, j], f, "two-sided")[0] for j in range(a.shape[1])])
    return bool((hypothesis.holm(plain) <= alpha).any()), bool((hypothesis.holm(widened) <= alpha).any()), f


def cell(m: Machine, factor: float, runs: int, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    got = [decide(*campaigns(rng, m, factor)) for _ in range(runs)]
    out = {"machine": asdict(m), "factor": factor, "runs": runs}
    for i, rule in enumerate(("plain", "widened")):
        k = sum(g[i] for g in got)
        out[rule] = {"called": k, "share": round(k / runs, 4), "wilson95": [round(x, 4) for x in wilson(k, runs)]}
    out["inflation_median"] = round(float(np.median([g[2] for g in got])), 3)
    return out


def wilson(k: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


NULL_CELLS = [Machine(rho=0.0), Machine(rho=0.3), Machine(rho=0.5), Machine(rho=0.7), Machine(rho=0.9),
              Machine(rho=0.0, step_sd=0.05)]
POWER_CELLS = [(Machine(rho=0.0), 1.10), (Machine(rho=0.0), 1.20), (Machine(rho=0.5), 1.20), (Machine(rho=0.5), 1.40)]


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--null", type=int, default=1000)
    ap.add_argument("--power", type=int, default=400)
    ap.add_argument("--seed", type=int, default=54)
    ap.add_argument("--out", type=Path, default=REPO / "bench" / "results" / "compare_aa_sim.json")
    args = ap.parse_args(argv)
    cells = [dict(cell(m, 1.0, args.null, args.seed + i), kind="A/A") for i, m in enumerate(NULL_CELLS)]
    cells += [dict(cell(m, f, args.power, args.seed + 100 + i), kind="power")
              for i, (m, f) in enumerate(POWER_CELLS)]
    for c in cells:
        m = c["machine"]
        print(f"{c['kind']:5s} rho {m['rho']:.1f} step {m['step_sd']:.2f} factor {c['factor']:.2f}: plain "
              f"{c['plain']['share']:.3f} {c['plain']['wilson95']}  widened {c['widened']['share']:.3f} "
              f"{c['widened']['wilson95']}  median f {c['inflation_median']}")
    args.out.write_text(json.dumps({"cells": cells}, indent=1) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
