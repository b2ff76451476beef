# SPDX-License-Identifier: BSD-3-Clause
"""`compare` of two separate campaigns on a simulated machine that drifts: the plain rank-sum
rule against the rule widened by the launches' serial dependence (stats.campaign_drift). Not a
test (python/tests/test_compare_separate.py runs small cells of it).

    .venv/bin/python bench/compare_aa_sim.py [--null 1000] [--power 400] [--out bench/results/compare_aa_sim.json]

A campaign is n launches in time order; campaign B runs right after A. Each row's log per-launch
median is the row's level + the machine's state at that launch (shared by every row, scaled per
row) + the launch's own noise. The machine's state is an AR(1) process over launches (an episode
lasts about 1 / (1 − ρ) launches) that runs on across the two campaigns, optionally plus a step
drawn once per campaign (a shift nothing inside one campaign shows); optionally read on a
timer grid (ties), or with a second machine state both campaigns share (a launch-cluster split,
tested pooled or state by state as compare does with matched states). A/A: nothing differs but
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
from mpimeter.stats import hypothesis, stratified  # noqa: E402


@dataclass(frozen=True, kw_only=True)
class Machine:
    rho: float = 0.0  # lag-1 autocorrelation of the machine's state over launches
    state_sd: float = 0.10  # stationary spread of the state (log)
    noise_sd: float = 0.05  # each launch's own noise per row (log)
    step_sd: float = 0.0  # a shift drawn once per campaign (log)
    rows: int = 6
    launches: int = 10
    level_ns: tuple[float, float] = (300.0, 3000.0)  # the rows' levels, geometrically spaced
    grid_ns: float = 0.0  # > 0: per-launch medians read on a timer grid of this step (ties)
    split: float = 0.0  # > 0: a second machine state, this much slower (log), in both campaigns
    split_share: float = 0.5  # the share of launches in the slow state
    split_stay: float = 0.0  # the chance a launch keeps the state of the one before (0: drawn anew)
    stratified: bool = False  # the states known to compare: van Elteren over them (matched states)


def campaigns(rng: np.random.Generator, m: Machine, factor: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(A, B, slow): per-launch medians (launches × rows) of two campaigns run one after the
    other, and which of their 2n launches ran in the slow state (all False without a split)."""
    n = m.launches
    state = np.empty(2 * n)
    state[0] = rng.normal(0, m.state_sd)
    innov = m.state_sd * np.sqrt(1 - m.rho ** 2)
    for t in range(1, 2 * n):
        state[t] = m.rho * state[t - 1] + rng.normal(0, innov)
    state[:n] += rng.normal(0, m.step_sd)
    state[n:] += rng.normal(0, m.step_sd)
    slow = np.zeros(2 * n, dtype=bool)
    if m.split > 0:
        fresh = rng.random(2 * n) < m.split_share
        keep = rng.random(2 * n) < m.split_stay
        slow[0] = fresh[0]
        for t in range(1, 2 * n):
            slow[t] = slow[t - 1] if keep[t] else fresh[t]
    load = rng.uniform(0.5, 1.5, m.rows)  # rows feel the machine to different degrees
    level = np.log(np.geomspace(*m.level_ns, m.rows))
    y = level + (state + m.split * slow)[:, None] * load + rng.normal(0, m.noise_sd, (2 * n, m.rows))
    times = np.exp(y)
    times[n:] *= factor
    if m.grid_ns > 0:
        times = np.maximum(m.grid_ns, np.round(times / m.grid_ns) * m.grid_ns)
    return times[:n], times[n:], slow


def _centred(x: np.ndarray, slow: np.ndarray) -> np.ndarray:
    """Log values with each state's launches centred on their own mean (what compare widens
    rows of matched states by: analysis.separate_campaigns.series_of)."""
    y = np.log(x)
    for s in (False, True):
        if (slow == s).any():
            y[slow == s] -= y[slow == s].mean()
    return y


def decide(a: np.ndarray, b: np.ndarray, slow: np.ndarray | None = None,
           alpha: float = 0.05) -> tuple[bool, bool, float]:
    """(any row significant by the plain rule, by the widened rule, f) for one pair of campaigns;
    with ``slow`` (each launch's state, A's then B's) the rows are tested as compare tests matched
    states: van Elteren over the states, f from each state's launches centred."""
    cols = range(a.shape[1])
    if slow is None:
        plain = hypothesis.rank_sum(a.T, b.T, alternative="two-sided").p_value
        f = drift.inflation([np.log(a[:, j]) for j in cols] + [np.log(b[:, j]) for j in cols])
    else:
        sa, sb = slow[:len(a)], slow[len(a):]
        plain = np.array([stratified.van_elteren([(a[sa == s, j], b[sb == s, j]) for s in (False, True)]).p_value
                          for j in cols])
        f = drift.inflation([_centred(a[:, j], sa) for j in cols] + [_centred(b[:, j], sb) for j in cols])
    widened = np.array([drift.widen(float(p), f, "two-sided", len(a) + len(b)) for p in plain])
    return bool((hypothesis.holm(plain) <= alpha).any()), bool((hypothesis.holm(widened) <= alpha).any()), f


def cell(m: Machine, factor: float, runs: int, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    got = []
    for _ in range(runs):
        a, b, slow = campaigns(rng, m, factor)
        got.append(decide(a, b, slow if m.stratified else None))
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


SPLIT = float(np.log(2.5))  # two machine states 2.5x apart, as the cache-line probe's fast and slow
NULL_CELLS = [Machine(rho=0.0), Machine(rho=0.3), Machine(rho=0.5), Machine(rho=0.7), Machine(rho=0.9),
              Machine(rho=0.0, step_sd=0.05),
              # per-launch medians of about 35 ns on a 10 ns timer grid: mostly ties
              Machine(rho=0.0, level_ns=(35.0, 35.0), grid_ns=10.0),
              Machine(rho=0.5, level_ns=(35.0, 35.0), grid_ns=10.0),
              # a launch-cluster split both campaigns share: drawn anew each launch, or in episodes;
              # pooled over the mix (nothing explains it) and state by state (matched states)
              Machine(split=SPLIT), Machine(split=SPLIT, split_stay=0.6),
              Machine(split=SPLIT, stratified=True), Machine(split=SPLIT, split_stay=0.6, stratified=True)]
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
        how = " by state" if m["stratified"] else ""
        print(f"{c['kind']:5s} rho {m['rho']:.1f} step {m['step_sd']:.2f} grid {m['grid_ns']:.0f} split "
              f"{m['split']:.2f}/{m['split_stay']:.1f}{how} factor {c['factor']:.2f}: plain "
              f"{c['plain']['share']:.3f} {c['plain']['wilson95']}  widened {c['widened']['share']:.3f} "
              f"{c['widened']['wilson95']}  median f {c['inflation_median']}")
    args.out.write_text(json.dumps({"cells": cells}, indent=1) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
