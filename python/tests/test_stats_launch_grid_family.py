# SPDX-License-Identifier: BSD-3-Clause
"""The launch-cluster family on the timer's recorded grid, adjusted by a joint resampling of the
launches (mpimeter.stats.clusters.split_family), and the warm-up level test under AR(1) φ = 0.9
(mpimeter.stats.warmup): the small seeded cases of bench/sim_stats.py."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np

from mpimeter.analysis.launch_effects import timer_grid_ns
from mpimeter.stats.clusters import split_family, split_two
from mpimeter.stats.warmup import detect_warmup, level_test
from data.synth import ar1_runtimes


def test_medians_between_two_grid_steps_are_no_split_on_the_recorded_grid():
    # medians of an even count of repetitions on a 10 ns grid: 30, 35 and 40 ns; their common
    # divisor (5 ns) made 30 against 40 a split 1.15× apart beyond the grid
    values = [30.0] * 5 + [40.0] * 4 + [35.0]
    on_grid = split_two(values, grid_ns=10.0)
    assert on_grid is not None and on_grid.grid_ratio < 1.1
    assert split_two(values).grid_ratio >= 1.1  # no resolution recorded: the medians' own grid


def test_campaigns_of_35ns_rows_on_a_10ns_grid_are_not_flagged():
    rng = np.random.default_rng(41)
    flagged = 0
    for _ in range(6):
        shared = rng.normal(0, 0.02, 10)
        rows = []
        for base in np.linspace(33.0, 38.0, 8):
            reps = base * np.exp(shared[:, None] + rng.normal(0, 0.08, (10, 100)))
            rows.append({i: float(m) for i, m in enumerate(np.median(np.round(reps / 10) * 10, axis=1))})
        flagged += any(t.flagged(0.05, 1.1) for t in split_family(rows, min_launches=6, grid_ns=10.0))
    assert flagged == 0


def _launch_wide_split(seed: int) -> list[dict[int, float]]:
    """5 of 10 launches 1.15× slower with a 3 % launch-wide factor, in 8 rows that agree (0.2 %
    row noise): one piece of evidence, seen 8 times."""
    rng = np.random.default_rng(seed)
    shared = np.log(1.15) * (np.arange(10) < 5) + rng.normal(0, 0.03, 10)
    return [{i: float(x) for i, x in enumerate(b * np.exp(shared + rng.normal(0, 0.002, 10)))}
            for b in (2000.0, 3000.0, 5000.0, 8000.0, 12000.0, 20000.0, 30000.0, 50000.0)]


def test_a_launch_wide_split_is_not_divided_by_the_number_of_rows():
    # Holm over the 8 rows and the scores multiplied the smallest p by 9; the joint resampling
    # knows the rows say the same thing
    for seed in (0, 1, 2):
        family = split_family(_launch_wide_split(seed), min_launches=6, grid_ns=1.0)
        smallest = min(t.split.p_value for t in family)
        assert min(t.adjusted_p for t in family) <= 3 * smallest, seed
        assert all(t.adjusted_p >= t.split.p_value for t in family)
    family = split_family(_launch_wide_split(0), min_launches=6, grid_ns=1.0)
    assert any(t.flagged(0.05, 1.1) for t in family)


def test_the_coarsest_recorded_resolution_is_the_grid():
    def info(r):
        return SimpleNamespace(meta=SimpleNamespace(timer=SimpleNamespace(resolution_ns=r)))

    assert timer_grid_ns([info(1.0), info(10.0), info(None), info(math.nan)]) == 10.0
    assert timer_grid_ns([info(None), info(0.0)]) is None  # 0: no grid said, ties would split


def test_stationary_ar1_series_the_normal_level_test_called_warmups_are_not_significant():
    # four of 1000 stationary series (φ = 0.9, σ = 10 %, n = 100) that the normal level test put
    # below p = 1e-4 — Holm over a campaign's 120 series warned on such series in a quarter of
    # the campaigns; the sieve bootstrap sees the series' own wandering
    rng = np.random.default_rng(2024)
    series = [ar1_runtimes(rng, 100, 0.9, 0.1) for _ in range(972)]
    for i in (69, 348, 623, 971):
        w = detect_warmup(series[i])
        assert w.p_value > 0.01 and w.end == 0, (i, w)


def test_stationary_ar1_series_at_holms_first_level_over_a_campaign_are_above_it():
    # six of 4760 stationary series (φ = 0.9, σ = 10 %, n = 100) whose bootstrap null, each φ
    # drawn symmetrically around the estimate, gave p ≤ 0.05 / 120 (1.2e-4 to 3.7e-4): Holm over a
    # campaign's 120 series warned on them. The estimate is low exactly there; drawn above it,
    # the null's far tail holds them (5e-4 to 1.6e-3)
    rng = np.random.default_rng(1)
    series = [ar1_runtimes(rng, 100, 0.9, 0.1) for _ in range(4760)]
    for i in (1645, 2472, 3497, 3637, 4113, 4759):
        assert level_test(series[i]) > 0.05 / 120, i


def test_a_20_percent_step_under_ar1_phi_09_is_found():
    # 20 % slower over the first 50 of 300 repetitions, AR(1) φ = 0.9, σ = 5 %: found in all 12
    # of these (the normal level test: 8)
    rng = np.random.default_rng(302)
    found = 0
    for _ in range(12):
        x = ar1_runtimes(rng, 300, 0.9, 0.05)
        x[:50] *= 1.2
        found += detect_warmup(x).end > 0
    assert found >= 11, found
