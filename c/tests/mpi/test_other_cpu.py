# SPDX-License-Identifier: BSD-3-Clause
"""Other processes' CPU share per block of repetitions (docs/FORMAT.md, tests[].other_cpu): the
blocks are there for every test on the launch's communicator, follow one another over its
recorded repetitions, have shares in [0, 1]; a sub-communicator test has none; and beside a CPU
hog on every core the pooled share is above zero. No timing is asserted: a hog at the launch's
own priority takes part of every CPU, whatever else the machine runs."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from conftest import read_launch, run_bench


def _check_blocks(t: dict) -> dict:
    oc = t["other_cpu"]
    assert oc is not None, t
    n = len(oc["share"])
    assert n >= 1 and all(len(oc[k]) == n for k in ("first_rep", "nrep", "wall_s", "other_cpu_s")), oc
    assert oc["first_rep"][0] == 0
    assert all(oc["first_rep"][k + 1] == oc["first_rep"][k] + oc["nrep"][k] for k in range(n - 1)), oc
    assert oc["first_rep"][-1] + oc["nrep"][-1] == t["nrep"], oc
    assert all(0 <= s <= 1 for s in oc["share"]) and all(w > 0 for w in oc["wall_s"]), oc
    assert oc["tick_s"] == pytest.approx(1 / os.sysconf("SC_CLK_TCK"))
    return oc


@pytest.mark.parametrize("procsync", ["window", "barrier", "none"])
def test_every_test_has_its_blocks(lib, procsync, tmp_path):
    out = tmp_path / "l"
    run_bench(lib, 2, ["--ops", "allreduce,ibcast", "--sizes", "8", "--nrep", 200, "--warmup", 10,
                       "--procsync", procsync, "--nprocs", "1,2", "--out", out], timeout=120)
    meta, _ = read_launch(out)
    whole = [t for t in meta["tests"] if t["nprocs"] == 2]
    assert len(whole) == 2
    for t in whole:
        oc = _check_blocks(t)
        assert oc["block_reps"] == 32  # the window's batch length for 210 repetitions
        # a mark every 32 repetitions run, and at the start and end: at least (10 + 200) / 32
        assert len(oc["share"]) >= (10 + 200) // 32, oc
    # the ranks outside a sub-communicator idle beside it: no blocks there
    assert all(t["other_cpu"] is None for t in meta["tests"] if t["nprocs"] == 1)


def _hogs(n: int) -> list[subprocess.Popen]:
    """n busy loops at this process's priority (the launch's), each ended by the caller or, at
    the latest, after 120 s by itself."""
    spin = "import time\nend = time.monotonic() + 120\nwhile time.monotonic() < end: pass\n"
    return [subprocess.Popen([sys.executable, "-c", spin]) for _ in range(n)]


def test_a_hog_on_every_core_shows_in_the_share(lib, tmp_path):
    hogs = _hogs(os.cpu_count() or 1)
    try:
        out = tmp_path / "busy"
        # a 2 ms delay, 300 repetitions: 0.6 s or more, 60 ticks of /proc/stat per CPU
        run_bench(lib, 2, ["--ops", "delay", "--sizes", 2000000, "--nrep", 300, "--warmup", 4,
                           "--procsync", "barrier", "--out", out], timeout=120)
    finally:
        for h in hogs:
            h.kill()
            h.wait(timeout=10)
    meta, _ = read_launch(out)
    (t,) = meta["tests"]
    oc = _check_blocks(t)
    # pooled over the test: a tick short or over per CPU at either end is 2 ticks / 0.6 s of one
    # CPU, under 0.02 of the machine; a hog sharing every CPU with the ranks takes far more
    pooled = sum(oc["other_cpu_s"]) / (sum(oc["wall_s"]) * meta["system"]["ncpus"])
    assert pooled > 0.05, (pooled, oc)
    assert max(oc["share"]) > 0, oc
