# SPDX-License-Identifier: BSD-3-Clause
"""The launch-cluster family, the warm-up warning and the mean's t interval on seeded simulated
campaigns, through the functions `analyze` uses; prints one JSON object (rates with Wilson 95 %
intervals). Not a test: python/tests/test_stats_launch_grid_family.py runs small versions of the same cases.

    .venv/bin/python bench/sim_stats.py [--quick] [--null N] [--power N] [--only NAME ...] [--cells CELL ...]
                                        [--part J/K] [--out FILE]

Generators (seeded; shared ones from bench/stats_dependence.py):

- clusters: ``stats.clusters.split_family`` as ``analysis.launch_effects`` calls it (the grid
  from the timer's recorded resolution, 10 ns; flagged at adjusted p ≤ 0.05 and groups ≥ 1.1×
  apart beyond the grid). 10 launches. Nulls: ``grid35``: 8 rows whose run times are ~35 ns
  (33–38 ns, 8 % repetition noise, 2 % launch-wide factor), each launch's median of 100
  repetitions read on the 10 ns grid (30, 35 or 40 ns); also with the grid read off the medians
  (``grid35_medians_grid``, how it was); ``ties``, ``heavy`` (t(3)·5 % launch factor),
  ``lognormal`` (15 % launch factor): stats_dependence's campaigns of 8 rows. Power:
  ``split55_launchwide3``: 5 of 10 launches 1.15× slower, a 3 % launch-wide factor, 1 % row noise,
  8 rows 100 ns – 50 µs on the 10 ns grid; ``split55_one_row``: the same without the launch
  split, but 5 of 10 launches 1.2× slower in the 2 µs row alone. ``--cells`` runs some of these alone (each is seeded
  on its own: cells in separate processes give the figures of one run).
- warmup_null, warmup_power: ``stats.warmup.detect_warmup`` and
  ``analysis.diagnostics.long_warmups`` (Holm over the campaign) on AR(1) log run times, φ = 0.9.
  Null: campaigns of 120 stationary series of 100 repetitions (marginal σ = 10 %), `long-warmup`
  printed; campaign i seeded by (4106, i), so ``--part J/K`` runs the campaigns i ≡ J mod K and
  the parts' hits add up. Power: a 20 % step over the first w
  repetitions of one series (marginal σ = 5 %), found (a warm-up of any length) — n = 300, w = 50
  and n = 200, w = 30.
- mean_t: the t interval of ``stats.across.across_launches`` (mean of 10 per-launch means,
  3 % lognormal launch noise, each launch 1.3× with probability 0.2): coverage of the population
  mean, overall and when no launch was slow.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from stats_dependence import BASES, LAUNCHES, _rate, ar1, cluster_campaign  # noqa: E402

from mpimeter.analysis.diagnostics import long_warmups  # noqa: E402
from mpimeter.stats.across import across_launches  # noqa: E402
from mpimeter.stats.clusters import split_family  # noqa: E402
from mpimeter.stats.warmup import detect_warmup, trend_test  # noqa: E402

GRID_NS = 10.0


def grid35_campaign(rng: np.random.Generator, rows: int = 8, nrep: int = 100) -> list[dict[int, float]]:
    """Rows of ~35 ns run times: per launch the median of ``nrep`` repetitions on the 10 ns grid."""
    shared = rng.normal(0, 0.02, LAUNCHES)
    out = []
    for base in np.linspace(33.0, 38.0, rows):
        reps = base * np.exp(shared[:, None] + rng.normal(0, 0.08, (LAUNCHES, nrep)))
        medians = np.median(np.maximum(np.round(reps / GRID_NS) * GRID_NS, GRID_NS), axis=1)
        out.append({i: float(m) for i, m in enumerate(medians)})
    return out


def split_launchwide_campaign(rng: np.random.Generator) -> list[dict[int, float]]:
    """5 of 10 launches 1.15× slower, a 3 % launch-wide factor, 1 % row noise, 8 rows, 10 ns grid."""
    shared = np.log(1.15) * (np.arange(LAUNCHES) < 5) + rng.normal(0, 0.03, LAUNCHES)
    out = []
    for base in BASES:
        v = base * np.exp(shared + rng.normal(0, 0.01, LAUNCHES))
        out.append({i: float(x) for i, x in enumerate(np.maximum(np.round(v / GRID_NS) * GRID_NS, GRID_NS))})
    return out


def split_one_row_campaign(rng: np.random.Generator) -> list[dict[int, float]]:
    """The same rows with no launch split, but 5 of 10 launches 1.2× slower in one row (the 2 µs
    one): a split of one row's test, not of the launch scores."""
    shared = rng.normal(0, 0.03, LAUNCHES)
    out = []
    for j, base in enumerate(BASES):
        split = np.log(1.2) * (np.arange(LAUNCHES) < 5) if j == 4 else 0.0
        v = base * np.exp(shared + rng.normal(0, 0.01, LAUNCHES) + split)
        out.append({i: float(x) for i, x in enumerate(np.maximum(np.round(v / GRID_NS) * GRID_NS, GRID_NS))})
    return out


def flag_rate(make, campaigns: int, seed: int, grid_ns: float | None = GRID_NS) -> dict:
    rng = np.random.default_rng(seed)
    hits = sum(any(t.flagged(0.05, 1.1) for t in split_family(make(rng), min_launches=6, grid_ns=grid_ns))
               for _ in range(campaigns))
    return _rate(hits, campaigns)


CLUSTER_CELLS = {  # name: (generator, seed, grid, power cell)
    "grid35": (grid35_campaign, 4101, GRID_NS, False),
    "grid35_medians_grid": (grid35_campaign, 4101, None, False),
    **{kind: (lambda r, k=kind: cluster_campaign(r, k), seed, GRID_NS, False)
       for kind, seed in (("ties", 4102), ("heavy", 4103), ("lognormal", 4104))},
    "split55_launchwide3": (split_launchwide_campaign, 4105, GRID_NS, True),
    "split55_one_row": (split_one_row_campaign, 4110, GRID_NS, True)}


def clusters(null: int, power: int, cells: list[str] | None = None) -> dict:
    """The cells (all by default; each seeded on its own, so cells run in separate processes add
    up to the same figures)."""
    return {name: flag_rate(make, power if is_power else null, seed, grid_ns=grid)
            for name, (make, seed, grid, is_power) in CLUSTER_CELLS.items() if cells is None or name in cells}


# a series whose rank test alone gives p above this cannot hold over Holm's family of 120 unless
# 70 others did (121 − 0.05 / SCREEN_P); detect_warmup's p is never below the rank test's
SCREEN_P = 1e-3


def warmup_null(null: int, power: int, part: tuple[int, int] = (0, 1)) -> dict:
    """The campaign warning's null; campaign i seeded by (4106, i), so that ``part`` = (j, k), the
    campaigns i ≡ j mod k, can run in k processes whose hits add up."""
    warned = 0
    mine = range(part[0], null, part[1])
    for i in mine:
        rng = np.random.default_rng([4106, i])
        summaries = []
        for _ in range(120):
            x = ar1(rng, 100, 0.9, 0.1)
            p = trend_test(x)
            w = detect_warmup(x) if p <= SCREEN_P else None
            summaries.append(SimpleNamespace(n_total=100, warmup_p_value=p if w is None else w.p_value,
                                             warmup_length=0 if w is None else max(w.end - 1, 0)))
        warned += bool(long_warmups(summaries)[0])
        print(f"warmup_null campaign {i}: {warned} warned so far", file=sys.stderr, flush=True)
    return {"ar1_phi0.9_campaigns_120_series_long_warmup": _rate(warned, len(mine))}


def warmup_power(null: int, power: int) -> dict:
    out = {}
    for n, w, seed in ((300, 50, 4107), (200, 30, 4108)):
        rng = np.random.default_rng(seed)
        found = 0
        for _ in range(power):
            x = ar1(rng, n, 0.9, 0.05)
            x[:w] *= 1.2
            found += detect_warmup(x).end > 0
            print(f"warmup_power n={n} w={w}: {found} found so far", file=sys.stderr, flush=True)
        out[f"step20pct_first{w}_of_{n}_ar1_phi0.9_found"] = _rate(found, power)
    return out


def mean_t(null: int, power: int) -> dict:
    rng = np.random.default_rng(4109)
    sd, campaigns = 0.03, 4 * null
    truth = float(np.exp(sd * sd / 2) * (0.8 + 0.2 * 1.3))
    covered = covered_mixed = mixed = 0
    for _ in range(campaigns):
        slow = rng.random(LAUNCHES) < 0.2
        means = 1000 * np.exp(rng.normal(0, sd, LAUNCHES)) * np.where(slow, 1.3, 1.0)
        ci = across_launches(means, means).mean
        hit = ci.low is not None and ci.low <= 1000 * truth <= ci.high
        covered += hit
        if slow.any():
            mixed += 1
            covered_mixed += hit
    return {"covers": _rate(covered, campaigns), "covers_when_a_launch_was_slow": _rate(covered_mixed, mixed),
            "no_slow_launch_share": round(1 - mixed / campaigns, 4)}


SECTIONS = {"clusters": clusters, "warmup_null": warmup_null, "warmup_power": warmup_power, "mean_t": mean_t}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="50 campaigns per cell instead of 500 (null) / 200 (power)")
    ap.add_argument("--null", type=int, default=None, help="campaigns per null cell (default 500)")
    ap.add_argument("--power", type=int, default=None, help="campaigns per power cell (default 200)")
    ap.add_argument("--only", nargs="*", choices=sorted(SECTIONS), default=None)
    ap.add_argument("--cells", nargs="*", choices=sorted(CLUSTER_CELLS), default=None,
                    help="only these cells of the clusters section")
    ap.add_argument("--part", default="0/1", help="J/K: only warmup_null's campaigns i with i mod K = J")
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    j, _, k = a.part.partition("/")
    part = (int(j), int(k))
    if not (part[1] >= 1 and 0 <= part[0] < part[1]):
        ap.error(f"--part {a.part}: J/K with 0 <= J < K")
    null, power = (50, 50) if a.quick else (500, 200)
    null, power = a.null or null, a.power or power
    result = {}
    for name, fn in SECTIONS.items():
        if a.only and name not in a.only:
            continue
        t0 = time.time()
        if name == "warmup_null":
            result[name] = fn(null, power, part)
        elif name == "clusters":
            result[name] = fn(null, power, a.cells)
        else:
            result[name] = fn(null, power)
        result[name]["seconds"] = round(time.time() - t0, 1)
        print(name, json.dumps(result[name]), file=sys.stderr)
    text = json.dumps(result, indent=1)
    if a.out:
        Path(a.out).write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
