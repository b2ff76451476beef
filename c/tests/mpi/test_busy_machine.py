# SPDX-License-Identifier: BSD-3-Clause
"""A busy machine: the window's own policy (a capped window, then roundtime, then barrier), a
budget per test, statuses that say why a test has no result, the late-start check kept on when
ranks outnumber cores, and the clock sync that checks itself (docs/FORMAT.md,
tests[].procsync_switches, tests[].budget_s, clock_sync.self_check).

Lateness is injected (--inject-late-wakeup-us: the last rank oversleeps the planned start of
every 4th repetition; --inject-sync-slope-ppm: a spurious drift in the last rank's model), so
that what the policy does follows from the injection, not from the machine's load: load only
adds late repetitions, and every assertion holds with more of them."""

from __future__ import annotations

import pytest

from conftest import assert_refused, read_launch, run_bench

NPS = (2, 4)


def _late_delay(lib, np, out, *extra):
    """A 100 us delay whose last rank wakes 500 us late for every 4th start (25 % late, more
    than the 0.2 threshold below), 100 repetitions."""
    run_bench(lib, np, ["--ops", "delay", "--sizes", 100000, "--nrep", 100, "--warmup", 4,
                        "--inject-late-wakeup-us", 500, "--out", out, *extra])
    return read_launch(out)


@pytest.mark.parametrize("np", NPS)
def test_window_goes_on_with_roundtime_then_barrier(lib, np, tmp_path):
    meta, raw = _late_delay(lib, np, tmp_path / "l", "--switch-late-fraction", 0.2)
    (t,) = meta["tests"]
    sw = t["procsync_switches"]
    # two late batches in a row (the doubling between them did not help): roundtime; its first
    # batch of rounds is late too (nothing left to grow): barrier, which has no planned start
    assert [(s["from"], s["to"], s["why"]) for s in sw] == [
        ("window", "roundtime", "late-twice"), ("roundtime", "barrier", "late-at-cap")], sw
    assert 0 <= sw[0]["from_rep"] <= sw[1]["from_rep"] <= 100
    assert sw[0]["at_seq"] < sw[1]["at_seq"]
    assert all(0.2 < s["late_fraction"] <= 1 for s in sw)
    assert sw[0]["window_ns"] > 0
    assert t["status"] == "complete" and t["nrep"] == 100 and t["ended_by"] == "nrep"
    # the barrier's repetitions cannot be late: every one from the switch on is valid
    tail = raw[raw["rep"] >= sw[1]["from_rep"]]
    assert len(tail) == np * (100 - sw[1]["from_rep"]) and (tail["valid"] == 1).all()
    # the launch's process sync is still the configured one; the condition names the test
    assert meta["proc_sync"]["method"] == "window"
    (cond,) = [c for c in meta["conditions"] if c["code"] == "procsync-switched"]
    assert "delay 100000 -> barrier" in cond["message"]
    params = meta["config"]["procsync_params"]
    assert params["switch_late_fraction"] == 0.2 and params["window_growth_max"] == 64


@pytest.mark.parametrize("np", NPS)
def test_no_switch_at_one_or_with_a_given_window(lib, np, tmp_path):
    meta, _ = _late_delay(lib, np, tmp_path / "never", "--switch-late-fraction", 1)
    (t,) = meta["tests"]
    assert t["procsync_switches"] == [] and t["invalid_late_wakeup"] >= 100 // 4 - 1, t
    assert not [c for c in meta["conditions"] if c["code"] == "procsync-switched"]
    # a window the user gave is kept as given, late or not
    meta, _ = _late_delay(lib, np, tmp_path / "given", "--switch-late-fraction", 0.2,
                          "--window-us", 1000)
    (t,) = meta["tests"]
    assert t["procsync_switches"] == [] and t["window_ns"] == 1000000


@pytest.mark.parametrize("np", NPS)
def test_window_growth_is_capped(lib, np, tmp_path):
    """An oversleep every 4th start longer than the window leaves the following windows late: the
    window doubles batch after batch unless its cap stops it (1 = it never grows)."""
    common = ["--ops", "delay", "--sizes", 100000, "--nrep", 150, "--warmup", 0, "--switch-late-fraction", 1]
    run_bench(lib, np, common + ["--inject-late-wakeup-us", 2000, "--window-growth-max", 1,
                                 "--out", tmp_path / "capped"])
    capped, _ = read_launch(tmp_path / "capped")
    # a window no shorter than the oversleep absorbs it (oversubscribed ranks that busy-poll give
    # pilots of milliseconds): the oversleep that must make later starts late is 4 of the pilots
    # the first launch measured, at least 2 ms (at most the option's bound, 1 s)
    oversleep_us = min(1_000_000, max(2000, 4 * capped["tests"][0]["window_pilot_ns"] // 1000))
    run_bench(lib, np, common + ["--inject-late-wakeup-us", oversleep_us, "--window-growth-max", 64,
                                 "--out", tmp_path / "grown"])
    grown, _ = read_launch(tmp_path / "grown")
    # each window starts at its pilot's size (a 100 us delay's median plus half of it as idle
    # time: ~150 us quiet, more on a busy machine, so the check is against the recorded pilot,
    # not a fixed size)
    (c,), (g,) = capped["tests"], grown["tests"]
    assert c["window_pilot_ns"] >= 150_000 and g["window_pilot_ns"] >= 150_000, (c, g)
    assert c["window_ns"] == c["window_pilot_ns"], c  # a cap of 1: never above the pilot's
    assert 2 * g["window_pilot_ns"] <= g["window_ns"] <= 64 * g["window_pilot_ns"], g  # grew, within its cap


@pytest.mark.parametrize("np", NPS)
def test_each_test_has_a_budget_and_the_launch_goes_on(lib, np, tmp_path):
    out = tmp_path / "b"
    run_bench(lib, np, ["--ops", "delay", "--sizes", "10000,20000", "--nrep", 1000000,
                        "--warmup", 0, "--launch-budget-s", 1, "--procsync", "barrier", "--out", out],
              timeout=120)
    meta, raw = read_launch(out)
    assert meta["status"] == "complete"
    assert meta["config"]["procsync_params"]["launch_budget_s"] == 1
    first, second = sorted(meta["tests"], key=lambda t: t["test"])
    assert 0.3 < first["budget_s"] <= 0.5  # 1 s over two tests, less what came before the first
    assert 0 < second["budget_s"] <= 1
    for t in (first, second):
        assert t["status"] == "incomplete" and t["ended_by"] == "budget", t
        assert 0 < t["nrep"] < 1000000
        assert t["duration_s"] < t["budget_s"] + 5, t  # ended at a batch boundary after it
        assert len(raw[raw["test"] == t["test"]]) == np * t["nrep"]  # its rows are kept
    assert any(c["code"] == "budget-ended-tests" for c in meta["conditions"])


@pytest.mark.parametrize("np", NPS)
def test_no_valid_repetition_is_a_failure_with_its_reason(lib, np, tmp_path):
    # a 1 us window for a 100 us delay: every repetition overruns
    out = tmp_path / "w"
    run_bench(lib, np, ["--ops", "delay", "--sizes", "100000,200000", "--nrep", 20, "--warmup", 2,
                        "--window-us", 1, "--out", out])
    meta, raw = read_launch(out)
    assert meta["status"] == "complete"  # the launch went on
    for t in meta["tests"]:
        assert t["status"] == "failed" and t["error"]["code"] == "no-valid-repetitions", t
        assert t["invalid_overrun"] > 0
    assert raw.empty  # a failed test has no rows
    failed = [c for c in meta["conditions"] if c["code"] == "test-failed"]
    assert len(failed) == 2 and "no-valid-repetitions" in failed[0]["message"]
    # --nrep ended it with the window given: a larger window helps, a larger time budget cannot
    assert all("a larger --window-us" in c["hint"] and "budget" not in c["hint"] for c in failed), failed
    # harmonize whose every round is late (a 1 ns start tolerance) records nothing: never complete
    out = tmp_path / "h"
    run_bench(lib, np, ["--ops", "allreduce", "--sizes", 8, "--nrep", 50, "--warmup", 0,
                        "--procsync", "harmonize", "--start-tolerance-ns", 1,
                        "--roundtime-budget-s", "0.2", "--out", out])
    meta, _ = read_launch(out)
    (t,) = meta["tests"]
    assert t["status"] == "failed" and t["error"]["code"] == "no-valid-repetitions", t
    assert t["redone"] > 0 and "0 recorded" in t["error"]["message"]
    # its time budget ended it: the hint names the budget of roundtime and harmonize
    (c,) = [c for c in meta["conditions"] if c["code"] == "test-failed"]
    assert "--roundtime-budget-s" in c["hint"], c


@pytest.mark.parametrize("np", NPS)
def test_late_start_check_stays_on_when_oversubscribed(lib, np, tmp_path):
    """4 ranks on this 2-core machine share CPUs; 2 do not. The check is on either way."""
    out = tmp_path / "o"
    run_bench(lib, np, ["--ops", "delay", "--sizes", 100000, "--nrep", 40, "--warmup", 0,
                        "--window-us", 2000, "--inject-late-wakeup-us", 300, "--out", out])
    meta, raw = read_launch(out)
    (t,) = meta["tests"]
    assert t["start_tolerance_ns"] is not None and t["start_tolerance_ns"] >= 1000
    assert t["invalid_late_wakeup"] >= 40 // 4 - 1, t  # every 4th start of the last rank
    # every 4th start of the loop, counting the unrecorded first repetition of each batch (it
    # follows the batch's pause): at least one in 4 recorded rows of the last rank, less the
    # few that fell on such a first repetition
    last = raw[raw["rank"] == np - 1]
    assert (last["valid"] == 0).sum() >= len(last) // 4 - 2, last
    if np == 4:
        assert any(c["code"] == "oversubscribed" for c in meta["conditions"])


@pytest.mark.parametrize("np", NPS)
def test_clock_sync_checks_itself(lib, np, tmp_path):
    # the check runs after the first sync, whatever the tests: few repetitions where MPICH
    # busy-polls on ranks that share cores (each barrier start lasts scheduler slices)
    nrep = 20 if lib == "mpich" and np > 2 else 50
    # a spurious 2 % drift in the last rank's fitted model: the offset-only model is better
    out = tmp_path / "bad"
    run_bench(lib, np, ["--ops", "delay", "--sizes", 10000, "--nrep", nrep, "--clocksync", "hca3",
                        "--procsync", "barrier", "--inject-sync-slope-ppm", 20000, "--out", out])
    meta, _ = read_launch(out)
    cs = meta["clock_sync"]
    check = cs["self_check"]
    assert check["used"] == "offset-only", check
    assert check["drift_aware_residual_ns"] > check["offset_only_residual_ns"] + check["margin_ns"]
    assert cs["model"] == "offset" and meta["config"]["resync_s"] == 1
    assert all(m["slope"] == 0 for m in cs["models"])
    (cond,) = [c for c in meta["conditions"] if c["code"] == "clocksync-drift-worse"]
    assert "hca3" in cond["message"]
    # had the drift stayed, the end of the launch would be 2 % of its duration off
    drifted_ns = 0.02 * meta["load"]["wall_s"] * 1e9
    assert cs["residual_end"]["max_abs_ns"] < 0.1 * drifted_ns, cs["residual_end"]
    # a true drift of 20000 ppm (virtual clocks): the fitted model is the better one and stays
    # (large, so that the offset-only model's error a few ms after the sync stands above the
    # residual's noise on a loaded machine)
    out = tmp_path / "good"
    run_bench(lib, np, ["--ops", "delay", "--sizes", 10000, "--nrep", nrep, "--clocksync", "hca3",
                        "--procsync", "barrier", "--timer", "virtual", "--virtual-skew-ppm", 20000,
                        "--seed", 5, "--out", out])
    meta, _ = read_launch(out)
    assert meta["clock_sync"]["self_check"]["used"] == "drift-aware", meta["clock_sync"]["self_check"]
    assert meta["clock_sync"]["model"] == "linear"
    assert not [c for c in meta["conditions"] if c["code"] == "clocksync-drift-worse"]
    # an offset-only sync has nothing to check
    out = tmp_path / "offset"
    run_bench(lib, np, ["--ops", "delay", "--sizes", 10000, "--nrep", 20, "--clocksync", "hca3o",
                        "--procsync", "barrier", "--out", out])
    meta, _ = read_launch(out)
    assert meta["clock_sync"]["self_check"] is None


@pytest.mark.parametrize("args, needle", [
    (["--window-growth-max", 0], "--window-growth-max"),
    (["--window-growth-max", 2048], "--window-growth-max"),
    (["--switch-late-fraction", 0], "--switch-late-fraction"),
    (["--switch-late-fraction", "1.5"], "--switch-late-fraction"),
    (["--launch-budget-s", 0], "--launch-budget-s"),
    (["--launch-budget-s", "soon"], "--launch-budget-s"),
])
def test_bad_values_are_refused(lib, args, needle, tmp_path):
    assert_refused(lib, ["--ops", "delay", "--sizes", 1000] + args, needle, tmp_path)
