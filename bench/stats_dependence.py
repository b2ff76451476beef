"""Issue 25: the statistics under dependence — null rates, power and coverage of every detector and
interval on seeded simulated campaigns; prints one JSON object. Not a test (the tests in
python/tests run smaller versions of the same checks).

    .venv/bin/python bench/stats_dependence.py [--only NAME ...] [--campaigns N] [--out FILE]

Each section names its generator; all are seeded, so the numbers repeat.

- clusters: the launch-cluster family of analyze (``stats.clusters.split_family``: every row and the
  launch scores, Holm, flagged at adjusted p ≤ 0.05 and ratio ≥ 1.1). Campaigns of 10 launches and
  8 rows (medians 100 ns – 50 µs), rounded to a 10 ns timer grid. Null: a launch factor shared by
  all rows — lognormal σ = 15 % (+1 % row noise), t(3)·5 % (+1 %), normal 3 % on 100–300 ns rows
  (ties: medians one or two grid steps apart); also 1 row only. Power: 5 of 10 launches 1.15×
  slower (3 % row noise; 8 rows and 1 row), 1 launch of 10 at 0.5×.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable

import numpy as np

from mpimeter.stats.clusters import split_family

SECTIONS: dict[str, Callable[[int], dict]] = {}


def section(fn: Callable[[int], dict]) -> Callable[[int], dict]:
    SECTIONS[fn.__name__] = fn
    return fn


def _rate(hits: int, n: int) -> dict:
    """A rate with its 95 % Wilson interval."""
    from statsmodels.stats.proportion import proportion_confint

    lo, hi = proportion_confint(hits, n, alpha=0.05, method="wilson")
    return {"rate": hits / n, "hits": hits, "n": n, "ci95": [round(lo, 4), round(hi, 4)]}


# --- 1. launch clusters -----------------------------------------------------------------------

LAUNCHES = 10
BASES = np.array([100.0, 150.0, 300.0, 800.0, 2000.0, 6000.0, 20000.0, 50000.0])
TIES_BASES = np.array([100.0, 120.0, 150.0, 180.0, 200.0, 250.0, 280.0, 300.0])


def cluster_campaign(rng: np.random.Generator, kind: str, rows: int = 8) -> list[dict[int, float]]:
    shared = {"lognormal": lambda: rng.normal(0, 0.15, LAUNCHES),
              "heavy": lambda: 0.05 * rng.standard_t(3, LAUNCHES),
              "ties": lambda: rng.normal(0, 0.03, LAUNCHES),
              "split55": lambda: np.log(1.15) * (np.arange(LAUNCHES) < 5),
              "split19": lambda: np.log(0.5) * (np.arange(LAUNCHES) < 1)}[kind]()
    row_noise = 0.01 if kind in ("lognormal", "heavy") else 0.03
    bases = (TIES_BASES if kind == "ties" else BASES)[:rows]
    out = []
    for base in bases:
        v = base * np.exp(shared + rng.normal(0, row_noise, LAUNCHES))
        out.append({i: float(x) for i, x in enumerate(np.maximum(np.round(v / 10) * 10, 10))})
    return out


@section
def clusters(campaigns: int) -> dict:
    out = {}
    for kind in ("lognormal", "heavy", "ties", "split55", "split19"):
        for rows in (8, 1):
            rng = np.random.default_rng({"lognormal": 1, "heavy": 2, "ties": 3, "split55": 4, "split19": 5}[kind] + 10 * rows)
            hits = sum(any(t.flagged(0.05, 1.1) for t in split_family(cluster_campaign(rng, kind, rows), min_launches=6))
                       for _ in range(campaigns))
            out[f"{kind}_{rows}rows"] = _rate(hits, campaigns)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="*", choices=sorted(SECTIONS), default=None)
    ap.add_argument("--campaigns", type=int, default=1000)
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    result = {}
    for name, fn in SECTIONS.items():
        if a.only and name not in a.only:
            continue
        t0 = time.time()
        result[name] = fn(a.campaigns)
        result[name]["seconds"] = round(time.time() - t0, 1)
        print(name, json.dumps(result[name]), file=sys.stderr)
    text = json.dumps(result, indent=1)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
