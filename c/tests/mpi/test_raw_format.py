# SPDX-License-Identifier: BSD-3-Clause
"""The facts of raw.csv that both halves hold, pinned to the binary on the same data:

- the columns: the header a real launch writes (full and --raw reduced) is the one Python
  definition (mpimeter.io.rawformat), which the reader, the import writer and the fake bench use;
- the run time of one repetition: the Python definition (mpimeter.io.runtimes.RUN_TIMES), by both
  of its reductions (the rank-major numpy one and the general SQL one), gives on a full raw.csv
  exactly what the binary's reduced writer gives for the same rows (c/tests/tools/mm_reduce_raw),
  and what the binary's own --raw reduced rows hold is a run time under that same definition.
"""

from __future__ import annotations

import io
import subprocess

import numpy as np
import pandas as pd
import pyarrow as pa

from conftest import REPO, run_bench
from mpimeter.io import rawformat, runtimes


def _header(path) -> str:
    with open(path) as f:
        return f.readline().rstrip("\n")


def test_header_a_launch_writes_is_the_python_definition(lib, tmp_path):
    full, reduced = tmp_path / "full", tmp_path / "reduced"
    args = ["--ops", "allreduce,ibcast", "--sizes", "8", "--nrep", 5, "--seed", 3]
    run_bench(lib, 2, [*args, "--out", full])
    run_bench(lib, 2, [*args, "--raw", "reduced", "--out", reduced])
    assert _header(full / "raw.csv") == rawformat.HEADER
    assert _header(reduced / "raw.csv") == rawformat.HEADER
    assert rawformat.HEADER.split(",") == [c.name for c in rawformat.COLUMNS]
    # the nonblocking components are filled for ibcast only: the columns are in use, not just named
    raw = pd.read_csv(full / "raw.csv")
    assert raw.loc[raw["op"] == "ibcast", list(rawformat.COMPONENTS)].notna().all().all()
    assert raw.loc[raw["op"] == "allreduce", list(rawformat.COMPONENTS)].isna().all().all()


def _with_keys(raw: pd.DataFrame) -> pa.Table:
    """raw.csv's rows as the analysis holds them: alternative and launch in front, no re-synced
    global times."""
    table = pa.Table.from_pandas(raw, preserve_index=False)
    n = table.num_rows
    table = table.append_column("rgstart_ns", pa.nulls(n, pa.int64())).append_column(
        "rgend_ns", pa.nulls(n, pa.int64()))
    table = table.add_column(0, "launch", pa.array(np.zeros(n, dtype=np.int32)))
    return table.add_column(0, "alternative", pa.array(["a"] * n))


def test_python_run_time_is_the_binarys_on_the_same_rows(lib, tmp_path):
    out = tmp_path / "full"
    run_bench(lib, 4, ["--ops", "allreduce,bcast,barrier", "--sizes", "8,4096", "--nrep", 10,
                       "--seed", 5, "--out", out])
    raw = pd.read_csv(out / "raw.csv")
    tool = REPO / "build" / lib / "tests" / "mm_reduce_raw"
    reduced = subprocess.run([str(tool), str(out / "raw.csv"), "4"], capture_output=True, text=True,
                             check=True).stdout
    assert reduced.splitlines()[0] == rawformat.HEADER
    c_rows = pd.read_csv(io.StringIO(reduced)).sort_values(["test", "rep"]).reset_index(drop=True)
    table = _with_keys(raw)
    fast = runtimes.repetition_times(table)
    general = runtimes.repetition_times(table, fast=False)
    shuffled = runtimes.repetition_times(table.take(np.random.default_rng(1).permutation(table.num_rows)))
    c_local = (c_rows["end_ns"] - c_rows["start_ns"]).to_numpy()
    c_global = (c_rows["gend_ns"] - c_rows["gstart_ns"]).to_numpy()
    for reps in (fast, general, shuffled):
        order = np.lexsort((reps.rep, reps.test))
        assert len(reps) == len(c_rows) == raw.groupby(["test", "rep"]).ngroups
        assert (c_rows["test"].to_numpy() == reps.test[order]).all()
        assert np.array_equal(c_local, reps.local_ns[order].astype(np.int64))
        assert np.array_equal(c_global, reps.online_ns[order].astype(np.int64))
        assert np.array_equal(c_rows["valid"].to_numpy() == 1, reps.valid[order])
    # the two clocks' definitions differ on these rows (4 ranks never end together): a swap of
    # them, or of max and min, would show
    assert not np.array_equal(c_local, c_global)


def test_reduced_launch_rows_hold_run_times_by_the_same_definition(lib, tmp_path):
    """A --raw reduced launch writes one row per repetition (rank -1): the Python definition over
    that single row gives its own span back, on both clocks and by both reductions."""
    out = tmp_path / "reduced"
    run_bench(lib, 2, ["--ops", "allreduce", "--sizes", "8", "--nrep", 20, "--seed", 4, "--raw", "reduced",
                       "--out", out])
    raw = pd.read_csv(out / "raw.csv")
    assert (raw["rank"] == -1).all() and len(raw) == 20
    table = _with_keys(raw)
    for reps in (runtimes.repetition_times(table), runtimes.repetition_times(table, fast=False)):
        assert np.array_equal(reps.local_ns.astype(np.int64), (raw["end_ns"] - raw["start_ns"]).to_numpy())
        assert np.array_equal(reps.online_ns.astype(np.int64), (raw["gend_ns"] - raw["gstart_ns"]).to_numpy())
