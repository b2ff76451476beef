# SPDX-License-Identifier: BSD-3-Clause
"""Rows to rank 0 in bounded memory (bench/gather.c): with --raw full rank 0 takes the ranks'
arrays a chunk of ranks at a time (4 MiB of arrays; at 30 000 repetitions that is 1 rank per
chunk) and the rows are the same as a whole gather would give: every rank's every repetition
once, in rank order, components included; with --raw reduced the rows come from MPI reductions:
one per repetition, and meta.json's invalid count agrees with the rows either way."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import read_launch, run_bench

COMPONENTS = ["init_ns", "test_ns", "wait_ns", "compute_ns", "blocking_ns"]
NREP_CHUNKED = 30000  # 30 000 x 76 B = 2.3 MB per rank: one rank per 4 MiB chunk


def _invalid_by_test(raw, reduced: bool) -> dict[int, int]:
    if reduced:
        return {int(t): int((g["valid"] == 0).sum()) for t, g in raw.groupby("test")}
    per_rep = raw.groupby(["test", "rep"])["valid"].min()
    return {int(t): int((g == 0).sum()) for t, g in per_rep.groupby(level="test")}


def test_full_rows_gathered_in_chunks_of_ranks(tmp_path):
    out = tmp_path / "full"
    # a budget no loaded machine reaches: the test is about the rows, not about the time a busy
    # machine takes for 30 000 repetitions of 4 oversubscribed ranks (an ended test is incomplete);
    # no process sync (none): every repetition is valid as under barrier starts, without a
    # barrier of 4 oversubscribed ranks before each of the 60 000 (33 s of the launch's 36 at load
    # 17, 10 s without)
    run_bench("openmpi", 4, ["--ops", "simple-empty,ibarrier", "--nrep", NREP_CHUNKED, "--warmup", 0,
                             "--procsync", "none", "--clocksync", "none", "--launch-budget-s", 3000,
                             "--seed", 4, "--out", out], timeout=3600)
    meta, raw = read_launch(out)
    assert [t["status"] for t in meta["tests"]] == ["complete", "complete"]
    assert len(raw) == 2 * 4 * NREP_CHUNKED
    for test, rows in raw.groupby("test"):
        # rank order, then repetition order, as one gather wrote them
        assert rows["rank"].to_numpy().tolist() == np.repeat(np.arange(4), NREP_CHUNKED).tolist()
        assert rows["rep"].to_numpy().tolist() == np.tile(np.arange(NREP_CHUNKED), 4).tolist()
        assert (rows["end_ns"] >= rows["start_ns"]).all()
    nbc = raw[raw["op"] == "ibarrier"]
    assert nbc[COMPONENTS].notna().all().all()
    assert raw.loc[raw["op"] == "simple-empty", COMPONENTS].isna().all().all()
    invalid = _invalid_by_test(raw, reduced=False)
    assert {t["test"]: t["invalid"] for t in meta["tests"]} == invalid


@pytest.mark.parametrize("lib", ["openmpi", "mpich"])
def test_reduced_rows_from_reductions(lib, tmp_path):
    out = tmp_path / "reduced"
    # window starts on 4 ranks sharing 2 cores: late ones among them, for the invalid count
    # (MPICH busy-polls there: each repetition lasts scheduler slices, and late ones are many)
    nrep = 40 if lib == "mpich" else 100
    run_bench(lib, 4, ["--ops", "simple-empty,ibarrier,allreduce", "--sizes", "64", "--nrep", nrep,
                       "--raw", "reduced", "--seed", 4, "--out", out], timeout=600)
    meta, raw = read_launch(out)
    assert all(t["status"] == "complete" for t in meta["tests"])
    assert (raw["rank"] == -1).all()
    for test, rows in raw.groupby("test"):
        assert rows["rep"].tolist() == list(range(nrep))
        assert (rows["end_ns"] >= rows["start_ns"]).all()
        assert (rows["gend_ns"] >= rows["gstart_ns"]).all()
    nbc = raw[raw["op"] == "ibarrier"]
    # the slowest rank's component: never below what one call must have taken (init + wait > 0)
    assert (nbc["init_ns"].dropna() >= 0).all() and nbc["wait_ns"].notna().any()
    assert raw.loc[raw["op"] != "ibarrier", COMPONENTS].isna().all().all()
    assert {t["test"]: t["invalid"] for t in meta["tests"]} == _invalid_by_test(raw, reduced=True)
