# SPDX-License-Identifier: BSD-3-Clause
"""The gate counts a slowdown only beyond the timer's grid: per-launch medians of ~35 ns on a
10 ns timer read 40 against 35 ns as 14 %, though the candidate is exactly at the 5 % margin."""

import json

import numpy as np
import pytest
from data.synth import write_campaign

from mpimeter import analysis
from mpimeter.analysis.gating import gate, gate_rows

KEY = ("allreduce", 8)


def grid_medians(rng, launches: int, truth: float) -> np.ndarray:
    """Per-launch medians of 100 repetitions of 35 ns × ``truth`` (2 % launch, 8 % repetition
    noise), each repetition read on a 10 ns timer grid."""
    launch = 0.02 * rng.standard_normal(launches)
    reps = 35.0 * truth * np.exp(launch[:, None] + rng.normal(0, 0.08, (launches, 100)))
    return np.median(np.maximum(np.round(reps / 10) * 10, 10), axis=1)


@pytest.mark.parametrize("grid_ns", [10.0, None], ids=["recorded", "estimated"])
def test_a_candidate_exactly_at_the_margin_on_a_coarse_grid_passes(grid_ns):
    # 40 seeded campaigns of 6 launches a side, the candidate exactly 5 % slower: without the grid
    # 4 of them failed the gate; the grid is recorded (meta.json) or read off the medians
    failed = []
    for seed in range(40):
        rng = np.random.default_rng([35, seed])
        base, cand = grid_medians(rng, 6, 1.0), grid_medians(rng, 6, 1.05)
        rows = gate_rows({KEY: base}, {KEY: cand}, max_slowdown=0.05, alpha=0.05, grid_ns=grid_ns)
        if rows[0].regression:
            failed.append(seed)
    assert failed == [], f"campaigns at the margin failed the gate: seeds {failed}"


def test_a_slowdown_beyond_the_grid_still_fails():
    # the same medians 20 ns (two steps) slower: more than the margin and the grid can make
    rng = np.random.default_rng([35, 0])
    base = grid_medians(rng, 6, 1.0)
    rows = gate_rows({KEY: base}, {KEY: base + 20}, max_slowdown=0.05, alpha=0.05, grid_ns=10.0)
    assert rows[0].regression and rows[0].p_adjusted <= 0.05


def _campaign(root, *, seed: int, shift: float, resolution_ns: float):
    def times(op, size, rng, n):  # ~350 ns
        return 350.0 * (1 + rng.lognormal(-4.0, 0.3, n))

    write_campaign(root, 6, seed=seed, shift=shift, ops=("allreduce",), sizes=(8,), time_fn=times, nrep=30)
    for meta_path in (root / "launches").glob("*/meta.json"):
        meta = json.loads(meta_path.read_text())
        meta["timer"]["resolution_ns"] = resolution_ns
        meta_path.write_text(json.dumps(meta))
    return analysis.analyze(analysis.load_campaign(root))


@pytest.mark.parametrize("resolution_ns, passes", [(1.0, False), (100.0, True)])
def test_gate_reads_the_grid_from_the_recorded_timer_resolution(tmp_path, resolution_ns, passes):
    # the candidate 15 % (about 50 ns) slower: a regression on a 1 ns timer, within one step of a 100 ns one
    base = _campaign(tmp_path / "base", seed=1, shift=1.0, resolution_ns=resolution_ns)
    cand = _campaign(tmp_path / "cand", seed=2, shift=1.15, resolution_ns=resolution_ns)
    result = gate(base, cand, max_slowdown=0.05)
    assert result.rows[0].median_candidate_ns / result.rows[0].median_baseline_ns > 1.1
    assert result.passed is passes


def test_one_way_latencies_lie_on_half_the_timer_grid():
    # half of a round trip timed on a 10 ns timer: 45 against 35 ns one way is two of its 5 ns steps
    base, cand = np.full(6, 35.0), np.full(6, 45.0)
    rows = gate_rows({KEY: base}, {KEY: cand}, max_slowdown=0.05, alpha=0.05, grid_ns=10.0,
                     one_way=lambda op, size, *where: True)
    assert rows[0].regression and rows[0].one_way
    round_trip = gate_rows({KEY: base}, {KEY: cand}, max_slowdown=0.05, alpha=0.05, grid_ns=10.0)
    assert not round_trip[0].regression  # one step of a 10 ns grid: within it
