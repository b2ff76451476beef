# SPDX-License-Identifier: BSD-3-Clause
"""The launch-cluster family, the warm-up warning and the mean's t interval on seeded simulated
campaigns, through the functions `analyze` uses; prints one JSON object (rates with Wilson 95 %
intervals). Not a test: python/tests/test_stats_launch_grid_family.py runs small versions of the same cases.

    .venv/bin/python bench/sim_stats.py [--quick] [--null N] [--power N] [--only NAME ...] [--cells CELL ...]
                                        [--busy-cells CELL ...] [--part J/K] [--out FILE]

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
- scores_ceiling: on ``split55_launchwide3``'s campaigns, what tests of the launch scores find
  (told the groups, told their sizes, neither): where that cell's power goes.
- busy_blocks: ``busy-blocks-slower`` (``analysis.block_load``) on launch tests of 768
  repetitions in blocks of 32 of 0.1 s (spans of 2 blocks at a tick of 10 ms), other processes
  using half the machine in one episode of 4 contiguous spans at a random span; campaigns of 10
  launch tests (``--busy-cells`` runs some cells). Nulls (no load effect): i.i.d. lognormal 10 %,
  AR(1) log run times φ = 0.5 and 0.9 at 10 % and 20 %, a launch factor (15 %), ~35 ns on a
  10 ns grid (AR(1) φ = 0.5, 8 %: ties), lognormal σ = 0.5, AR(1) φ = 0.5 5 % × (1 + 0.2·Lomax(1.5)).
  Power: the busy repetitions 1.2× / 1.5× slower.
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


def scores_ceiling(null: int, power: int) -> dict:
    """Where ``split55_launchwide3`` loses its power: on the launch scores of that cell's
    campaigns (``stats.clusters.launch_scores``, the member of the family a launch-wide split adds
    up in), the within-group spread of the scores; the two-sample t test told which launches form
    the groups; the pooled t of the lowest five against the highest five (told the sizes only),
    calibrated on 20 000 normal samples of 10; the one-sample split test alone (``split_two``'s
    weighted min-p, no family, no ratio); all at 0.05. ``10 × power`` campaigns, seed 4105 as the cell."""
    from scipy import stats as st

    from mpimeter.stats.clusters import _p_values, dithered, launch_scores

    n = 10 * power
    rng = np.random.default_rng(4105)

    def campaign_scores() -> list[float]:  # the rows dithered within the grid, as split_family scores them
        rows = [dict(zip(row, dithered(np.array(list(row.values())), step=GRID_NS)))
                for row in split_launchwide_campaign(rng)]
        return list(launch_scores(rows).values())

    scores = np.log(np.array([campaign_scores() for _ in range(n)]))

    def sorted_t(x: np.ndarray) -> np.ndarray:
        s = np.sort(x, axis=1)
        lo, hi = s[:, :5], s[:, 5:]
        pooled = np.sqrt((lo.var(axis=1, ddof=1) + hi.var(axis=1, ddof=1)) / 2)
        return (hi.mean(axis=1) - lo.mean(axis=1)) / (pooled * np.sqrt(2 / 5))

    critical = float(np.quantile(sorted_t(np.random.default_rng(4120).standard_normal((20000, 10))), 0.95))
    slow, fast = scores[:, :5], scores[:, 5:]  # the generator's first five launches are the slow ones
    known = st.ttest_ind(slow, fast, axis=1, alternative="greater").pvalue
    spread = float(np.sqrt((slow.var(axis=1, ddof=1).mean() + fast.var(axis=1, ddof=1).mean()) / 2))
    return {"campaigns": n, "score_sd_within_groups": round(spread, 4),
            "gap_in_sds": round(float((slow.mean() - fast.mean()) / spread), 2),
            "known_groups_t_test": _rate(int((known <= 0.05).sum()), n),
            "sizes_told_sorted_t": _rate(int((sorted_t(scores) > critical).sum()), n),
            "sorted_t_critical": round(critical, 3),
            "one_sample_split_test_alone": _rate(int((_p_values(scores, 1) <= 0.05).sum()), n)}


# --- busy-blocks-slower (analysis.block_load) ------------------------------------------------------

BLOCK_REPS = 32
TEST_BLOCKS = 24  # a test of 768 repetitions
BLOCK_WALL_S = 0.1  # two blocks a span of 20 ticks of 10 ms: 12 spans of 64 repetitions
BUSY_SPANS = 4  # one load episode of 4 contiguous spans (256 repetitions), at a random span
NCPUS = 2
TESTS_PER_CAMPAIGN = 10  # launches of one test each
PLACE = {"alternative": "a", "op": "allreduce", "size": 8, "launch": "a/000", "where": "a/000: test 0 (allreduce 8)"}


def ar1_log(rng: np.random.Generator, n: int, phi: float, sd: float) -> np.ndarray:
    """An AR(1) series of marginal SD ``sd``, started in its stationary law (the log run times)."""
    from scipy.signal import lfilter

    e = rng.normal(0, sd * np.sqrt(1 - phi**2), n)
    e[0] = rng.normal(0, sd)
    return lfilter([1.0], [1.0, -phi], e)


def busy_noise(rng: np.random.Generator, kind: str, n: int) -> np.ndarray:
    """Run times of one launch test, ``n`` repetitions, with no load effect (ns)."""
    if kind.startswith("ar1"):  # ar1_phi0.9_sd0.1
        phi, sd = (float(v) for v in kind.removeprefix("ar1_phi").split("_sd"))
        return 1000 * np.exp(ar1_log(rng, n, phi, sd))
    if kind == "iid_sd0.1":
        return 1000 * np.exp(rng.normal(0, 0.1, n))
    if kind == "ties":  # ~35 ns read on a 10 ns timer, AR(1) φ = 0.5, 8 %: 30 or 40 ns, ties
        return np.maximum(np.round(35 * np.exp(ar1_log(rng, n, 0.5, 0.08)) / 10) * 10, 10)
    if kind == "lognormal":  # i.i.d. lognormal σ = 0.5: a long right tail
        return 1000 * np.exp(rng.normal(0, 0.5, n))
    if kind == "pareto":  # AR(1) φ = 0.5, 5 %, times 1 + 0.2 · Lomax(1.5): spikes with infinite variance
        return 1000 * np.exp(ar1_log(rng, n, 0.5, 0.05)) * (1 + 0.2 * rng.pareto(1.5, n))
    raise ValueError(kind)


def busy_test(rng: np.random.Generator, kind: str, slower: float, launch_sd: float):
    """One launch test: its other_cpu record (one load episode at a share of 0.5) and the run
    times, the busy repetitions ``slower`` times as long; × a launch factor lognormal(0, launch_sd)."""
    from mpimeter.io.meta_tests import OtherCpu

    n = BLOCK_REPS * TEST_BLOCKS
    spans = TEST_BLOCKS * BLOCK_WALL_S / 0.2
    first = int(rng.integers(0, int(spans) - BUSY_SPANS + 1)) * 2
    busy_blocks = np.zeros(TEST_BLOCKS, dtype=bool)
    busy_blocks[first:first + 2 * BUSY_SPANS] = True
    other = np.where(busy_blocks, 0.5 * BLOCK_WALL_S * NCPUS, 0.0)
    oc = OtherCpu(block_reps=BLOCK_REPS, tick_s=0.01, first_rep=tuple(BLOCK_REPS * k for k in range(TEST_BLOCKS)),
                  nrep=(BLOCK_REPS,) * TEST_BLOCKS, wall_s=(BLOCK_WALL_S,) * TEST_BLOCKS,
                  other_cpu_s=tuple(float(o) for o in other), share=tuple(float(o) / (BLOCK_WALL_S * NCPUS) for o in other))
    x = busy_noise(rng, kind, n) * np.exp(rng.normal(0, launch_sd))
    x = np.where(np.repeat(busy_blocks, BLOCK_REPS), x * slower, x)
    return oc, np.arange(n), x


# name: (noise, busy slowdown, launch factor sd, seed, power cell)
BUSY_CELLS = {
    "iid_sd0.1": ("iid_sd0.1", 1.0, 0.0, 4201, False),
    "ar1_phi0.5_sd0.1": ("ar1_phi0.5_sd0.1", 1.0, 0.0, 4202, False),
    "ar1_phi0.5_sd0.2": ("ar1_phi0.5_sd0.2", 1.0, 0.0, 4203, False),
    "ar1_phi0.9_sd0.1": ("ar1_phi0.9_sd0.1", 1.0, 0.0, 4204, False),
    "ar1_phi0.9_sd0.2": ("ar1_phi0.9_sd0.2", 1.0, 0.0, 4205, False),
    "launchwide15_ar1_phi0.5_sd0.1": ("ar1_phi0.5_sd0.1", 1.0, 0.15, 4206, False),
    "ties_grid10_35ns": ("ties", 1.0, 0.0, 4207, False),
    "lognormal_sd0.5": ("lognormal", 1.0, 0.0, 4208, False),
    "pareto1.5": ("pareto", 1.0, 0.0, 4209, False),
    "busy1.2x_iid_sd0.1": ("iid_sd0.1", 1.2, 0.0, 4210, True),
    "busy1.2x_ar1_phi0.9_sd0.1": ("ar1_phi0.9_sd0.1", 1.2, 0.0, 4211, True),
    "busy1.5x_ar1_phi0.9_sd0.1": ("ar1_phi0.9_sd0.1", 1.5, 0.0, 4212, True),
    "busy1.5x_ar1_phi0.9_sd0.2": ("ar1_phi0.9_sd0.2", 1.5, 0.0, 4213, True),
}


def busy_blocks(null: int, power: int, cells: list[str] | None = None) -> dict:
    """Per cell, campaigns of TESTS_PER_CAMPAIGN launch tests through analysis.block_load's test
    of one launch test: the rate of launch tests warned (its level: ALPHA) and of campaigns with
    a warning (what a user sees)."""
    from mpimeter.analysis.block_load import ALPHA, _test_warning

    out = {}
    for name, (kind, slower, launch_sd, seed, is_power) in BUSY_CELLS.items():
        if cells is not None and name not in cells:
            continue
        rng = np.random.default_rng(seed)
        campaigns = power if is_power else null
        tests = warned = 0
        for _ in range(campaigns):
            hits = 0
            for _ in range(TESTS_PER_CAMPAIGN):
                oc, rep, x = busy_test(rng, kind, slower, launch_sd)
                hits += _test_warning(oc, NCPUS, rep, x, PLACE) is not None
            tests += hits
            warned += hits > 0
        out[name] = {"launch_tests_warned": _rate(tests, campaigns * TESTS_PER_CAMPAIGN),
                     "campaigns_warned": _rate(warned, campaigns), "level": ALPHA}
        print(f"busy_blocks {name}: {json.dumps(out[name])}", file=sys.stderr, flush=True)
    return out


SECTIONS = {"clusters": clusters, "warmup_null": warmup_null, "warmup_power": warmup_power, "mean_t": mean_t,
            "busy_blocks": busy_blocks, "scores_ceiling": scores_ceiling}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="50 campaigns per cell instead of 500 (null) / 200 (power)")
    ap.add_argument("--null", type=int, default=None, help="campaigns per null cell (default 500)")
    ap.add_argument("--power", type=int, default=None, help="campaigns per power cell (default 200)")
    ap.add_argument("--only", nargs="*", choices=sorted(SECTIONS), default=None)
    ap.add_argument("--cells", nargs="*", choices=sorted(CLUSTER_CELLS), default=None,
                    help="only these cells of the clusters section")
    ap.add_argument("--busy-cells", nargs="*", choices=sorted(BUSY_CELLS), default=None,
                    help="only these cells of the busy_blocks section")
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
        elif name == "busy_blocks":
            result[name] = fn(null, power, a.busy_cells)
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
