# SPDX-License-Identifier: BSD-3-Clause
"""A launch's cost, on real ranks:

- meta.json "phases" holds init, sync, probes, tests and write in the order they ran, each with
  its start (seconds since rank 0's main began) and wall time; they do not overlap, and together
  they fit in the launch's wall time as the caller measured it;
- --copy-probe-from DIR skips the copy probe (an earlier launch's folder measured it), records
  the folder as config.copy_probe_from and leaves probes.copy_bandwidth null, and its cost in
  phases.probes.steps null (each probe that ran has its wall time there); a folder without a
  meta.json, --copy-probe-bytes 0 beside it, or an empty path are refused (exit 2, nothing
  written); --describe offers it as an option mpimeter run sets per launch;
- --mpit-from DIR skips reading the library's control variables (an earlier launch's folder read
  them): config.mpit_from names the folder, mpi.mpi_t is null; the same checks refuse a folder
  without a meta.json and the launch's own --out.
"""

from __future__ import annotations

import json
import time

import pytest
from conftest import assert_refused, described, run_bench

PHASES = ["init", "sync", "probes", "tests", "write"]
SMALL = ["--ops", "allreduce", "--sizes", "8,1024", "--nrep", "20", "--warmup", "2",
         "--copy-probe-bytes", "65536"]


def _launch(lib, out, extra=()):
    start = time.monotonic()
    run_bench(lib, 2, SMALL + list(extra) + ["--out", out])
    return time.monotonic() - start, json.loads((out / "meta.json").read_text())


@pytest.fixture(scope="module")
def barrier_launch(tmp_path_factory):
    """``barrier_launch(lib)``: (folder, meta) of one launch of SMALL with barrier starts per
    library, made once for the tests of this module that only read it (an earlier launch's
    folder for --copy-probe-from and --mpit-from, a launch without a clock sync)."""
    made: dict[str, tuple] = {}

    def get(lib: str):
        if lib not in made:
            out = tmp_path_factory.mktemp(f"barrier-{lib}") / "first"
            made[lib] = (out, _launch(lib, out, ["--procsync", "barrier"])[1])
        return made[lib]
    return get


def test_phases_are_ordered_and_fit_the_launch(lib, tmp_path):
    wall_s, meta = _launch(lib, tmp_path / "l")
    phases = meta["phases"]
    assert list(phases) == PHASES
    assert phases["init"]["start_s"] == 0
    end = 0.0
    for name in PHASES:
        p = phases[name]
        assert p["seconds"] >= 0, name
        assert p["start_s"] >= end - 1e-9, f"{name} starts before the previous phase ended"
        end = p["start_s"] + p["seconds"]
    # MPI_Init is in init: it takes a while in both libraries
    assert phases["init"]["seconds"] > 0.001
    # the two tests ran in "tests": their own start times fall inside it (on the launch's clock,
    # which starts at the epoch, inside init): each test lasted at most the phase
    assert all(t["duration_s"] <= phases["tests"]["seconds"] + 1e-6 for t in meta["tests"])
    # every phase is inside the wall time mpirun took (which adds its own start and MPI_Finalize)
    assert end < wall_s
    # the default clock sync (hca3) fits until its predicted error is within the window's start
    # tolerance (--fit-target-ns auto); given as auto (null), used as the tests' tolerance
    assert meta["config"]["clocksync"] == "hca3"
    assert meta["config"]["clocksync_params"]["fit_target_ns"] is None
    assert meta["clock_sync"]["params"]["fit_target_ns"] == meta["tests"][0]["start_tolerance_ns"]
    # ...but every rank here reads this kernel's CLOCK_MONOTONIC: auto runs no sync at all, and
    # the residual check still measures the clocks
    assert (meta["clock_sync"]["method"], meta["clock_sync"]["chosen"]) == ("none", "auto, one clock")
    assert meta["clock_sync"]["residual_start"]["max_abs_ns"] is not None
    assert not any(c["code"] == "clocksync-none-global" for c in meta["conditions"])


def test_auto_syncs_clocks_that_are_not_one(lib, tmp_path):
    """A virtual timer gives each rank its own clock (offset and skew): auto keeps hca3 there; a
    sync named on the command line runs as given, one clock or not."""
    _, virtual = _launch(lib, tmp_path / "virtual", ["--timer", "virtual", "--virtual-offset-s", "0.01",
                                                     "--virtual-skew-ppm", "10"])
    assert (virtual["clock_sync"]["method"], virtual["clock_sync"]["chosen"]) == ("hca3", "auto")
    _, given = _launch(lib, tmp_path / "given", ["--clocksync", "hca3"])
    assert (given["clock_sync"]["method"], given["clock_sync"]["chosen"]) == ("hca3", "given")
    assert given["clock_sync"]["models"][1]["anchor_ns"] != 0  # a model was fitted


def test_sync_fit_stops_early_with_a_target(lib, tmp_path):
    """--fit-target-ns: rank 1's edge took between 8 and 32 points (sync.csv), recorded with the
    5 s horizon; with --fit-target-ns 1 all 32, spread over fit_span_s (the "sync" phase holds
    them); without a process sync that plans starts, auto takes every point too."""
    _, meta = _launch(lib, tmp_path / "early", ["--clocksync", "hca3", "--fit-target-ns", "2000"])
    edges = (tmp_path / "early" / "sync.csv").read_text().count(",edge,")
    assert 8 <= edges <= 32
    params = meta["clock_sync"]["params"]
    assert params["fit_target_ns"] == 2000 and params["fit_horizon_s"] == 5
    assert meta["config"]["clocksync_params"]["fit_target_ns"] == 2000
    assert meta["clock_sync"]["residual_start"]["max_abs_ns"] is not None  # accuracy: bench/launch_states.py
    _, full = _launch(lib, tmp_path / "full", ["--clocksync", "hca3", "--fit-target-ns", "1"])
    assert (tmp_path / "full" / "sync.csv").read_text().count(",edge,") == 32
    assert full["phases"]["sync"]["seconds"] >= 0.9 * full["config"]["clocksync_params"]["fit_span_s"]
    _, planless = _launch(lib, tmp_path / "planless", ["--procsync", "loop-barrier", "--clocksync", "hca3"])
    assert planless["clock_sync"]["params"]["fit_target_ns"] is None
    assert (tmp_path / "planless" / "sync.csv").read_text().count(",edge,") == 32


def test_fit_target_zero_is_refused(lib, tmp_path):
    assert_refused(lib, SMALL + ["--fit-target-ns", "0"], "--fit-target-ns", tmp_path)


def test_phases_without_a_sync(lib, barrier_launch):
    folder, meta = barrier_launch(lib)
    assert meta["config"]["clocksync"] == "none"
    phases = meta["phases"]
    # no fit: the sync phase is a residual check only (its length is load's: not asserted)
    assert ",edge," not in (folder / "sync.csv").read_text()
    assert phases["probes"]["start_s"] >= phases["sync"]["start_s"] + phases["sync"]["seconds"] - 1e-9


def test_copy_probe_from_an_earlier_launch(lib, tmp_path, barrier_launch):
    source, first = barrier_launch(lib)
    assert first["config"]["copy_probe_from"] is None
    assert first["probes"]["copy_bandwidth"]["max_bytes"] == 65536
    _, later = _launch(lib, tmp_path / "later", ["--procsync", "barrier", "--copy-probe-from", source])
    assert later["config"]["copy_probe_from"] == str(source)
    assert later["config"]["copy_probe_bytes"] == 65536  # what the first launch probed with
    assert later["probes"]["copy_bandwidth"] is None
    assert later["status"] == "complete"
    # each probe's cost (phases.probes.steps): the copy probe ran in the first launch only, and
    # the later one says it did not run
    steps = [first["phases"]["probes"]["steps"], later["phases"]["probes"]["steps"]]
    assert [list(s) for s in steps] == [["cacheline", "empty_region", "copy_bandwidth", "pair_survey"]] * 2
    assert steps[0]["copy_bandwidth"] >= 0 and steps[1]["copy_bandwidth"] is None
    for s, meta in zip(steps, (first, later)):
        ran = [v for v in s.values() if v is not None]
        assert all(v >= 0 for v in ran)
        assert sum(ran) <= meta["phases"]["probes"]["seconds"] + 1e-6  # parts of the phase


def test_copy_probe_from_is_checked(lib, tmp_path, barrier_launch):
    empty = tmp_path / "empty"
    empty.mkdir()
    assert_refused(lib, SMALL + ["--copy-probe-from", empty], "not a launch folder (no meta.json in it)",
                   tmp_path)
    first, _ = barrier_launch(lib)
    assert_refused(lib, ["--ops", "barrier", "--copy-probe-bytes", "0", "--copy-probe-from",
                         first], "--copy-probe-bytes 0", tmp_path)
    assert_refused(lib, SMALL + ["--copy-probe-from="], "--copy-probe-from: empty path", tmp_path)


def test_describe_offers_copy_probe_from(lib):
    spec = next(o for o in described(lib)["options"] if o["name"] == "copy-probe-from")
    assert spec["type"] == "path" and spec["per_launch"] is True and "bench" in spec["modes"]


def test_mpit_from_an_earlier_launch(lib, tmp_path, barrier_launch):
    source, first = barrier_launch(lib)
    assert first["config"]["mpit_from"] is None
    assert first["mpi"]["mpi_t"] is not None and first["mpi"]["mpi_t"]["cvars"] > 0
    _, later = _launch(lib, tmp_path / "later", ["--procsync", "barrier", "--mpit-from", source])
    assert later["config"]["mpit_from"] == str(source)
    assert later["mpi"]["mpi_t"] is None
    assert later["probes"]["copy_bandwidth"] is not None  # the copy probe is not tied to it
    assert later["status"] == "complete"


def test_mpit_from_is_checked(lib, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    assert_refused(lib, SMALL + ["--mpit-from", empty], "not a launch folder (no meta.json in it)", tmp_path)
    # assert_refused gives --out <tmp_path>/never
    assert_refused(lib, SMALL + ["--mpit-from", tmp_path / "never"], "is this launch's own --out", tmp_path)
    spec = next(o for o in described(lib)["options"] if o["name"] == "mpit-from")
    assert spec["type"] == "path" and spec["per_launch"] is True
