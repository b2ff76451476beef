# SPDX-License-Identifier: BSD-3-Clause
"""The round-based process syncs on real ranks: `roundtime` ends a test at its time budget and
records only repetitions that every rank started on time; `harmonize` re-syncs the clocks when the
last sync is older than --resync-s, and each re-sync is a new phase of sync.csv."""

from __future__ import annotations

import pandas as pd
import pytest

from conftest import read_launch, run_bench

FOREVER = 1_000_000  # an --nrep that only the time budget can end


@pytest.mark.parametrize("procsync", ["roundtime", "harmonize"])
def test_budget_ends_the_test_and_late_rounds_are_redone(procsync, tmp_path):
    out = tmp_path / procsync
    run_bench("openmpi", 4, ["--ops", "allreduce,barrier", "--sizes", 8, "--nrep", FOREVER,
                             "--warmup", 2, "--procsync", procsync, "--clocksync", "hca3o",
                             "--roundtime-budget-s", "0.3", "--resync-s", "0",
                             # 4 ranks share 2 cores: the late-wakeup check (on when oversubscribed)
                             # would make nearly every round late; this test is about the budget
                             "--start-tolerance-ns", "1000000000", "--out", out])
    meta, raw = read_launch(out)
    assert meta["status"] == "complete"
    for t in meta["tests"]:
        assert 0 < t["nrep"] < FOREVER, t  # the budget, not nrep, ended it
        assert t["status"] == "incomplete" and t["ended_by"] == "budget", t
        assert t["duration_s"] < 30, t
        assert t["invalid"] == 0, t       # a late round is redone, never recorded
        assert t["redone"] >= 0
    assert (raw["valid"] == 1).all()
    # every recorded repetition has all ranks
    per_rep = raw.groupby(["test", "rep"])["rank"].nunique()
    assert (per_rep == 4).all()


def test_harmonize_resyncs_the_clocks(tmp_path):
    out = tmp_path / "h"
    run_bench("openmpi", 4, ["--ops", "delay", "--sizes", "10000,20000", "--nrep", FOREVER,
                             "--warmup", 0, "--procsync", "harmonize", "--clocksync", "hca3o",
                             "--timer", "virtual", "--virtual-offset-s", "1",
                             "--virtual-skew-ppm", "100", "--seed", 3,
                             "--roundtime-budget-s", "0.4", "--resync-s", "0.1", "--out", out])
    meta, _ = read_launch(out)
    resyncs = sum(t["resyncs"] for t in meta["tests"])
    assert resyncs >= 2, meta["tests"]
    assert meta["clock_sync"]["resyncs"] >= resyncs
    sync = pd.read_csv(out / "sync.csv")
    models = sync[sync["kind"] == "model"]
    # one model row per rank per sync: the initial one (phase 0) and every re-sync
    phases = sorted(p for p in models["phase"].unique() if p >= 0)
    assert phases == list(range(len(phases))) and len(phases) >= resyncs + 1
    assert (models.groupby("phase")["rank"].nunique() == 4).all()
    # each re-sync measured edges again (hca3o: one per rank but 0)
    edges = sync[(sync["kind"] == "edge") & (sync["phase"] >= 1)]
    assert (edges.groupby("phase")["rank"].nunique() == 3).all()
