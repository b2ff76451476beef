# SPDX-License-Identifier: BSD-3-Clause
"""The default's per-launch spread against a peer's over several runs of bench/peers.py.

One run of 20 rounds estimates a spread (normal-scaled MAD of the log per-launch values) from
15–20 launches: the estimate moves by about a third between runs, and the machine's episodes
(docs/ALGORITHMS.md, "Two modes of the call after the idle time") come and go between runs. So
"at most the peer's" is asked of every run and of the runs together: per run and size, the
ratio of mpimeter's spread to the peer's in the same rounds of the fast state; over the runs,
the geometric mean of the ratios with a t interval on their logs (runs as the unit) and how
many runs have the ratio at or below 1.

    .venv/bin/python bench/peers_pool.py bench/results/peers*.json --out bench/results/peers_pool.json

Only runs without CPU hogs, with at least --min-launches launches of both configurations in
the state, count. With --grid the spreads are those of the values rounded to the 10 ns grid IMB
and OSU print on (bench/peers.py, spread_on_grid_pct; recomputed from a run's launches when its
summary predates it): a peer whose launches mostly print one value has a spread of 0, which no
ratio can be formed against, so each run and size also says whether mpimeter's spread is at or
below the peer's (`at_or_below`, ties counted). Not a test.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import numpy as np
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parent))
import peers as peers_run  # noqa: E402

PAIRS = {"allreduce": ("default", ("imb", "osu")), "pingpong": ("default", ("osu", "imb"))}


def spreads(run: dict, op: str, mine: str, peer: str, state: str, min_launches: int,
            key: str = "spread_pct") -> dict[str, tuple[float, float]]:
    """Per size, (mpimeter's spread, the peer's) in ``state``; {} below ``min_launches``."""
    by = run.get("summary", {}).get(state, {}).get(op, {})
    a, b = by.get(mine), by.get(peer)
    if not a or not b or min(a["launches"], b["launches"]) < min_launches:
        return {}
    return {size: (sa, (b.get(key) or {})[size]) for size, sa in (a.get(key) or {}).items()
            if sa is not None and (b.get(key) or {}).get(size) is not None}


def ratios(run: dict, op: str, mine: str, peer: str, state: str, min_launches: int,
           key: str = "spread_pct") -> dict[str, float]:
    # a spread of 0 (every launch on one timer step) has no ratio
    return {size: sa / sb for size, (sa, sb) in spreads(run, op, mine, peer, state, min_launches, key).items()
            if sa and sb}


def with_grid_spreads(run: dict) -> dict:
    """``run`` with its summary recomputed by bench/peers.py when it lacks spread_on_grid_pct."""
    if any("spread_on_grid_pct" in c for ops in run.get("summary", {}).values() for cs in ops.values()
           for c in cs.values()):
        return run
    launches = [{**x, **{k: {int(s): v for s, v in x[k].items()} for k in ("values_ns", "local_ns", "means_ns")
                         if isinstance(x.get(k), dict)}} for x in run.get("launches", [])]
    return {**run, "summary": peers_run.summarize(launches)}


def pooled(per_run: list[float], level: float) -> dict:
    logs = np.log(per_run)
    n = len(logs)
    mean = float(logs.mean())
    half = float(stats.t.ppf(0.5 + level / 2, n - 1) * logs.std(ddof=1) / math.sqrt(n)) if n > 1 else math.inf
    return {"runs": n, "geometric_mean": round(math.exp(mean), 3),
            "interval": [round(math.exp(mean - half), 3), round(math.exp(mean + half), 3)] if n > 1 else None,
            "runs_at_or_below_1": int(sum(r <= 1 for r in per_run)), "ratios": [round(r, 3) for r in per_run]}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("runs", nargs="+", type=Path)
    p.add_argument("--state", default="fast")
    p.add_argument("--min-launches", type=int, default=8)
    p.add_argument("--level", type=float, default=0.95)
    p.add_argument("--grid", action="store_true", help="judge the spreads on the peers' 10 ns print grid")
    p.add_argument("--out", type=Path)
    a = p.parse_args()
    if not 0 < a.level < 1 or a.min_launches < 3:
        p.error("--level is in (0, 1) and --min-launches at least 3")
    runs = {}
    for path in a.runs:
        run = json.loads(path.read_text())
        if "summary" in run and (run.get("load") or {}).get("cpu_hogs", 0) == 0:
            runs[path.name] = with_grid_spreads(run) if a.grid else run
    key = "spread_on_grid_pct" if a.grid else "spread_pct"
    result: dict = {"state": a.state, "min_launches": a.min_launches, "level": a.level, "spread": key,
                    "ratio": "mpimeter's spread / the peer's, same rounds, same state", "runs": {}, "pooled": {}}
    for op, (mine, peers) in PAIRS.items():
        for peer in peers:
            per_size: dict[str, list[float]] = {}
            for name, run in runs.items():
                r = ratios(run, op, mine, peer, a.state, a.min_launches, key)
                both = spreads(run, op, mine, peer, a.state, a.min_launches, key)
                if both:
                    entry = result["runs"].setdefault(name, {"bench_commit": run.get("bench_commit"),
                                                             "started_utc": run.get("started_utc")})
                    entry[f"{op} {mine}/{peer}"] = {s: round(v, 3) for s, v in r.items()}
                    entry[f"{op} {mine}/{peer} at_or_below"] = {s: sa <= sb for s, (sa, sb) in both.items()}
                for size, v in r.items():
                    per_size.setdefault(size, []).append(v)
            result["pooled"][f"{op} {mine}/{peer}"] = {s: pooled(v, a.level) for s, v in sorted(per_size.items(), key=lambda kv: int(kv[0]))}
    for label in [f"{op} {mine}/{peer}" for op, (mine, peers) in PAIRS.items() for peer in peers]:
        cells = [v for run in result["runs"].values() for v in run.get(label + " at_or_below", {}).values()]
        result["pooled"][label + " at_or_below"] = {"cells": len(cells), "at_or_below": sum(cells)}
    text = json.dumps(result, indent=1) + "\n"
    if a.out:
        a.out.write_text(text)
    for label, by_size in result["pooled"].items():
        if label.endswith("at_or_below"):
            print(label, by_size)
        else:
            print(label, {s: (x["runs"], x["geometric_mean"], x["interval"], x["runs_at_or_below_1"]) for s, x in by_size.items()})


if __name__ == "__main__":
    main()
