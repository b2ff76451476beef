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
the state, count. Not a test.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

import numpy as np
from scipy import stats

PAIRS = {"allreduce": ("default", ("imb", "osu")), "pingpong": ("default", ("osu", "imb"))}


def ratios(run: dict, op: str, mine: str, peer: str, state: str, min_launches: int) -> dict[str, float]:
    by = run.get("summary", {}).get(state, {}).get(op, {})
    a, b = by.get(mine), by.get(peer)
    if not a or not b or min(a["launches"], b["launches"]) < min_launches:
        return {}
    out = {}
    for size, sa in (a.get("spread_pct") or {}).items():
        sb = (b.get("spread_pct") or {}).get(size)
        if sa and sb:  # a spread of 0 (every launch on one timer step) has no ratio
            out[size] = sa / sb
    return out


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
    p.add_argument("--out", type=Path)
    a = p.parse_args()
    if not 0 < a.level < 1 or a.min_launches < 3:
        p.error("--level is in (0, 1) and --min-launches at least 3")
    runs = {}
    for path in a.runs:
        run = json.loads(path.read_text())
        if "summary" in run and (run.get("load") or {}).get("cpu_hogs", 0) == 0:
            runs[path.name] = run
    result: dict = {"state": a.state, "min_launches": a.min_launches, "level": a.level,
                    "ratio": "mpimeter's spread / the peer's, same rounds, same state", "runs": {}, "pooled": {}}
    for op, (mine, peers) in PAIRS.items():
        for peer in peers:
            per_size: dict[str, list[float]] = {}
            for name, run in runs.items():
                r = ratios(run, op, mine, peer, a.state, a.min_launches)
                if r:
                    entry = result["runs"].setdefault(name, {"bench_commit": run.get("bench_commit"),
                                                             "started_utc": run.get("started_utc")})
                    entry[f"{op} {mine}/{peer}"] = {s: round(v, 3) for s, v in r.items()}
                for size, v in r.items():
                    per_size.setdefault(size, []).append(v)
            result["pooled"][f"{op} {mine}/{peer}"] = {s: pooled(v, a.level) for s, v in sorted(per_size.items(), key=lambda kv: int(kv[0]))}
    text = json.dumps(result, indent=1) + "\n"
    if a.out:
        a.out.write_text(text)
    for key, by_size in result["pooled"].items():
        print(key, {s: (x["runs"], x["geometric_mean"], x["interval"], x["runs_at_or_below_1"]) for s, x in by_size.items()})


if __name__ == "__main__":
    main()
