# SPDX-License-Identifier: BSD-3-Clause
"""Ranks that differ: Friedman's test on per-launch rank medians, launches as blocks, and no test
of operations whose ranks finish apart by design (analysis/pipeline.py ``_rank_tests``).

The null check simulates what real launches do to identically distributed ranks: a factor per
launch shared by all ranks, a factor per repetition shared by all ranks (they time the same
call), a factor per launch and rank (where the rank happened to sit) and noise per rank and
repetition. Pooling ~1000 repetitions per rank over launches, as Kruskal–Wallis did, called
nearly every such row "different".
"""

from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from mpimeter import analysis
from mpimeter.io.meta import LaunchMeta, Operation


def rank_campaign(seed, *, launches=10, ranks=4, tests=(("allreduce", 8),), nrep=100, placement=0.03,
                  slow_rank=None, slow_factor=1.0, finish_apart=()):
    """An in-memory campaign with per-rank rows (local clock). ``slow_rank`` takes
    ``slow_factor`` × longer in every launch; ``finish_apart`` ops are declared so in meta."""
    rng = np.random.default_rng(seed)
    n_t = len(tests)
    shape = (launches, n_t, ranks, nrep)
    dur = (2000.0 * rng.lognormal(0, 0.05, (launches, 1, 1, 1)) * rng.lognormal(0, placement, (launches, n_t, ranks, 1))
           * rng.lognormal(0, 0.1, (launches, n_t, 1, nrep)) * rng.lognormal(0, 0.05, shape))
    if slow_rank is not None:
        dur[:, :, slow_rank, :] *= slow_factor
    meta = LaunchMeta(path=Path("/memory/meta.json"), schema_version=2, status="complete", nprocs=ranks, tests=(),
                      operations={op: Operation(kind="collective", ranks_finish_apart=op in finish_apart)
                                  for op, _ in tests})
    parts, infos = [], []
    for li in range(launches):
        start = np.broadcast_to((np.arange(n_t * nrep) * 10_000_000).reshape(n_t, 1, nrep), (n_t, ranks, nrep))
        n = n_t * ranks * nrep
        parts.append(pa.table({
            "alternative": pa.array(["x"] * n, pa.string()),
            "launch": pa.array(np.full(n, li, dtype=np.int32)),
            "test": pa.array(np.repeat(np.arange(n_t, dtype=np.int32), ranks * nrep)),
            "op": pa.array([op for op, _ in tests for _ in range(ranks * nrep)], pa.string()),
            "size": pa.array(np.repeat([s for _, s in tests], ranks * nrep).astype(np.int64)),
            "rank": pa.array(np.tile(np.repeat(np.arange(ranks, dtype=np.int32), nrep), n_t)),
            "rep": pa.array(np.tile(np.arange(nrep, dtype=np.int32), n_t * ranks)),
            "start_ns": pa.array(start.ravel().astype(np.int64)),
            "end_ns": pa.array((start + np.rint(dur[li])).ravel().astype(np.int64)),
            "valid": pa.array(np.ones(n, dtype=np.int8)),
            **{c: pa.nulls(n, pa.int64()) for c in ("gstart_ns", "gend_ns", "rgstart_ns", "rgend_ns")},
        }))
        infos.append(analysis.LaunchInfo(alternative="x", index=li, folder=Path(f"/memory/x/launches/{li:03d}"),
                                         status="complete", meta=meta, clock="local",
                                         clock_reason="local (in memory)", finished_tests=tuple(range(n_t)),
                                         raw_rows=n, syncs=0, has_global_times=False))
    return analysis.Campaign(path=Path("/memory"), kind="campaign", alternatives=("x",), launches=tuple(infos),
                             raw_table=pa.concat_tables(parts), sync=pa.table({}), warnings=())


TESTS = tuple(("allreduce", 8 * 2**i) for i in range(20))


def differ_warnings(res):
    return [w for w in res.warnings if w.code == "ranks-differ"]


def test_null_identical_ranks_are_not_called_different():
    # 3 campaigns × 20 rows: ranks identically distributed, launch, repetition and placement effects
    p_values, flagged, warned = [], 0, 0
    for seed in range(3):
        res = analysis.analyze(rank_campaign(seed, tests=TESTS))
        assert len(res.rank_tests) == len(TESTS)
        p_values += [t.p_value for t in res.rank_tests]
        flagged += sum(t.differ for t in res.rank_tests)
        warned += bool(differ_warnings(res))
    rate = float(np.mean(np.array(p_values) <= 0.05))
    print(f"rank tests with p ≤ 0.05 under the null: {rate:.3f}; flagged rows {flagged}; campaigns warned {warned}")
    assert rate < 0.10  # about 5 % expected; Kruskal–Wallis on pooled repetitions: nearly 100 %
    assert flagged == 0 and warned == 0


def test_null_with_strong_placement_effects_gives_no_warning():
    # where a rank sits changes its time by ~20 % from launch to launch, but no rank is slow by itself
    warned = sum(bool(differ_warnings(analysis.analyze(rank_campaign(seed, launches=5, placement=0.2, tests=TESTS[:8]))))
                 for seed in range(10))
    assert warned == 0


def test_a_rank_slow_in_every_launch_is_found_and_named():
    res = analysis.analyze(rank_campaign(4, slow_rank=2, slow_factor=1.3))
    (t,) = res.rank_tests
    assert t.differ and t.slowest_ranks[0] == 2 and t.ranks == 4
    assert t.slowest_medians_ns[0] > 1.2 * t.median_of_rank_medians_ns
    (w,) = differ_warnings(res)
    assert "x allreduce 8" in w.message and "Friedman" in w.message and "2 (" in w.message
    # the effect size beside p (Hoefler & Belli 2015 §3.2.2): rank 2 slowest in most launches
    assert 0.3 < t.kendall_w <= 1.0 and f"Kendall's W = {t.kendall_w:.2f}" in w.message
    assert res.to_dict()["rank_tests"][0]["kendall_w"] == t.kendall_w


def test_operations_whose_ranks_finish_apart_are_not_tested():
    tests = (("allreduce", 8), ("bcast", 8))
    camp = rank_campaign(5, tests=tests, slow_rank=0, slow_factor=1.5, finish_apart=("bcast",))
    res = analysis.analyze(camp)
    assert [(t.op, t.size) for t in res.rank_tests] == [("allreduce", 8)]
    assert [w.where for w in differ_warnings(res)] == ["x/allreduce/8"]


def test_two_ranks_use_the_exact_sign_test_over_launches():
    res = analysis.analyze(rank_campaign(6, ranks=2, launches=6, slow_rank=1, slow_factor=1.3))
    (t,) = res.rank_tests
    assert t.p_value == pytest.approx(2 / 2**6)  # rank 1 slower in all 6 launches
    assert t.statistic == 6


def test_one_launch_gets_no_rank_test():
    assert analysis.analyze(rank_campaign(7, launches=1, slow_rank=1, slow_factor=2.0)).rank_tests == ()
