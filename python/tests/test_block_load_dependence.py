# SPDX-License-Identifier: BSD-3-Clause
"""busy-blocks-slower on serially dependent run times: successive repetitions resemble each other
and a load episode covers a contiguous stretch, so a Mann–Whitney test of single repetitions
reads a wander of the run times that happened to fall in the busy stretch as load. The warning's
test shifts the load pattern along the test (stats.rotation), which keeps the dependence."""

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from scipy.signal import lfilter

from mpimeter.analysis.block_load import block_load_warnings
from mpimeter.io.meta_tests import OtherCpu
from mpimeter.stats.rotation import rotation_rank_test

BLOCK, BLOCKS, WALL_S, NCPUS = 32, 24, 0.1, 2  # 12 spans of two blocks (20 ticks of 10 ms)


def ar1(rng, n: int, phi: float, sd: float) -> np.ndarray:
    e = rng.normal(0, sd * np.sqrt(1 - phi**2), n)
    e[0] = rng.normal(0, sd)
    return lfilter([1.0], [1.0, -phi], e)


def launch_test(seed: int, *, phi: float, sd: float, slower: float):
    """One launch test of 768 repetitions on AR(1) log run times; other processes used half the
    machine in one episode of 8 blocks (4 spans) at a seeded place, where the run times are
    ``slower`` times as long."""
    rng = np.random.default_rng([52, seed])
    first = 2 * int(rng.integers(0, 9))
    busy = np.zeros(BLOCKS, dtype=bool)
    busy[first:first + 8] = True
    other = tuple(float(o) for o in np.where(busy, 0.5 * WALL_S * NCPUS, 0.0))
    oc = OtherCpu(block_reps=BLOCK, tick_s=0.01, first_rep=tuple(BLOCK * k for k in range(BLOCKS)),
                  nrep=(BLOCK,) * BLOCKS, wall_s=(WALL_S,) * BLOCKS, other_cpu_s=other,
                  share=tuple(o / (WALL_S * NCPUS) for o in other))
    x = 1000 * np.exp(ar1(rng, BLOCK * BLOCKS, phi, sd))
    return oc, np.where(np.repeat(busy, BLOCK), slower * x, x)


def warned_launches(seeds, **kw) -> list[int]:
    """The launches (one per seed, one test each) busy-blocks-slower warns about."""
    tests = {seed: launch_test(seed, **kw) for seed in seeds}
    record = {seed: SimpleNamespace(other_cpu=oc, op="allreduce", size=8, label="test 0 (allreduce 8)")
              for seed, (oc, _) in tests.items()}
    campaign = SimpleNamespace(launches=[
        SimpleNamespace(alternative="a", index=seed, meta=SimpleNamespace(tests=[record[seed]],
                                                                          system=SimpleNamespace(ncpus=NCPUS)))
        for seed in seeds])
    n = BLOCK * BLOCKS
    frame = pd.DataFrame({"alternative": np.repeat(["a"], n * len(tests)),
                          "launch": np.repeat(list(tests), n), "test": 0, "rep": np.tile(np.arange(n), len(tests)),
                          "run_time_ns": np.concatenate([x for _, x in tests.values()]), "kept": True, "valid": True})
    found = block_load_warnings(campaign, frame)
    return sorted(int(w.where.split(":")[0].removeprefix("a/")) for w in found)  # where: "a/007: test 0 (...)"


def test_run_times_that_wander_are_not_read_as_load():
    # AR(1) φ = 0.9, 20 %, no load effect: a Mann–Whitney test of the repetitions warned about 5
    # of these 100 seeded launch tests (20, 54, 73, 82, 86), at a level of 1 %
    assert warned_launches(range(100), phi=0.9, sd=0.2, slower=1.0) == []


@pytest.mark.parametrize("phi, sd", [(0.9, 0.1), (0.0, 0.1)])
def test_busy_repetitions_half_as_slow_again_are_found_under_dependence(phi, sd):
    assert warned_launches(range(20), phi=phi, sd=sd, slower=1.5) == list(range(20))


# ---- the rotation test (stats.rotation) -----------------------------------------------------------

def test_rotation_by_hand():
    # ranks 1..4, the last two marked: rank sum 7; the four shifts of the marks give 7, 5, 3, 5
    r = rotation_rank_test(np.array([10.0, 20.0, 30.0, 40.0]), np.array([False, False, True, True]))
    assert r.statistic == 7.0 and r.p_value == pytest.approx(0.25)
    # the marks on the smallest values: every shift is at least as large
    assert rotation_rank_test(np.array([10.0, 20.0, 30.0, 40.0]), np.array([True, True, False, False])).p_value == 1.0


def test_rotation_edge_cases():
    # all values tied: no shift is smaller, p = 1 (never a rejection from ties)
    assert rotation_rank_test(np.full(50, 30.0), np.arange(50) < 20).p_value == 1.0
    assert np.isnan(rotation_rank_test(np.arange(5.0), np.zeros(5, dtype=bool)).p_value)
    assert np.isnan(rotation_rank_test(np.arange(5.0), np.ones(5, dtype=bool)).p_value)
    with pytest.raises(ValueError, match="1-d of one length"):
        rotation_rank_test(np.arange(5.0), np.ones(4, dtype=bool))


def test_rotation_holds_its_level_on_independent_and_dependent_series():
    # a contiguous quarter marked; 400 seeded series each: p ≤ 0.05 in about 5 %
    for phi in (0.0, 0.9):
        rng = np.random.default_rng([52, int(phi * 10)])
        marks = np.arange(400) < 100
        p = np.array([rotation_rank_test(ar1(rng, 400, phi, 0.1), np.roll(marks, int(rng.integers(400)))).p_value
                      for _ in range(400)])
        assert 0.02 <= (p <= 0.05).mean() <= 0.09, (phi, (p <= 0.05).mean())
