# SPDX-License-Identifier: BSD-3-Clause
"""Machine states, seeded simulations through the package's own functions (`analyze`,
`compare`, `model`'s fits) on in-memory campaigns shaped like what a campaign records: per
launch and test a series of repetitions (reduced rows), the cache-line probe
(`probes.cacheline_rtt_ns`) per launch as the machine-state property, and for the scaling cell
one p per launch (`run --np LIST`). Writes one JSON object; not a test.

    .venv/bin/python bench/sim_states.py [--quick] [--null N] [--power N] [--seed S]
        [--cells a,b,...] [--out bench/results/sim_states.json]

Cells (each with its count and a Wilson 95 % interval):
- compare_aa_states (null): two campaigns of 10 launches on a machine whose slow state runs
  everything 1.18× as long as its fast state, 8 fast / 2 slow against 2 fast / 8 slow, the same
  per-state times: the family-wise rate of rows `compare` calls significant (target ≤ 0.05), and
  how often the rows were compared state by state.
- compare_aa_plain (null): the same without states (one state, the probe unimodal): the
  family-wise rate (≤ 0.05, as before), states declared by `analyze` on either side (no states
  from chance: ≤ 0.05) and `states-differ` warnings.
- states_found (power): one campaign of 10 launches, 5 fast / 5 slow at 1.18×: `analyze`
  declares the probe's states.
- scaling_states: a `--np LIST` campaign (p = 2, 4, 8, 16; 8 B, 4 KiB, 64 KiB; 10 launches per
  p) of the log family α·⌈log₂p⌉ + β·m, states 0.8× in 30 % of the launches: how often the 95 %
  intervals of α and β of the true family cover each state's own α and β — the per-state fits
  against the pooled fit.
Launch-to-launch noise: a lognormal launch factor (σ 3 %); repetitions lognormal (σ 3 %); probe
49–111 ns in the fast state, 344–414 ns in the slow one (as measured on the test machine) and
49–111 ns without states.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python" / "tests"))
from data.synth import memory_campaign  # noqa: E402

from mpimeter import analysis  # noqa: E402
from mpimeter.analysis.comparison import compare  # noqa: E402
from mpimeter.analysis.scalingmodels import fit_scaling_models  # noqa: E402

TESTS = (("allreduce", 8), ("allreduce", 1024), ("bcast", 8), ("bcast", 1024))
BASE_NS = {("allreduce", 8): 2000.0, ("allreduce", 1024): 3000.0, ("bcast", 8): 1500.0, ("bcast", 1024): 2500.0}
NREP = 30
STATE_RATIO = 1.18
FAST_PROBE, SLOW_PROBE = (49.0, 111.0), (344.0, 414.0)


def wilson(k: int, n: int) -> list[float]:
    if n == 0:
        return [math.nan, math.nan]
    z = 1.959963984540054
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return [round(max(0.0, centre - half), 4), round(min(1.0, centre + half), 4)]


def rate(k: int, n: int) -> dict:
    return {"count": k, "of": n, "rate": round(k / n, 4) if n else None, "wilson95": wilson(k, n)}


def side(rng, fast: int, slow: int, *, states: bool = True, tests=TESTS, base=BASE_NS):
    """(samples (launches × tests × reps), probes) of one campaign: ``fast`` launches in the fast
    state and ``slow`` in the slow one (1.18× as long), in a random order."""
    flags = np.array([True] * fast + [False] * slow)
    rng.shuffle(flags)
    n = flags.size
    x = np.empty((n, len(tests), NREP))
    probes = []
    for i, is_fast in enumerate(flags):
        state = 1.0 if is_fast or not states else STATE_RATIO
        launch = rng.lognormal(0.0, 0.03)
        for t, key in enumerate(tests):
            x[i, t] = base[key] * state * launch * rng.lognormal(0.0, 0.03, NREP)
        lo, hi = FAST_PROBE if is_fast or not states else SLOW_PROBE
        probes.append(float(rng.uniform(lo, hi)))
    return x, probes


def analysed(name: str, x, probes):
    return analysis.analyze(memory_campaign({name: x}, list(TESTS), probes={name: probes}))


def compare_cell(n: int, seed: int, mixes, states: bool) -> dict:
    fwer = stratified = declared = differ = 0
    for i in range(n):
        rng = np.random.default_rng(seed + i)
        a = analysed("a", *side(rng, *mixes[0], states=states))
        b = analysed("b", *side(rng, *mixes[1], states=states))
        declared += any(s.explained for s in a.states + b.states)
        res = compare([a, b])
        fwer += any(r.significant for r in res.rows)
        stratified += all(r.stratified for r in res.rows)
        differ += any(w.code == "states-differ" for w in res.warnings)
    return {"campaigns": n, "mixes": [list(m) for m in mixes], "state_ratio": STATE_RATIO if states else 1.0,
            "fwer": rate(fwer, n), "compared_state_by_state": rate(stratified, n),
            "states_declared_by_analyze": rate(declared, n), "states_differ_warned": rate(differ, n)}


def states_found(n: int, seed: int) -> dict:
    found = 0
    for i in range(n):
        rng = np.random.default_rng(seed + i)
        res = analysed("a", *side(rng, 5, 5))
        found += any(s.explained and s.property and "cache-line" in s.property
                     and sorted(len(st.launches) for st in s.states) == [5, 5] for s in res.states)
    return {"campaigns": n, "mix": [5, 5], "state_ratio": STATE_RATIO, "found": rate(found, n)}


SCALING_P = (2, 4, 8, 16)
SCALING_SIZES = (8, 4096, 65536)
ALPHA_NS, BETA_NS_PER_BYTE = 1000.0, 0.5
FAST_SHARE, FAST_FACTOR = 0.3, 0.8


def scaling_campaign(rng, launches_per_p: int):
    """One alternative, one p per launch (p in a random order), the log family; 30 % of the
    launches (3 of every 10 per p) in the fast state at 0.8×, with the probe telling them apart."""
    tests = [("allreduce", m) for m in SCALING_SIZES]
    plan = [(p, k < round(FAST_SHARE * launches_per_p)) for p in SCALING_P for k in range(launches_per_p)]
    rng.shuffle(plan)
    x = np.empty((len(plan), len(tests), NREP))
    probes, counts = [], []
    for i, (p, is_fast) in enumerate(plan):
        launch = rng.lognormal(0.0, 0.03) * (FAST_FACTOR if is_fast else 1.0)
        for t, (_, m) in enumerate(tests):
            true = ALPHA_NS * math.ceil(math.log2(p)) + BETA_NS_PER_BYTE * m
            x[i, t] = true * launch * rng.lognormal(0.0, 0.03, NREP)
        lo, hi = FAST_PROBE if is_fast else SLOW_PROBE
        probes.append(float(rng.uniform(lo, hi)))
        counts.append(p)
    return memory_campaign({"a": x}, tests, probes={"a": probes}, nprocs={"a": counts})


def _covers(fit_row, family: str, alpha: float, beta: float, confidence: float) -> tuple[bool, bool] | None:
    fit = next((f for f in (fit_row.chosen, *fit_row.others) if f.family == family), None)
    if fit is None:
        return None
    ca, cb = fit.interval(0, confidence), fit.interval(1, confidence)
    if ca is None or cb is None:
        return False, False
    return ca[0] <= alpha <= ca[1], cb[0] <= beta <= cb[1]


def scaling_cell(n: int, seed: int, launches_per_p: int) -> dict:
    truth = {"faster": (FAST_FACTOR * ALPHA_NS, FAST_FACTOR * BETA_NS_PER_BYTE), "slower": (ALPHA_NS, BETA_NS_PER_BYTE)}
    counts = {k: 0 for k in ("per_state_alpha_faster", "per_state_beta_faster", "per_state_alpha_slower",
                             "per_state_beta_slower", "pooled_alpha_faster", "pooled_beta_faster",
                             "pooled_alpha_slower", "pooled_beta_slower", "states_fitted", "headline_slower",
                             "family_log_chosen_per_state")}
    for i in range(n):
        rng = np.random.default_rng(seed + i)
        res = analysis.analyze(scaling_campaign(rng, launches_per_p))
        rows, _ = fit_scaling_models(res)
        (row,) = rows
        for name, (a, b) in truth.items():
            cov = _covers(row, "log", a, b, 0.95)
            counts[f"pooled_alpha_{name}"] += bool(cov and cov[0])
            counts[f"pooled_beta_{name}"] += bool(cov and cov[1])
        per_state = {r.state: r for r in getattr(row, "per_state", ())}
        if set(per_state) == {"faster", "slower"}:
            counts["states_fitted"] += 1
            counts["headline_slower"] += getattr(row, "headline", None) == "slower"
            counts["family_log_chosen_per_state"] += all(r.chosen.family == "log" for r in per_state.values())
            for name, (a, b) in truth.items():
                cov = _covers(per_state[name], "log", a, b, 0.95)
                counts[f"per_state_alpha_{name}"] += bool(cov and cov[0])
                counts[f"per_state_beta_{name}"] += bool(cov and cov[1])
    return {"campaigns": n, "p": list(SCALING_P), "sizes": list(SCALING_SIZES), "launches_per_p": launches_per_p,
            "family": "log: alpha*ceil(log2 p) + beta*m", "alpha_ns": ALPHA_NS, "beta_ns_per_byte": BETA_NS_PER_BYTE,
            "fast_share": FAST_SHARE, "fast_factor": FAST_FACTOR,
            **{k: rate(v, n) for k, v in counts.items()}}


CELLS = ("compare_aa_states", "compare_aa_plain", "states_found", "scaling_states")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="20 campaigns per cell: a smoke run")
    ap.add_argument("--null", type=int, default=500, help="campaigns per null cell")
    ap.add_argument("--power", type=int, default=200, help="campaigns per power or coverage cell")
    ap.add_argument("--seed", type=int, default=41_000)
    ap.add_argument("--cells", default=",".join(CELLS))
    ap.add_argument("--launches-per-p", type=int, default=10)
    ap.add_argument("--note", default="")
    ap.add_argument("--out", type=Path, default=None)
    a = ap.parse_args()
    cells = [c for c in a.cells.split(",") if c]
    unknown = sorted(set(cells) - set(CELLS))
    if unknown:
        print(f"sim_states.py: unknown cell(s) {', '.join(unknown)}; allowed: {', '.join(CELLS)}", file=sys.stderr)
        return 2
    null, power = (20, 20) if a.quick else (a.null, a.power)
    out: dict = {"script": "bench/sim_states.py", "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                 "seed": a.seed, "quick": a.quick, "note": a.note, "cells": {}, "seconds": {}}
    runs = {
        "compare_aa_states": lambda: compare_cell(null, a.seed, ((8, 2), (2, 8)), True),
        "compare_aa_plain": lambda: compare_cell(null, a.seed + 100_000, ((10, 0), (10, 0)), False),
        "states_found": lambda: states_found(power, a.seed + 200_000),
        "scaling_states": lambda: scaling_cell(power, a.seed + 300_000, a.launches_per_p),
    }
    for cell in cells:
        start = time.monotonic()
        out["cells"][cell] = runs[cell]()
        out["seconds"][cell] = round(time.monotonic() - start, 1)
        print(f"{cell}: {json.dumps(out['cells'][cell])}", file=sys.stderr)
    text = json.dumps(out, indent=1) + "\n"
    if a.out is not None:
        a.out.write_text(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
