# SPDX-License-Identifier: BSD-3-Clause
"""Run time per repetition: the fast path (rank- or repetition-major blocks) and the general DuckDB path agree."""


import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from data.synth import write_campaign, write_launch

from mpimeter import analysis
from mpimeter.io import runtimes


def canonical(rt):
    order = np.lexsort((rt.rep, rt.test, rt.launch, np.array(rt.alternatives)[rt.alternative]))
    return {f: getattr(rt, f)[order] for f in ("launch", "test", "size", "rep", "online_ns", "resync_ns",
                                               "local_ns", "valid", "spread_ns")}


@pytest.mark.parametrize("kw", [{}, {"syncs": 3, "drift_ppm": 100.0}, {"clocksync": "none", "procsync": "barrier"},
                                {"raw_mode": "reduced"}, {"invalid_fraction": 0.2, "nprocs": 3},
                                {"late_start_fraction": 0.2, "nprocs": 3}])
def test_fast_and_general_paths_agree(tmp_path, kw):
    write_campaign(tmp_path / "c", 2, seed=1, nrep=25, **kw)
    raw = analysis.load_campaign(tmp_path / "c", cache=False, store=False).raw
    fast = runtimes.repetition_times(raw)
    general = runtimes.repetition_times(raw, fast=False)
    a, b = canonical(fast), canonical(general)
    for k in a:
        assert np.array_equal(a[k], b[k], equal_nan=a[k].dtype.kind == "f"), k


def test_shuffled_rows_take_the_general_path_with_the_same_result(tmp_path):
    write_launch(tmp_path / "c" / "launches" / "000", seed=2, nrep=25)
    raw = analysis.load_campaign(tmp_path / "c", cache=False, store=False).raw
    perm = np.random.default_rng(0).permutation(raw.num_rows)
    shuffled = raw.take(pa.array(perm))
    assert runtimes._blockwise(shuffled) is None
    a, b = canonical(runtimes.repetition_times(raw)), canonical(runtimes.repetition_times(shuffled))
    for k in a:
        assert np.array_equal(a[k], b[k], equal_nan=a[k].dtype.kind == "f"), k


def test_run_time_definitions_by_hand():
    # one repetition, two ranks: global = max gend − min gstart, local = max (end − start)
    raw = pa.table({
        "alternative": ["x", "x"], "launch": pa.array([0, 0], pa.int32()), "test": pa.array([0, 0], pa.int32()),
        "op": ["bcast", "bcast"], "size": pa.array([8, 8], pa.int64()), "rank": pa.array([0, 1], pa.int32()),
        "rep": pa.array([0, 0], pa.int32()), "start_ns": pa.array([100, 5000], pa.int64()),
        "end_ns": pa.array([400, 5250], pa.int64()), "valid": pa.array([1, 0], pa.int8()),
        "gstart_ns": pa.array([100, 90], pa.int64()), "gend_ns": pa.array([400, 340], pa.int64()),
        "rgstart_ns": pa.nulls(2, pa.int64()), "rgend_ns": pa.nulls(2, pa.int64())})
    for fast in (True, False):
        rt = runtimes.repetition_times(raw, fast=fast)
        assert rt.online_ns.tolist() == [310.0] and rt.local_ns.tolist() == [300.0]
        assert rt.spread_ns.tolist() == [10.0]  # the ranks' global starts 100 and 90
        assert np.isnan(rt.resync_ns[0]) and rt.valid.tolist() == [False]


def test_spread_is_unknown_without_per_rank_rows(tmp_path):
    write_launch(tmp_path / "c" / "launches" / "000", seed=3, nrep=10, raw_mode="reduced")
    raw = analysis.load_campaign(tmp_path / "c", cache=False, store=False).raw
    for fast in (True, False):
        assert np.isnan(runtimes.repetition_times(raw, fast=fast).spread_ns).all()


def test_repetition_major_rows_give_what_the_general_path_gives(tmp_path):
    # the ranks of each repetition together (test fixtures, converted data): the fast path reads the
    # blocks transposed and its answer is the general path's to the bit, types and order included
    write_launch(tmp_path / "c" / "launches" / "000", seed=5, nrep=25, nprocs=3, invalid_fraction=0.2)
    raw = analysis.load_campaign(tmp_path / "c", cache=False, store=False).raw
    t, r, k = (raw[c].to_numpy() for c in ("test", "rep", "rank"))
    rep_major = raw.take(pa.array(np.lexsort((k, r, t))))
    quick = runtimes._blockwise(rep_major, medians=True)
    assert quick is not None and quick[1] is not None and len(quick[1]) == 12  # 4 (op, size) × 3 ranks
    reps, medians = runtimes.reduce_raw(rep_major)
    general = runtimes.repetition_times(rep_major, fast=False)
    for f in ("alternative", "launch", "test", "op", "size", "rep", "online_ns", "resync_ns", "local_ns", "valid",
              "spread_ns", "rspread_ns"):
        a, b = getattr(reps, f), getattr(general, f)
        assert a.dtype == b.dtype and np.array_equal(a, b, equal_nan=a.dtype.kind == "f"), f
    assert (reps.alternatives, reps.ops) == (general.alternatives, general.ops)
    pd.testing.assert_frame_equal(medians, runtimes._rank_medians_sql(rep_major, None), check_exact=True)
