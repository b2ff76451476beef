# SPDX-License-Identifier: BSD-3-Clause
"""Reading a campaign launch by launch (analysis.loading): each launch's raw rows are reduced as
soon as they are read and dropped, and what is kept equals what the whole table would give; the
campaign's store is written once, not on every load."""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
import pyarrow as pa
from data.synth import write_campaign

from mpimeter import analysis
from mpimeter.analysis import loading
from mpimeter.io import campaign as io_campaign
from mpimeter.io import runtimes
from mpimeter.io.store import STORE_NAME


def _campaign(root, **kw):
    args = dict(ops=("allreduce", "bcast"), sizes=(8, 1024), nrep=40, nprocs=3, invalid_fraction=0.1)
    args.update(kw)
    return write_campaign(root, 3, seed=5, **args)


def test_each_launch_is_reduced_alone_and_its_rows_dropped(tmp_path):
    _campaign(tmp_path / "c")
    seen = []

    def spy(alternative, index, data, raw):
        seen.append((index, raw.num_rows, set(raw["launch"].to_pylist())))
        return index

    loaded = io_campaign.load(tmp_path / "c", reduce=spy, cache=False)
    assert [s[0] for s in seen] == [0, 1, 2]
    assert all(keys == {index} and n == 3 * 4 * 40 for index, n, keys in seen)  # one launch's rows, all of them
    assert all(ll.data.raw is None and ll.reduced == ll.index for ll in loaded.launches)
    camp = analysis.load_campaign(tmp_path / "c", cache=False, store=False)
    assert camp.raw_table is None  # the campaign holds no raw rows; .raw reads them again
    assert camp.raw.num_rows == 3 * 3 * 4 * 40


def _assert_same(a: loading.Reductions, b: loading.Reductions) -> None:
    for name in ("launch", "test", "size", "rep", "valid"):
        np.testing.assert_array_equal(getattr(a.reps, name), getattr(b.reps, name))
    for name in ("online_ns", "resync_ns", "local_ns", "spread_ns"):
        np.testing.assert_array_equal(getattr(a.reps, name), getattr(b.reps, name))
    for codes, names in (("alternative", "alternatives"), ("op", "ops")):
        np.testing.assert_array_equal(np.asarray(getattr(a.reps, names))[getattr(a.reps, codes)],
                                      np.asarray(getattr(b.reps, names))[getattr(b.reps, codes)])
    pd.testing.assert_frame_equal(a.rank_medians.reset_index(drop=True), b.rank_medians.reset_index(drop=True),
                                  check_dtype=False)


def test_what_streaming_keeps_equals_the_reductions_of_all_rows(tmp_path):
    _campaign(tmp_path / "a" / "x", syncs=2, drift_ppm=3.0)  # re-synced: recomputed global times
    _campaign(tmp_path / "b" / "x", raw_mode="reduced")  # no per-rank rows: no rank medians
    camp = analysis.load_campaigns([tmp_path / "a" / "x", tmp_path / "b" / "x"], cache=False, store=False)
    assert camp.alternatives == ("a/x", "b/x")  # renamed apart, the reductions with them
    whole = loading.reduce_raw(camp.raw, frozenset())
    _assert_same(camp.reductions, whole)
    assert set(camp.reductions.rank_medians["alternative"]) == {"a/x"}
    # and so the analysis: the same rows as from a campaign that holds every raw row in memory
    in_memory = analysis.Campaign(path=camp.path, kind=camp.kind, alternatives=camp.alternatives,
                                  launches=camp.launches, raw_table=camp.raw, sync=camp.sync,
                                  warnings=camp.warnings)
    assert [r.to_dict() for r in analysis.analyze(camp).rows] == [r.to_dict() for r in analysis.analyze(in_memory).rows]


def test_rank_medians_of_the_fast_path_equal_duckdbs(tmp_path):
    _campaign(tmp_path / "c", nrep=41)  # odd and (after invalid ones) even counts: the middle two averaged
    raw = analysis.load_campaign(tmp_path / "c", cache=False, store=False).raw
    reps_fast, fast = runtimes.reduce_raw(raw)
    shuffled = raw.take(pa.array(np.random.default_rng(1).permutation(raw.num_rows)))  # not rank-major: SQL
    reps_sql, sql = runtimes.reduce_raw(shuffled)
    pd.testing.assert_frame_equal(fast, sql, check_dtype=False)
    np.testing.assert_array_equal(reps_fast.local_ns, reps_sql.local_ns)
    assert len(fast) == 3 * 4 * 3 and fast["med"].notna().all()


def test_the_store_is_written_once_and_again_when_a_launch_changes(tmp_path):
    root = _campaign(tmp_path / "c")
    analysis.load_campaign(root)
    # the Parquet copies, written in a thread while the next launch was read, are all there
    copies = sorted(root.glob("launches/*/raw.parquet"))
    assert len(copies) == 3
    stamps = [p.stat().st_mtime_ns for p in copies]
    store = root / STORE_NAME
    first = store.stat().st_mtime_ns
    analysis.load_campaign(root)
    assert store.stat().st_mtime_ns == first and [p.stat().st_mtime_ns for p in copies] == stamps
    meta = root / "launches" / "001" / "meta.json"
    os.utime(meta, ns=(meta.stat().st_atime_ns, meta.stat().st_mtime_ns + 10**9))
    analysis.load_campaign(root)
    assert store.stat().st_mtime_ns != first


def test_rank_durations_read_only_what_is_asked(tmp_path):
    _campaign(tmp_path / "a" / "x")
    _campaign(tmp_path / "b" / "x")
    res = analysis.analyze(analysis.load_campaigns([tmp_path / "a" / "x", tmp_path / "b" / "x"], cache=False,
                                                   store=False))
    d = res.rank_durations(alternative="b/x", op="bcast", size=8)
    assert len(d) == 3 * 3 * 40 and set(d["alternative"]) == {"b/x"} and set(d["op"]) == {"bcast"}
    assert not isinstance(d["op"].dtype, pd.CategoricalDtype)  # plain strings, as documented, not the reader's dictionary codes
